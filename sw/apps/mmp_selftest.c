/* MMP self-test on two hosts (node 0 and node 1 run it together): every API
 * error path, payload integrity for odd sizes and alignments with pinned,
 * heap (bounce copy) and physical (per-message pin-down) buffers, receives
 * posted before and after the message arrived, many outstanding sends, tag
 * matching and order. Prints "FAIL: ..." for each failed check and a summary;
 * results checks / failures; exit code 1 when anything failed.
 *   mmp_selftest [--sizes 1,3,31,...] [--many N] */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "host/host_env.h"
#include "mmp.h"

#define PORT 7
#define MAX_SIZES 32
#define GUARD 32u

struct ctx {
  int rank, peer_node;
  struct MMP_connect *me, *peer;
  int checks, failures;
};

#define CHECK(c, cond, ...)                        \
  do {                                             \
    (c)->checks++;                                 \
    if (!(cond)) {                                 \
      (c)->failures++;                             \
      m2host_printf("FAIL (line %d): ", __LINE__); \
      m2host_printf(__VA_ARGS__);                  \
      m2host_printf("\n");                         \
    }                                              \
  } while (0)

static uint8_t pat(size_t i, uint32_t seed) { return (uint8_t)(i * 131u + seed * 17u + (i >> 8) * 7u + 1u); }

static void fill(uint8_t *p, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; i++) p[i] = pat(i, seed);
}

/* Wrong bytes in p[0..n) plus touched guard bytes around it. */
static size_t verify(const uint8_t *p, size_t n, uint32_t seed) {
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) bad += p[i] != pat(i, seed);
  for (size_t i = 1; i <= GUARD; i++) bad += p[-(ptrdiff_t)i] != 0xEE;
  for (size_t i = 0; i < GUARD; i++) bad += p[n + i] != 0xEE;
  return bad;
}

static void sync2(struct ctx *c) { MMP_Sync(c->rank, 2); }

/* ---- error paths (local: no message needed) -------------------------------- */
static void errors_before_init(struct ctx *c) {
  CHECK(c, MMP_alloc_PNA_table(-1) == NULL, "PNA table of -1 entries");
  MMP_add_PNA_to_table(NULL, 1);
  CHECK(c, MMP_last_error() == MMP_EINVAL, "adding to a NULL table");
  struct MMP_PNA_table *t = MMP_alloc_PNA_table(1);
  MMP_add_PNA_to_table(t, 1);
  CHECK(c, MMP_last_error() == MMP_OK && t->n == 1 && t->PNA[0] == 1, "adding PNA 1");
  MMP_add_PNA_to_table(t, 2);
  CHECK(c, MMP_last_error() == MMP_EINVAL && t->n == 1, "adding beyond the table's size");
  CHECK(c, MMP_Make_connect(-1, 0) == NULL && MMP_last_error() == MMP_EINVAL, "negative network address");
  CHECK(c, MMP_Make_connect(0, 0xFFFF) == NULL, "port 0xFFFF (the barrier's)");
  CHECK(c, MMP_Make_connect(0, -3) == NULL, "negative port");
  CHECK(c, MMP_initialize(NULL, NULL) == NULL && MMP_last_error() == MMP_EINVAL, "initialize(NULL)");
  struct MMP_connect fake;
  memset(&fake, 0, sizeof fake);
  CHECK(c, MMP_initialize(&fake, NULL) == NULL, "initialize of a connect MMP_Make_connect did not make");
  struct MMP_connect *early = MMP_Make_connect(0, PORT + 1);
  char b[4];
  CHECK(c, MMP_Send(b, 4, 0, early, early) == NULL && MMP_last_error() == MMP_ENOTINIT, "send before initialize");
  CHECK(c, MMP_Recv(b, 4, 0, early, early) == NULL && MMP_last_error() == MMP_ENOTINIT, "receive before initialize");
  CHECK(c, MMP_Pindown_malloc(4096, early) == NULL && MMP_last_error() == MMP_ENOTINIT, "pin-down before initialize");
  MMP_Sync(0, 2);
  CHECK(c, MMP_last_error() == MMP_ENOTINIT, "sync before initialize");
  CHECK(c, MMP_Wait_send(NULL) == MMP_EINVAL && MMP_Wait_recv(NULL) == MMP_EINVAL, "wait on NULL before initialize");
}

static void errors_after_init(struct ctx *c) {
  char b[64];
  struct MMP_connect *nowhere = MMP_Make_connect(MMP_PNA(m2host_count() + 3), PORT);
  CHECK(c, nowhere != NULL, "a connect to a node that does not exist can be made");
  CHECK(c, MMP_Send(b, 8, 0, c->me, nowhere) == NULL && MMP_last_error() == MMP_ENODEST,
        "send to an unknown destination: %s", MMP_strerror(MMP_last_error()));
  CHECK(c, MMP_Recv(b, 8, 0, nowhere, c->me) == NULL && MMP_last_error() == MMP_ENODEST,
        "receive from an unknown source");
  CHECK(c, MMP_Send(NULL, 8, 0, c->me, c->peer) == NULL && MMP_last_error() == MMP_EINVAL, "send of NULL");
  CHECK(c, MMP_Recv(NULL, 8, 0, c->peer, c->me) == NULL && MMP_last_error() == MMP_EINVAL, "receive into NULL");
  CHECK(c, MMP_Send(b, 8, 0, c->peer, c->peer) == NULL, "send from a remote endpoint");
  CHECK(c, MMP_Recv(b, 8, 0, c->peer, c->peer) == NULL, "receive on a remote endpoint");
  struct MMP_connect fake;
  memset(&fake, 0, sizeof fake);
  CHECK(c, MMP_Send(b, 8, 0, c->me, &fake) == NULL && MMP_last_error() == MMP_EINVAL, "send to a fake connect");
  CHECK(c, MMP_Send(b, (size_t)1 << 40, 0, c->me, c->peer) == NULL, "send of 2^40 bytes");
  /* Bad handles. */
  CHECK(c, MMP_Wait_send(NULL) == MMP_EINVAL, "wait_send(NULL)");
  CHECK(c, MMP_Wait_recv(NULL) == MMP_EINVAL, "wait_recv(NULL)");
  CHECK(c, MMP_Wait_send((struct MMP_send_handle *)b) == MMP_EINVAL, "wait_send on a stack pointer");
  CHECK(c, MMP_Wait_recv((struct MMP_recv_handle *)(b + 1)) == MMP_EINVAL, "wait_recv on a stack pointer");
  /* Pinned memory. */
  CHECK(c, MMP_Pindown_malloc(0, c->me) == NULL && MMP_last_error() == MMP_EINVAL, "pin-down of 0 bytes");
  CHECK(c, MMP_Pindown_malloc((size_t)3 << 30, c->me) == NULL && MMP_last_error() == MMP_ENOMEM, "pin-down of 3 GB");
  struct MMP_options o, saved;
  MMP_get_options(&saved);
  o = saved;
  o.pinned_limit = 0;
  MMP_set_options(&o);
  CHECK(c, MMP_Pindown_malloc(4096, c->me) == NULL && MMP_last_error() == MMP_ENOMEM,
        "pin-down beyond the pinned-memory limit");
  /* Out of pinned memory for a bounce buffer: a heap send fails cleanly. */
  static uint8_t big_heap[300 * 1024];
  CHECK(c, MMP_Send(big_heap, sizeof big_heap, 99, c->me, c->peer) == NULL && MMP_last_error() == MMP_ENOMEM,
        "heap send with no pinned memory left for its copy: %s", MMP_strerror(MMP_last_error()));
  MMP_set_options(&saved);
  o.inline_bytes = 100000;
  CHECK(c, MMP_set_options(&o) == MMP_EINVAL, "inline limit above the slot");
  CHECK(c, MMP_set_options(NULL) == MMP_EINVAL, "set_options(NULL)");
  MMP_Pindown_free(NULL, c->me);
  CHECK(c, MMP_last_error() == MMP_EINVAL, "pin-down free of NULL");
  MMP_Pindown_free(b, c->me);
  CHECK(c, MMP_last_error() == MMP_EINVAL, "pin-down free of a stack pointer");
  void *p = MMP_Pindown_malloc(100, c->me);
  CHECK(c, p != NULL, "pin-down of 100 bytes");
  MMP_Pindown_free(p, c->me);
  CHECK(c, MMP_last_error() == MMP_OK, "pin-down free");
  MMP_Pindown_free(p, c->me);
  CHECK(c, MMP_last_error() == MMP_EINVAL, "pin-down free twice");
  MMP_Sync(5, 2);
  CHECK(c, MMP_last_error() == MMP_EINVAL, "sync with id >= n");
  CHECK(c, MMP_initialize(c->me, NULL) == NULL, "initialize of an endpoint already initialized");
}

/* ---- data paths -------------------------------------------------------------- */
enum { PINNED, HEAP, PHYS };
static const char *kKind[] = {"pinned", "heap", "phys"};

static uint8_t *get_buf(struct ctx *c, int kind, size_t bytes) {
  uint64_t bus;
  if (kind == PINNED) return MMP_Pindown_malloc(bytes, c->me);
  if (kind == HEAP) return malloc(bytes);
  return m2host_phys_alloc(bytes, &bus);
}

static void put_buf(struct ctx *c, int kind, uint8_t *p) {
  if (kind == PINNED) MMP_Pindown_free(p, c->me);
  else if (kind == HEAP) free(p);
  else m2host_phys_free(p);
}

/* Rank 0 sends each size at odd source offsets into rank 1's buffer at odd
 * destination offsets; rank 1 checks and echoes it back (the other way round
 * offsets); rank 0 checks. Receives are posted before the peer sends. */
static void integrity(struct ctx *c, const size_t *sizes, int n, int kind) {
  size_t max = 0;
  for (int i = 0; i < n; i++) max = sizes[i] > max ? sizes[i] : max;
  const size_t bytes = max + 64 + 2 * GUARD;
  uint8_t *sb = get_buf(c, kind, bytes), *rb = get_buf(c, kind, bytes);
  CHECK(c, sb && rb, "%s buffers of %zu bytes", kKind[kind], bytes);
  if (!sb || !rb) return;
  for (int k = 0; k < n; k++) {
    const size_t len = sizes[k];
    const unsigned soff = (unsigned)(k * 7 + kind) % 32u, roff = (unsigned)(k * 13 + 3 * kind) % 32u;
    uint8_t *s = sb + GUARD + soff, *r = rb + GUARD + roff;
    const uint32_t seed = (uint32_t)(k * 3 + kind * 101 + c->rank);
    memset(rb, 0xEE, bytes);
    struct MMP_recv_handle *rh = MMP_Recv(r, len, 1000 + k, c->peer, c->me);
    sync2(c); /* both receives are posted */
    fill(s, len, seed);
    struct MMP_send_handle *sh = MMP_Send(s, len, 1000 + k, c->me, c->peer);
    CHECK(c, rh && sh, "%s %zu bytes: send/recv posted", kKind[kind], len);
    const int ws = sh ? MMP_Wait_send(sh) : -1, wr = rh ? MMP_Wait_recv(rh) : -1;
    CHECK(c, ws == 0 && wr == (int)len, "%s %zu bytes: send %d, receive %d", kKind[kind], len, ws, wr);
    const uint32_t peer_seed = (uint32_t)(k * 3 + kind * 101 + (1 - c->rank));
    const size_t bad = verify(r, len, peer_seed);
    CHECK(c, bad == 0, "%s %zu bytes at offsets %u/%u: %zu bytes wrong", kKind[kind], len, soff, roff, bad);
  }
  put_buf(c, kind, sb);
  put_buf(c, kind, rb);
}

/* Messages that arrive before their receive is posted are kept by the NI,
 * also when longer than the message buffer's free room would allow at once;
 * a message longer than the posted buffer fails with MMP_ETRUNC, both when it
 * came before and after the receive. */
static void unexpected(struct ctx *c) {
  static const size_t sizes[] = {10, 5000, 0, 70000, 1};
  const int n = (int)(sizeof sizes / sizeof sizes[0]);
  uint8_t *buf = MMP_Pindown_malloc(80000 + 2 * GUARD, c->me);
  uint8_t *tr = MMP_Pindown_malloc(1000, c->me);
  if (c->rank == 1) {
    struct MMP_send_handle *h[8];
    for (int i = 0; i < n; i++) {
      uint8_t *p = buf; /* each send is done before the next one fills it */
      fill(p, sizes[i], 500 + (uint32_t)i);
      h[i] = MMP_Send(p, sizes[i], 200 + i, c->me, c->peer);
      CHECK(c, h[i] && MMP_Wait_send(h[i]) == 0, "unexpected: send %d", i);
    }
    fill(tr, 1000, 7);
    struct MMP_send_handle *t = MMP_Send(tr, 1000, 300, c->me, c->peer);
    CHECK(c, t && MMP_Wait_send(t) == 0, "send of the too-long message (after)");
    sync2(c);
    sync2(c); /* rank 0 posted its short receive for tag 301 */
    t = MMP_Send(tr, 1000, 301, c->me, c->peer);
    CHECK(c, t && MMP_Wait_send(t) == 0, "send of the too-long message (before)");
    /* The same tag again: a message after a truncated one is intact. */
    t = MMP_Send(tr, 1000, 301, c->me, c->peer);
    CHECK(c, t && MMP_Wait_send(t) == 0, "send after the too-long message");
    sync2(c);
  } else {
    sync2(c); /* every message has been sent (most have arrived) */
    /* Receive them in reverse order of tags: each is matched by its tag. */
    for (int i = n - 1; i >= 0; i--) {
      memset(buf, 0xEE, 80000 + 2 * GUARD);
      struct MMP_recv_handle *r = MMP_Recv(buf + GUARD, sizes[i], 200 + i, c->peer, c->me);
      const int got = r ? MMP_Wait_recv(r) : -1;
      CHECK(c, got == (int)sizes[i], "unexpected tag %d: received %d of %zu", 200 + i, got, sizes[i]);
      CHECK(c, verify(buf + GUARD, sizes[i], 500 + (uint32_t)i) == 0, "unexpected tag %d: payload", 200 + i);
    }
    struct MMP_recv_handle *r = MMP_Recv(tr, 100, 300, c->peer, c->me);
    CHECK(c, r && MMP_Wait_recv(r) == MMP_ETRUNC && MMP_last_error() == MMP_ETRUNC,
          "a 1000-byte message that arrived before a 100-byte receive: MMP_ETRUNC");
    struct MMP_recv_handle *r1 = MMP_Recv(tr, 999, 301, c->peer, c->me);
    memset(buf, 0xEE, 1000 + 2 * GUARD);
    struct MMP_recv_handle *r2 = MMP_Recv(buf + GUARD, 1000, 301, c->peer, c->me);
    sync2(c);
    CHECK(c, r1 && MMP_Wait_recv(r1) == MMP_ETRUNC, "a 1000-byte message for a 999-byte receive posted before");
    CHECK(c, r2 && MMP_Wait_recv(r2) == 1000 && verify(buf + GUARD, 1000, 7) == 0,
          "the message after the truncated one, same tag");
    sync2(c);
  }
  MMP_Pindown_free(buf, c->me);
  MMP_Pindown_free(tr, c->me);
}

/* A message larger than the whole message buffer cannot be kept by the NI:
 * it waits in the network until its receive is posted, then goes straight
 * into the user's buffer. */
static void larger_than_msgbuf(struct ctx *c) {
  struct MMP_options o;
  MMP_get_options(&o);
  const size_t len = o.msgbuf_bytes + 40000;
  uint8_t *buf = MMP_Pindown_malloc(len + 2 * GUARD, c->me);
  CHECK(c, buf != NULL, "buffer of %zu bytes", len);
  if (!buf) return;
  if (c->rank == 1) {
    fill(buf, len, 99);
    struct MMP_send_handle *s = MMP_Send(buf, len, 600, c->me, c->peer);
    CHECK(c, s && MMP_Wait_send(s) == 0, "send of %zu bytes before the receive", len);
  } else {
    m2host_compute_ns(1e6); /* 1 ms: the network stands still meanwhile */
    memset(buf, 0xEE, len + 2 * GUARD);
    struct MMP_recv_handle *r = MMP_Recv(buf + GUARD, len, 600, c->peer, c->me);
    CHECK(c, r && MMP_Wait_recv(r) == (int)len, "a message larger than the message buffer, received late");
    CHECK(c, verify(buf + GUARD, len, 99) == 0, "its payload");
  }
  sync2(c);
  MMP_Pindown_free(buf, c->me);
}

/* Rank 0 starts `many` sends at once (tags 0..4 in turn, sizes varying, each
 * carrying its number), then waits for all; rank 1 posts its receives tag by
 * tag, so each tag's messages must arrive in order; half are posted before
 * the sends, half after. */
static void many(struct ctx *c, int many_n) {
  enum { TAGS = 5 };
  const size_t slot = 6000;
  uint8_t *buf = MMP_Pindown_malloc(slot * (size_t)many_n, c->me);
  CHECK(c, buf != NULL, "many: buffer");
  if (!buf) return;
  struct MMP_send_handle **sh = calloc((size_t)many_n, sizeof *sh);
  struct MMP_recv_handle **rh = calloc((size_t)many_n, sizeof *rh);
  const int half = many_n / 2;
  if (c->rank == 1) {
    /* Receive k-th message of tag t into slot t * per_tag + k. */
    int posted = 0;
    for (int t = 0; t < TAGS; t++)
      for (int i = t; i < many_n; i += TAGS)
        if (posted++ < half) rh[i] = MMP_Recv(buf + (size_t)i * slot, slot, 50 + t, c->peer, c->me);
    sync2(c);
    posted = 0;
    for (int t = 0; t < TAGS; t++)
      for (int i = t; i < many_n; i += TAGS)
        if (posted++ >= half) rh[i] = MMP_Recv(buf + (size_t)i * slot, slot, 50 + t, c->peer, c->me);
    int wrong = 0, order = 0;
    for (int i = 0; i < many_n; i++) {
      const size_t len = 8 + (size_t)(i * 397) % 5000;
      const int got = rh[i] ? MMP_Wait_recv(rh[i]) : -1;
      uint8_t *p = buf + (size_t)i * slot;
      const uint32_t num = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
      order += num != (uint32_t)i;
      wrong += got != (int)len;
      for (size_t k = 4; k < len && got == (int)len; k++)
        if (p[k] != pat(k, (uint32_t)i)) {
          wrong++;
          break;
        }
    }
    CHECK(c, order == 0, "many: %d messages out of order within their tag", order);
    CHECK(c, wrong == 0, "many: %d messages with a wrong length or payload", wrong);
  } else {
    sync2(c);
    for (int i = 0; i < many_n; i++) {
      const size_t len = 8 + (size_t)(i * 397) % 5000;
      uint8_t *p = buf + (size_t)i * slot;
      fill(p, len, (uint32_t)i);
      p[0] = (uint8_t)i, p[1] = (uint8_t)(i >> 8), p[2] = (uint8_t)(i >> 16), p[3] = (uint8_t)(i >> 24);
      sh[i] = MMP_Send(p, len, 50 + i % TAGS, c->me, c->peer);
    }
    int failed = 0;
    for (int i = 0; i < many_n; i++) failed += !sh[i] || MMP_Wait_send(sh[i]) != 0;
    CHECK(c, failed == 0, "many: %d of %d outstanding sends failed", failed, many_n);
  }
  sync2(c);
  free(sh);
  free(rh);
  MMP_Pindown_free(buf, c->me);
}

/* Limits of the handle pool, a second wait on a handle, a Wait that times
 * out and is waited for again. */
static void handles(struct ctx *c) {
  if (c->rank == 0) {
    struct MMP_recv_handle *h[MMP_MAX_RECVS];
    int n = 0;
    for (; n < MMP_MAX_RECVS; n++)
      if (!(h[n] = MMP_Recv(NULL, 0, 4000 + n, c->peer, c->me))) break;
    CHECK(c, n == MMP_MAX_RECVS, "%d receives outstanding", n);
    CHECK(c, MMP_Recv(NULL, 0, 1, c->peer, c->me) == NULL && MMP_last_error() == MMP_EBUSY,
          "one receive more than the pool: MMP_EBUSY");
    struct MMP_options o, saved;
    MMP_get_options(&saved);
    o = saved;
    o.wait_timeout_us = 20;
    MMP_set_options(&o);
    CHECK(c, MMP_Wait_recv(h[0]) == MMP_ETIMEDOUT, "a receive nobody sends to times out");
    MMP_set_options(&saved);
    sync2(c); /* the peer sends them all now */
    int bad = 0;
    for (int i = 0; i < n; i++) bad += MMP_Wait_recv(h[i]) != 0;
    CHECK(c, bad == 0, "%d of %d zero-byte receives failed (the timed-out one waited for again)", bad, n);
    CHECK(c, MMP_Wait_recv(h[0]) == MMP_EINVAL, "a handle already waited for is a bad handle");
    uint8_t b[16];
    struct MMP_send_handle *s = MMP_Send(b, 16, 4999, c->me, c->peer);
    CHECK(c, s && MMP_Wait_send(s) == 0 && MMP_Wait_send(s) == MMP_EINVAL, "second wait on a send");
    CHECK(c, MMP_Wait_recv((struct MMP_recv_handle *)(void *)s) == MMP_EINVAL, "a send handle given to wait_recv");
    /* Pinned memory that a receive still uses stays pinned (the NI may still
     * write it), and is unpinned once the receive is done. */
    uint8_t *pinned = MMP_Pindown_malloc(64, c->me);
    struct MMP_recv_handle *into = pinned ? MMP_Recv(pinned, 64, 4998, c->peer, c->me) : NULL;
    MMP_Pindown_free(pinned, c->me);
    CHECK(c, into && MMP_last_error() == MMP_EBUSY, "unpinning memory a receive still uses: MMP_EBUSY");
    uint8_t want[64];
    fill(want, 64, 4998);
    CHECK(c, into && MMP_Wait_recv(into) == 64 && memcmp(pinned, want, 64) == 0, "the receive completes after all");
    MMP_Pindown_free(pinned, c->me);
    CHECK(c, MMP_last_error() == MMP_OK, "unpinned once the receive is done");
  } else {
    sync2(c);
    int bad = 0;
    for (int i = 0; i < MMP_MAX_RECVS; i++) {
      struct MMP_send_handle *s = MMP_Send(NULL, 0, 4000 + i, c->me, c->peer);
      bad += !s || MMP_Wait_send(s) != 0;
    }
    CHECK(c, bad == 0, "%d zero-byte sends failed", bad);
    uint8_t b[16];
    struct MMP_recv_handle *r = MMP_Recv(b, 16, 4999, c->peer, c->me);
    CHECK(c, r && MMP_Wait_recv(r) == 16, "receive after the pool was full");
    uint8_t b64[64];
    fill(b64, 64, 4998);
    struct MMP_send_handle *s = MMP_Send(b64, 64, 4998, c->me, c->peer);
    CHECK(c, s && MMP_Wait_send(s) == 0, "the send into the peer's pinned buffer");
  }
  sync2(c);
}

/* A message to oneself goes out to the switch box and comes back. */
static void self_send(struct ctx *c) {
  uint8_t *buf = MMP_Pindown_malloc(3000 + 2 * GUARD, c->me);
  uint8_t *src = MMP_Pindown_malloc(3000, c->me);
  if (!buf || !src) return;
  memset(buf, 0xEE, 3000 + 2 * GUARD);
  fill(src, 3000, 77);
  struct MMP_recv_handle *r = MMP_Recv(buf + GUARD, 3000, 9, c->me, c->me);
  struct MMP_send_handle *s = MMP_Send(src, 3000, 9, c->me, c->me);
  CHECK(c, r && s && MMP_Wait_send(s) == 0 && MMP_Wait_recv(r) == 3000, "send to oneself");
  CHECK(c, verify(buf + GUARD, 3000, 77) == 0, "send to oneself: payload");
  MMP_Pindown_free(buf, c->me);
  MMP_Pindown_free(src, c->me);
}

static int mmp_selftest(int argc, char **argv) {
  size_t sizes[MAX_SIZES];
  int n_sizes = app_parse_sizes("1,3,31,33,2047,2049,4097,65537", sizes, MAX_SIZES);
  int many_n = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--sizes")) n_sizes = app_parse_sizes(argv[i + 1], sizes, MAX_SIZES);
    else if (!strcmp(argv[i], "--many")) many_n = atoi(argv[i + 1]);
    else n_sizes = -1;
  }
  if (n_sizes <= 0 || many_n < 1 || many_n > MMP_MAX_SENDS) {
    m2host_printf("mmp_selftest: bad arguments\n");
    app_release_ni();
    return 2;
  }
  if (m2host_count() != 2) { /* its checks pair node 0 with node 1; a third host would wait forever */
    m2host_printf("mmp_selftest: runs on exactly two hosts, this platform has %d (topology.nodes: 2)\n",
                  m2host_count());
    app_release_ni();
    return 2;
  }
  struct ctx c;
  memset(&c, 0, sizeof c);
  const int node = m2host_id();
  c.peer_node = node == 0 ? 1 : 0;
  c.rank = node == 0 ? 0 : 1;
  errors_before_init(&c);
  struct MMP_PNA_table *t = MMP_alloc_PNA_table(2);
  MMP_add_PNA_to_table(t, MMP_PNA(0));
  MMP_add_PNA_to_table(t, MMP_PNA(1));
  c.me = MMP_initialize(MMP_Make_connect(0, PORT), t);
  c.peer = MMP_Make_connect(MMP_PNA(c.peer_node), PORT);
  CHECK(&c, c.me && c.peer, "initialize");
  if (!c.me || !c.peer) return 1;
  CHECK(&c, c.me->network_addr == MMP_PNA(node), "own network address %d", c.me->network_addr);
  m2host_printf("phase: error paths\n");
  errors_after_init(&c);
  sync2(&c);
  /* Unpinned buffers: a few sizes (a per-message pin-down costs 130 us a page). */
  static const size_t few[] = {1, 33, 2049, 65537};
  for (int kind = PINNED; kind <= PHYS; kind++) {
    m2host_printf("phase: integrity, %s buffers\n", kKind[kind]);
    if (kind == PINNED) integrity(&c, sizes, n_sizes, kind);
    else integrity(&c, few, (int)(sizeof few / sizeof few[0]), kind);
  }
  m2host_printf("phase: messages before their receive\n");
  unexpected(&c);
  m2host_printf("phase: a message larger than the message buffer\n");
  larger_than_msgbuf(&c);
  m2host_printf("phase: %d outstanding sends, tags and order\n", many_n);
  many(&c, many_n);
  m2host_printf("phase: a message to oneself\n");
  self_send(&c);
  sync2(&c);
  m2host_printf("phase: handles\n");
  handles(&c);
  MMP_finalize(c.me);
  MMP_finalize(c.me);
  CHECK(&c, MMP_last_error() == MMP_ENOTINIT, "finalize twice");
  CHECK(&c, MMP_Send(sizes, 8, 0, c.me, c.peer) == NULL, "send after finalize");
  m2host_result("checks", c.checks);
  m2host_result("failures", c.failures);
  m2host_printf("mmp_selftest: %d checks, %d failed\n", c.checks, c.failures);
  return c.failures ? 1 : 0;
}

M2HOST_APP(mmp_selftest, mmp_selftest,
           "MMP self-test on two hosts: error paths, integrity, ordering, unexpected messages")
