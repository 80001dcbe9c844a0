/* MSR[EE] control and the doze-until-interrupt idle (MSR[POW]). */
#include <ni_memory_map.h>

#include "fw.h"

static inline uint32_t mfmsr(void) {
  uint32_t msr;
  __asm__ volatile("mfmsr %0" : "=r"(msr));
  return msr;
}

static inline void mtmsr(uint32_t msr) { __asm__ volatile("mtmsr %0\n\tisync" : : "r"(msr) : "memory"); }

void irq_enable(void) { mtmsr(mfmsr() | PPC_MSR_EE); }

uint32_t irq_disable(void) {
  uint32_t msr = mfmsr();
  mtmsr(msr & ~PPC_MSR_EE);
  return msr;
}

void irq_restore(uint32_t saved_msr) { mtmsr((mfmsr() & ~PPC_MSR_EE) | (saved_msr & PPC_MSR_EE)); }

void cpu_idle(void) {
  uint32_t msr = mfmsr();
  /* sync drains pending stores before the doze (603e requirement). Setting
   * EE together with POW makes the wait atomic with the caller's checks: an
   * interrupt already pending is taken at once. Execution resumes after the
   * mtmsr once the interrupt handler has returned. */
  __asm__ volatile(
      "sync\n\t"
      "mtmsr %0\n\t"
      "isync"
      :
      : "r"(msr | PPC_MSR_POW | PPC_MSR_EE)
      : "memory");
  mtmsr(msr);
}
