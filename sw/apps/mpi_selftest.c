/* MPI self-test on every host of the platform (2 or more): each implemented
 * MPI function, payloads checked byte for byte (eager, one-copy rendezvous and
 * zero-copy rendezvous sizes; heap, host physical and MPI_Alloc_mem buffers at
 * odd offsets), MPI_ANY_SOURCE / MPI_ANY_TAG, order per pair, probes, tests,
 * MPI_PROC_NULL, MPI_COMM_SELF, the collectives' results on every root, and
 * the error codes under MPI_ERRORS_RETURN. Prints "FAIL ..." per failed check;
 * results checks / failures; exit code 1 when anything failed.
 *   mpi_selftest [--sizes LIST] [--unimplemented] [--abort CODE] [--before-init]
 * --before-init calls MPI_Send before MPI_Init (the run must end naming it);
 * --unimplemented calls MPI_Comm_dup (not implemented: the run must end with
 * a message naming it); --abort calls MPI_Abort(MPI_COMM_WORLD, CODE) on rank 1. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "host/host_env.h"
#include "mpi.h"

#define MAX_SIZES 32
#define GUARD 16u
#define OFFSET 5u /* odd offset of every buffer from its allocation */

struct st {
  int rank, size;
  int checks, failures;
  size_t sizes[MAX_SIZES];
  int n_sizes;
  size_t max;
};

#define CHECK(t, cond, ...)                                            \
  do {                                                                 \
    (t)->checks++;                                                     \
    if (!(cond)) {                                                     \
      (t)->failures++;                                                 \
      m2host_printf("FAIL (line %d, rank %d): ", __LINE__, (t)->rank); \
      m2host_printf(__VA_ARGS__);                                      \
      m2host_printf("\n");                                             \
    }                                                                  \
  } while (0)

static uint8_t pat(size_t i, uint32_t seed) { return (uint8_t)(i * 131u + seed * 29u + (i >> 9) * 7u + 3u); }

static void fill(uint8_t *p, size_t n, uint32_t seed) {
  for (size_t i = 0; i < n; i++) p[i] = pat(i, seed);
}

/* Wrong bytes in p[0..n), plus guard bytes after it that were touched. */
static size_t bad_bytes(const uint8_t *p, size_t n, uint32_t seed) {
  size_t bad = 0;
  for (size_t i = 0; i < n; i++) bad += p[i] != pat(i, seed);
  for (size_t i = 0; i < GUARD; i++) bad += p[n + i] != 0xEE;
  return bad;
}

static void clear(uint8_t *p, size_t n) { memset(p, 0xEE, n + GUARD); }

static uint32_t seed_of(int src, int dst, size_t len, int k) {
  return (uint32_t)(src * 7 + dst * 13 + (int)len + k * 101);
}

/* ---- buffers: heap, host physical memory, MPI_Alloc_mem ------------------------ */
enum kind { HEAP, PHYS, PINNED, KINDS };
static const char *const kKindName[KINDS] = {"heap", "physical", "MPI_Alloc_mem"};

struct bufs {
  uint8_t *base[KINDS][2];
};

static uint8_t *alloc_kind(enum kind k, size_t bytes) {
  void *p = NULL;
  uint64_t bus;
  if (k == HEAP) p = malloc(bytes);
  else if (k == PHYS) p = m2host_phys_alloc(bytes, &bus);
  else if (MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p) != MPI_SUCCESS) p = NULL;
  return p;
}

static void free_kind(enum kind k, uint8_t *p) {
  if (k == HEAP) free(p);
  else if (k == PHYS) m2host_phys_free(p);
  else MPI_Free_mem(p);
}

/* ---- environment ------------------------------------------------------------------ */
static void environment(struct st *t) {
  int flag = -1, r = -1, n = -1, v = 0, sv = 0, len = 0;
  CHECK(t, MPI_Initialized(&flag) == MPI_SUCCESS && flag == 1, "MPI_Initialized after MPI_Init: %d", flag);
  CHECK(t, MPI_Finalized(&flag) == MPI_SUCCESS && flag == 0, "MPI_Finalized before MPI_Finalize");
  CHECK(t, MPI_Comm_rank(MPI_COMM_WORLD, &r) == MPI_SUCCESS && r == m2host_id(), "world rank %d", r);
  CHECK(t, MPI_Comm_size(MPI_COMM_WORLD, &n) == MPI_SUCCESS && n == m2host_count(), "world size %d", n);
  CHECK(t, MPI_Comm_rank(MPI_COMM_SELF, &r) == MPI_SUCCESS && r == 0, "self rank %d", r);
  CHECK(t, MPI_Comm_size(MPI_COMM_SELF, &n) == MPI_SUCCESS && n == 1, "self size %d", n);
  char name[MPI_MAX_PROCESSOR_NAME];
  CHECK(t,
        MPI_Get_processor_name(name, &len) == MPI_SUCCESS && len == (int)strlen(m2host_name()) &&
            !strcmp(name, m2host_name()),
        "processor name '%s'", name);
  CHECK(t, MPI_Get_version(&v, &sv) == MPI_SUCCESS && v == MPI_VERSION && sv == MPI_SUBVERSION, "version");
  const double w0 = MPI_Wtime();
  m2host_compute_ns(2500);
  const double w1 = MPI_Wtime();
  CHECK(t, w1 - w0 > 2.499e-6 && w1 - w0 < 2.6e-6 && MPI_Wtick() > 0 && MPI_Wtick() < 1e-6,
        "MPI_Wtime advances with simulated time: %.9f s for 2.5 us", w1 - w0);
  CHECK(t, w1 * 1e6 <= m2host_now_us() && w1 * 1e6 > m2host_now_us() - 1, "MPI_Wtime is the host's time");
  const struct {
    MPI_Datatype t;
    int size;
  } types[] = {{MPI_BYTE, 1},  {MPI_CHAR, 1},   {MPI_SHORT, 2},    {MPI_INT, 4},       {MPI_LONG, 8},
               {MPI_FLOAT, 4}, {MPI_DOUBLE, 8}, {MPI_UNSIGNED, 4}, {MPI_LONG_LONG, 8}, {MPI_UINT16_T, 2}};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    int s = 0;
    CHECK(t, MPI_Type_size(types[i].t, &s) == MPI_SUCCESS && s == types[i].size, "MPI_Type_size(0x%x) = %d",
          (unsigned)types[i].t, s);
  }
  char text[MPI_MAX_ERROR_STRING];
  CHECK(t, MPI_Error_string(MPI_ERR_TRUNCATE, text, &len) == MPI_SUCCESS && len > 0, "MPI_Error_string");
}

/* ---- point to point between rank 0 and rank 1 -------------------------------------- */
static void check_status(struct st *t, const MPI_Status *s, int src, int tag, size_t len, const char *what) {
  int count = -1, ints = -2;
  MPI_Get_count(s, MPI_BYTE, &count);
  MPI_Get_count(s, MPI_INT, &ints);
  CHECK(t,
        s->MPI_SOURCE == src && s->MPI_TAG == tag && count == (int)len &&
            ints == (len % 4 ? MPI_UNDEFINED : (int)(len / 4)),
        "%s: status source %d tag %d count %d (want %d, %d, %zu)", what, s->MPI_SOURCE, s->MPI_TAG, count, src, tag,
        len);
}

/* One size with one kind of buffer: Send/Recv, Ssend/Recv, Isend/Irecv with
 * Wait and Test, each way; every byte checked. */
static void pair_transfers(struct st *t, struct bufs *b, enum kind k, size_t len) {
  if (t->rank > 1) return;
  const int peer = 1 - t->rank;
  uint8_t *sbuf = b->base[k][0] + OFFSET, *rbuf = b->base[k][1] + OFFSET;
  MPI_Status st;
  for (int mode = 0; mode < 3; mode++) {
    const int tag = 10 + mode;
    const uint32_t seed = seed_of(0, 1, len, mode + (int)k * 3);
    if (t->rank == 0) {
      fill(sbuf, len, seed);
      if (mode == 0) MPI_Send(sbuf, (int)len, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
      if (mode == 1) MPI_Ssend(sbuf, (int)len, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
      if (mode == 2) {
        MPI_Request rq;
        MPI_Isend(sbuf, (int)len, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, &st);
        CHECK(t, rq == MPI_REQUEST_NULL, "Wait sets the request to MPI_REQUEST_NULL");
      }
      /* and back */
      clear(rbuf, len);
      MPI_Recv(rbuf, (int)len, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
      const size_t bad = bad_bytes(rbuf, len, seed + 1);
      CHECK(t, bad == 0, "%s %zu B mode %d: %zu bad bytes on the way back", kKindName[k], len, mode, bad);
      check_status(t, &st, peer, tag, len, "reply");
    } else {
      clear(rbuf, len);
      if (mode == 2) {
        MPI_Request rq;
        int flag = 0, polls = 0;
        MPI_Irecv(rbuf, (int)len, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &rq);
        while (!flag && polls < 1000000) {
          MPI_Test(&rq, &flag, &st);
          polls++;
        }
        CHECK(t, flag && rq == MPI_REQUEST_NULL, "MPI_Test completes the receive");
      } else {
        MPI_Recv(rbuf, (int)len, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &st);
      }
      const size_t bad = bad_bytes(rbuf, len, seed);
      CHECK(t, bad == 0, "%s %zu B mode %d: %zu bad bytes", kKindName[k], len, mode, bad);
      check_status(t, &st, peer, tag, len, "receive");
      fill(sbuf, len, seed + 1);
      MPI_Send(sbuf, (int)len, MPI_BYTE, peer, tag, MPI_COMM_WORLD);
    }
  }
}

/* Every rank sends to the next and receives from the previous at once. */
static void ring(struct st *t, struct bufs *b, size_t len) {
  const int next = (t->rank + 1) % t->size, prev = (t->rank + t->size - 1) % t->size;
  uint8_t *sbuf = b->base[PHYS][0] + OFFSET, *rbuf = b->base[PHYS][1] + OFFSET;
  fill(sbuf, len, seed_of(t->rank, next, len, 7));
  clear(rbuf, len);
  MPI_Status st;
  MPI_Sendrecv(sbuf, (int)len, MPI_BYTE, next, 3, rbuf, (int)len, MPI_BYTE, prev, 3, MPI_COMM_WORLD, &st);
  const size_t bad = bad_bytes(rbuf, len, seed_of(prev, t->rank, len, 7));
  CHECK(t, bad == 0, "ring %zu B: %zu bad bytes from rank %d", len, bad, prev);
  check_status(t, &st, prev, 3, len, "ring");
}

/* Rank 0 takes messages from everyone with MPI_ANY_SOURCE / MPI_ANY_TAG:
 * each sender's messages must come in its order, all bytes intact. */
static void wildcards(struct st *t, struct bufs *b) {
  enum { PER_RANK = 6 };
  const size_t lens[PER_RANK] = {4, 40000, 1952, 1953, 8, 20000};
  uint8_t *buf = b->base[HEAP][0] + OFFSET;
  if (t->rank != 0) {
    for (int k = 0; k < PER_RANK; k++) {
      fill(buf, lens[k], seed_of(t->rank, 0, lens[k], k));
      MPI_Send(buf, (int)lens[k], MPI_BYTE, 0, 100 + k, MPI_COMM_WORLD);
    }
    return;
  }
  int next[64] = {0};
  for (int m = 0; m < PER_RANK * (t->size - 1); m++) {
    MPI_Status st;
    clear(buf, 40000);
    MPI_Recv(buf, 40000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    const int src = st.MPI_SOURCE, k = st.MPI_TAG - 100;
    CHECK(t, src > 0 && src < t->size && k == next[src], "wildcard receive %d: source %d tag %d, expected tag %d", m,
          src, st.MPI_TAG, src > 0 && src < 64 ? 100 + next[src] : -1);
    if (src <= 0 || src >= t->size || k < 0 || k >= PER_RANK) continue;
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(t, count == (int)lens[k] && bad_bytes(buf, lens[k], seed_of(src, 0, lens[k], k)) == 0,
          "wildcard message %d from rank %d: %d bytes, payload", k, src, count);
    next[src] = k + 1;
  }
}

/* Order per pair and matching by tag: 40 messages of eager and rendezvous
 * sizes on one tag arrive in order; a later tag can be received first. */
static void ordering(struct st *t, struct bufs *b) {
  if (t->rank > 1) return;
  enum { N = 40 };
  uint8_t *buf = b->base[PHYS][0] + OFFSET;
  if (t->rank == 1) {
    for (int i = 0; i < N; i++) {
      const size_t len = (size_t)(i % 3 == 0 ? 3000 + i : i % 3 == 1 ? 16 + i : 20000 + i);
      fill(buf, len, (uint32_t)i);
      buf[0] = (uint8_t)i;
      MPI_Send(buf, (int)len, MPI_BYTE, 0, 21, MPI_COMM_WORLD);
    }
    /* Nonblocking: rank 0 takes tag 6 first, so a blocking send of tag 5 would
     * only return if the library buffered it (eager), which MPI does not
     * promise (with node*.host.mpi.eager_limit below 4 B it deadlocks). */
    int a = 5, c = 6;
    MPI_Request sr[2];
    MPI_Status sst[2];
    MPI_Isend(&a, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, &sr[0]);
    MPI_Isend(&c, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &sr[1]);
    MPI_Waitall(2, sr, sst);
    return;
  }
  MPI_Request rq[N / 2];
  uint8_t *slots = b->base[HEAP][1];
  /* The first half posted before anything arrives, the second half after. */
  for (int i = 0; i < N / 2; i++) MPI_Irecv(slots + (size_t)i * 24000, 24000, MPI_BYTE, 1, 21, MPI_COMM_WORLD, &rq[i]);
  /* The first quarter's statuses kept, the second's ignored. */
  MPI_Status sts[N / 4];
  MPI_Waitall(N / 4, rq, sts);
  int in_order = 1;
  for (int i = 0; i < N / 4; i++) {
    const size_t len = (size_t)(i % 3 == 0 ? 3000 + i : i % 3 == 1 ? 16 + i : 20000 + i);
    int count = -1;
    MPI_Get_count(&sts[i], MPI_BYTE, &count);
    CHECK(t, sts[i].MPI_SOURCE == 1 && sts[i].MPI_TAG == 21 && count == (int)len && rq[i] == MPI_REQUEST_NULL,
          "Waitall status %d: source %d tag %d count %d", i, sts[i].MPI_SOURCE, sts[i].MPI_TAG, count);
  }
#pragma GCC diagnostic push
  /* MPI_STATUSES_IGNORE is the ABI's (MPI_Status *)1: GCC takes it for an array. */
#pragma GCC diagnostic ignored "-Wstringop-overflow"
  MPI_Waitall(N / 2 - N / 4, rq + N / 4, MPI_STATUSES_IGNORE);
#pragma GCC diagnostic pop
  for (int i = 0; i < N / 2; i++) in_order &= slots[(size_t)i * 24000] == (uint8_t)i;
  for (int i = N / 2; i < N; i++) {
    MPI_Status st;
    MPI_Recv(buf, 24000, MPI_BYTE, 1, 21, MPI_COMM_WORLD, &st);
    in_order &= buf[0] == (uint8_t)i;
  }
  CHECK(t, in_order, "40 messages on one tag arrive in the order sent");
  int v = 0;
  MPI_Recv(&v, 1, MPI_INT, 1, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(t, v == 6, "tag 6 received before tag 5: %d", v);
  MPI_Recv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  CHECK(t, v == 5, "then tag 5: %d", v);
}

/* Probe, Iprobe and Test between ranks 0 and 1. */
static void probes(struct st *t) {
  if (t->rank > 1) return;
  int data[5000];
  if (t->rank == 1) {
    int go = 0;
    MPI_Recv(&go, 1, MPI_INT, 0, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < 5000; i++) data[i] = i * 3;
    MPI_Send(data, 5000, MPI_INT, 0, 31, MPI_COMM_WORLD); /* rendezvous */
    MPI_Send(data, 7, MPI_INT, 0, 32, MPI_COMM_WORLD);    /* eager */
    return;
  }
  int flag = -1;
  MPI_Status st;
  CHECK(t, MPI_Iprobe(1, 31, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && flag == 0, "Iprobe before a send: %d", flag);
  MPI_Request rq;
  MPI_Irecv(data, 7, MPI_INT, 1, 32, MPI_COMM_WORLD, &rq);
  MPI_Test(&rq, &flag, &st);
  CHECK(t, flag == 0, "Test of a receive nobody has sent to");
  int go = 1;
  MPI_Send(&go, 1, MPI_INT, 1, 30, MPI_COMM_WORLD);
  MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
  int count = 0;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(t, st.MPI_SOURCE == 1 && st.MPI_TAG == 31 && count == 5000, "Probe: source %d tag %d count %d", st.MPI_SOURCE,
        st.MPI_TAG, count);
  int big[5000];
  MPI_Recv(big, 5000, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
  int good = 1;
  for (int i = 0; i < 5000; i++) good &= big[i] == i * 3;
  CHECK(t, good, "the probed message's payload");
  for (flag = 0; !flag;) MPI_Test(&rq, &flag, &st);
  CHECK(t, st.MPI_TAG == 32 && data[6] == 18, "Test completes the eager receive: tag %d", st.MPI_TAG);
}

/* MPI_PROC_NULL, MPI_COMM_SELF and the error codes under MPI_ERRORS_RETURN. */
static void specials(struct st *t) {
  int x = 42, y = 0;
  MPI_Status st;
  CHECK(t, MPI_Send(&x, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD) == MPI_SUCCESS, "send to MPI_PROC_NULL");
  CHECK(t,
        MPI_Recv(&y, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st) == MPI_SUCCESS &&
            st.MPI_SOURCE == MPI_PROC_NULL && y == 0,
        "receive from MPI_PROC_NULL");
  /* COMM_SELF: a message to oneself, and collectives of one. */
  MPI_Request rq;
  MPI_Irecv(&y, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &rq);
  MPI_Send(&x, 1, MPI_INT, 0, 9, MPI_COMM_SELF);
  MPI_Wait(&rq, &st);
  CHECK(t, y == 42 && st.MPI_SOURCE == 0, "message to oneself on MPI_COMM_SELF: %d from %d", y, st.MPI_SOURCE);
  long lv = 7, lr = 0;
  MPI_Allreduce(&lv, &lr, 1, MPI_LONG, MPI_SUM, MPI_COMM_SELF);
  CHECK(t, lr == 7, "allreduce on MPI_COMM_SELF: %ld", lr);
  /* errors */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  CHECK(t, MPI_Send(&x, 1, MPI_INT, t->size, 1, MPI_COMM_WORLD) == MPI_ERR_RANK, "rank out of range");
  CHECK(t, MPI_Send(&x, 1, (MPI_Datatype)0x12345678, 0, 1, MPI_COMM_WORLD) == MPI_ERR_TYPE, "unknown datatype");
  CHECK(t, MPI_Send(&x, 1, MPI_INT, 0, 1, (MPI_Comm)0x44000005) == MPI_ERR_COMM, "unknown communicator");
  CHECK(t, MPI_Send(&x, -1, MPI_INT, 0, 1, MPI_COMM_WORLD) == MPI_ERR_COUNT, "negative count");
  CHECK(t, MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD) == MPI_ERR_TAG, "negative tag");
  CHECK(t, MPI_Reduce(&x, &y, 1, MPI_DOUBLE, MPI_BAND, 0, MPI_COMM_SELF) == MPI_ERR_OP, "bitwise and of doubles");
  CHECK(t, MPI_Wait(&(MPI_Request){12345}, &st) == MPI_ERR_REQUEST, "bad request handle");
  /* Wait and Test on MPI_REQUEST_NULL: the empty status (MPI_ANY_SOURCE, MPI_ANY_TAG, count 0). */
  int flag = 0, cnt = -1;
  MPI_Request none = MPI_REQUEST_NULL;
  st.MPI_SOURCE = 99;
  CHECK(t,
        MPI_Test(&none, &flag, &st) == MPI_SUCCESS && flag == 1 && st.MPI_SOURCE == MPI_ANY_SOURCE &&
            st.MPI_TAG == MPI_ANY_TAG && MPI_Get_count(&st, MPI_BYTE, &cnt) == MPI_SUCCESS && cnt == 0,
        "Test on MPI_REQUEST_NULL: flag %d, source %d", flag, st.MPI_SOURCE);
  st.MPI_SOURCE = 99;
  CHECK(t, MPI_Wait(&none, &st) == MPI_SUCCESS && st.MPI_SOURCE == MPI_ANY_SOURCE,
        "Wait on MPI_REQUEST_NULL: source %d", st.MPI_SOURCE);
  if (t->rank <= 1) {
    /* Truncation, eager and rendezvous: the receive reports it, the send does not. */
    uint8_t *big = calloc(30000, 1); /* every host's own: all hosts share the process's statics */
    for (int i = 0; i < 2; i++) {
      const int len = i ? 30000 : 1000;
      if (t->rank == 0) {
        CHECK(t, MPI_Send(big, len, MPI_BYTE, 1, 40, MPI_COMM_WORLD) == MPI_SUCCESS, "send of a truncated message");
      } else {
        const int rc = MPI_Recv(big, len / 2, MPI_BYTE, 0, 40, MPI_COMM_WORLD, &st);
        CHECK(t, rc == MPI_ERR_TRUNCATE, "receive of %d bytes into %d: %d", len, len / 2, rc);
      }
    }
    free(big);
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- collectives ------------------------------------------------------------------------ */
static void collectives(struct st *t) {
  const int n = t->size, me = t->rank;
  MPI_Barrier(MPI_COMM_WORLD);
  enum { BIG = 3000 }; /* 12000 bytes: rendezvous */
  /* Every host's own buffers (statics would be shared by all simulated hosts). */
  int *ib = calloc(BIG, sizeof(int)), *ir = calloc(BIG * 16, sizeof(int)), *out = calloc(2000 * 16, sizeof(int));
  for (int root = 0; root < n; root++) {
    for (int k = 0; k < 2; k++) {
      const int count = k ? BIG : 10;
      for (int i = 0; i < count; i++) ib[i] = me == root ? i * 7 + root : -1;
      MPI_Bcast(ib, count, MPI_INT, root, MPI_COMM_WORLD);
      int good = 1;
      for (int i = 0; i < count; i++) good &= ib[i] == i * 7 + root;
      CHECK(t, good, "Bcast of %d ints from root %d", count, root);
    }
    /* Reduce: int SUM/MAX/MIN/PROD, double SUM, long MAX. */
    const MPI_Op ops[4] = {MPI_SUM, MPI_MAX, MPI_MIN, MPI_PROD};
    for (int o = 0; o < 4; o++) {
      for (int i = 0; i < BIG; i++) ib[i] = (me + 1) * (i % 5 + 1) - (o == 1 ? 2 * me : 0);
      memset(ir, 0, sizeof(int) * BIG);
      MPI_Reduce(ib, ir, BIG, MPI_INT, ops[o], root, MPI_COMM_WORLD);
      if (me != root) continue;
      int good = 1;
      for (int i = 0; i < BIG; i++) {
        long want = ops[o] == MPI_PROD ? 1 : ops[o] == MPI_SUM ? 0 : ops[o] == MPI_MAX ? -1000000 : 1000000;
        for (int r = 0; r < n; r++) {
          const long v = (long)(r + 1) * (i % 5 + 1) - (o == 1 ? 2 * r : 0);
          want = ops[o] == MPI_SUM    ? want + v
                 : ops[o] == MPI_PROD ? want * v
                 : ops[o] == MPI_MAX  ? (v > want ? v : want)
                                      : (v < want ? v : want);
        }
        good &= ir[i] == (int)want;
      }
      CHECK(t, good, "Reduce op %d of %d ints at root %d", o, BIG, root);
    }
    double d = 0.25 * (me + 1), dsum = 0;
    MPI_Reduce(&d, &dsum, 1, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    if (me == root) CHECK(t, dsum == 0.25 * n * (n + 1) / 2, "double sum %g", dsum);
    /* Gather: each rank's block of 5 (and of BIG/4 ints: rendezvous) in rank order. */
    for (int k = 0; k < 2; k++) {
      const int count = k ? BIG : 5;
      for (int i = 0; i < count; i++) ib[i] = me * 1000 + i;
      memset(ir, 0, sizeof(int) * (size_t)count * (size_t)n);
      MPI_Gather(ib, count, MPI_INT, ir, count, MPI_INT, root, MPI_COMM_WORLD);
      if (me != root) continue;
      int good = 1;
      for (int r = 0; r < n; r++)
        for (int i = 0; i < count; i++) good &= ir[r * count + i] == r * 1000 + i;
      CHECK(t, good, "Gather of %d ints per rank at root %d", count, root);
    }
  }
  /* Allreduce of longs (MAX) and floats (SUM). */
  long lv = 100 + me, lmax = 0;
  MPI_Allreduce(&lv, &lmax, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
  CHECK(t, lmax == 100 + n - 1, "Allreduce MAX of longs: %ld", lmax);
  float fv[3] = {1.5f * me, 2.0f, -1.0f}, fs[3] = {0, 0, 0};
  MPI_Allreduce(fv, fs, 3, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  CHECK(t, fs[0] == 1.5f * n * (n - 1) / 2 && fs[1] == 2.0f * n && fs[2] == -1.0f * n, "Allreduce SUM of floats");
  unsigned ub = 1u << me, uor = 0;
  MPI_Allreduce(&ub, &uor, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD);
  CHECK(t, uor == (1u << n) - 1, "Allreduce BOR: 0x%x", uor);
  /* Alltoall: block j of rank i is i * 100 + j (small and rendezvous blocks). */
  for (int k = 0; k < 2; k++) {
    const int count = k ? 2000 : 3;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < count; i++) ir[j * count + i] = (me * 100 + j) * 10000 + i;
    memset(out, 0, sizeof(int) * 2000 * 16);
    MPI_Alltoall(ir, count, MPI_INT, out, count, MPI_INT, MPI_COMM_WORLD);
    int good = 1;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < count; i++) good &= out[j * count + i] == (j * 100 + me) * 10000 + i;
    CHECK(t, good, "Alltoall of %d ints per pair", count);
    /* The same in place: recvbuf holds what goes out and gets what comes in. */
    for (int j = 0; j < n; j++)
      for (int i = 0; i < count; i++) out[j * count + i] = (me * 100 + j) * 10000 + i;
    MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, out, count, MPI_INT, MPI_COMM_WORLD);
    good = 1;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < count; i++) good &= out[j * count + i] == (j * 100 + me) * 10000 + i;
    CHECK(t, good, "Alltoall in place of %d ints per pair", count);
  }
  free(ib);
  free(ir);
  free(out);
  MPI_Barrier(MPI_COMM_WORLD);
}

static int mpi_selftest(int argc, char **argv) {
  struct st t;
  memset(&t, 0, sizeof t);
  const char *sizes = "0,1,3,100,1951,1952,1953,4097,16383,16384,16385,65537,300001";
  int unimplemented = 0, abort_code = -1, before_init = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--unimplemented")) unimplemented = 1;
    else if (!strcmp(argv[i], "--before-init")) before_init = 1;
    else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
    else if (!strcmp(argv[i], "--abort") && i + 1 < argc) abort_code = atoi(argv[++i]);
    else {
      m2host_printf("mpi_selftest: unknown option %s\n", argv[i]);
      app_release_ni();
      return 2;
    }
  }
  t.n_sizes = app_parse_sizes(sizes, t.sizes, MAX_SIZES);
  if (t.n_sizes < 1) {
    m2host_printf("mpi_selftest: bad --sizes %s\n", sizes);
    app_release_ni();
    return 2;
  }
  for (int i = 0; i < t.n_sizes; i++)
    if (t.sizes[i] > t.max) t.max = t.sizes[i];
  if (before_init) {
    int x = 0;
    MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_WORLD); /* ends the run naming MPI_Send */
    m2host_printf("FAIL: MPI_Send before MPI_Init returned\n");
    return 1;
  }
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &t.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &t.size);
  if (t.size > 16) {
    m2host_printf("mpi_selftest: at most 16 hosts\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (unimplemented) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    m2host_printf("FAIL: MPI_Comm_dup returned\n");
    return 1;
  }
  if (abort_code >= 0 && t.rank == 1) MPI_Abort(MPI_COMM_WORLD, abort_code);
  environment(&t);
  struct bufs b;
  const size_t bytes = (t.max > 48000 * 20 ? t.max : 48000 * 20) + OFFSET + GUARD;
  for (int k = 0; k < KINDS; k++)
    for (int j = 0; j < 2; j++) {
      b.base[k][j] = alloc_kind((enum kind)k, bytes);
      if (!b.base[k][j]) {
        m2host_printf("mpi_selftest: cannot allocate %zu bytes of %s memory\n", bytes, kKindName[k]);
        MPI_Abort(MPI_COMM_WORLD, 3);
      }
    }
  for (int k = 0; k < KINDS; k++)
    for (int i = 0; i < t.n_sizes; i++) pair_transfers(&t, &b, (enum kind)k, t.sizes[i]);
  for (int i = 0; i < t.n_sizes; i++) ring(&t, &b, t.sizes[i]);
  MPI_Barrier(MPI_COMM_WORLD);
  wildcards(&t, &b);
  MPI_Barrier(MPI_COMM_WORLD);
  ordering(&t, &b);
  probes(&t);
  MPI_Barrier(MPI_COMM_WORLD);
  specials(&t);
  MPI_Barrier(MPI_COMM_WORLD);
  collectives(&t);
  for (int k = 0; k < KINDS; k++)
    for (int j = 0; j < 2; j++) free_kind((enum kind)k, b.base[k][j]);
  /* Everyone's verdict at rank 0. */
  int mine[2] = {t.checks, t.failures}, all[2] = {0, 0};
  MPI_Reduce(mine, all, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  int flag = 0;
  MPI_Finalized(&flag);
  CHECK(&t, flag == 1, "MPI_Finalized after MPI_Finalize");
  m2host_result("checks", t.checks);
  m2host_result("failures", t.failures);
  if (t.rank == 0) m2host_printf("mpi_selftest: %d hosts, %d checks, %d failed\n", t.size, all[0], all[1]);
  return t.failures ? 1 : 0;
}

M2HOST_APP(mpi_selftest, mpi_selftest,
           "MPI self-test on every host: each MPI function, payloads byte for byte, wildcards, order, collectives")
