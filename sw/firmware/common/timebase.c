/* Timebase (mftb/mftbu) and decrementer (mtdec/mfdec). Both tick at the TB
 * frequency the platform reports in SIMCTRL_TB_HZ. */
#include <ni_memory_map.h>
#include <simctrl.h>

#include "fw.h"
#include "fw_abi.h"
#include "mmio.h"

#define NS_PER_S 1000000000ull
#define US_PER_S 1000000ull

uint64_t tb_read(void) {
  uint32_t hi, lo, hi2;
  /* Re-read until TBU did not change around the TBL read, else a carry
   * between the two reads would tear the value. */
  do {
    __asm__ volatile("mftbu %0" : "=r"(hi));
    __asm__ volatile("mftb %0" : "=r"(lo));
    __asm__ volatile("mftbu %0" : "=r"(hi2));
  } while (hi != hi2);
  return ((uint64_t)hi << 32) | lo;
}

uint32_t tb_hz(void) {
  /* Fixed by the configuration: read the device only once. */
  static uint32_t hz;
  if (hz == 0) hz = mmio_read32(NI_SIMCTRL_BASE + SIMCTRL_TB_HZ);
  return hz;
}

/* Split into whole seconds and remainder so that ticks * scale never
 * overflows 64 bits (the remainder is below hz < 2^32). */
static uint64_t scale_ticks(uint64_t ticks, uint64_t per_second) {
  uint64_t hz = tb_hz();
  return (ticks / hz) * per_second + (ticks % hz) * per_second / hz;
}

uint64_t tb_to_ns(uint64_t ticks) { return scale_ticks(ticks, NS_PER_S); }

uint64_t tb_to_us(uint64_t ticks) { return scale_ticks(ticks, US_PER_S); }

uint64_t tb_from_us(uint64_t us) {
  uint64_t hz = tb_hz();
  return (us / US_PER_S) * hz + (us % US_PER_S) * hz / US_PER_S;
}

void tb_busy_wait_us(uint32_t us) {
  uint64_t end = tb_read() + tb_from_us(us);
  while (tb_read() < end) {
  }
}

void dec_write(uint32_t ticks) { __asm__ volatile("mtdec %0" : : "r"(ticks) : "memory"); }

uint32_t dec_read(void) {
  uint32_t v;
  __asm__ volatile("mfdec %0" : "=r"(v));
  return v;
}

void dec_disarm(void) { dec_write(((uint32_t)FW_DEC_MAX_HI << 16) | FW_DEC_MAX_LO); }

void dec_sleep_us(uint32_t us) {
  uint64_t ticks = tb_from_us(us);
  uint32_t dec_max = ((uint32_t)FW_DEC_MAX_HI << 16) | FW_DEC_MAX_LO;
  if (ticks == 0) ticks = 1;
  if (ticks > dec_max) ticks = dec_max;

  /* EE off while arming and checking, so the exception cannot slip in
   * between the check and the doze (cpu_idle enables EE atomically). */
  uint32_t msr = irq_disable();
  uint32_t start = fw_decrementer_events();
  dec_write((uint32_t)ticks);
  while (fw_decrementer_events() == start) cpu_idle();
  irq_restore(msr);
}
