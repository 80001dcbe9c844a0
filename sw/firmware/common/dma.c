/* State and error path of the polled DMA helpers (dma.h). */
#include "dma.h"

uint32_t fw_dma_started_count;

void fw_dma_fail(void) {
  printf("DMA error at 0x%08x\n", (unsigned)mmio_read32(NI_DMA_BASE + DMA_ERR_ADDR));
  fw_exit(2);
}
