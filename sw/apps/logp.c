/* LogP parameters of one message layer (MMP or MPI over MMP) between hosts 0
 * and 1, measured the way the Berkeley active-message studies did
 * (shared/spec/experiments.md, item 7):
 *  - o_s: rank 0 issues a short burst of minimum-size sends back to back; the
 *    time per send call is the send overhead.
 *  - g: a long burst of maximum-size messages of the small-message protocol
 *    (the MPI eager limit, 1952 B, for both layers) at full speed: the
 *    interval between sends in steady state (at most 8 outstanding, taken
 *    over the burst's second half) is the gap. The burst is long (512) because
 *    MPI's 32 pinned send slots absorb a shorter one: it would measure MPI's
 *    own copy pace instead of the network's.
 *  - o_r: requests with a reply: rank 0 sends a minimum-size request, computes
 *    for a growing idle interval delta, then takes the replies that have come;
 *    once delta is long enough that the network no longer limits, the
 *    interval per request is o_s + delta + o_r, so o_r = interval - o_s - delta
 *    (taken at the largest delta). The interval per delta is the "signature",
 *    written to signature.tsv in the run's folder.
 *  - L: from the minimum-size round trip, o_s + L + o_r = RTT / 2.
 * Rank 0 prints one row: o_s_us o_r_us g_us L_us rtt2_us.
 *   logp [--layer mmp|mpi] [--burst N] [--rounds N] [--len BYTES (for g; 1952)] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "host/host_env.h"
#include "mmp.h"
#include "mpi.h"

#define PORT 5
#define SMALL 1952 /* largest small-protocol message: MPI's default eager limit */
#define MAX_BURST 512
#define WINDOW 8 /* most sends outstanding in a burst, and receives posted */

/* One layer's operations: sends that may stay outstanding, receives. */
struct layer {
  int mpi, rank, peer;
  struct MMP_connect *me, *other;
  uint8_t *sbuf, *rbuf;
  struct MMP_send_handle *sh[MAX_BURST];
  struct MMP_recv_handle *rh[MAX_BURST];
  MPI_Request sr[MAX_BURST], rr[MAX_BURST];
};

static void send_start(struct layer *l, int k, size_t len) {
  if (l->mpi) MPI_Isend(l->sbuf, (int)len, MPI_BYTE, l->peer, 1, MPI_COMM_WORLD, &l->sr[k]);
  else l->sh[k] = MMP_Send(l->sbuf + (size_t)(k % WINDOW) * SMALL, len, 1, l->me, l->other);
}

static void send_end(struct layer *l, int k) {
  if (l->mpi) MPI_Wait(&l->sr[k], MPI_STATUS_IGNORE);
  else MMP_Wait_send(l->sh[k]);
}

static void recv_post(struct layer *l, int k, size_t len) {
  if (l->mpi) MPI_Irecv(l->rbuf + (size_t)k * SMALL, (int)len, MPI_BYTE, l->peer, 1, MPI_COMM_WORLD, &l->rr[k]);
  else l->rh[k] = MMP_Recv(l->rbuf + (size_t)k * SMALL, len, 1, l->other, l->me);
}

static void recv_end(struct layer *l, int k) {
  if (l->mpi) MPI_Wait(&l->rr[k], MPI_STATUS_IGNORE);
  else MMP_Wait_recv(l->rh[k]);
}

/* 1 when receive k has completed (and is then finished), else 0. */
static int recv_test(struct layer *l, int k) {
  if (l->mpi) {
    int flag = 0;
    MPI_Test(&l->rr[k], &flag, MPI_STATUS_IGNORE);
    return flag;
  }
  return MMP_Wait_recv_for(l->rh[k], 0) != MMP_ETIMEDOUT;
}

/* Minimum-size ping-pong round trip / 2 (rank 1 echoes). */
static double half_rtt(struct layer *l, int rounds) {
  double total = 0;
  for (int i = 0; i < rounds + 1; i++) {
    recv_post(l, 0, 1);
    const double t0 = m2host_now_us();
    if (l->rank == 0) send_start(l, 0, 1), send_end(l, 0), recv_end(l, 0);
    else recv_end(l, 0), send_start(l, 0, 1), send_end(l, 0);
    if (i > 0) total += m2host_now_us() - t0; /* the first round warms up */
  }
  return total / rounds / 2;
}

/* A burst of n messages of len bytes from rank 0, at most WINDOW of them
 * outstanding (the oldest is waited for before the next starts), acknowledged
 * at the end by one reply. Returns the steady-state interval between sends
 * (send starts over the burst's second half, once buffers have filled) and
 * through *call_us rank 0's time per send call. */
static double burst(struct layer *l, int n, size_t len, double *call_us) {
  if (l->rank == 1) {
    /* WINDOW receives kept posted (the MMP firmware looks through the posted
     * receives for every arrival: all n at once would slow the NI down). */
    for (int k = 0; k < n && k < WINDOW; k++) recv_post(l, k, len);
    for (int k = 0; k < n; k++) {
      recv_end(l, k);
      if (k + WINDOW < n) recv_post(l, k + WINDOW, len);
    }
    send_start(l, 0, 1);
    send_end(l, 0);
    return 0;
  }
  recv_post(l, 0, 1);
  double calls = 0, start[MAX_BURST];
  for (int k = 0; k < n; k++) {
    if (k >= WINDOW) send_end(l, k - WINDOW);
    start[k] = m2host_now_us();
    send_start(l, k, len);
    calls += m2host_now_us() - start[k];
  }
  for (int k = n > WINDOW ? n - WINDOW : 0; k < n; k++) send_end(l, k);
  recv_end(l, 0);
  *call_us = calls / n;
  return (start[n - 1] - start[n / 2]) / (n - 1 - n / 2);
}

/* Requests with replies and delta us of computing after each request: the
 * interval per request. */
static double signature(struct layer *l, int n, double delta) {
  if (l->rank == 1) {
    for (int k = 0; k < n; k++) recv_post(l, k, 1);
    for (int k = 0; k < n; k++) {
      recv_end(l, k);
      send_start(l, k, 1);
    }
    for (int k = 0; k < n; k++) send_end(l, k);
    return 0;
  }
  for (int k = 0; k < n; k++) recv_post(l, k, 1);
  int replies = 0;
  const double t0 = m2host_now_us();
  for (int k = 0; k < n; k++) {
    send_start(l, k, 1);
    m2host_compute_ns(delta * 1e3);
    while (replies <= k && recv_test(l, replies)) replies++;
  }
  while (replies < n) recv_end(l, replies++);
  const double interval = (m2host_now_us() - t0) / n;
  for (int k = 0; k < n; k++) send_end(l, k);
  return interval;
}

static int usage(const char *what) {
  m2host_printf("logp: %s (expected --layer mmp|mpi, --burst N in 2..%d, --rounds N >= 1, --len 1..%d)\n", what,
                MAX_BURST, SMALL);
  app_release_ni();
  return 2;
}

static int logp(int argc, char **argv) {
  struct layer l;
  memset(&l, 0, sizeof l);
  int n = MAX_BURST, rounds = 10;
  long long len = SMALL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return usage(a);
    i++;
    if (!strcmp(a, "--layer") && (!strcmp(v, "mmp") || !strcmp(v, "mpi"))) l.mpi = !strcmp(v, "mpi");
    else if (!strcmp(a, "--burst")) n = atoi(v);
    else if (!strcmp(a, "--rounds")) rounds = atoi(v);
    else if (!strcmp(a, "--len")) len = app_parse_size(v, NULL);
    else return usage(a);
  }
  if (n < 2 || n > MAX_BURST || rounds < 1 || len < 1 || len > SMALL) return usage("bad arguments");
  l.rank = m2host_id();
  if (l.rank > 1) return usage("two hosts only");
  l.peer = 1 - l.rank;
  /* Each layer's best buffers: MMP's pinned ones (zero copy); for MPI a user
   * program's pages (its eager protocol copies them into pinned slots). */
  if (l.mpi) {
    uint64_t bus;
    MPI_Init(&argc, &argv);
    l.sbuf = m2host_phys_alloc(SMALL, &bus);
    l.rbuf = m2host_phys_alloc((size_t)MAX_BURST * SMALL, &bus);
  } else {
    l.me = MMP_initialize(MMP_Make_connect(0, PORT), NULL);
    l.other = MMP_Make_connect(MMP_PNA(l.peer), PORT);
    if (!l.me) return usage("MMP_initialize failed");
    l.sbuf = MMP_Pindown_malloc((size_t)WINDOW * SMALL, l.me);
    l.rbuf = MMP_Pindown_malloc((size_t)MAX_BURST * SMALL, l.me);
    MMP_Sync(l.rank, 2);
  }
  if (!l.sbuf || !l.rbuf) {
    m2host_printf("logp: cannot allocate the buffers\n");
    return 4;
  }
  const double rtt2 = half_rtt(&l, rounds);
  double o_s = 0, calls = 0, g = 0;
  burst(&l, 8, 1, &o_s); /* the first burst warms up */
  burst(&l, 8, 1, &o_s);
  g = burst(&l, n, (size_t)len, &calls);
  /* The signature: interval per request for growing delta. */
  char path[512];
  FILE *sig = NULL;
  if (l.rank == 0 && m2host_output_path("signature.tsv", path, sizeof path) == 0) sig = fopen(path, "w");
  if (sig) fprintf(sig, "delta_us\tinterval_us\n");
  double last_delta = 0, last_interval = 0;
  for (double delta = 0; delta <= 40.0; delta += 2.0) {
    const double interval = signature(&l, 32, delta);
    if (sig) fprintf(sig, "%.1f\t%.3f\n", delta, interval);
    last_delta = delta;
    last_interval = interval;
  }
  if (sig) fclose(sig);
  const double o_r = last_interval - o_s - last_delta;
  if (l.rank == 0) {
    m2host_printf("@columns o_s_us o_r_us g_us L_us rtt2_us\n");
    m2host_printf("@row %.3f %.3f %.3f %.3f %.3f\n", o_s, o_r, g, rtt2 - o_s - o_r, rtt2);
  }
  if (l.mpi) {
    MPI_Finalize();
    m2host_phys_free(l.sbuf);
    m2host_phys_free(l.rbuf);
  } else {
    MMP_finalize(l.me); /* frees its pinned memory */
  }
  return 0;
}

M2HOST_APP(logp, logp, "LogP parameters (o_s, o_r, g, L) of MMP or MPI between hosts 0 and 1, and the signature")
