/* Ethernet emulation: the NI firmware behind the host's network driver
 * (models/host/tcpip/eth_driver.*). Contract: ip/eth_protocol.h; design:
 * docs/models/eth-firmware.md.
 *
 * One event loop, no OS:
 *  - transmit: the host puts a frame (an IP packet) in a transmit slot,
 *    counts it in a mailbox and rings the doorbell; the firmware fetches the
 *    descriptors by DMA and sends each frame as chunks (MLX messages) on
 *    netbuf TX channel 0, header by the CPU, payload by DMA from the host's
 *    buffer, only when the channel has room for the whole chunk; once a
 *    frame's last DMA is done, its slot is handed back (TX_DONE);
 *  - receive: per sender, a frame takes the next receive slot the host has
 *    given at its first chunk; each chunk's payload goes by DMA from RX
 *    channel 0 into that slot's buffer; after the last one, the descriptor
 *    (DMA, behind the data) and then the interrupt. With no slot free the
 *    chunk stays in the channel: the link's flow control holds the sender
 *    back, nothing is dropped;
 *  - interrupts to the host: one per received frame, unless the host has not
 *    yet cleared the previous one (its handler then takes both): Linux 2.4
 *    drivers had no NAPI and the spec names no coalescing on the NI.
 * A DMA descriptor is queued only when it cannot wait on the network. */
#include <eth_protocol.h>
#include <mlx.h>
#include <ni_dma.h>
#include <ni_intc.h>
#include <ni_memory_map.h>
#include <ni_mlcx.h>
#include <ni_netbuf.h>
#include <ni_pci.h>

#include "fw.h"
#include "mmio.h"

#define CH 0u                    /* every chunk on channel 0: frames stay in order */
#define DISCARD_AREA 0x00200000u /* SDRAM sink for dropped payloads (a channel's worth) */
#define FETCH_MAX 8u             /* transmit descriptors fetched by one DMA at most     */
#define STAGE_SLOTS 64u
#define TXQ_DEPTH 8u

enum { RESULT_SENT, RESULT_RECEIVED, RESULT_BYTES_OUT, RESULT_BYTES_IN, RESULT_ERRORS, RESULT_RX_FULL, RESULT_N };
FW_RESULT_NAMES("frames sent,frames received,bytes out,bytes in,errors,waits for a receive slot");
static uint32_t g_stats[RESULT_N];

static inline uint32_t sd32(uint32_t addr) { return *(volatile uint32_t *)(uintptr_t)NI_UNCACHED(addr); }
static inline void sd32_set(uint32_t addr, uint32_t v) { *(volatile uint32_t *)(uintptr_t)NI_UNCACHED(addr) = v; }
static inline uint32_t host(uint32_t bus) { return NI_HOST_WINDOW_BASE + bus; }

static uint32_t g_node, g_chunk_payload, g_chunk_max, g_verbose, g_frame_insns;
static uint32_t g_ring_bus, g_tx_slots, g_rx_slots;

/* Instructions of frame handling that the C here does not spend itself. */
static void work(uint32_t insns) {
  if (insns > 0) __asm__ volatile("mtctr %0\n1: bdnz 1b" : : "r"(insns) : "ctr");
}

/* ---- DMA: descriptors are numbered (tickets); done when DONE_COUNT passes */
static uint32_t g_dma_issued, g_dma_seen;

static void dma_check_error(void) {
  if (mmio_read32(NI_DMA_BASE + DMA_STATUS) & DMA_STATUS_ERROR) {
    printf("eth: DMA error (cause %u) at 0x%08x\n", (unsigned)mmio_read32(NI_DMA_BASE + DMA_ERR_CAUSE),
           (unsigned)mmio_read32(NI_DMA_BASE + DMA_ERR_ADDR));
    fw_exit(5);
  }
}

static int ticket_done(uint32_t t) {
  if ((int32_t)(g_dma_seen - t) >= 0) return 1;
  g_dma_seen = mmio_read32(NI_DMA_BASE + DMA_DONE_COUNT);
  if ((int32_t)(g_dma_seen - t) >= 0) return 1;
  dma_check_error();
  return 0;
}

static uint32_t dma(uint32_t src, uint32_t dst, uint32_t len) {
  while (DMA_STATUS_FREE(mmio_read32(NI_DMA_BASE + DMA_STATUS)) == 0) dma_check_error();
  mmio_write32(NI_DMA_BASE + DMA_SRC, src);
  mmio_write32(NI_DMA_BASE + DMA_DST, dst);
  mmio_write32(NI_DMA_BASE + DMA_LEN, len);
  mmio_write32(NI_DMA_BASE + DMA_CTRL, DMA_CTRL_START | DMA_CTRL_IRQ);
  return ++g_dma_issued;
}

/* SDRAM staging for descriptors and headers a DMA reads; reused once that
 * DMA is done. Through the cache-inhibited view: the engine reads SDRAM. */
static uint32_t g_stage[STAGE_SLOTS][8] __attribute__((aligned(32)));
static uint32_t g_stage_ticket[STAGE_SLOTS];
static unsigned g_stage_next;

static volatile uint32_t *stage(void) {
  const unsigned i = g_stage_next;
  while (!ticket_done(g_stage_ticket[i]))
    ;
  g_stage_ticket[i] = g_dma_issued + 1;
  g_stage_next = (i + 1) % STAGE_SLOTS;
  return (volatile uint32_t *)(uintptr_t)NI_UNCACHED((uint32_t)(uintptr_t)g_stage[i]);
}

static uint32_t staged_addr(volatile uint32_t *p) { return (uint32_t)(uintptr_t)p - NI_SDRAM_UNCACHED_BASE; }

/* ---- transmit --------------------------------------------------------------- */
static uint32_t g_txd[ETH_MAX_SLOTS][4] __attribute__((aligned(32))); /* fetched descriptors */
static uint32_t g_txd_ticket[ETH_MAX_SLOTS];
static uint32_t g_tx_frame_ticket[ETH_MAX_SLOTS]; /* the frame's last DMA */
static uint32_t g_tx_posted, g_tx_fetched, g_tx_next, g_tx_done, g_tx_published;
static uint32_t g_tx_off, g_tx_seq, g_tx_ch_ticket, g_tx_need;
static int g_tx_started; /* the head frame is checked and counted */
static struct {
  uint32_t ticket[TXQ_DEPTH], bytes[TXQ_DEPTH];
  unsigned head, count;
  uint32_t committed;
} g_txq;

static void tx_fetch(void) {
  if (g_tx_fetched == g_tx_posted) {
    const uint32_t posted = mmio_read32(NI_PCIIF_BASE + NIPCI_MAILBOX(ETH_MAILBOX_TX_POSTED));
    if (posted - g_tx_done > g_tx_slots) {
      printf("eth: the host says %u frames are posted, %u are done: more than the %u-slot ring holds\n",
             (unsigned)posted, (unsigned)g_tx_done, (unsigned)g_tx_slots);
      fw_exit(4);
    }
    g_tx_posted = posted;
  }
  if (g_tx_fetched == g_tx_posted) return;
  const unsigned i = g_tx_fetched % g_tx_slots;
  uint32_t k = g_tx_posted - g_tx_fetched;
  if (k > g_tx_slots - i) k = g_tx_slots - i;
  if (k > FETCH_MAX) k = FETCH_MAX;
  const uint32_t t = dma(host(g_ring_bus + ETH_TX_RING(g_tx_slots) + i * ETH_DESC_BYTES), (uint32_t)(uintptr_t)g_txd[i],
                         k * ETH_DESC_BYTES);
  for (unsigned j = 0; j < k; j++) g_txd_ticket[i + j] = t;
  g_tx_fetched += k;
}

/* Bytes queued for the TX channel by DMA that TX_FREE does not count yet. */
static uint32_t tx_committed(void) {
  while (g_txq.count && ticket_done(g_txq.ticket[g_txq.head])) {
    g_txq.committed -= g_txq.bytes[g_txq.head];
    g_txq.head = (g_txq.head + 1) % TXQ_DEPTH;
    g_txq.count--;
  }
  return g_txq.committed;
}

static void tx_commit(uint32_t ticket, uint32_t bytes) {
  g_txq.ticket[(g_txq.head + g_txq.count) % TXQ_DEPTH] = ticket;
  g_txq.bytes[(g_txq.head + g_txq.count) % TXQ_DEPTH] = bytes;
  g_txq.count++;
  g_txq.committed += bytes;
}

/* One chunk of the frame being sent; 1 if it did something. */
static int tx_step(void) {
  g_tx_need = 0;
  tx_fetch();
  if (g_tx_next == g_tx_fetched) return 0;
  const unsigned slot = g_tx_next % g_tx_slots;
  if (!ticket_done(g_txd_ticket[slot])) return 0;
  const uint32_t d = (uint32_t)(uintptr_t)g_txd[slot];
  const uint32_t dst = sd32(d + ETH_TXD_DST), len = sd32(d + ETH_TXD_LEN), buf = sd32(d + ETH_TXD_BUF);
  if (!g_tx_started) {
    if (sd32(d + ETH_TXD_SEQ) != g_tx_next + 1) {
      printf("eth: transmit frame %u: its ring slot holds 0x%08x\n", (unsigned)g_tx_next,
             (unsigned)sd32(d + ETH_TXD_SEQ));
      fw_exit(4);
    }
    if (dst >= ETH_MAX_NODES || dst == g_node || len == 0 || len > ETH_MTU) {
      printf("eth: frame of %u bytes to node %u refused\n", (unsigned)len, (unsigned)dst);
      g_stats[RESULT_ERRORS]++;
      g_tx_frame_ticket[slot] = g_dma_issued;
      g_tx_next++;
      return 1;
    }
    work(g_frame_insns);
    g_tx_started = 1;
  }
  const uint32_t left = len - g_tx_off, n = left < g_chunk_payload ? left : g_chunk_payload;
  const uint32_t bytes = ETH_WIRE_HEADER_BYTES + n;
  const uint32_t committed = tx_committed();
  if (g_txq.count == TXQ_DEPTH || mmio_read32(NI_NETBUF_BASE + NETBUF_TX_FREE(CH)) < committed + bytes) {
    g_tx_need = committed ? 0 : bytes; /* the threshold wakes us, else the DMA completion */
    return 0;
  }
  uint32_t h[8];
  h[0] = MLX_HDR_WORD0(dst, g_node);
  h[1] = MLX_HDR_WORD1(MLX_TYPE_UNICAST, ETH_HDR_BYTES + n);
  h[2] = ETH_KIND_WORD(g_tx_off + n >= len ? ETH_HFLAG_LAST : 0);
  h[3] = len;
  h[4] = g_tx_off;
  h[5] = g_tx_seq;
  h[6] = 0;
  h[7] = 0;
  if (ticket_done(g_tx_ch_ticket)) {
    /* Nothing queued for the channel: the CPU pushes the header. */
    const uint32_t win = NI_NETBUF_TX_WINDOW(CH);
    for (unsigned i = 0; i < 8; i++) *(volatile uint32_t *)(uintptr_t)win = h[i];
  } else {
    volatile uint32_t *s = stage();
    for (unsigned i = 0; i < 8; i++) s[i] = h[i];
    g_tx_ch_ticket = dma(staged_addr(s), NI_NETBUF_TX_WINDOW(CH), ETH_WIRE_HEADER_BYTES);
  }
  g_tx_ch_ticket = dma(host(buf + g_tx_off), NI_NETBUF_TX_WINDOW(CH), n);
  tx_commit(g_tx_ch_ticket, bytes);
  g_stats[RESULT_BYTES_OUT] += n;
  g_tx_off += n;
  if (g_tx_off >= len) {
    if (g_verbose) printf("eth: tx frame %u: %u bytes to node %u\n", (unsigned)g_tx_seq, (unsigned)len, (unsigned)dst);
    g_tx_frame_ticket[slot] = g_tx_ch_ticket;
    g_tx_off = 0;
    g_tx_started = 0;
    g_tx_seq++;
    g_tx_next++;
    g_stats[RESULT_SENT]++;
  }
  return 1;
}

/* Hands back the slots of frames whose data has left host memory. */
static void tx_retire(void) {
  while (g_tx_done != g_tx_next && ticket_done(g_tx_frame_ticket[g_tx_done % g_tx_slots])) g_tx_done++;
  if (g_tx_done != g_tx_published) {
    *(volatile uint32_t *)(uintptr_t)host(g_ring_bus + ETH_STAT_TX_DONE) = g_tx_done;
    g_tx_published = g_tx_done;
  }
}

/* ---- receive ------------------------------------------------------------------ */
struct frame { /* a sender's frame being received */
  uint32_t active, index, total, received, seq;
};
static struct frame g_frame[ETH_MAX_NODES];
static uint32_t g_rx_assigned, g_rx_given; /* frames given a slot; slots the host gave */
static uint32_t g_rx_ticket, g_irq_ticket, g_irq_want;
static struct {
  int have_hdr, bad;
  uint32_t src, total, offset, seq, n, need;
} g_rx;

/* A receive slot for a frame's first chunk, if the host has one free. */
static int rx_slot_free(void) {
  if (g_rx_assigned == g_rx_given) g_rx_given = mmio_read32(NI_PCIIF_BASE + NIPCI_MAILBOX(ETH_MAILBOX_RX_GIVEN));
  return g_rx_assigned != g_rx_given;
}

static int rx_step(void) {
  if (!g_rx.have_hdr) {
    /* The last payload DMA must have popped its bytes before the CPU pops. */
    if (!ticket_done(g_rx_ticket)) {
      g_rx.need = 0;
      return 0;
    }
    g_rx.need = ETH_WIRE_HEADER_BYTES;
    if (mmio_read32(NI_NETBUF_BASE + NETBUF_RX_AVAIL(CH)) < ETH_WIRE_HEADER_BYTES) return 0;
    const uint32_t win = NI_NETBUF_RX_WINDOW(CH);
    uint32_t h[8];
    for (unsigned i = 0; i < 8; i++) h[i] = *(volatile uint32_t *)(uintptr_t)win;
    const uint32_t len = MLX_HDR_LEN(h[1]);
    if (len < ETH_HDR_BYTES || len - ETH_HDR_BYTES > g_chunk_max || (h[2] >> 16) != ETH_WIRE_MAGIC) {
      printf("eth: not an eth chunk (%08x %08x %08x): stream lost\n", (unsigned)h[0], (unsigned)h[1], (unsigned)h[2]);
      fw_exit(4);
    }
    g_rx.src = MLX_HDR_SRC(h[0]);
    g_rx.total = h[3];
    g_rx.offset = h[4];
    g_rx.seq = h[5];
    g_rx.n = len - ETH_HDR_BYTES;
    g_rx.have_hdr = 1;
    const struct frame *f = g_rx.src < ETH_MAX_NODES ? &g_frame[g_rx.src] : 0;
    g_rx.bad = !f || g_rx.total == 0 || g_rx.total > ETH_MTU || g_rx.n > g_rx.total - g_rx.offset ||
               g_rx.offset > g_rx.total ||
               (g_rx.offset == 0 ? f->active : (!f->active || f->seq != g_rx.seq || f->received != g_rx.offset));
    if (g_rx.bad) {
      printf("eth: chunk of %u bytes at %u of a %u-byte frame %u from node %u dropped\n", (unsigned)g_rx.n,
             (unsigned)g_rx.offset, (unsigned)g_rx.total, (unsigned)g_rx.seq, (unsigned)g_rx.src);
      g_stats[RESULT_ERRORS]++;
    }
  }
  if (g_rx.bad) {
    g_rx.need = g_rx.n;
    if (g_rx.n > 0 && mmio_read32(NI_NETBUF_BASE + NETBUF_RX_AVAIL(CH)) < g_rx.n) return 0;
    if (g_rx.n > 0) g_rx_ticket = dma(NI_NETBUF_RX_WINDOW(CH), DISCARD_AREA, g_rx.n);
    g_rx.have_hdr = 0;
    g_rx.need = 0;
    return 1;
  }
  struct frame *f = &g_frame[g_rx.src];
  if (g_rx.offset == 0 && !f->active) {
    if (!rx_slot_free()) {
      if (g_rx.need != 0) g_stats[RESULT_RX_FULL]++; /* once per wait: need is 0 while waiting */
      g_rx.need = 0;                                 /* the host's ETH_DOORBELL_RX wakes us */
      return 0;
    }
    *f = (struct frame){1, g_rx_assigned++, g_rx.total, 0, g_rx.seq};
    work(g_frame_insns);
  }
  g_rx.need = g_rx.n;
  if (mmio_read32(NI_NETBUF_BASE + NETBUF_RX_AVAIL(CH)) < g_rx.n) return 0;
  const uint32_t slot = f->index % g_rx_slots;
  const uint32_t buf = g_ring_bus + ETH_RX_BUFS(g_tx_slots, g_rx_slots) + slot * ETH_BUF_BYTES;
  g_rx_ticket = dma(NI_NETBUF_RX_WINDOW(CH), host(buf + g_rx.offset), g_rx.n);
  f->received += g_rx.n;
  g_stats[RESULT_BYTES_IN] += g_rx.n;
  g_rx.have_hdr = 0;
  g_rx.need = 0;
  if (f->received == f->total) {
    /* The descriptor goes behind the data (the engine runs in order), the
     * interrupt once it is in host memory. */
    volatile uint32_t *r = stage();
    r[0] = f->total;
    r[1] = g_rx.src;
    r[2] = f->seq;
    r[3] = f->index + 1;
    g_irq_ticket =
        dma(staged_addr(r), host(g_ring_bus + ETH_RX_RING(g_tx_slots) + slot * ETH_DESC_BYTES), ETH_DESC_BYTES);
    g_irq_want = 1;
    f->active = 0;
    g_stats[RESULT_RECEIVED]++;
    if (g_verbose)
      printf("eth: rx frame %u: %u bytes from node %u into slot %u\n", (unsigned)f->seq, (unsigned)f->total,
             (unsigned)g_rx.src, (unsigned)slot);
  }
  return 1;
}

static void rx_interrupt(void) {
  if (g_irq_want && ticket_done(g_irq_ticket)) {
    mmio_write32(NI_PCIIF_BASE + NIPCI_HOST_IRQ, ETH_IRQ_RX);
    g_irq_want = 0;
  }
}

/* ---- interrupts and dozing ------------------------------------------------ */
#define IRQ_LEVELS (1u << NI_IRQ_NETBUF_TX(CH) | 1u << NI_IRQ_NETBUF_RX(CH) | 1u << NI_IRQ_DMA_ERROR)
static volatile uint32_t g_doorbells; /* bits the handler took from the device */

/* Only ends a doze: silences each source; the loop arms them again. */
void fw_external_interrupt(void) {
  const uint32_t status = mmio_read32(NI_INTC_BASE + INTC_STATUS);
  if (status & (1u << NI_IRQ_DOORBELL)) {
    const uint32_t bits = mmio_read32(NI_PCIIF_BASE + NIPCI_DOORBELL);
    mmio_write32(NI_PCIIF_BASE + NIPCI_DOORBELL, bits);
    g_doorbells |= bits;
  }
  if (status & (1u << NI_IRQ_DMA_DONE)) mmio_write32(NI_DMA_BASE + DMA_STATUS, DMA_STATUS_DONE);
  if (status & IRQ_LEVELS) mmio_write32(NI_INTC_BASE + INTC_ENABLE_CLR, status & IRQ_LEVELS);
  mmio_write32(NI_INTC_BASE + INTC_PENDING, status);
}

static int step(void) {
  int did = rx_step();
  did |= tx_step();
  tx_retire();
  rx_interrupt();
  return did;
}

static void doze(void) {
  mmio_write32(NI_DMA_BASE + DMA_STATUS, DMA_STATUS_DONE);
  const uint32_t seen = g_dma_seen;
  if (step()) return;
  if (g_dma_seen != seen) return;
  uint32_t sources = 1u << NI_IRQ_DOORBELL | 1u << NI_IRQ_DMA_ERROR;
  if (g_dma_seen != g_dma_issued) sources |= 1u << NI_IRQ_DMA_DONE;
  if (g_rx.need) {
    mmio_write32(NI_NETBUF_BASE + NETBUF_RX_THRESHOLD(CH), g_rx.need);
    sources |= 1u << NI_IRQ_NETBUF_RX(CH);
  }
  if (g_tx_need) {
    mmio_write32(NI_NETBUF_BASE + NETBUF_TX_THRESHOLD(CH), g_tx_need);
    sources |= 1u << NI_IRQ_NETBUF_TX(CH);
  }
  const uint32_t saved = irq_disable();
  mmio_write32(NI_INTC_BASE + INTC_PENDING, sources);
  mmio_write32(NI_INTC_BASE + INTC_ENABLE_SET, sources);
  /* A doorbell taken before interrupts were off is in g_doorbells. */
  if (!(g_doorbells & ETH_DOORBELL_DOWN)) cpu_idle();
  mmio_write32(NI_INTC_BASE + INTC_ENABLE_CLR, 0xFFFFFFFFu);
  irq_restore(saved);
}

/* ---- start-up ------------------------------------------------------------- */
static void wait_for_init(void) {
  sd32_set(ETH_NI_CTRL_BASE + ETH_CTRL_STATE, ETH_STATE_WAIT_INIT);
  const uint32_t saved = irq_disable();
  while (!((g_doorbells | mmio_read32(NI_PCIIF_BASE + NIPCI_DOORBELL)) & ETH_DOORBELL_INIT)) {
    mmio_write32(NI_INTC_BASE + INTC_ENABLE_SET, 1u << NI_IRQ_DOORBELL);
    cpu_idle();
  }
  mmio_write32(NI_INTC_BASE + INTC_ENABLE_CLR, 0xFFFFFFFFu);
  irq_restore(saved);
  mmio_write32(NI_PCIIF_BASE + NIPCI_DOORBELL, ETH_DOORBELL_INIT);
  g_doorbells &= ~ETH_DOORBELL_INIT;
}

extern char __end[]; /* end of .bss (ni.ld) */

int main(void) {
  if ((uintptr_t)__end > ETH_NI_CTRL_BASE) {
    printf("eth: the image (to 0x%08x) overlaps the control block at 0x%08x\n", (unsigned)(uintptr_t)__end,
           (unsigned)ETH_NI_CTRL_BASE);
    return 6;
  }
  const uint32_t channel = mmio_read32(NI_NETBUF_BASE + NETBUF_CHANNEL_BYTES);
  g_node = mmio_read32(NI_MLCX_BASE + MLCX_NODE_ADDR);
  const uint32_t chunk = fw_arg(ETH_ARG_CHUNK, channel);
  g_verbose = fw_arg(ETH_ARG_VERBOSE, 0);
  g_frame_insns = fw_arg(ETH_ARG_FRAME_INSNS, ETH_FRAME_INSNS_DEFAULT);
  if (chunk % 32u || chunk > channel || chunk <= ETH_WIRE_HEADER_BYTES || g_node >= ETH_MAX_NODES) {
    printf("eth: bad arguments: chunk %u bytes (a multiple of 32 above 32, at most the %u-byte channel), node %u\n",
           (unsigned)chunk, (unsigned)channel, (unsigned)g_node);
    return 3;
  }
  g_chunk_payload = chunk - ETH_WIRE_HEADER_BYTES;
  g_chunk_max = channel - ETH_WIRE_HEADER_BYTES;
  mmio_write32(NI_PCIIF_BASE + NIPCI_MAILBOX(ETH_MAILBOX_TX_POSTED), 0);
  mmio_write32(NI_PCIIF_BASE + NIPCI_MAILBOX(ETH_MAILBOX_RX_GIVEN), 0);
  sd32_set(ETH_NI_CTRL_BASE + ETH_CTRL_VERSION, ETH_PROTOCOL_VERSION);
  sd32_set(ETH_NI_CTRL_BASE + ETH_CTRL_NODE, g_node);
  sd32_set(ETH_NI_CTRL_BASE + ETH_CTRL_MAGIC, ETH_FW_MAGIC);
  printf("eth firmware: node %u, chunk %u bytes, %u instructions per frame\n", (unsigned)g_node, (unsigned)chunk,
         (unsigned)g_frame_insns);
  wait_for_init();
  g_ring_bus = sd32(ETH_NI_CTRL_BASE + ETH_CTRL_RING_BUS);
  g_tx_slots = sd32(ETH_NI_CTRL_BASE + ETH_CTRL_TX_SLOTS);
  g_rx_slots = sd32(ETH_NI_CTRL_BASE + ETH_CTRL_RX_SLOTS);
  if (g_tx_slots < 1 || g_tx_slots > ETH_MAX_SLOTS || g_rx_slots < 1 || g_rx_slots > ETH_MAX_SLOTS) {
    printf("eth: the host's rings have %u transmit and %u receive slots; expected 1..%u each\n", (unsigned)g_tx_slots,
           (unsigned)g_rx_slots, (unsigned)ETH_MAX_SLOTS);
    return 3;
  }
  g_rx_given = mmio_read32(NI_PCIIF_BASE + NIPCI_MAILBOX(ETH_MAILBOX_RX_GIVEN));
  sd32_set(ETH_NI_CTRL_BASE + ETH_CTRL_STATE, ETH_STATE_RUNNING);
  *(volatile uint32_t *)(uintptr_t)host(g_ring_bus + ETH_STAT_NODE) = g_node;
  *(volatile uint32_t *)(uintptr_t)host(g_ring_bus + ETH_STAT_READY) = ETH_FW_MAGIC;
  mmio_write32(NI_PCIIF_BASE + NIPCI_HOST_IRQ, ETH_IRQ_READY);
  for (;;) {
    if (g_doorbells & ETH_DOORBELL_DOWN) {
      /* What the host posted before it went down is still sent. */
      g_tx_posted = mmio_read32(NI_PCIIF_BASE + NIPCI_MAILBOX(ETH_MAILBOX_TX_POSTED));
      if (g_tx_done == g_tx_posted && ticket_done(g_dma_issued)) break;
    }
    if (!step()) doze();
  }
  sd32_set(ETH_NI_CTRL_BASE + ETH_CTRL_STATE, ETH_STATE_FINISHED);
  printf("eth firmware: %u frames sent, %u received, %u errors\n", (unsigned)g_stats[RESULT_SENT],
         (unsigned)g_stats[RESULT_RECEIVED], (unsigned)g_stats[RESULT_ERRORS]);
  for (unsigned i = 0; i < RESULT_N; i++) fw_result(i, g_stats[i]);
  return 0;
}
