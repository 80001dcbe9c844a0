/* libFuzzer target: the host MMP library (sw/host/mmp/mmp.c, mmp_pin.c, mmp_xlate.c)
 * decoding what the NI writes back: completion records (status code, generation,
 * length, message-buffer offset, source, message number), the communication
 * buffer's READY, NODE and REQ_FREE words, and the control block. A fake driver plays the NI and takes every answer
 * from the fuzz input; the library must never read or write outside the buffers it owns, never return more bytes than
 * the receive buffer holds, and finish every call (errors such as MMP_ENI / MMP_ETIMEDOUT are fine), and every request
 * it posts with data must name pages it entered into the NI's translation table (an inline send: its own slot).
 *
 * The library's files are included, not linked: each input starts from a
 * fresh per-host state (mmp.c's statics), as a fresh simulated host would. */
#include "../sw/host/mmp/mmp.c"
#include "../sw/host/mmp/mmp_pin.c"
#include "../sw/host/mmp/mmp_xlate.c"

#include <stdarg.h>
#include <stdio.h>

/* ---- the fuzz input as the NI's answers ----------------------------------- */

static const uint8_t *g_in;
static size_t g_left;
static double g_now_us;
static uint32_t g_requests, g_finalize_posted;

static uint8_t next8(void) {
  if (g_left == 0) return 0;
  g_left--;
  return *g_in++;
}

static uint32_t next32(void) {
  uint32_t v = 0;
  for (int i = 0; i < 4; i++) v = v << 8 | next8();
  return v;
}

/* ---- host environment (host/host_env.h) ------------------------------------ */

int m2host_id(void) { return 0; }
int m2host_count(void) { return 2; }
double m2host_now_us(void) { return g_now_us += 100.0; } /* time runs: every wait ends */
void m2host_compute_ns(double ns) { g_now_us += ns / 1000.0; }
void m2host_compute_cycles(uint64_t cycles) { g_now_us += (double)cycles / 1000.0; }
/* Nothing here is host physical memory but what m2drv_alloc_pinned gives
 * (the library no longer asks this for its own buffers). */
int m2host_bus_address(const void *p, uint64_t *bus_addr) {
  (void)p, (void)bus_addr;
  return -1;
}

/* The fake bus: pinned buffers get 32-bit bus addresses of their own (the
 * library refuses addresses above 4 GB, where a PIE's heap pointers are),
 * and the translation entries the library writes are kept, so that every
 * posted request's NI address can be checked against them. */
static uint64_t g_next_bus;
static uint32_t g_xlate[MMP_XLATE_ENTRIES];

static void check_posted(const uint8_t *desc) {
  uint32_t w[8];
  memcpy(w, desc, sizeof w);
  const uint32_t op = m2drv_from_be32(w[MMP_REQ_OP / 4]), len = m2drv_from_be32(w[MMP_REQ_LEN / 4]);
  const uint32_t addr = m2drv_from_be32(w[MMP_REQ_ADDR / 4]);
  const unsigned kind = MMP_REQ_GET_OP(op);
  if ((kind != MMP_OP_SEND && kind != MMP_OP_RECV) || len == 0) return;
  if (kind == MMP_OP_SEND && (MMP_REQ_GET_FLAGS(op) & MMP_REQF_INLINE)) {
    if (addr != MMP_REQ_INLINE(m2drv_from_be32(w[MMP_REQ_SEQ / 4]) - 1) || len > MMP_INLINE_MAX) abort();
    return;
  }
  /* Every page of the data must be entered in the NI's table. */
  for (uint64_t a = addr; a < (uint64_t)addr + len; a = (a / MMP_XLATE_PAGE + 1) * MMP_XLATE_PAGE)
    if (a / MMP_XLATE_PAGE >= MMP_XLATE_ENTRIES || !(g_xlate[a / MMP_XLATE_PAGE] & MMP_XLATE_VALID)) abort();
}
void *m2host_memcpy(void *dst, const void *src, size_t bytes) { return memmove(dst, src, bytes); }
void m2host_printf(const char *fmt, ...) { (void)fmt; }
void m2host_msg_send(int src_node, uint32_t seq, int dst_node, uint64_t bytes, uint32_t tag) {
  (void)src_node, (void)seq, (void)dst_node, (void)bytes, (void)tag;
}
void m2host_msg_event(int event, int src_node, uint32_t seq) { (void)event, (void)src_node, (void)seq; }
void m2host_activity(int layer, const char *what) { (void)layer, (void)what; }

/* ---- the driver, answering as the fuzz input says ---------------------------- */

struct m2drv {
  int open;
};
static struct m2drv g_drv;

m2drv *m2drv_open(int ni) {
  (void)ni;
  g_drv.open = 1;
  return &g_drv;
}
void m2drv_close(m2drv *d) { d->open = 0; }
void m2drv_doorbell(m2drv *d, uint32_t bits) { (void)d, (void)bits; }

/* The mailbox write after each request: the descriptor is in the
 * communication buffer; note a FINALIZE so that the state can follow, and
 * answer with REQ_FREE (mostly the honest count). */
void m2drv_reg_write(m2drv *d, uint32_t offset, uint32_t value) {
  (void)d;
  struct host *H = g_hosts[0];
  if (offset != NIPCI_MAILBOX(MMP_MAILBOX_POSTED) || !H || !H->comm.addr || value == 0) return;
  const uint8_t *desc = (const uint8_t *)H->comm.addr + MMP_REQ_DESC(value - 1);
  check_posted(desc);
  uint32_t op;
  memcpy(&op, desc + MMP_REQ_OP, 4);
  if (MMP_REQ_GET_OP(m2drv_from_be32(op)) == MMP_OP_FINALIZE) g_finalize_posted = 1;
  g_requests++;
  const int honest = (next8() & 7) != 0;
  *comm_word(H, MMP_COMM_REQ_FREE) = m2drv_to_be32(honest ? g_requests : next32());
}

int m2drv_sdram_write(m2drv *d, uint32_t ni_addr, const void *src, size_t bytes) {
  (void)d;
  /* Translation entries are kept (big-endian, as the NI reads them); the
   * control block is not needed. */
  if (ni_addr >= MMP_NI_XLATE_BASE && ni_addr - MMP_NI_XLATE_BASE + bytes <= sizeof g_xlate) {
    const uint8_t *b = src;
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
      uint32_t raw;
      memcpy(&raw, b + i, 4);
      g_xlate[(ni_addr - MMP_NI_XLATE_BASE + i) / 4] = m2drv_from_be32(raw);
    }
  }
  return 0;
}

int m2drv_sdram_write32(m2drv *d, uint32_t ni_addr, uint32_t value) { return m2drv_sdram_write(d, ni_addr, &value, 4); }

int m2drv_sdram_read32(m2drv *d, uint32_t ni_addr, uint32_t *value) {
  (void)d;
  /* Mostly the right answers, sometimes whatever the input says. */
  const int honest = (next8() & 7) != 0;
  switch (ni_addr - MMP_NI_CTRL_BASE) {
    case MMP_CTRL_MAGIC:
      *value = honest ? MMP_FW_MAGIC : next32();
      break;
    case MMP_CTRL_VERSION:
      *value = honest ? MMP_PROTOCOL_VERSION : next32();
      break;
    case MMP_CTRL_STATE:
      *value = honest ? (g_finalize_posted ? MMP_STATE_FINISHED : MMP_STATE_WAIT_INIT) : next32();
      break;
    default:
      *value = next32();
      break;
  }
  return 0;
}

int m2drv_sdram_read(m2drv *d, uint32_t ni_addr, void *dst, size_t bytes) {
  (void)d, (void)ni_addr;
  for (size_t i = 0; i < bytes; i++) ((uint8_t *)dst)[i] = next8();
  return 0;
}

int m2drv_alloc_pinned(m2drv *d, size_t bytes, m2drv_buffer *out) {
  (void)d;
  if (g_next_bus + bytes > 0xF0000000ull) return -1; /* the fake bus is full */
  out->addr = calloc(1, bytes);
  if (!out->addr) return -1;
  out->bus = g_next_bus;
  g_next_bus += (bytes + 2 * 4096 - 1) / 4096 * 4096; /* page-aligned, a page apart */
  out->bytes = bytes;
  return 0;
}

void m2drv_free_pinned(m2drv *d, m2drv_buffer *b) {
  (void)d;
  free(b->addr);
  b->addr = NULL;
}

/* Ordinary heap: not in "physical memory", so the library bounces it. */
int m2drv_pin(m2drv *d, const void *p, size_t bytes, uint64_t *bus) {
  (void)d, (void)p, (void)bytes, (void)bus;
  return -1;
}
int m2drv_unpin(m2drv *d, const void *p, size_t bytes) {
  (void)d, (void)p, (void)bytes;
  return 0;
}

/* The NI's answer to a poll: the status page's READY word, or a completion
 * record with every field from the input. */
int m2drv_poll_be32(m2drv *d, const volatile uint32_t *word, uint32_t mask, uint32_t value, double timeout_us) {
  (void)d, (void)timeout_us;
  const uint8_t how = next8();
  if (how % 8 == 0) return -1; /* the NI never answers: a timeout */
  volatile uint32_t *w = (volatile uint32_t *)word;
  if (mask == 0xFFFFFFFFu) { /* READY */
    *w = m2drv_to_be32(how % 8 == 1 ? next32() : value);
    return (m2drv_from_be32(*w) & mask) == value ? 0 : -1;
  }
  /* A record: STATUS is its last word. */
  volatile uint32_t *rec = w - MMP_REC_STATUS / 4;
  const uint32_t len = how & 0x10 ? next32() : next32() & 0x3FFFFu;
  rec[MMP_REC_LEN / 4] = m2drv_to_be32(len);
  rec[MMP_REC_OFFSET / 4] = m2drv_to_be32(how & 0x20 ? next32() : next32() & 0x3FFFFu);
  rec[MMP_REC_SRC / 4] = m2drv_to_be32(next32());
  rec[MMP_REC_MSG / 4] = m2drv_to_be32(next32());
  const uint32_t gen = how & 0x40 ? next32() & 0xFFFF0000u : value;
  *w = m2drv_to_be32(gen | (next8() % 6));
  return (m2drv_from_be32(*w) & mask) == value ? 0 : -1;
}

/* ---- one simulated application per input -------------------------------------- */

static void reset_host(void) {
  struct host *H = g_hosts[0];
  if (!H) return;
  /* What a failed call left behind (the real host's memory ends with it). */
  teardown(H);
  for (size_t i = 0; i < H->n_regions; i++) free(H->regions[i].buf.addr);
  free(H->regions);
  for (int i = 0; i < H->n_tables; i++) free(H->tables[i]->PNA), free(H->tables[i]);
  for (int i = 0; i < 2 * MMP_MAX_RECVS; i++)
    if (H->recvs[i].op.in_use && H->recvs[i].op.mode == BUF_BOUNCE_TEMP) free(H->recvs[i].op.temp.addr);
  for (int i = 0; i < 2 * MMP_MAX_SENDS; i++)
    if (H->sends[i].op.in_use && H->sends[i].op.mode == BUF_BOUNCE_TEMP) free(H->sends[i].op.temp.addr);
  free(H);
  g_hosts[0] = NULL;
}

static void reset_bus(void) {
  g_next_bus = 0x10000000u;
  memset(g_xlate, 0, sizeof g_xlate);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  g_in = data;
  g_left = size;
  g_now_us = 0;
  g_requests = g_finalize_posted = 0;
  reset_bus();
  struct MMP_options o;
  MMP_get_options(&o);
  o.msgbuf_bytes = MMP_MSGBUF_BLOCK * 4;
  o.bounce_bytes = 4096;
  o.wait_timeout_us = 1000.0;
  o.init_timeout_us = 1000.0;
  MMP_set_options(&o);
  struct MMP_connect *me = MMP_initialize(MMP_Make_connect(0, 1), NULL);
  struct MMP_connect *peer = MMP_Make_connect(MMP_PNA(1), 1);
  for (int step = 0; me && step < 8 && g_left > 0; step++) {
    const uint8_t op = next8();
    const size_t len = (size_t)(next8() << 8 | next8()) % 20000;
    uint8_t *buf = malloc(len ? len : 1);
    memset(buf, 0xA5, len);
    if (op & 1) {
      struct MMP_recv_handle *h = MMP_Recv(buf, len, op >> 4, peer, me);
      const int rc = h ? MMP_Wait_recv(h) : -1;
      if (rc > (int)len) __builtin_trap(); /* more bytes than the buffer holds */
    } else {
      struct MMP_send_handle *h = MMP_Send(buf, len, op >> 4, me, peer);
      if (h) MMP_Wait_send(h);
    }
    free(buf);
  }
  if (me) MMP_finalize(me);
  reset_host();
  return 0;
}
