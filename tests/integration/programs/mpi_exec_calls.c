/* mpi_exec_probe's "calls" mode: every MPI function the platform's library
 * implements, called by an outside program, with every payload checked byte
 * for byte (eager and rendezvous sizes around the eager limit, odd sizes
 * and alignments), ANY_SOURCE/ANY_TAG, per-pair order, collectives' results.
 * Pairs (0,1), (2,3) ... exchange; collectives use every rank. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

static int g_errors;

#define CHECK(cond, ...)                          \
  do {                                            \
    if (!(cond)) {                                \
      g_errors++;                                 \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__);                        \
      printf("\n");                               \
    }                                             \
  } while (0)

static uint8_t pattern(size_t i, size_t len, int from) {
  return (uint8_t)(i * 13u + len * 7u + (unsigned)from * 31u + 1u);
}

static void fill(uint8_t *b, size_t len, int from) {
  for (size_t i = 0; i < len; i++) b[i] = pattern(i, len, from);
}

static size_t bad_bytes(const uint8_t *b, size_t len, int from) {
  size_t bad = 0;
  for (size_t i = 0; i < len; i++) bad += b[i] != pattern(i, len, from);
  return bad;
}

static const size_t sizes[] = {0, 1, 7, 1951, 1952, 1953, 4099, 65541};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define MAXSZ 65541
#define SENTINEL 0xa5

/* One ping-pong per size with each point-to-point style; the odd rank echoes. */
static void pairs(int rank, int peer) {
  uint8_t *s = malloc(MAXSZ + 64), *r = malloc(MAXSZ + 64);
  const int even = rank % 2 == 0;
  for (size_t k = 0; k < NSIZES; k++) {
    const size_t n = sizes[k];
    uint8_t *sb = s + 3, *rb = r + 5; /* misaligned on purpose */
    for (int style = 0; style < 4; style++) {
      MPI_Status st;
      memset(rb, SENTINEL, n + 8);
      if (even) {
        fill(sb, n, rank);
        if (style == 0) MPI_Send(sb, (int)n, MPI_BYTE, peer, 10 + style, MPI_COMM_WORLD);
        if (style == 1) MPI_Ssend(sb, (int)n, MPI_BYTE, peer, 10 + style, MPI_COMM_WORLD);
        if (style == 2) {
          MPI_Request q;
          MPI_Isend(sb, (int)n, MPI_BYTE, peer, 10 + style, MPI_COMM_WORLD, &q);
          MPI_Wait(&q, MPI_STATUS_IGNORE);
          CHECK(q == MPI_REQUEST_NULL, "Wait leaves MPI_REQUEST_NULL");
        }
        if (style == 3) {
          MPI_Sendrecv(sb, (int)n, MPI_BYTE, peer, 10 + style, rb, (int)n + 8, MPI_BYTE, peer, 20 + style,
                       MPI_COMM_WORLD, &st);
        } else {
          MPI_Recv(rb, (int)n + 8, MPI_BYTE, peer, 20 + style, MPI_COMM_WORLD, &st);
        }
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == (int)n, "size %zu style %d: count %d", n, style, count);
        CHECK(st.MPI_SOURCE == peer && st.MPI_TAG == 20 + style, "status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        CHECK(bad_bytes(rb, n, peer) == 0, "size %zu style %d: %zu bad bytes", n, style, bad_bytes(rb, n, peer));
        CHECK(rb[n] == SENTINEL && rb[n + 7] == SENTINEL, "size %zu style %d: bytes past the message written", n,
              style);
      } else {
        fill(sb, n, rank);
        if (style == 2) { /* nonblocking receive, completed by Test then Waitall */
          MPI_Request q[2];
          int flag = 0;
          MPI_Irecv(rb, (int)n + 8, MPI_BYTE, peer, 10 + style, MPI_COMM_WORLD, &q[0]);
          while (!flag) MPI_Test(&q[0], &flag, &st);
          CHECK(q[0] == MPI_REQUEST_NULL, "Test leaves MPI_REQUEST_NULL");
          MPI_Isend(sb, (int)n, MPI_BYTE, peer, 20 + style, MPI_COMM_WORLD, &q[1]);
          q[0] = MPI_REQUEST_NULL;
          MPI_Status sts[2];
          MPI_Waitall(2, q, sts);
          CHECK(q[1] == MPI_REQUEST_NULL, "Waitall leaves MPI_REQUEST_NULL");
        } else if (style == 3) {
          MPI_Sendrecv(sb, (int)n, MPI_BYTE, peer, 20 + style, rb, (int)n + 8, MPI_BYTE, peer, 10 + style,
                       MPI_COMM_WORLD, &st);
        } else {
          MPI_Recv(rb, (int)n + 8, MPI_BYTE, peer, 10 + style, MPI_COMM_WORLD, &st);
          MPI_Send(sb, (int)n, MPI_BYTE, peer, 20 + style, MPI_COMM_WORLD);
        }
        CHECK(bad_bytes(rb, n, peer) == 0, "size %zu style %d: %zu bad bytes", n, style, bad_bytes(rb, n, peer));
        CHECK(rb[n] == SENTINEL, "size %zu style %d: bytes past the message written", n, style);
      }
    }
  }
  free(s);
  free(r);
}

/* Rank 0 takes one message from everyone with ANY_SOURCE/ANY_TAG, after
 * probing for it; then (after a barrier) five in a row from rank 1 arrive in order. */
static void wildcards(int rank, int size) {
  if (rank == 0) {
    int seen = 0;
    for (int k = 1; k < size; k++) {
      MPI_Status st;
      int flag = 0;
      while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
      MPI_Status pst;
      MPI_Probe(st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &pst);
      int count = 0;
      MPI_Get_count(&pst, MPI_INT, &count);
      int v[8] = {0};
      MPI_Recv(v, 8, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      CHECK(st.MPI_TAG == 100 + st.MPI_SOURCE, "tag %d from %d", st.MPI_TAG, st.MPI_SOURCE);
      CHECK(count == st.MPI_SOURCE && v[0] == st.MPI_SOURCE * 1000, "count %d value %d from %d", count, v[0],
            st.MPI_SOURCE);
      seen |= 1 << st.MPI_SOURCE;
    }
    CHECK(seen == ((1 << size) - 2), "sources seen %#x", seen);
    /* Rank 1's sequence only after every wildcard message was taken (else
     * ANY_TAG may rightly match one of them). */
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < 5; k++) {
      int v = -1;
      MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      CHECK(v == k, "message %d of rank 1 arrived as %d", k, v);
    }
  } else {
    int v[8];
    for (int k = 0; k < 8; k++) v[k] = rank * 1000 + k;
    MPI_Send(v, rank, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
      for (int k = 0; k < 5; k++) MPI_Send(&k, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
  }
}

static void collectives(int rank, int size) {
  MPI_Barrier(MPI_COMM_WORLD);
  uint8_t b[3000];
  const int root = 1 % size;
  if (rank == root) fill(b, sizeof b, 77);
  else memset(b, 0, sizeof b);
  MPI_Bcast(b, (int)sizeof b, MPI_BYTE, root, MPI_COMM_WORLD);
  CHECK(bad_bytes(b, sizeof b, 77) == 0, "Bcast: %zu bad bytes", bad_bytes(b, sizeof b, 77));

  int mine[3] = {rank + 1, 2 * rank, 5}, sum[3] = {-1, -1, -1};
  MPI_Reduce(mine, sum, 3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    CHECK(sum[0] == size * (size + 1) / 2 && sum[1] == size * (size - 1) && sum[2] == 5 * size, "Reduce SUM %d %d %d",
          sum[0], sum[1], sum[2]);
  else CHECK(sum[0] == -1, "Reduce wrote a non-root's buffer");

  double d = rank + 0.5, mx = 0, mn = 0, prod = 0;
  MPI_Allreduce(&d, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(&d, &mn, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&d, &prod, 1, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
  double want = 1;
  for (int k = 0; k < size; k++) want *= k + 0.5;
  CHECK(mx == size - 0.5 && mn == 0.5 && prod == want, "Allreduce max %g min %g prod %g", mx, mn, prod);
  long lv = rank, ls = 0;
  MPI_Allreduce(&lv, &ls, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  CHECK(ls == (long)size * (size - 1) / 2, "Allreduce LONG SUM %ld", ls);

  int g[2] = {rank, rank * rank}, all[64] = {0};
  MPI_Gather(g, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int k = 0; k < size; k++) CHECK(all[2 * k] == k && all[2 * k + 1] == k * k, "Gather from %d", k);

  float out[64], in[64];
  for (int k = 0; k < size; k++) out[k] = (float)(rank * 100 + k);
  MPI_Alltoall(out, 1, MPI_FLOAT, in, 1, MPI_FLOAT, MPI_COMM_WORLD);
  for (int k = 0; k < size; k++) CHECK(in[k] == (float)(k * 100 + rank), "Alltoall from %d: %g", k, in[k]);

  int self = -1, one = 0;
  MPI_Comm_rank(MPI_COMM_SELF, &self);
  MPI_Comm_size(MPI_COMM_SELF, &one);
  CHECK(self == 0 && one == 1, "COMM_SELF rank %d size %d", self, one);
  char c = 'x', cs = 0;
  MPI_Allreduce(&c, &cs, 1, MPI_CHAR, MPI_MAX, MPI_COMM_SELF);
  CHECK(cs == 'x', "Allreduce on COMM_SELF");
}

/* MPI_ERRORS_RETURN makes a bad call return its error code instead of
 * ending the run; MPI_Alloc_mem's memory carries a message like any other. */
static void errors_and_memory(int rank, int size) {
  CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS, "set_errhandler RETURN");
  const int rc = MPI_Send(NULL, 0, MPI_BYTE, size + 5, 1, MPI_COMM_WORLD); /* no such rank */
  CHECK(rc != MPI_SUCCESS, "a send to rank %d returned MPI_SUCCESS under MPI_ERRORS_RETURN", size + 5);
  CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL) == MPI_SUCCESS, "set_errhandler FATAL");
  uint8_t *m = NULL;
  CHECK(MPI_Alloc_mem(4099, MPI_INFO_NULL, &m) == MPI_SUCCESS && m, "Alloc_mem");
  if (!m || (rank + 1 >= size && rank % 2 == 0)) {
    MPI_Free_mem(m);
    return;
  }
  const int peer = rank ^ 1;
  if (rank % 2 == 0) {
    fill(m, 4099, rank);
    MPI_Send(m, 4099, MPI_BYTE, peer, 90, MPI_COMM_WORLD);
  } else {
    memset(m, SENTINEL, 4099);
    MPI_Recv(m, 4099, MPI_BYTE, peer, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(bad_bytes(m, 4099, peer) == 0, "Alloc_mem buffer: %zu bad bytes", bad_bytes(m, 4099, peer));
  }
  CHECK(MPI_Free_mem(m) == MPI_SUCCESS, "Free_mem");
}

int calls(int rank, int size) {
  int flag = 0, len = 0, v = 0, sv = 0, ts = 0;
  MPI_Initialized(&flag);
  CHECK(flag == 1, "Initialized %d", flag);
  char name[MPI_MAX_PROCESSOR_NAME];
  MPI_Get_processor_name(name, &len);
  CHECK(len > 0 && (int)strlen(name) == len, "processor name '%s' (%d)", name, len);
  MPI_Get_version(&v, &sv);
  CHECK(v >= 1, "version %d.%d", v, sv);
  MPI_Type_size(MPI_DOUBLE, &ts);
  CHECK(ts == 8, "Type_size(MPI_DOUBLE) %d", ts);
  const double t0 = MPI_Wtime(), tick = MPI_Wtick();
  CHECK(tick > 0 && tick < 1e-3, "Wtick %g", tick);

  if (rank + 1 < size || rank % 2 == 1) pairs(rank, rank ^ 1);
  wildcards(rank, size);
  collectives(rank, size);
  errors_and_memory(rank, size);
  CHECK(MPI_Wtime() > t0, "Wtime did not advance over the calls");
  printf("calls: %d errors (rank %d of %d)\n", g_errors, rank, size);
  return g_errors;
}
