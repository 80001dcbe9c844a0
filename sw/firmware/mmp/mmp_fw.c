/* MMP protocol engine: the NI firmware behind the MMP host library
 * (sw/host/mmp). Contract: ip/mmp_protocol.h; design: docs/mmp.md.
 *
 * One event loop, no OS:
 *  - requests: the host writes send / receive / release requests into a ring
 *    in its communication buffer (pinned host memory), the count into the
 *    PCI interface's mailbox, and rings the doorbell; the firmware fetches
 *    the descriptors by DMA; sends go to a FIFO, receives are matched
 *    against the message management table (MMT) or posted;
 *  - user data is named by NI address: each page is looked up in the
 *    translation table the host's driver wrote into SDRAM at pin-down;
 *  - transmit: the head send is cut into chunks, each an MLX message (header
 *    from SDRAM + payload from host memory by DMA) into netbuf TX channel
 *    chunk % channels, only when the channel has room for the whole chunk;
 *  - receive: per RX channel, the 32-byte header is popped by the CPU, the
 *    message is found or entered in the MMT, matched with a posted receive
 *    (DMA straight into the user's buffer) or given room in the host's
 *    message buffer; the payload goes by DMA once it is all in the channel;
 *  - completions: a 32-byte record DMA'd into the communication buffer after
 *    the data (descriptors run in order, so the record lands last).
 * A DMA descriptor is queued only when it cannot wait on the network (TX room
 * and RX data are there), so the shared DMA queue never blocks on a peer that
 * waits for us. With nothing to do the CPU dozes until a doorbell, a netbuf
 * threshold or a DMA completion. */
#include <mlx.h>
#include <mmp_protocol.h>
#include <msg_trace.h>
#include <ni_dma.h>
#include <ni_intc.h>
#include <ni_memory_map.h>
#include <ni_mlcx.h>
#include <ni_netbuf.h>
#include <ni_pci.h>
#include <simctrl.h>

#include "fw.h"
#include "mmio.h"

#define SENDQ_SIZE 1024u         /* >= inline ring slots + the library's send handles */
#define POSTED_MAX 512u          /* >= the library's receive handles                 */
#define MMT_SIZE 512u            /* message management table entries                  */
#define STAGE_SLOTS 64u          /* SDRAM records and headers waiting for their DMA   */
#define MSGBUF_MAX_BLOCKS 65536u /* 16 MB of message buffer at most            */
#define NONE 0xFFFFu
#define NO_COOKIE 0xFFFFFFFFu
#define DISCARD_AREA 0x00200000u /* SDRAM sink for dropped payloads (a channel's worth) */
/* Received payload goes to the host in pieces of at least this many bytes
 * (or the chunk's rest): at the link's 3.2 Gbit/s 512 bytes arrive in
 * 1.3 us, against a descriptor's 0.2 us of set-up, so the DMA trails the
 * link by about a piece instead of a whole chunk (2 KB: 5 us) while the
 * descriptors cost under a fifth of the piece's time. A design choice of
 * this firmware; the real one's is not published. */
#define RX_PIECE 512u

enum { RESULT_SENT, RESULT_RECEIVED, RESULT_UNEXPECTED, RESULT_BYTES_IN, RESULT_ERRORS, RESULT_BYTES_OUT };
FW_RESULT_NAMES("messages sent,messages received,unexpected messages,bytes in,errors,bytes out");

/* The control block, the translation table and the fetched descriptors are
 * written by the host through PCI or by the DMA engine, behind the 603e's
 * cache: the firmware reads and writes them through the cache-inhibited view
 * of the SDRAM (ip/ni_memory_map.h), each access a bus transaction. */
static inline uint32_t sd32(uint32_t addr) { return *(volatile uint32_t *)(uintptr_t)NI_UNCACHED(addr); }
static inline void sd32_set(uint32_t addr, uint32_t v) { *(volatile uint32_t *)(uintptr_t)NI_UNCACHED(addr) = v; }
static inline uint32_t host(uint32_t bus) { return NI_HOST_WINDOW_BASE + bus; }

/* ---- configuration (firmware arguments and the host's init block) ------ */
static uint32_t g_bypass, g_channels, g_chunk_payload, g_chunk_max, g_node, g_verbose;
static uint32_t g_comm_bus, g_msgbuf_bus, g_msgbuf_bytes, g_records;
static uint32_t g_stats[6];

static void count(unsigned i, uint32_t n) { g_stats[i] += n; }

/* ---- DMA: descriptors are numbered (tickets); done when DONE_COUNT passes */
static uint32_t g_dma_issued;
static uint32_t g_dma_seen; /* DONE_COUNT as last read */
static uint32_t g_tx_ticket[NI_NETBUF_CHANNELS], g_rx_ticket[NI_NETBUF_CHANNELS];

static void dma_check_error(void) {
  if (mmio_read32(NI_DMA_BASE + DMA_STATUS) & DMA_STATUS_ERROR) {
    /* Addresses come from the library's own buffers: a failed descriptor is a
     * bug, and the ticket count would no longer match DONE_COUNT. */
    printf("mmp: DMA error (cause %u) at 0x%08x\n", (unsigned)mmio_read32(NI_DMA_BASE + DMA_ERR_CAUSE),
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

/* `trace`: DMA_CTRL_TRACE(tag) of the message the data belongs to, or 0
 * (ip/msg_trace.h: free, it rides in the CTRL store). */
static uint32_t dma(uint32_t src, uint32_t dst, uint32_t len, uint32_t trace) {
  while (DMA_STATUS_FREE(mmio_read32(NI_DMA_BASE + DMA_STATUS)) == 0) dma_check_error();
  mmio_write32(NI_DMA_BASE + DMA_SRC, src);
  mmio_write32(NI_DMA_BASE + DMA_DST, dst);
  mmio_write32(NI_DMA_BASE + DMA_LEN, len);
  /* IRQ: STATUS.DONE latches, so a doze armed later still sees it. */
  mmio_write32(NI_DMA_BASE + DMA_CTRL, DMA_CTRL_START | DMA_CTRL_IRQ | trace);
  return ++g_dma_issued;
}

/* For the simulator's message ledger (ip/msg_trace.h): the DMA trace bits of
 * message (node, seq), free in the CTRL store; and, with the trace-marks
 * argument only, a mark (one store) where only the firmware sees it pass. */
static uint32_t g_marks;

static inline uint32_t traced(uint32_t node, uint32_t seq) { return DMA_CTRL_TRACE(MSG_TAG(node, seq)); }

static inline void trace_mark(uint32_t event, uint32_t trace) {
  if (g_marks) mmio_write32(NI_SIMCTRL_BASE + SIMCTRL_TRACE_MARK, SIMCTRL_MARK(event, DMA_CTRL_TRACE_TAG(trace)));
}

/* SDRAM staging for records and headers, each read by the descriptor queued
 * right after it is filled. A slot is reused once that descriptor is done
 * (64 slots: normally long done, whatever the engine's queue depth). */
static uint32_t g_stage[STAGE_SLOTS][8] __attribute__((aligned(32)));
static uint32_t g_stage_ticket[STAGE_SLOTS];
static unsigned g_stage_next;

/* A free slot, through the cache-inhibited view: the DMA engine reads the
 * SDRAM, not the 603e's cache, so the stores must reach the SDRAM. */
static volatile uint32_t *stage(void) {
  const unsigned i = g_stage_next;
  while (!ticket_done(g_stage_ticket[i]))
    ;
  g_stage_ticket[i] = g_dma_issued + 1;
  g_stage_next = (i + 1) % STAGE_SLOTS;
  return (volatile uint32_t *)(uintptr_t)NI_UNCACHED((uint32_t)(uintptr_t)g_stage[i]);
}

/* The SDRAM address a DMA descriptor takes for a staged slot. */
static uint32_t staged_addr(volatile uint32_t *p) { return (uint32_t)(uintptr_t)p - NI_SDRAM_UNCACHED_BASE; }

/* Completion record `code` for the handle in `cookie`, after everything
 * queued so far; `seq` is the message's number (with `src` it names it),
 * `trace` its DMA trace bits (0 for a failed request). */
static void complete(uint32_t cookie, uint32_t code, uint32_t len, uint32_t offset, uint32_t src, uint32_t ports,
                     uint32_t tag, uint32_t seq, uint32_t trace) {
  const uint32_t index = MMP_COOKIE_INDEX(cookie);
  if (index >= g_records) {
    printf("mmp: completion for record %u of %u dropped\n", (unsigned)index, (unsigned)g_records);
    count(RESULT_ERRORS, 1);
    return;
  }
  volatile uint32_t *r = stage();
  r[0] = len;
  r[1] = offset;
  r[2] = src;
  r[3] = ports;
  r[4] = tag;
  r[5] = (uint32_t)tb_read();
  r[6] = seq;
  r[7] = MMP_STATUS_WORD(MMP_COOKIE_GEN(cookie), code);
  dma(staged_addr(r), host(g_comm_bus + MMP_COMM_RECORDS + index * MMP_RECORD_BYTES), MMP_RECORD_BYTES, trace);
}

/* ---- the real firmware's path length that no public source gives --------
 * (ip/mmp_fit.h): per request taken and per chunk sent or received, that
 * many instructions more on the 603e (one bdnz each), so that the work
 * occupies the CPU where the real firmware did it. */
static uint32_t g_request_insns, g_chunk_insns;

static void work(uint32_t insns) {
  if (insns > 0) __asm__ volatile("mtctr %0\n1: bdnz 1b" : : "r"(insns) : "ctr");
}

/* ---- address translation: the table the host's driver fills at pin-down -- */
#define NO_PAGE 0xFFFFFFFFu
struct xlate {
  uint32_t page, bus; /* the page a message looked up last (NO_PAGE: none) */
};

/* Bus address of NI address `nia`: its page's entry in the table (one
 * cache-inhibited load), unless the message looked that page up last. */
static uint32_t xlate(struct xlate *x, uint32_t nia) {
  const uint32_t page = nia / MMP_XLATE_PAGE;
  if (page != x->page) {
    const uint32_t e = page < MMP_XLATE_ENTRIES ? sd32(MMP_NI_XLATE_BASE + page * 4u) : 0;
    if (!(e & MMP_XLATE_VALID)) {
      /* The library names only memory it pinned: a bug, or memory unpinned
       * while a request still uses it. */
      printf("mmp: NI address 0x%08x is not pinned (translation entry %u: 0x%08x)\n", (unsigned)nia, (unsigned)page,
             (unsigned)e);
      fw_exit(5);
    }
    x->page = page;
    x->bus = e & ~(MMP_XLATE_PAGE - 1u);
  }
  return x->bus + nia % MMP_XLATE_PAGE;
}

/* Bytes from NI address nia on (at most n) that are contiguous on the bus;
 * *bus gets the first one's bus address. */
static uint32_t xlate_run(struct xlate *x, uint32_t nia, uint32_t n, uint32_t *bus) {
  *bus = xlate(x, nia);
  uint32_t run = MMP_XLATE_PAGE - nia % MMP_XLATE_PAGE;
  while (run < n && xlate(x, nia + run) == *bus + run) run += MMP_XLATE_PAGE;
  return run < n ? run : n;
}

/* ---- message buffer: first fit over MMP_MSGBUF_BLOCK blocks ------------ */
static uint32_t g_msgbuf_map[MSGBUF_MAX_BLOCKS / 32]; /* 1 = used */
static uint32_t g_msgbuf_blocks;

static int block_used(uint32_t b) { return (g_msgbuf_map[b / 32] >> (b % 32)) & 1u; }

static void mark_blocks(uint32_t first, uint32_t n, int used) {
  for (uint32_t b = first; b < first + n; b++) {
    if (used) g_msgbuf_map[b / 32] |= 1u << (b % 32);
    else g_msgbuf_map[b / 32] &= ~(1u << (b % 32));
  }
}

/* Offset of `bytes` of room, or -1. */
static int32_t msgbuf_alloc(uint32_t bytes) {
  const uint32_t n = (bytes + MMP_MSGBUF_BLOCK - 1) / MMP_MSGBUF_BLOCK;
  if (n == 0 || n > g_msgbuf_blocks) return -1;
  uint32_t run = 0;
  for (uint32_t b = 0; b < g_msgbuf_blocks; b++) {
    if (run == 0 && b % 32 == 0 && g_msgbuf_map[b / 32] == 0xFFFFFFFFu) {
      b += 31; /* a full word: skip it */
      continue;
    }
    run = block_used(b) ? 0 : run + 1;
    if (run == n) {
      mark_blocks(b + 1 - n, n, 1);
      return (int32_t)((b + 1 - n) * MMP_MSGBUF_BLOCK);
    }
  }
  return -1;
}

static void msgbuf_free(uint32_t offset, uint32_t bytes) {
  const uint32_t first = offset / MMP_MSGBUF_BLOCK, n = (bytes + MMP_MSGBUF_BLOCK - 1) / MMP_MSGBUF_BLOCK;
  if (offset % MMP_MSGBUF_BLOCK || first + n > g_msgbuf_blocks) {
    printf("mmp: release of %u bytes at %u ignored\n", (unsigned)bytes, (unsigned)offset);
    count(RESULT_ERRORS, 1);
    return;
  }
  mark_blocks(first, n, 0);
}

/* ---- sends ---------------------------------------------------------------- */
struct send {
  uint32_t dst, ports, tag, len, data, cookie, flags, seq, off, chunk, slot, trace; /* trace: traced(g_node, seq) */
  struct xlate x; /* data: NI address (inline: offset in the communication buffer) */
};
static struct send g_sendq[SENDQ_SIZE];
static uint32_t g_send_head, g_send_tail;      /* counters; head == tail: empty */
static uint32_t g_tx_need[NI_NETBUF_CHANNELS]; /* TX room the head send waits for (0: none) */

/* ---- request ring (in the host's communication buffer) ------------------- */
static uint32_t g_req_next;                /* the next request to take                     */
static uint32_t g_req_fetched;             /* requests whose descriptors are here or coming */
static uint32_t g_req_posted;              /* the host's count (the mailbox), as last read  */
static uint32_t g_req_free;                /* requests whose slot the host may reuse        */
static uint32_t g_req_published;           /* g_req_free as last written to the host        */
static uint8_t g_slot_busy[MMP_REQ_SLOTS]; /* an inline send still reads the slot */
static uint32_t g_slot_ticket[MMP_REQ_SLOTS];
static int g_finalizing;

/* ---- posted receives and the message management table ------------------- */
struct recv {
  uint32_t src, ports, tag, len, addr, cookie; /* ports: sender (31..16), receiver (15..0) */
  uint16_t next;
};
static struct recv g_recv[POSTED_MAX];
static uint16_t g_recv_head = NONE, g_recv_tail = NONE, g_recv_free = NONE;

enum { MODE_DIRECT, MODE_MSGBUF, MODE_DISCARD };
struct msg {
  uint32_t src, ports, tag, total, seq, received, dest, cookie, trace; /* trace: traced(src, seq) */
  uint8_t mode, complete, truncated, in_unexpected; /* in_unexpected: 1 listed (mmp-early: or UNMATCHED) */
  uint16_t next_active, next_unexp, next_free;
  struct xlate x; /* MODE_DIRECT: dest is the receive's NI address */
};
static struct msg g_mmt[MMT_SIZE];
static uint16_t g_active = NONE, g_unexp_head = NONE, g_unexp_tail = NONE, g_mmt_free = NONE;

/* Per RX channel: the header popped and the message it belongs to. */
struct rxch {
  int have_hdr;
  uint32_t src, ports, tag, total, offset, seq, flags, n;
  uint16_t msg;
  uint32_t moved; /* payload bytes of this chunk already on their way to the host */
  int bad;        /* inconsistent header: the payload is dropped */
  uint32_t need;  /* bytes the channel must hold before we can go on (0: not data-bound) */
};
static struct rxch g_rx[NI_NETBUF_CHANNELS];

static void tables_reset(void) {
  g_recv_head = g_recv_tail = NONE;
  g_recv_free = NONE;
  for (unsigned i = POSTED_MAX; i-- > 0;) {
    g_recv[i].next = g_recv_free;
    g_recv_free = (uint16_t)i;
  }
  g_active = g_unexp_head = g_unexp_tail = NONE;
  g_mmt_free = NONE;
  for (unsigned i = MMT_SIZE; i-- > 0;) {
    g_mmt[i].next_free = g_mmt_free;
    g_mmt_free = (uint16_t)i;
  }
}

static void unexp_remove(uint16_t m) {
  uint16_t prev = NONE;
  for (uint16_t i = g_unexp_head; i != NONE; prev = i, i = g_mmt[i].next_unexp) {
    if (i != m) continue;
    if (prev == NONE) g_unexp_head = g_mmt[i].next_unexp;
    else g_mmt[prev].next_unexp = g_mmt[i].next_unexp;
    if (g_unexp_tail == m) g_unexp_tail = prev;
    g_mmt[m].in_unexpected = 0;
    return;
  }
}

static void active_remove(uint16_t m) {
  uint16_t prev = NONE;
  for (uint16_t i = g_active; i != NONE; prev = i, i = g_mmt[i].next_active) {
    if (i != m) continue;
    if (prev == NONE) g_active = g_mmt[i].next_active;
    else g_mmt[prev].next_active = g_mmt[i].next_active;
    return;
  }
}

static void mmt_release(uint16_t m) {
  g_mmt[m].next_free = g_mmt_free;
  g_mmt_free = m;
}

/* A message whose data has all arrived (and whose DMAs are queued). */
static void message_complete(uint16_t m) {
  struct msg *e = &g_mmt[m];
  e->complete = 1;
  if (e->mode == MODE_MSGBUF && e->cookie == NO_COOKIE) return; /* unexpected: waits in the table for its receive */
  if (e->truncated) {
    if (e->mode == MODE_MSGBUF) msgbuf_free(e->dest, e->total);
    complete(e->cookie, MMP_ST_TRUNCATED, e->total, 0, e->src, e->ports, e->tag, e->seq, e->trace);
  } else if (e->mode == MODE_MSGBUF && e->total > 0) {
    complete(e->cookie, MMP_ST_DONE_MSGBUF, e->total, e->dest, e->src, e->ports, e->tag, e->seq, e->trace);
  } else {
    complete(e->cookie, MMP_ST_DONE, e->total, 0, e->src, e->ports, e->tag, e->seq, e->trace);
  }
  count(RESULT_RECEIVED, 1);
  mmt_release(m);
}

/* The host posted a receive: the oldest matching message in the table, else
 * the posted list. */
static void post_receive(uint32_t src, uint32_t ports, uint32_t tag, uint32_t len, uint32_t addr, uint32_t cookie) {
  for (uint16_t m = g_unexp_head; m != NONE; m = g_mmt[m].next_unexp) {
    struct msg *e = &g_mmt[m];
    if (e->src != src || e->ports != ports || e->tag != tag) continue;
    unexp_remove(m);
    e->cookie = cookie;
    e->truncated = e->total > len;
    if (e->complete) {
      e->complete = 0;
      message_complete(m);
    }
    return;
  }
  if (g_recv_free == NONE) {
    printf("mmp: more than %u receives posted\n", POSTED_MAX);
    count(RESULT_ERRORS, 1);
    complete(cookie, MMP_ST_ERROR, 0, 0, src, ports, tag, 0, 0);
    return;
  }
  const uint16_t r = g_recv_free;
  g_recv_free = g_recv[r].next;
  g_recv[r] = (struct recv){src, ports, tag, len, addr, cookie, NONE};
  if (g_recv_tail == NONE) g_recv_head = r;
  else g_recv[g_recv_tail].next = r;
  g_recv_tail = r;
}

/* Takes the oldest posted receive matching a message; NONE if there is none. */
static uint16_t take_receive(uint32_t src, uint32_t ports, uint32_t tag) {
  uint16_t prev = NONE;
  for (uint16_t r = g_recv_head; r != NONE; prev = r, r = g_recv[r].next) {
    const struct recv *p = &g_recv[r];
    if (p->src != src || p->ports != ports || p->tag != tag) continue;
    if (prev == NONE) g_recv_head = p->next;
    else g_recv[prev].next = p->next;
    if (g_recv_tail == r) g_recv_tail = prev;
    g_recv[r].next = g_recv_free;
    g_recv_free = r;
    return r;
  }
  return NONE;
}

#if MMP_FW_EARLY
/* ---- early entries (the mmp-early image) -----------------------------------
 * A later chunk on channel 1 can overtake its message's first chunk (channel
 * 0) in out-of-order switch boxes. The mmp image keeps it in its RX channel
 * until the first has created the entry, so channel 1 drains only when
 * channel 0 delivers; boxes that share their stations between the channels
 * can close a cycle through that (a 9-node chain of ooo2 boxes stalls:
 * docs/models/switchbox.md, deadlock avoidance). Here such a chunk creates the
 * entry itself, in the message buffer, and the message is matched when its
 * first chunk comes, in first-chunk order like every other message. Its own
 * image, not an argument: the calibrated runs overtake too, and any
 * instruction more on their path moves their results. */
#define UNMATCHED 2u         /* in_unexpected of an early entry: its first chunk has not come */
static uint32_t g_unmatched; /* early entries waiting for their first chunk */

/* chunk_entry has these lines inline: the mmp image stays as it was. */
static void unexp_append(uint16_t m) {
  g_mmt[m].in_unexpected = 1;
  if (g_unexp_tail == NONE) g_unexp_head = m;
  else g_mmt[g_unexp_tail].next_unexp = m;
  g_unexp_tail = m;
  count(RESULT_UNEXPECTED, 1);
}

/* An entry in the message buffer for later chunk c; NONE without an entry or
 * room (the chunk then waits, as a first chunk does). */
static uint16_t early_entry(const struct rxch *c) {
  if (g_mmt_free == NONE) return NONE;
  const int32_t off = msgbuf_alloc(c->total);
  if (off < 0) return NONE;
  const uint16_t m = g_mmt_free;
  struct msg *e = &g_mmt[m];
  g_mmt_free = e->next_free;
  *e = (struct msg){
      c->src,      c->ports, c->tag, c->total,  c->seq, 0,    (uint32_t)off, NO_COOKIE,   traced(c->src, c->seq),
      MODE_MSGBUF, 0,        0,      UNMATCHED, NONE,   NONE, NONE,          {NO_PAGE, 0}};
  e->next_active = g_active;
  g_active = m;
  g_unmatched++;
  return m;
}

/* The early entry of first chunk c, matched now: the oldest matching posted
 * receive (its data reaches it from the message buffer), else the unexpected
 * list. NONE if c's message has none. */
static uint16_t early_matched(const struct rxch *c) {
  for (uint16_t m = g_active; m != NONE; m = g_mmt[m].next_active) {
    struct msg *e = &g_mmt[m];
    if (e->src != c->src || e->seq != c->seq || e->in_unexpected != UNMATCHED) continue;
    g_unmatched--;
    e->in_unexpected = 0;
    const uint16_t r = take_receive(e->src, e->ports, e->tag);
    if (r == NONE) {
      unexp_append(m);
    } else {
      e->cookie = g_recv[r].cookie;
      e->truncated = e->total > g_recv[r].len;
    }
    return m;
  }
  return NONE;
}
#endif

/* The MMT entry a chunk belongs to; NONE while it cannot be decided yet
 * (no room, no entry free, or, in the mmp image, a later chunk ahead of its
 * first). */
static uint16_t chunk_entry(const struct rxch *c) {
  if (c->offset != 0) {
    for (uint16_t m = g_active; m != NONE; m = g_mmt[m].next_active)
      if (g_mmt[m].src == c->src && g_mmt[m].seq == c->seq) return m;
#if MMP_FW_EARLY
    return early_entry(c);
#else
    return NONE;
#endif
  }
#if MMP_FW_EARLY
  if (g_unmatched != 0) {
    const uint16_t m = early_matched(c);
    if (m != NONE) return m;
  }
#endif
  if (g_mmt_free == NONE) return NONE;
  const uint16_t m = g_mmt_free, next_free = g_mmt[m].next_free;
  struct msg *e = &g_mmt[m];
  *e = (struct msg){c->src,      c->ports, c->tag, c->total, c->seq, 0,    0,    NO_COOKIE,   traced(c->src, c->seq),
                    MODE_DIRECT, 0,        0,      0,        NONE,   NONE, NONE, {NO_PAGE, 0}};
  const uint16_t r = take_receive(c->src, c->ports, c->tag);
  if (r != NONE) {
    e->cookie = g_recv[r].cookie;
    e->dest = g_recv[r].addr;
    if (c->total > g_recv[r].len) {
      e->mode = MODE_DISCARD;
      e->truncated = 1;
    }
  } else if (c->total > 0) {
    const int32_t off = msgbuf_alloc(c->total);
    if (off < 0) {
      /* The entry stays free: put back its link, which the literal above
       * overwrote (else the free list ended here for the rest of the run). */
      e->next_free = next_free;
      return NONE; /* wait for room or for the receive */
    }
    e->mode = MODE_MSGBUF;
    e->dest = (uint32_t)off;
  } else {
    e->mode = MODE_MSGBUF; /* empty and unexpected: no room needed */
  }
  g_mmt_free = next_free;
  if (e->mode == MODE_MSGBUF && e->cookie == NO_COOKIE) {
    e->in_unexpected = 1;
    if (g_unexp_tail == NONE) g_unexp_head = m;
    else g_mmt[g_unexp_tail].next_unexp = m;
    g_unexp_tail = m;
    count(RESULT_UNEXPECTED, 1);
  }
  if (c->n < c->total) {
    e->next_active = g_active;
    g_active = m;
  }
  return m;
}

/* Moves n bytes from RX channel ch to NI address dst with the CPU (the
 * bypass for small payloads): the window pops bytes in address order. */
static void cpu_copy_rx(unsigned ch, uint32_t dst, uint32_t n) {
  const uint32_t win = NI_NETBUF_RX_WINDOW(ch);
  uint32_t i = 0;
  if ((dst & 3u) == 0)
    for (; i + 4 <= n; i += 4) *(volatile uint32_t *)(uintptr_t)(dst + i) = *(volatile uint32_t *)(uintptr_t)win;
  for (; i < n; i++) *(volatile uint8_t *)(uintptr_t)(dst + i) = *(volatile uint8_t *)(uintptr_t)win;
}

/* One step of RX channel ch; 1 if it did something. */
static int rx_step(unsigned ch) {
  struct rxch *c = &g_rx[ch];
  if (!c->have_hdr) {
    /* The last payload DMA must have popped its bytes before the CPU pops. */
    if (!ticket_done(g_rx_ticket[ch])) {
      c->need = 0;
      return 0;
    }
    c->need = MMP_WIRE_HEADER_BYTES;
    if (mmio_read32(NI_NETBUF_BASE + NETBUF_RX_AVAIL(ch)) < MMP_WIRE_HEADER_BYTES) return 0;
    const uint32_t win = NI_NETBUF_RX_WINDOW(ch);
    uint32_t h[8];
    for (unsigned i = 0; i < 8; i++) h[i] = *(volatile uint32_t *)(uintptr_t)win;
    const uint32_t len = MLX_HDR_LEN(h[1]);
    /* A chunk larger than the channel could never be read whole. */
    if (len < MMP_HDR_BYTES || len - MMP_HDR_BYTES > g_chunk_max || (h[7] >> 16) != MMP_WIRE_MAGIC ||
        ((h[7] >> 8) & 0xFFu) != MMP_KIND_DATA) {
      printf("mmp: channel %u: not an MMP chunk (%08x %08x %08x): stream lost\n", ch, (unsigned)h[0], (unsigned)h[1],
             (unsigned)h[7]);
      fw_exit(4);
    }
    c->src = MLX_HDR_SRC(h[0]);
    c->ports = h[2];
    c->tag = h[3];
    c->total = h[4];
    c->offset = h[5];
    c->seq = h[6];
    c->flags = h[7] & 0xFFu;
    c->n = len - MMP_HDR_BYTES;
    c->msg = NONE;
    c->moved = 0;
    c->have_hdr = 1;
    work(g_chunk_insns);
    c->bad = c->offset > c->total || c->n > c->total - c->offset;
    if (c->bad) {
      printf("mmp: channel %u: chunk of %u bytes at %u of a %u-byte message from node %u dropped\n", ch, (unsigned)c->n,
             (unsigned)c->offset, (unsigned)c->total, (unsigned)c->src);
      count(RESULT_ERRORS, 1);
    }
    if (g_verbose)
      printf("rx ch%u: from %u ports %08x tag %u total %u offset %u seq %u n %u\n", ch, (unsigned)c->src,
             (unsigned)c->ports, (unsigned)c->tag, (unsigned)c->total, (unsigned)c->offset, (unsigned)c->seq,
             (unsigned)c->n);
  }
  if (c->bad) {
    c->need = c->n;
    if (c->n > 0 && mmio_read32(NI_NETBUF_BASE + NETBUF_RX_AVAIL(ch)) < c->n) return 0;
    if (c->n > 0) g_rx_ticket[ch] = dma(NI_NETBUF_RX_WINDOW(ch), DISCARD_AREA, c->n, traced(c->src, c->seq));
    c->have_hdr = 0;
    c->need = 0;
    return 1;
  }
  if (c->msg == NONE) {
    c->msg = chunk_entry(c);
    if (c->msg == NONE) {
      if (g_verbose && c->need != 0)
        printf("rx ch%u: waits (offset %u, mmt %s)\n", ch, (unsigned)c->offset, g_mmt_free == NONE ? "full" : "ok");
      c->need = 0; /* waits for a request (room, receive) or the other channel */
      return 0;
    }
    if (g_verbose)
      printf("rx ch%u: entry %u mode %u dest 0x%x\n", ch, c->msg, g_mmt[c->msg].mode, (unsigned)g_mmt[c->msg].dest);
  }
  struct msg *e = &g_mmt[c->msg];
  if (c->n > 0) {
    /* The payload goes on to the host as it arrives, as the published data
     * path pipelines NI -> host behind SB -> NI (shared/spec/maestro2.md,
     * NI data flow), in pieces of at least RX_PIECE bytes: each is queued
     * only when its bytes are in the channel and the piece before has
     * popped its own (RX_AVAIL is then exact), so no descriptor ever waits
     * on the network. A bypassed (CPU-copied) payload goes whole. */
    if (!ticket_done(g_rx_ticket[ch])) {
      c->need = 0; /* the DMA completion wakes us */
      return 0;
    }
    const uint32_t left = c->n - c->moved;
    const uint32_t want = c->n <= g_bypass || left < RX_PIECE ? left : RX_PIECE;
    const uint32_t avail = mmio_read32(NI_NETBUF_BASE + NETBUF_RX_AVAIL(ch));
    if (avail < want) {
      c->need = want;
      return 0;
    }
    const uint32_t k = avail < left ? avail : left;
    for (uint32_t done = 0; done < k;) {
      /* A user buffer goes page run by page run (its NI address
       * translated); the message buffer and the discard area are
       * contiguous. */
      const uint32_t at = c->offset + c->moved + done;
      uint32_t dst, piece = k - done;
      if (e->mode == MODE_DIRECT) {
        uint32_t bus;
        piece = xlate_run(&e->x, e->dest + at, piece, &bus);
        dst = host(bus);
      } else if (e->mode == MODE_MSGBUF) {
        dst = host(g_msgbuf_bus + e->dest + at);
      } else {
        dst = DISCARD_AREA;
      }
      if (c->n <= g_bypass) cpu_copy_rx(ch, dst, piece);
      else g_rx_ticket[ch] = dma(NI_NETBUF_RX_WINDOW(ch), dst, piece, e->trace);
      done += piece;
    }
    c->moved += k;
    if (c->moved < c->n) {
      c->need = 0;
      return 1;
    }
  }
  count(RESULT_BYTES_IN, c->n);
  e->received += c->n;
  c->have_hdr = 0;
  c->need = 0;
  if (e->received >= e->total) {
    if (e->total > c->n) active_remove(c->msg);
    message_complete(c->msg);
  }
  return 1;
}

/* ---- transmit ------------------------------------------------------------- */
static void fill_header(volatile uint32_t *h, const struct send *s, uint32_t n) {
  const uint32_t bcast = s->flags & MMP_REQF_BROADCAST;
  h[0] = MLX_HDR_WORD0(bcast ? MLX_BROADCAST_ADDR : s->dst, g_node);
  h[1] = MLX_HDR_WORD1(bcast ? MLX_TYPE_BROADCAST : MLX_TYPE_UNICAST, MMP_HDR_BYTES + n);
  h[2] = s->ports;
  h[3] = s->tag;
  h[4] = s->len;
  h[5] = s->off;
  h[6] = s->seq;
  h[7] = MMP_KIND_WORD(MMP_KIND_DATA, (s->off + n >= s->len ? MMP_HFLAG_LAST : 0) | (bcast ? MMP_HFLAG_BROADCAST : 0));
}

/* Bytes queued for a TX channel by DMA and not yet known to be pushed: TX_FREE
 * does not count them yet, and a descriptor must never wait for room. */
#define TXQ_DEPTH 8u
static struct {
  uint32_t ticket[TXQ_DEPTH], bytes[TXQ_DEPTH];
  unsigned head, count;
  uint32_t committed;
} g_txq[NI_NETBUF_CHANNELS];

static uint32_t tx_committed(unsigned ch) {
  while (g_txq[ch].count && ticket_done(g_txq[ch].ticket[g_txq[ch].head])) {
    g_txq[ch].committed -= g_txq[ch].bytes[g_txq[ch].head];
    g_txq[ch].head = (g_txq[ch].head + 1) % TXQ_DEPTH;
    g_txq[ch].count--;
  }
  return g_txq[ch].committed;
}

static void tx_commit(unsigned ch, uint32_t ticket, uint32_t bytes) {
  const unsigned i = (g_txq[ch].head + g_txq[ch].count) % TXQ_DEPTH;
  g_txq[ch].ticket[i] = ticket;
  g_txq[ch].bytes[i] = bytes;
  g_txq[ch].count++;
  g_txq[ch].committed += bytes;
}

/* One chunk of the head send, if its channel has room; 1 if it did. */
static int tx_step(void) {
  for (unsigned ch = 0; ch < NI_NETBUF_CHANNELS; ch++) g_tx_need[ch] = 0;
  if (g_send_head == g_send_tail) return 0;
  struct send *s = &g_sendq[g_send_head % SENDQ_SIZE];
  const unsigned ch = s->chunk % g_channels;
  const uint32_t left = s->len - s->off, n = left < g_chunk_payload ? left : g_chunk_payload;
  const uint32_t bytes = MMP_WIRE_HEADER_BYTES + n;
  const uint32_t committed = tx_committed(ch);
  if (g_txq[ch].count == TXQ_DEPTH || mmio_read32(NI_NETBUF_BASE + NETBUF_TX_FREE(ch)) < committed + bytes) {
    /* Nothing pending: the threshold wakes us; else the DMA completion does. */
    g_tx_need[ch] = committed ? 0 : bytes;
    return 0;
  }
  work(g_chunk_insns);
  uint32_t hdr[8];
  fill_header(hdr, s, n);
  if (ticket_done(g_tx_ticket[ch])) {
    /* Nothing queued for this channel (the usual case when the chunks
     * alternate): the CPU pushes the header and spares the DMA engine a
     * descriptor while it still reads the previous chunk. */
    const uint32_t win = NI_NETBUF_TX_WINDOW(ch);
    for (unsigned i = 0; i < 8; i++) *(volatile uint32_t *)(uintptr_t)win = hdr[i];
  } else {
    volatile uint32_t *h = stage();
    for (unsigned i = 0; i < 8; i++) h[i] = hdr[i];
    g_tx_ticket[ch] = dma(staged_addr(h), NI_NETBUF_TX_WINDOW(ch), MMP_WIRE_HEADER_BYTES, s->trace);
  }
  for (uint32_t done = 0; done < n;) {
    /* An inline payload is in the communication buffer; user data goes
     * page run by page run, its NI address translated. */
    uint32_t bus, piece = n - done;
    if (s->flags & MMP_REQF_INLINE) bus = g_comm_bus + s->data + s->off + done;
    else piece = xlate_run(&s->x, s->data + s->off + done, piece, &bus);
    g_tx_ticket[ch] = dma(host(bus), NI_NETBUF_TX_WINDOW(ch), piece, s->trace);
    done += piece;
  }
  /* An inline slot is read until its last chunk's DMA is done (chunks may be
   * smaller than an inline payload); before that its ticket stays 0. */
  if ((s->flags & MMP_REQF_INLINE) && s->off + n >= s->len) {
    if (n > 0) g_slot_ticket[s->slot % MMP_REQ_SLOTS] = g_tx_ticket[ch];
    else g_slot_busy[s->slot % MMP_REQ_SLOTS] = 0;
  }
  if (!ticket_done(g_tx_ticket[ch])) tx_commit(ch, g_tx_ticket[ch], bytes);
  count(RESULT_BYTES_OUT, n);
  s->off += n;
  s->chunk++;
  if (s->off >= s->len) {
    if (!(s->flags & MMP_REQF_NO_RECORD))
      complete(s->cookie, MMP_ST_DONE, s->len, 0, g_node, s->ports, s->tag, s->seq, s->trace);
    count(RESULT_SENT, 1);
    g_send_head++;
  }
  return 1;
}

/* ---- requests --------------------------------------------------------------- */
static int queue_send(uint32_t n, uint32_t op, uint32_t cookie, uint32_t ports, uint32_t tag, uint32_t len,
                      uint32_t addr, uint32_t seq) {
  const uint32_t flags = MMP_REQ_GET_FLAGS(op), dst = MMP_REQ_GET_PEER(op);
  if (g_send_tail - g_send_head >= SENDQ_SIZE) return 0; /* full: the request stays in the ring */
  const int inline_ok = !(flags & MMP_REQF_INLINE) || len <= MMP_INLINE_MAX;
  const int bcast_ok = !(flags & MMP_REQF_BROADCAST) || len <= g_chunk_payload;
  if (dst >= MMP_MAX_NODES || !inline_ok || !bcast_ok) {
    printf("mmp: send of %u bytes to node %u refused\n", (unsigned)len, (unsigned)dst);
    count(RESULT_ERRORS, 1);
    if (!(flags & MMP_REQF_NO_RECORD)) complete(cookie, MMP_ST_ERROR, len, 0, g_node, ports, tag, seq, 0);
    return 1;
  }
  struct send *s = &g_sendq[g_send_tail % SENDQ_SIZE];
  /* Wire ports: sender (31..16), receiver (15..0) = the request's local, peer. */
  /* An inline payload is in the request's own slot, whatever ADDR says: the
   * slot is what the busy flag below keeps the host from rewriting. */
  const uint32_t data = (flags & MMP_REQF_INLINE) ? MMP_REQ_INLINE(n) : addr;
  *s = (struct send){dst, ports, tag, len, data, cookie, flags, seq, 0, 0, n, traced(g_node, seq), {NO_PAGE, 0}};
  trace_mark(SIMCTRL_MARK_SEND_TAKEN, s->trace);
  if (flags & MMP_REQF_INLINE) {
    g_slot_busy[n % MMP_REQ_SLOTS] = 1;
    g_slot_ticket[n % MMP_REQ_SLOTS] = 0; /* no DMA yet: busy until tx_step queues it */
  }
  g_send_tail++;
  return 1;
}

/* Fetches the descriptors the host has posted (by the mailbox's count) from
 * the communication buffer into SDRAM: one DMA for up to FETCH_MAX slots in
 * a row, so a burst of requests costs one PCI read. */
#define FETCH_MAX 8u
static uint32_t g_req_desc[MMP_REQ_SLOTS][8] __attribute__((aligned(32)));
static uint32_t g_req_ticket[MMP_REQ_SLOTS];

static void request_fetch(void) {
  if (g_req_fetched == g_req_posted) {
    const uint32_t posted = mmio_read32(NI_PCIIF_BASE + NIPCI_MAILBOX(MMP_MAILBOX_POSTED));
    if (posted - g_req_next > MMP_REQ_SLOTS || posted - g_req_fetched > MMP_REQ_SLOTS) {
      printf("mmp: the host says %u requests are posted, %u were taken: more than the ring holds\n", (unsigned)posted,
             (unsigned)g_req_next);
      fw_exit(4);
    }
    g_req_posted = posted;
  }
  if (g_req_fetched == g_req_posted) return;
  const unsigned i = g_req_fetched % MMP_REQ_SLOTS;
  uint32_t k = g_req_posted - g_req_fetched;
  if (k > MMP_REQ_SLOTS - i) k = MMP_REQ_SLOTS - i; /* up to the ring's end */
  if (k > FETCH_MAX) k = FETCH_MAX;
  const uint32_t t = dma(host(g_comm_bus + MMP_REQ_DESC(g_req_fetched)), (uint32_t)(uintptr_t)g_req_desc[i],
                         k * MMP_REQ_DESC_BYTES, 0);
  for (unsigned j = 0; j < k; j++) g_req_ticket[i + j] = t;
  g_req_fetched += k;
}

/* Takes one request; 1 if it did. */
static int request_step(void) {
  request_fetch();
  const unsigned i = g_req_next % MMP_REQ_SLOTS;
  if (g_req_next == g_req_fetched || !ticket_done(g_req_ticket[i])) return 0;
  const uint32_t d = (uint32_t)(uintptr_t)g_req_desc[i];
  if (sd32(d + MMP_REQ_SEQ) != g_req_next + 1) {
    printf("mmp: request %u: its ring slot holds 0x%08x\n", (unsigned)g_req_next, (unsigned)sd32(d + MMP_REQ_SEQ));
    fw_exit(4);
  }
  const uint32_t op = sd32(d + MMP_REQ_OP), cookie = sd32(d + MMP_REQ_COOKIE);
  const uint32_t ports = sd32(d + MMP_REQ_PORTS), tag = sd32(d + MMP_REQ_TAG);
  const uint32_t len = sd32(d + MMP_REQ_LEN), addr = sd32(d + MMP_REQ_ADDR), msg = sd32(d + MMP_REQ_MSG);
  switch (MMP_REQ_GET_OP(op)) {
    case MMP_OP_SEND:
      if (!queue_send(g_req_next, op, cookie, ports, tag, len, addr, msg)) return 0;
      break;
    case MMP_OP_RECV:
      /* Request ports: local (receiver), peer (sender); the table keeps the
       * wire's order: sender (31..16), receiver (15..0). */
      post_receive(MMP_REQ_GET_PEER(op), (ports << 16) | (ports >> 16), tag, len, addr, cookie);
      if (g_verbose)
        printf("recv posted: from %u ports %08x tag %u len %u\n", (unsigned)MMP_REQ_GET_PEER(op),
               (unsigned)((ports << 16) | (ports >> 16)), (unsigned)tag, (unsigned)len);
      break;
    case MMP_OP_RELEASE:
      msgbuf_free(addr, len);
      break;
    case MMP_OP_FINALIZE:
      g_finalizing = 1;
      break;
    default:
      printf("mmp: unknown request op %u ignored\n", (unsigned)MMP_REQ_GET_OP(op));
      count(RESULT_ERRORS, 1);
  }
  work(g_request_insns);
  g_req_next++;
  return 1;
}

/* Slots whose request is done may be reused by the host. */
static void retire_slots(void) {
  const uint32_t before = g_req_free;
  while (g_req_free != g_req_next) {
    const unsigned i = g_req_free % MMP_REQ_SLOTS;
    if (g_slot_busy[i]) {
      if (g_slot_ticket[i] == 0 || !ticket_done(g_slot_ticket[i])) break;
      g_slot_busy[i] = 0;
    }
    g_req_free++;
  }
  /* Published now and then (MMP_REQ_FREE_STEP): each time is a PCI write. */
  if (g_req_free != before && g_req_free - g_req_published >= MMP_REQ_FREE_STEP) {
    *(volatile uint32_t *)(uintptr_t)host(g_comm_bus + MMP_COMM_REQ_FREE) = g_req_free;
    g_req_published = g_req_free;
  }
}

/* ---- interrupts and dozing ------------------------------------------------ */
#define IRQ_LEVELS                                                                                                 \
  (1u << NI_IRQ_NETBUF_TX(0) | 1u << NI_IRQ_NETBUF_TX(1) | 1u << NI_IRQ_NETBUF_RX(0) | 1u << NI_IRQ_NETBUF_RX(1) | \
   1u << NI_IRQ_DMA_ERROR)

/* Only ends a doze: silences each source (at the device, or by masking a
 * level the main loop has not dealt with yet); main() arms them again. */
static volatile uint32_t g_doorbells; /* bits the handler took from the device */

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
  int did = 0;
  for (unsigned k = 0; k < 4 && request_step(); k++) did = 1;
  for (unsigned ch = 0; ch < g_channels; ch++) did |= rx_step(ch);
  did |= tx_step();
  retire_slots();
  return did;
}

/* Dozes until something may have changed: a doorbell (new request), a
 * channel reaching the threshold the loop waits for, a DMA completion. */
static void doze(void) {
  mmio_write32(NI_DMA_BASE + DMA_STATUS, DMA_STATUS_DONE);
  /* After clearing DONE: a DMA finishing from here on wakes us. */
  const uint32_t seen = g_dma_seen;
  if (step()) return;
  /* A DMA done during that look may have been seen only after an earlier
   * check of the same look had decided to wait for it; with nothing left in
   * flight DMA_DONE would not be armed below. Look again instead. */
  if (g_dma_seen != seen) return;
  uint32_t sources = 1u << NI_IRQ_DOORBELL | 1u << NI_IRQ_DMA_ERROR;
  if (g_dma_seen != g_dma_issued) sources |= 1u << NI_IRQ_DMA_DONE;
  for (unsigned ch = 0; ch < g_channels; ch++) {
    if (g_rx[ch].need) {
      mmio_write32(NI_NETBUF_BASE + NETBUF_RX_THRESHOLD(ch), g_rx[ch].need);
      sources |= 1u << NI_IRQ_NETBUF_RX(ch);
    }
    if (g_tx_need[ch]) {
      mmio_write32(NI_NETBUF_BASE + NETBUF_TX_THRESHOLD(ch), g_tx_need[ch]);
      sources |= 1u << NI_IRQ_NETBUF_TX(ch);
    }
  }
  const uint32_t saved = irq_disable();
  /* Old edges would wake us for nothing; every source is a level that is
   * still high if its condition holds. */
  mmio_write32(NI_INTC_BASE + INTC_PENDING, sources);
  mmio_write32(NI_INTC_BASE + INTC_ENABLE_SET, sources);
  cpu_idle();
  mmio_write32(NI_INTC_BASE + INTC_ENABLE_CLR, 0xFFFFFFFFu);
  irq_restore(saved);
}

/* ---- start-up ------------------------------------------------------------- */
static void wait_for_init(void) {
  sd32_set(MMP_NI_CTRL_BASE + MMP_CTRL_STATE, MMP_STATE_WAIT_INIT);
  const uint32_t saved = irq_disable();
  while (!((g_doorbells | mmio_read32(NI_PCIIF_BASE + NIPCI_DOORBELL)) & MMP_DOORBELL_INIT)) {
    mmio_write32(NI_INTC_BASE + INTC_ENABLE_SET, 1u << NI_IRQ_DOORBELL);
    cpu_idle();
  }
  mmio_write32(NI_INTC_BASE + INTC_ENABLE_CLR, 0xFFFFFFFFu);
  irq_restore(saved);
  mmio_write32(NI_PCIIF_BASE + NIPCI_DOORBELL, MMP_DOORBELL_INIT);
  g_doorbells = 0;
}

extern char __end[]; /* end of .bss (ni.ld) */

int main(void) {
  if ((uintptr_t)__end > MMP_NI_CTRL_BASE) {
    printf("mmp: the image (to 0x%08x) overlaps the shared areas at 0x%08x\n", (unsigned)(uintptr_t)__end,
           (unsigned)MMP_NI_CTRL_BASE);
    return 6;
  }
  const uint32_t channel = mmio_read32(NI_NETBUF_BASE + NETBUF_CHANNEL_BYTES);
  g_node = mmio_read32(NI_MLCX_BASE + MLCX_NODE_ADDR);
  g_bypass = fw_arg(MMP_ARG_BYPASS, MMP_BYPASS_DEFAULT);
  g_verbose = fw_arg(MMP_ARG_VERBOSE, 0);
  g_marks = fw_arg(MMP_ARG_TRACE_MARKS, 0);
  g_request_insns = fw_arg(MMP_ARG_REQUEST_INSNS, MMP_REQUEST_INSNS_DEFAULT);
  g_chunk_insns = fw_arg(MMP_ARG_CHUNK_INSNS, MMP_CHUNK_INSNS_DEFAULT);
  g_channels = fw_arg(MMP_ARG_CHANNELS, NI_NETBUF_CHANNELS);
  uint32_t chunk = fw_arg(MMP_ARG_CHUNK, channel);
  if (g_channels < 1 || g_channels > NI_NETBUF_CHANNELS || chunk % 32u || chunk > channel ||
      chunk <= MMP_WIRE_HEADER_BYTES || g_node >= MMP_MAX_NODES) {
    printf("mmp: bad arguments: channels %u, chunk %u (channel %u), node %u\n", (unsigned)g_channels, (unsigned)chunk,
           (unsigned)channel, (unsigned)g_node);
    return 3;
  }
  g_chunk_payload = chunk - MMP_WIRE_HEADER_BYTES;
  g_chunk_max = channel - MMP_WIRE_HEADER_BYTES; /* what a peer with larger chunks may send */
  if (DISCARD_AREA + g_chunk_max > MMP_NI_XLATE_BASE) {
    /* A dropped chunk would land on the translation table. */
    printf("mmp: a %u-byte channel does not fit the discard area below the translation table at 0x%08x\n",
           (unsigned)channel, (unsigned)MMP_NI_XLATE_BASE);
    return 6;
  }
  if (g_bypass > g_chunk_payload) g_bypass = g_chunk_payload;
  tables_reset();
  sd32_set(MMP_NI_CTRL_BASE + MMP_CTRL_VERSION, MMP_PROTOCOL_VERSION);
  sd32_set(MMP_NI_CTRL_BASE + MMP_CTRL_NODE, g_node);
  mmio_write32(NI_PCIIF_BASE + NIPCI_MAILBOX(MMP_MAILBOX_POSTED), 0);
  sd32_set(MMP_NI_CTRL_BASE + MMP_CTRL_MAGIC, MMP_FW_MAGIC);
  printf(
      "mmp firmware: node %u, %u channel(s), chunk %u bytes, bypass up to %u bytes, %u + %u instructions per "
      "request + chunk\n",
      (unsigned)g_node, (unsigned)g_channels, (unsigned)chunk, (unsigned)g_bypass, (unsigned)g_request_insns,
      (unsigned)g_chunk_insns);
  wait_for_init();
  g_comm_bus = sd32(MMP_NI_CTRL_BASE + MMP_CTRL_COMM_BUS);
  g_msgbuf_bus = sd32(MMP_NI_CTRL_BASE + MMP_CTRL_MSGBUF_BUS);
  g_msgbuf_bytes = sd32(MMP_NI_CTRL_BASE + MMP_CTRL_MSGBUF_BYTES);
  g_records = sd32(MMP_NI_CTRL_BASE + MMP_CTRL_RECORDS);
  if (g_records > MMP_MAX_RECORDS) g_records = MMP_MAX_RECORDS;
  g_msgbuf_blocks = g_msgbuf_bytes / MMP_MSGBUF_BLOCK;
  if (g_msgbuf_blocks > MSGBUF_MAX_BLOCKS) g_msgbuf_blocks = MSGBUF_MAX_BLOCKS;
  sd32_set(MMP_NI_CTRL_BASE + MMP_CTRL_STATE, MMP_STATE_RUNNING);
  /* Node first, then the ready word the host polls. */
  *(volatile uint32_t *)(uintptr_t)host(g_comm_bus + MMP_COMM_NODE) = g_node;
  *(volatile uint32_t *)(uintptr_t)host(g_comm_bus + MMP_COMM_READY) = MMP_FW_MAGIC;
  for (;;) {
    if (g_finalizing && g_send_head == g_send_tail && ticket_done(g_dma_issued)) break;
    if (!step()) doze();
  }
  sd32_set(MMP_NI_CTRL_BASE + MMP_CTRL_STATE, MMP_STATE_FINISHED);
  printf("mmp firmware: %u messages sent, %u received (%u unexpected), %u errors\n", (unsigned)g_stats[RESULT_SENT],
         (unsigned)g_stats[RESULT_RECEIVED], (unsigned)g_stats[RESULT_UNEXPECTED], (unsigned)g_stats[RESULT_ERRORS]);
  for (unsigned i = 0; i < 6; i++) fw_result(i, g_stats[i]);
  return 0;
}
