/* Target for the GDB watchpoint test (tests/integration/test_gdb.cpp): GDB
 * watches the writes to watch_counter, the reads of watch_limit and the
 * accesses to the DMA engine's DONE_COUNT register, which fw_dma_copy polls.
 * Without GDB it prints watch_counter = 30 and the DMA copy's outcome. */
#include "dma.h"
#include "fw.h"

volatile uint32_t watch_counter = 0; /* written three times */
volatile uint32_t watch_limit = 3;   /* read once per round, and once more */
static uint8_t dma_src[64], dma_dst[64];

int main(void) {
  puts("gdb_watch: start");
  for (uint32_t i = 0; i < watch_limit; ++i) watch_counter = watch_counter + 10u; /* the watched store */
  for (unsigned i = 0; i < sizeof dma_src; ++i) dma_src[i] = (uint8_t)(i * 7u + 1u);
  fw_dma_copy((uint32_t)(uintptr_t)dma_src, (uint32_t)(uintptr_t)dma_dst, sizeof dma_src);
  printf("watch_counter = %u\n", (unsigned)watch_counter);
  printf("dma copy %s, done count %u\n", memcmp(dma_src, dma_dst, sizeof dma_src) == 0 ? "ok" : "BAD",
         (unsigned)mmio_read32(NI_DMA_BASE + DMA_DONE_COUNT));
  return 0;
}
