/* The MMP host library (mmp.h) over the driver layer (m2drv.h). Protocol
 * with the NI firmware: ip/mmp_protocol.h; design: docs/mmp.md.
 *
 * Every host of the platform runs in the same process (one SystemC thread
 * each), so all library state is per host, in g_hosts[m2host_id()]. */
#include "mmp.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ip/mmp_protocol.h>
#include <ip/ni_pci.h>

#include "host/host_env.h"
#include "m2drv.h"
#include "mmp_host.h"

#define MAX_HOSTS 256
#define CONNECT_MAGIC 0x4D4D5043u /* "MMPC" */
#define TABLE_MAGIC 0x4D4D5054u
#define HANDLE_MAGIC 0x4D4D5048u

/* Host CPU time of the library's own work, in host clock cycles so that it
 * scales with the host (assumptions: about 150 instructions of a PIII, at
 * about one per clock, per Send/Recv: checks, handle, buffer lookup, the
 * descriptor; 50 for a Wait's bookkeeping). */
#define CALL_CYCLES 150u
#define WAIT_CYCLES 50u
#define PIO_RETRY_NS 1000.0
#define RING_RETRY_NS 1000.0 /* between looks at a full request ring */

static struct host *g_hosts[MAX_HOSTS];

static const struct MMP_options kDefaults = {
    256 * 1024, 256 * 1024, 0, 256u * 1024 * 1024, -1.0, 10000.0, 1,
};

struct host *mmp_self(void) {
  const int id = m2host_id();
  if (id < 0 || id >= MAX_HOSTS) return NULL;
  if (!g_hosts[id]) {
    g_hosts[id] = calloc(1, sizeof(struct host));
    if (g_hosts[id]) g_hosts[id]->opt = kDefaults;
  }
  return g_hosts[id];
}

int mmp_fail(struct host *H, int code) {
  if (H) H->error = code;
  return code;
}

void *mmp_fail_null(struct host *H, int code) {
  mmp_fail(H, code);
  return NULL;
}

int MMP_last_error(void) {
  struct host *H = mmp_self();
  return H ? H->error : MMP_EINVAL;
}

const char *MMP_strerror(int code) {
  switch (code) {
    case MMP_OK:
      return "no error";
    case MMP_EINVAL:
      return "bad argument or handle";
    case MMP_ETRUNC:
      return "message longer than the posted buffer";
    case MMP_ENODEST:
      return "unknown destination";
    case MMP_ENOMEM:
      return "out of pinned memory";
    case MMP_EBUSY:
      return "too many outstanding operations";
    case MMP_ENOTINIT:
      return "endpoint not initialized";
    case MMP_ENI:
      return "the NI did not answer or reported an error";
    case MMP_ETIMEDOUT:
      return "timed out";
    default:
      return "unknown error";
  }
}

void MMP_get_options(struct MMP_options *o) {
  struct host *H = mmp_self();
  if (o) *o = H ? H->opt : kDefaults;
}

int MMP_set_options(const struct MMP_options *o) {
  struct host *H = mmp_self();
  if (!H || !o) return mmp_fail(H, MMP_EINVAL);
  if (o->inline_bytes > MMP_INLINE_MAX || o->msgbuf_bytes < MMP_MSGBUF_BLOCK || o->msgbuf_bytes > 16u * 1024 * 1024)
    return mmp_fail(H, MMP_EINVAL);
  H->opt = *o;
  return mmp_fail(H, MMP_OK);
}

/* ---- PNA table and endpoints --------------------------------------------- */

struct MMP_PNA_table *MMP_alloc_PNA_table(int n_networks) {
  struct host *H = mmp_self();
  if (n_networks < 0 || n_networks > (int)MMP_MAX_NODES) return mmp_fail_null(H, MMP_EINVAL);
  if (!H || H->n_tables >= MAX_TABLES) return mmp_fail_null(H, MMP_EBUSY);
  struct MMP_PNA_table *t = calloc(1, sizeof *t);
  if (!t) return mmp_fail_null(H, MMP_EINVAL);
  t->n_networks = n_networks;
  t->PNA = calloc((size_t)(n_networks > 0 ? n_networks : 1), sizeof(int));
  if (!t->PNA) {
    free(t);
    return mmp_fail_null(H, MMP_EINVAL);
  }
  H->tables[H->n_tables++] = t;
  mmp_fail(H, MMP_OK);
  return t;
}

void MMP_add_PNA_to_table(struct MMP_PNA_table *t, int pna) {
  struct host *H = mmp_self();
  if (!t || !t->PNA || t->n < 0 || t->n >= t->n_networks || pna < 1 || pna > (int)MMP_MAX_NODES) {
    mmp_fail(H, MMP_EINVAL);
    return;
  }
  t->PNA[t->n++] = pna;
  mmp_fail(H, MMP_OK);
}

struct MMP_connect *MMP_Make_connect(int network_addr, int port) {
  struct host *H = mmp_self();
  if (network_addr < 0 || network_addr > (int)MMP_MAX_NODES || port < 0 || port > MMP_MAX_PORT)
    return mmp_fail_null(H, MMP_EINVAL);
  if (!H || H->n_connects >= MAX_CONNECTS) return mmp_fail_null(H, MMP_EBUSY);
  struct MMP_connect *c = &H->connects[H->n_connects++];
  c->network_addr = network_addr;
  c->port = port;
  c->magic = CONNECT_MAGIC;
  mmp_fail(H, MMP_OK);
  return c;
}

static int is_connect(const struct MMP_connect *c) { return c && c->magic == CONNECT_MAGIC; }

static int running(const struct host *H) { return H && H->opened && H->refs > 0 && !H->finalized; }

/* A local endpoint: one MMP_initialize accepted. */
int mmp_local_ok(const struct host *H, const struct MMP_connect *c) {
  return is_connect(c) && c->initialized && running(H);
}

/* Node number of a remote endpoint's PNA; MMP_ENODEST when it is not one of
 * the nodes taking part. */
static int node_of(const struct host *H, const struct MMP_connect *c) {
  if (!is_connect(c)) return MMP_EINVAL;
  const int pna = c->network_addr == 0 ? MMP_PNA(H->node) : c->network_addr;
  /* The cluster's nodes are what the platform has hosts for. */
  if (pna < 1 || pna > (int)MMP_MAX_NODES || pna > m2host_count()) return MMP_ENODEST;
  const struct MMP_PNA_table *t = H->table;
  if (t && t->n > 0 && pna != MMP_PNA(H->node)) {
    int found = 0;
    for (int i = 0; i < t->n && !found; i++) found = t->PNA[i] == pna;
    if (!found) return MMP_ENODEST;
  }
  return pna - 1;
}

/* ---- requests ----------------------------------------------------------------- */

static volatile uint32_t *record(const struct host *H, int index) {
  return (volatile uint32_t *)((uint8_t *)H->comm.addr + MMP_COMM_RECORDS + (size_t)index * MMP_RECORD_BYTES);
}

/* A word of the communication buffer (big-endian, like everything the NI
 * writes there). */
static volatile uint32_t *comm_word(const struct host *H, uint32_t offset) {
  return (volatile uint32_t *)((uint8_t *)H->comm.addr + offset);
}

/* Waits until request slot H->req_next may be written: the NI publishes in
 * host memory how many slots it has retired, so looking costs no PCI read. */
static int slot_wait(struct host *H) {
  const double t0 = m2host_now_us();
  while (H->req_next - H->req_free >= MMP_REQ_SLOTS) {
    H->req_free = m2drv_from_be32(*comm_word(H, MMP_COMM_REQ_FREE));
    if (H->req_next - H->req_free < MMP_REQ_SLOTS) break;
    if (m2host_now_us() - t0 > 1e6) return MMP_ENI; /* the NI has not taken a request for 1 s */
    m2host_compute_ns(RING_RETRY_NS);
  }
  return MMP_OK;
}

/* Posts one request into the communication buffer; `inline_data` (len
 * bytes) goes into the request's inline slot and the descriptor's ADDR
 * names it; `msg` is a send's message number (else 0). The descriptor is
 * plain stores into cached host memory (its cost is in CALL_CYCLES); the NI
 * learns of it from the mailbox, and the doorbell wakes it if it dozes. */
static int post(struct host *H, uint32_t op, uint32_t cookie, uint32_t ports, uint32_t tag, uint32_t len, uint32_t addr,
                const void *inline_data, uint32_t msg) {
  const int rc = slot_wait(H);
  if (rc != MMP_OK) return rc;
  if (inline_data) {
    addr = MMP_REQ_INLINE(H->req_next);
    if (len > 0) m2host_memcpy((uint8_t *)H->comm.addr + addr, inline_data, len);
  }
  const uint32_t desc[8] = {
      m2drv_to_be32(H->req_next + 1),
      m2drv_to_be32(op),
      m2drv_to_be32(cookie),
      m2drv_to_be32(ports),
      m2drv_to_be32(tag),
      m2drv_to_be32(len),
      m2drv_to_be32(addr),
      m2drv_to_be32(msg),
  };
  memcpy((uint8_t *)H->comm.addr + MMP_REQ_DESC(H->req_next), desc, sizeof desc);
  H->req_next++;
  /* Two posted writes: the count first, so the NI never reads a stale one
   * after the doorbell (posted writes stay in order). */
  m2drv_reg_write(H->drv, NIPCI_MAILBOX(MMP_MAILBOX_POSTED), H->req_next);
  m2drv_doorbell(H->drv, MMP_DOORBELL_REQ);
  return MMP_OK;
}

static struct op *op_alloc(struct host *H, int is_send, int internal) {
  const int n = is_send ? MMP_MAX_SENDS : MMP_MAX_RECVS;
  for (int i = internal ? n : 0; i < (internal ? 2 * n : n); i++) {
    struct op *o = is_send ? &H->sends[i].op : &H->recvs[i].op;
    if (o->in_use) continue;
    memset(o, 0, sizeof *o);
    o->magic = HANDLE_MAGIC;
    o->in_use = 1;
    o->index = is_send ? i : 2 * MMP_MAX_SENDS + i;
    if (++H->gen == 0) H->gen = 1; /* 0 is "pending" in a fresh record */
    o->gen = H->gen;
    record(H, o->index)[MMP_REC_STATUS / 4] = 0;
    return o;
  }
  return NULL;
}

/* The op of a handle pointer if it is a live one of this host's pool. */
static struct op *op_of(struct host *H, const void *h, int is_send) {
  if (!H || !h) return NULL;
  const uintptr_t base = is_send ? (uintptr_t)H->sends : (uintptr_t)H->recvs;
  const size_t size = is_send ? sizeof(struct MMP_send_handle) : sizeof(struct MMP_recv_handle);
  const size_t n = is_send ? MMP_MAX_SENDS : MMP_MAX_RECVS;
  const uintptr_t p = (uintptr_t)h;
  if (p < base || p >= base + n * size || (p - base) % size != 0) return NULL;
  struct op *o = (struct op *)h;
  return o->magic == HANDLE_MAGIC && o->in_use ? o : NULL;
}

/* Waits for an op's completion record; its MMP_ST_* code, or a negative error.
 * `msg` (optional) gets the message's (source node, number). */
static int wait_record(struct host *H, struct op *o, double timeout_us, uint32_t *len, uint32_t *offset,
                       uint32_t msg[2]) {
  volatile uint32_t *r = record(H, o->index);
  if (m2drv_poll_be32(H->drv, &r[MMP_REC_STATUS / 4], 0xFFFF0000u, (uint32_t)o->gen << 16, timeout_us) != 0)
    return MMP_ETIMEDOUT;
  if (len) *len = m2drv_from_be32(r[MMP_REC_LEN / 4]);
  if (offset) *offset = m2drv_from_be32(r[MMP_REC_OFFSET / 4]);
  if (msg) {
    msg[0] = m2drv_from_be32(r[MMP_REC_SRC / 4]);
    msg[1] = m2drv_from_be32(r[MMP_REC_MSG / 4]);
  }
  return (int)(m2drv_from_be32(r[MMP_REC_STATUS / 4]) & 0xFFu);
}

static int finish_send(struct host *H, struct op *o, double timeout_us);

/* ---- initialize / finalize ---------------------------------------------------- */

static void teardown(struct host *H) {
  mmp_pin_free(H, &H->comm);
  mmp_pin_free(H, &H->msgbuf);
  if (H->bounce.buf.addr) mmp_pin_free(H, &H->bounce.buf);
  free(H->bounce.used);
  H->bounce.used = NULL;
  if (H->drv) m2drv_close(H->drv);
  H->drv = NULL;
}

/* Polls an NI SDRAM word by PIO until it equals `value`; 0 or -1 after timeout. */
static int ni_wait_word(struct host *H, uint32_t addr, uint32_t value, double timeout_us) {
  const double t0 = m2host_now_us();
  for (;;) {
    uint32_t v = 0;
    if (m2drv_sdram_read32(H->drv, addr, &v) != 0) return -1;
    if (v == value) return 0;
    if (m2host_now_us() - t0 > timeout_us) return -1;
    m2host_compute_ns(PIO_RETRY_NS * 10);
  }
}

struct MMP_connect *MMP_initialize(struct MMP_connect *me, struct MMP_PNA_table *t) {
  struct host *H = mmp_self();
  if (!H || !is_connect(me) || me->initialized) return mmp_fail_null(H, MMP_EINVAL);
  if (t && (!t->PNA || t->n < 0 || t->n > t->n_networks)) return mmp_fail_null(H, MMP_EINVAL);
  if (H->finalized) return mmp_fail_null(H, MMP_ENOTINIT);
  m2host_compute_cycles(CALL_CYCLES);
  if (!H->opened) {
    H->drv = m2drv_open(0);
    if (!H->drv) return mmp_fail_null(H, MMP_ENI);
    /* The firmware may still be starting: wait for it to wait for us. */
    if (ni_wait_word(H, MMP_NI_CTRL_BASE + MMP_CTRL_MAGIC, MMP_FW_MAGIC, H->opt.init_timeout_us) != 0 ||
        ni_wait_word(H, MMP_NI_CTRL_BASE + MMP_CTRL_STATE, MMP_STATE_WAIT_INIT, H->opt.init_timeout_us) != 0) {
      m2host_printf("MMP_initialize: no MMP firmware answers on the NI\n");
      teardown(H);
      return mmp_fail_null(H, MMP_ENI);
    }
    uint32_t version = 0;
    if (m2drv_sdram_read32(H->drv, MMP_NI_CTRL_BASE + MMP_CTRL_VERSION, &version) != 0 ||
        version != MMP_PROTOCOL_VERSION) {
      m2host_printf("MMP_initialize: the NI firmware speaks MMP protocol %u, this library %u\n", (unsigned)version,
                    (unsigned)MMP_PROTOCOL_VERSION);
      teardown(H);
      return mmp_fail_null(H, MMP_ENI);
    }
    const size_t msgbuf = mmp_round_up(H->opt.msgbuf_bytes, MMP_MSGBUF_BLOCK);
    if (mmp_pin_alloc(H, MMP_COMM_BYTES, &H->comm) != MMP_OK || mmp_pin_alloc(H, msgbuf, &H->msgbuf) != MMP_OK) {
      teardown(H);
      return mmp_fail_null(H, MMP_ENOMEM);
    }
    memset(H->comm.addr, 0, MMP_COMM_BYTES);
    m2drv_sdram_write32(H->drv, MMP_NI_CTRL_BASE + MMP_CTRL_COMM_BUS, (uint32_t)H->comm.bus);
    m2drv_sdram_write32(H->drv, MMP_NI_CTRL_BASE + MMP_CTRL_MSGBUF_BUS, (uint32_t)H->msgbuf.bus);
    m2drv_sdram_write32(H->drv, MMP_NI_CTRL_BASE + MMP_CTRL_MSGBUF_BYTES, (uint32_t)msgbuf);
    m2drv_sdram_write32(H->drv, MMP_NI_CTRL_BASE + MMP_CTRL_RECORDS, 2 * (MMP_MAX_SENDS + MMP_MAX_RECVS));
    m2drv_doorbell(H->drv, MMP_DOORBELL_INIT);
    if (m2drv_poll_be32(H->drv, comm_word(H, MMP_COMM_READY), 0xFFFFFFFFu, MMP_FW_MAGIC, H->opt.init_timeout_us) != 0) {
      m2host_printf("MMP_initialize: the NI did not take the init block\n");
      teardown(H);
      return mmp_fail_null(H, MMP_ENI);
    }
    H->node = (int)m2drv_from_be32(*comm_word(H, MMP_COMM_NODE));
    H->req_next = H->req_free = 0;
    H->opened = 1;
  }
  /* A local endpoint names this node (0) or this node's own PNA. */
  if (me->network_addr != 0 && me->network_addr != MMP_PNA(H->node)) return mmp_fail_null(H, MMP_EINVAL);
  H->refs++;
  H->table = t;
  me->network_addr = MMP_PNA(H->node);
  me->initialized = 1;
  mmp_fail(H, MMP_OK);
  return me;
}

void MMP_finalize(struct MMP_connect *me) {
  struct host *H = mmp_self();
  if (!mmp_local_ok(H, me)) {
    mmp_fail(H, MMP_ENOTINIT);
    return;
  }
  m2host_compute_cycles(CALL_CYCLES);
  me->initialized = 0;
  if (--H->refs > 0) {
    mmp_fail(H, MMP_OK);
    return;
  }
  /* Outstanding sends still read our memory: let them finish first. */
  for (int i = 0; i < 2 * MMP_MAX_SENDS; i++)
    if (H->sends[i].op.in_use) finish_send(H, &H->sends[i].op, H->opt.wait_timeout_us);
  H->finalized = 1;
  post(H, MMP_REQ_OP_WORD(MMP_OP_FINALIZE, 0, 0), 0, 0, 0, 0, 0, NULL, 0);
  /* The NI must be done with our memory before it is freed. */
  if (ni_wait_word(H, MMP_NI_CTRL_BASE + MMP_CTRL_STATE, MMP_STATE_FINISHED, 1e6) != 0)
    m2host_printf("MMP_finalize: the NI firmware did not finish\n");
  teardown(H);
  for (size_t i = 0; i < H->n_regions; i++) {
    if (H->regions[i].buf.addr) mmp_pin_free(H, &H->regions[i].buf);
    else m2drv_unpin(H->drv, H->regions[i].addr, H->regions[i].bytes); /* registered */
  }
  free(H->regions);
  H->regions = NULL;
  H->n_regions = H->cap_regions = 0;
  mmp_fail(H, MMP_OK);
}

/* ---- send and receive ------------------------------------------------------------ */

static struct op *start_send(struct host *H, void *buf, size_t len, uint32_t tag, int src_port, int dst_node,
                             int dst_port, uint32_t flags, uint32_t msg, int *err) {
  struct op *o = op_alloc(H, 1, src_port == MMP_SYNC_PORT);
  if (!o) {
    *err = MMP_EBUSY;
    return NULL;
  }
  o->user = buf;
  o->len = len;
  const uint32_t ports = (uint32_t)src_port << 16 | (uint32_t)dst_port;
  const uint32_t cookie = MMP_COOKIE(o->gen, o->index);
  int rc;
  if (len <= H->opt.inline_bytes) {
    /* Copied into the request's inline slot: complete as soon as it is posted. */
    o->mode = BUF_INLINE;
    rc = post(H, MMP_REQ_OP_WORD(MMP_OP_SEND, flags | MMP_REQF_INLINE | MMP_REQF_NO_RECORD, dst_node), cookie, ports,
              tag, (uint32_t)len, 0, buf, msg);
  } else {
    uint32_t nia = 0;
    rc = mmp_place_buffer(H, o, buf, len, 1, &nia);
    if (rc == MMP_OK)
      rc = post(H, MMP_REQ_OP_WORD(MMP_OP_SEND, flags, dst_node), cookie, ports, tag, (uint32_t)len, nia, NULL, msg);
    if (rc != MMP_OK) mmp_release_buffer(H, o);
  }
  if (rc != MMP_OK) {
    o->in_use = 0;
    *err = rc;
    return NULL;
  }
  return o;
}

static struct op *start_recv(struct host *H, void *buf, size_t len, uint32_t tag, int src_node, int src_port,
                             int dst_port, int *err) {
  struct op *o = op_alloc(H, 0, dst_port == MMP_SYNC_PORT);
  if (!o) {
    *err = MMP_EBUSY;
    return NULL;
  }
  o->user = buf;
  o->len = len;
  uint32_t nia = 0;
  int rc = mmp_place_buffer(H, o, buf, len, 0, &nia);
  if (rc == MMP_OK)
    rc = post(H, MMP_REQ_OP_WORD(MMP_OP_RECV, 0, src_node), MMP_COOKIE(o->gen, o->index),
              (uint32_t)dst_port << 16 | (uint32_t)src_port, tag, (uint32_t)len, nia, NULL, 0);
  if (rc != MMP_OK) {
    mmp_release_buffer(H, o);
    o->in_use = 0;
    *err = rc;
    return NULL;
  }
  return o;
}

static int finish_send(struct host *H, struct op *o, double timeout_us) {
  int rc = MMP_OK;
  if (o->mode != BUF_INLINE) {
    const int code = wait_record(H, o, timeout_us, NULL, NULL, NULL);
    if (code == MMP_ETIMEDOUT) return MMP_ETIMEDOUT; /* still outstanding: may be waited for again */
    rc = code == MMP_ST_DONE ? MMP_OK : MMP_ENI;
    mmp_release_buffer(H, o);
  }
  o->in_use = 0;
  return rc;
}

static int finish_recv(struct host *H, struct op *o, double timeout_us) {
  uint32_t len = 0, offset = 0, msg[2] = {0, 0};
  const int code = wait_record(H, o, timeout_us, &len, &offset, msg);
  if (code == MMP_ETIMEDOUT) return MMP_ETIMEDOUT;
  int rc;
  switch (code) {
    case MMP_ST_DONE:
      if (len > o->len) {
        rc = MMP_ENI;
        break;
      }
      if (o->mode == BUF_BOUNCE_POOL || o->mode == BUF_BOUNCE_TEMP) m2host_memcpy(o->user, o->bounce, len);
      rc = (int)len;
      break;
    case MMP_ST_DONE_MSGBUF:
      /* It came before the receive: the NI kept it in the message buffer. */
      if (len > o->len || offset > H->msgbuf.bytes || len > H->msgbuf.bytes - offset) {
        rc = MMP_ENI;
        break;
      }
      m2host_memcpy(o->user, (uint8_t *)H->msgbuf.addr + offset, len);
      rc = post(H, MMP_REQ_OP_WORD(MMP_OP_RELEASE, 0, 0), 0, 0, 0, len, offset, NULL, 0);
      if (rc == MMP_OK) rc = (int)len;
      break;
    case MMP_ST_TRUNCATED:
      rc = MMP_ETRUNC;
      break;
    default:
      rc = MMP_ENI;
      break;
  }
  mmp_release_buffer(H, o);
  o->in_use = 0;
  /* The data is where the caller wants it: the message's end for the trace. */
  if (rc >= 0) m2host_msg_event(M2HOST_MSG_DONE, (int)msg[0], msg[1]);
  return rc;
}

struct MMP_send_handle *MMP_Send(void *buf, size_t len, int tag, struct MMP_connect *from, struct MMP_connect *to) {
  struct host *H = mmp_self();
  if (!mmp_local_ok(H, from)) return mmp_fail_null(H, is_connect(from) ? MMP_ENOTINIT : MMP_EINVAL);
  if (!is_connect(to) || (len > 0 && !buf) || len > 0x7FFFFFFFu) return mmp_fail_null(H, MMP_EINVAL);
  const int node = node_of(H, to);
  if (node < 0) return mmp_fail_null(H, node);
  /* The message starts here for the trace (before any time is charged). */
  const uint32_t msg = H->msg_next++;
  m2host_msg_send(H->node, msg, node, len, (uint32_t)tag);
  m2host_compute_cycles(CALL_CYCLES);
  int err = MMP_OK;
  struct op *o = start_send(H, buf, len, (uint32_t)tag, from->port, node, to->port, 0, msg, &err);
  if (!o) {
    m2host_msg_event(M2HOST_MSG_CANCELLED, H->node, msg);
    return mmp_fail_null(H, err);
  }
  m2host_msg_event(M2HOST_MSG_POSTED, H->node, msg);
  mmp_fail(H, MMP_OK);
  return (struct MMP_send_handle *)o;
}

int MMP_Wait_send_for(struct MMP_send_handle *h, double timeout_us) {
  struct host *H = mmp_self();
  struct op *o = op_of(H, h, 1);
  if (!o) return mmp_fail(H, MMP_EINVAL);
  m2host_compute_cycles(WAIT_CYCLES);
  char what[64];
  snprintf(what, sizeof what, "MMP_Wait_send (a %zu-byte send)", o->len);
  m2host_activity(M2HOST_LAYER_MMP, what);
  const int rc = finish_send(H, o, timeout_us);
  m2host_activity(M2HOST_LAYER_MMP, NULL);
  return mmp_fail(H, rc);
}

int MMP_Wait_send(struct MMP_send_handle *h) {
  struct host *H = mmp_self();
  return MMP_Wait_send_for(h, H ? H->opt.wait_timeout_us : -1.0);
}

struct MMP_recv_handle *MMP_Recv(void *buf, size_t len, int tag, struct MMP_connect *from, struct MMP_connect *to) {
  struct host *H = mmp_self();
  if (!mmp_local_ok(H, to)) return mmp_fail_null(H, is_connect(to) ? MMP_ENOTINIT : MMP_EINVAL);
  if (!is_connect(from) || (len > 0 && !buf) || len > 0x7FFFFFFFu) return mmp_fail_null(H, MMP_EINVAL);
  const int node = node_of(H, from);
  if (node < 0) return mmp_fail_null(H, node);
  m2host_compute_cycles(CALL_CYCLES);
  int err = MMP_OK;
  struct op *o = start_recv(H, buf, len, (uint32_t)tag, node, from->port, to->port, &err);
  if (!o) return mmp_fail_null(H, err);
  mmp_fail(H, MMP_OK);
  return (struct MMP_recv_handle *)o;
}

int MMP_Wait_recv_for(struct MMP_recv_handle *h, double timeout_us) {
  struct host *H = mmp_self();
  struct op *o = op_of(H, h, 0);
  if (!o) return mmp_fail(H, MMP_EINVAL);
  m2host_compute_cycles(WAIT_CYCLES);
  char what[64];
  snprintf(what, sizeof what, "MMP_Wait_recv (a receive of up to %zu bytes)", o->len);
  m2host_activity(M2HOST_LAYER_MMP, what);
  const int rc = finish_recv(H, o, timeout_us);
  m2host_activity(M2HOST_LAYER_MMP, NULL);
  mmp_fail(H, rc < 0 ? rc : MMP_OK);
  return rc;
}

int MMP_Wait_recv(struct MMP_recv_handle *h) {
  struct host *H = mmp_self();
  return MMP_Wait_recv_for(h, H ? H->opt.wait_timeout_us : -1.0);
}

/* ---- barrier ------------------------------------------------------------------------- */

static int rank_node(const struct host *H, int rank) {
  const struct MMP_PNA_table *t = H->table;
  return (t && rank < t->n ? t->PNA[rank] : MMP_PNA(rank)) - 1;
}

void MMP_Sync(int id, int n_nodes) {
  struct host *H = mmp_self();
  if (!running(H) || n_nodes < 1 || n_nodes > (int)MMP_MAX_NODES || id < 0 || id >= n_nodes) {
    m2host_printf("MMP_Sync(%d, %d): %s\n", id, n_nodes, running(H) ? "bad arguments" : "MMP is not initialized");
    mmp_fail(H, running(H) ? MMP_EINVAL : MMP_ENOTINIT);
    return;
  }
  m2host_compute_cycles(CALL_CYCLES);
  if (n_nodes == 1) return;
  const uint32_t tag = H->sync_epoch++;
  const int root = rank_node(H, 0);
  int err = MMP_OK, rc = MMP_OK;
  if (id == 0) {
    /* Everyone checks in, then the root lets everyone go. */
    struct op *in[MMP_MAX_RECVS];
    int posted = 0;
    for (int r = 1; r < n_nodes && posted < MMP_MAX_RECVS; r++) {
      in[posted] = start_recv(H, NULL, 0, tag, rank_node(H, r), MMP_SYNC_PORT, MMP_SYNC_PORT, &err);
      if (in[posted]) posted++;
      else rc = err;
    }
    for (int i = 0; i < posted; i++) {
      const int w = finish_recv(H, in[i], H->opt.wait_timeout_us);
      if (w < 0) rc = w;
    }
    if (H->opt.broadcast_sync && n_nodes == m2host_count()) {
      struct op *o =
          start_send(H, NULL, 0, tag, MMP_SYNC_PORT, 0, MMP_SYNC_PORT, MMP_REQF_BROADCAST, H->msg_next++, &err);
      if (!o || finish_send(H, o, H->opt.wait_timeout_us) != MMP_OK) rc = o ? MMP_ENI : err;
    } else {
      for (int r = 1; r < n_nodes; r++) {
        struct op *o =
            start_send(H, NULL, 0, tag, MMP_SYNC_PORT, rank_node(H, r), MMP_SYNC_PORT, 0, H->msg_next++, &err);
        if (!o || finish_send(H, o, H->opt.wait_timeout_us) != MMP_OK) rc = o ? MMP_ENI : err;
      }
    }
  } else {
    struct op *go = start_recv(H, NULL, 0, tag, root, MMP_SYNC_PORT, MMP_SYNC_PORT, &err);
    struct op *o = start_send(H, NULL, 0, tag, MMP_SYNC_PORT, root, MMP_SYNC_PORT, 0, H->msg_next++, &err);
    if (o && finish_send(H, o, H->opt.wait_timeout_us) != MMP_OK) rc = MMP_ENI;
    if (!o || !go) rc = err;
    if (go && finish_recv(H, go, H->opt.wait_timeout_us) < 0) rc = MMP_ENI;
  }
  if (rc != MMP_OK) m2host_printf("MMP_Sync(%d, %d): %s\n", id, n_nodes, MMP_strerror(rc));
  mmp_fail(H, rc);
}
