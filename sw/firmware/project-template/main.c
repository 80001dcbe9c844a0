/* @NAME@: a starting point for NI firmware. It prints to the console, moves
 * a buffer through the NI's DMA engine, checks it byte for byte, times the
 * copy with the timebase and reports both as results (stats.tsv and the run
 * report name them after FW_RESULT_NAMES). The API: fw.h (console, results,
 * timebase, decrementer, interrupts), dma.h (polled DMA), mmio.h (device
 * registers), and the register maps in the platform's ip/ folder. */
#include <ni_memory_map.h>

#include "dma.h"
#include "fw.h"

#define BYTES 4096u

/* .bss: zeroed by the start-up code. MMU off: addresses are bus addresses. */
static uint8_t src[BYTES] __attribute__((aligned(32)));
static uint8_t dst[BYTES] __attribute__((aligned(32)));

int main(void) {
  printf("@NAME@: hello from the NI's PowerPC 603e at %u MHz\n", (unsigned)(cpu_hz() / 1000000u));

  for (unsigned i = 0; i < BYTES; i++) src[i] = (uint8_t)(i * 7u + 1u);

  const uint64_t t0 = tb_read();
  fw_dma_copy((uint32_t)(uintptr_t)src, (uint32_t)(uintptr_t)dst, BYTES);
  const uint64_t t1 = tb_read();

  unsigned wrong = 0;
  for (unsigned i = 0; i < BYTES; i++) wrong += dst[i] != src[i];
  const uint32_t ns = (uint32_t)tb_to_ns(t1 - t0);
  printf("@NAME@: DMA copied %u bytes in %u ns, %u wrong\n", BYTES, (unsigned)ns, wrong);
  fw_result(0, BYTES - wrong);
  fw_result(1, ns);
  return wrong ? 1 : 0; /* the run's exit code */
}

FW_RESULT_NAMES("bytes copied intact,copy time ns");
