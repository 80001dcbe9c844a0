/* Simulation-control device (ip/simctrl.h): exit code, results, sim time. */
#include <ni_memory_map.h>
#include <simctrl.h>

#include "fw.h"
#include "mmio.h"

void fw_exit(int code) {
  mmio_write32(NI_SIMCTRL_BASE + SIMCTRL_EXIT, (uint32_t)code);
  /* The simulator may take a moment to stop this CPU: wait quietly. */
  for (;;) cpu_idle();
}

void fw_result(unsigned index, uint32_t value) {
  if (index < SIMCTRL_NUM_RESULTS) mmio_write32(NI_SIMCTRL_BASE + SIMCTRL_RESULT(index), value);
}

uint64_t sim_time_ns(void) {
  /* LO first: reading it latches HI, so the pair is consistent. */
  uint32_t lo = mmio_read32(NI_SIMCTRL_BASE + SIMCTRL_TIME_LO);
  uint32_t hi = mmio_read32(NI_SIMCTRL_BASE + SIMCTRL_TIME_HI);
  return ((uint64_t)hi << 32) | lo;
}

uint32_t cpu_hz(void) { return mmio_read32(NI_SIMCTRL_BASE + SIMCTRL_CPU_HZ); }

unsigned fw_num_args(void) { return mmio_read32(NI_SIMCTRL_BASE + SIMCTRL_NUM_ARGS); }

uint32_t fw_arg(unsigned index, uint32_t fallback) {
  return index < fw_num_args() ? mmio_read32(NI_SIMCTRL_BASE + SIMCTRL_ARG(index)) : fallback;
}
