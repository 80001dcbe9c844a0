/* Polled use of the NI's DMA engine (ip/ni_dma.h). Descriptors are counted
 * as they are started and DONE_COUNT tells how many have completed.
 * fw_dma_start queues one descriptor (the caller keeps no more outstanding
 * than the engine's queue holds) and returns its number; fw_dma_wait(n)
 * returns when descriptors up to n have completed (a DMA error prints its
 * address and exits with 2); fw_dma_copy does both. Inline: these sit on the
 * latency path of the NI-level benchmarks. */
#ifndef M2FW_DMA_H
#define M2FW_DMA_H

#include <ni_dma.h>
#include <ni_memory_map.h>
#include <stdint.h>

#include "fw.h"
#include "mmio.h"

extern uint32_t fw_dma_started_count; /* descriptors started since reset (mod 2^32), dma.c */

static inline uint32_t fw_dma_start(uint32_t src, uint32_t dst, uint32_t len) {
  mmio_write32(NI_DMA_BASE + DMA_SRC, src);
  mmio_write32(NI_DMA_BASE + DMA_DST, dst);
  mmio_write32(NI_DMA_BASE + DMA_LEN, len);
  mmio_write32(NI_DMA_BASE + DMA_CTRL, DMA_CTRL_START);
  return ++fw_dma_started_count;
}

static inline uint32_t fw_dma_started(void) { return fw_dma_started_count; }

/* Reports a DMA error (address) and exits with 2. */
void fw_dma_fail(void) FW_NORETURN;

/* Checks for an error now and then only, so that the loop stays one
 * register read. */
static inline void fw_dma_wait(uint32_t count) {
  uint32_t spins = 0;
  while ((int32_t)(mmio_read32(NI_DMA_BASE + DMA_DONE_COUNT) - count) < 0)
    if ((++spins & 0x3FFu) == 0 && (mmio_read32(NI_DMA_BASE + DMA_STATUS) & DMA_STATUS_ERROR)) fw_dma_fail();
}

static inline void fw_dma_copy(uint32_t src, uint32_t dst, uint32_t len) { fw_dma_wait(fw_dma_start(src, dst, len)); }

#endif
