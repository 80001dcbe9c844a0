/* NI side of the node self-test (host application node_selftest): the host
 * puts a transfer request in the PCI interface's mailboxes and rings the
 * doorbell; this firmware moves the host's buffer into SDRAM by DMA (directly,
 * or through the network buffer in loopback), XORs every byte with a key,
 * moves the result back to the host's destination buffer by DMA and
 * interrupts the host. Exercises doorbell, interrupt controller, DMA in every
 * direction, the network buffer's flow control and the host interrupt. */
#include <ni_dma.h>
#include <ni_intc.h>
#include <ni_memory_map.h>
#include <ni_netbuf.h>
#include <ni_pci.h>

#include "fw.h"
#include "mmio.h"
#include "node_selftest.h"

#define WORK_BUFFER 0x01000000u /* SDRAM scratch area (16 MB in) */

static volatile uint32_t g_doorbells; /* pending doorbell bits seen by the handler */
static volatile uint32_t g_dma_done;  /* DMA completions signalled */
static volatile uint32_t g_dma_error;

void fw_external_interrupt(void) {
  const uint32_t status = mmio_read32(NI_INTC_BASE + INTC_STATUS);
  if (status & (1u << NI_IRQ_DOORBELL)) {
    const uint32_t bits = mmio_read32(NI_PCIIF_BASE + NIPCI_DOORBELL);
    mmio_write32(NI_PCIIF_BASE + NIPCI_DOORBELL, bits); /* acknowledge */
    g_doorbells |= bits;
  }
  if (status & (1u << NI_IRQ_DMA_DONE)) {
    mmio_write32(NI_DMA_BASE + DMA_STATUS, DMA_STATUS_DONE);
    g_dma_done++;
  }
  if (status & (1u << NI_IRQ_DMA_ERROR)) {
    g_dma_error = mmio_read32(NI_DMA_BASE + DMA_ERR_ADDR);
    mmio_write32(NI_DMA_BASE + DMA_STATUS, DMA_STATUS_ERROR);
  }
  mmio_write32(NI_INTC_BASE + INTC_PENDING, status);
}

/* Queues one descriptor; waits for a free queue slot first. */
static void dma_queue(uint32_t src, uint32_t dst, uint32_t len, int irq) {
  while (DMA_STATUS_FREE(mmio_read32(NI_DMA_BASE + DMA_STATUS)) == 0)
    ;
  mmio_write32(NI_DMA_BASE + DMA_SRC, src);
  mmio_write32(NI_DMA_BASE + DMA_DST, dst);
  mmio_write32(NI_DMA_BASE + DMA_LEN, len);
  mmio_write32(NI_DMA_BASE + DMA_CTRL, DMA_CTRL_START | (irq ? DMA_CTRL_IRQ : 0));
}

/* Waits (dozing) until the last queued descriptor signalled completion. */
static int dma_wait(void) {
  const uint32_t saved = irq_disable();
  while (!g_dma_done && !g_dma_error) cpu_idle();
  g_dma_done = 0;
  irq_restore(saved);
  if (g_dma_error) {
    printf("DMA error at 0x%08x\n", (unsigned)g_dma_error);
    g_dma_error = 0;
    return -1;
  }
  return 0;
}

/* src -> dst through the network buffer: host -> TX channel -> loopback ->
 * RX channel -> dst, one channel-sized chunk at a time (a chunk must fit in
 * the RX channel before the engine drains it). */
static int via_netbuf(unsigned ch, uint32_t src, uint32_t dst, uint32_t len) {
  const uint32_t chunk = mmio_read32(NI_NETBUF_BASE + NETBUF_CHANNEL_BYTES);
  for (uint32_t off = 0; off < len; off += chunk) {
    const uint32_t n = len - off < chunk ? len - off : chunk;
    dma_queue(src + off, NI_NETBUF_TX_WINDOW(ch), n, 0);
    dma_queue(NI_NETBUF_RX_WINDOW(ch), dst + off, n, 1);
    if (dma_wait() != 0) return -1;
  }
  return 0;
}

static uint32_t mailbox(unsigned i) { return mmio_read32(NI_PCIIF_BASE + NIPCI_MAILBOX(i)); }

static int transfer(void) {
  const uint32_t src = NI_HOST_WINDOW_BASE + mailbox(SELFTEST_MB_SRC);
  const uint32_t dst = NI_HOST_WINDOW_BASE + mailbox(SELFTEST_MB_DST);
  const uint32_t len = mailbox(SELFTEST_MB_LEN);
  const uint8_t key = (uint8_t)mailbox(SELFTEST_MB_KEY);
  const uint32_t path = mailbox(SELFTEST_MB_PATH);
  /* A work address that is not aligned either: the SDRAM side sees odd
   * offsets too. */
  const uint32_t work = WORK_BUFFER + (len & 7u);
  if (len > SELFTEST_MAX_LEN) return -1;
  if (path == SELFTEST_PATH_NETBUF) {
    if (via_netbuf(0, src, work, len) != 0) return -1;
  } else {
    dma_queue(src, work, len, 1);
    if (dma_wait() != 0) return -1;
  }
  volatile uint8_t *p = (volatile uint8_t *)(uintptr_t)work;
  for (uint32_t i = 0; i < len; i++) p[i] ^= key;
  if (path == SELFTEST_PATH_NETBUF) return via_netbuf(1, work, dst, len);
  dma_queue(work, dst, len, 1);
  return dma_wait();
}

int main(void) {
  mmio_write32(NI_INTC_BASE + INTC_ENABLE_SET, 1u << NI_IRQ_DOORBELL | 1u << NI_IRQ_DMA_DONE | 1u << NI_IRQ_DMA_ERROR);
  puts("node self-test firmware ready");
  unsigned transfers = 0;
  for (;;) {
    const uint32_t saved = irq_disable();
    while (!(g_doorbells & SELFTEST_DOORBELL)) cpu_idle();
    g_doorbells &= ~SELFTEST_DOORBELL;
    irq_restore(saved);
    const uint32_t cmd = mailbox(SELFTEST_MB_CMD);
    if (cmd == SELFTEST_CMD_QUIT) {
      printf("%u transfers done\n", transfers);
      fw_result(0, transfers);
      return 0;
    }
    const int rc = cmd == SELFTEST_CMD_TRANSFER ? transfer() : -2;
    if (rc == 0) transfers++;
    mmio_write32(NI_PCIIF_BASE + NIPCI_MAILBOX(SELFTEST_MB_STATUS), (uint32_t)rc);
    mmio_write32(NI_PCIIF_BASE + NIPCI_HOST_IRQ, SELFTEST_HOST_IRQ);
  }
}
