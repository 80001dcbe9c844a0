/* Ping-ping over MPI (experiment 8: experiment 4's ping-ping with MPI over
 * TCP, or over MMP): every rank is paired with one other and both ranks of a
 * pair send to each other at once, as `pingping` does over MMP.
 *   mpi_pingping [--sizes 1,64,2k,...] [--iters N] [--warmup N] [--pairing adjacent|across]
 * Pairing: adjacent = 0<->1, 2<->3, ...; across = n <-> n + ranks/2.
 *
 * One measurement of `iters` rounds: each rank posts its receive
 * (MPI_Irecv), all ranks meet in MPI_Barrier, then every round a rank posts
 * the next round's receive, sends its message (MPI_Send) and waits for the
 * peer's (MPI_Wait), and checks every byte of it and the guard behind it. A
 * rank's time runs from the barrier to its last receive; a second barrier
 * ends the measurement, and rank 0 gathers every rank's time (MPI_Gather).
 * Rank 0 prints one row per size with the columns of `pingping`:
 *   bytes, time_us (per round, slowest pair), mbps (both directions, summed
 *   over the pairs), min_pair_mbps.
 * Exit code 1 when any payload byte was wrong. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "app_payload.h"
#include "app_pingping.h"
#include "host/host_env.h"
#include "mpi.h"

#define TAG_DATA 1

struct pp {
  int me, ranks, peer;
  uint8_t *sbuf, *rbuf[2];
  size_t errors;
};

/* One synchronised measurement; this rank's elapsed microseconds. */
static double measure(struct pp *pp, size_t size, int rounds) {
  MPI_Request r;
  app_clear(pp->rbuf[0], size);
  MPI_Irecv(pp->rbuf[0], (int)size, MPI_BYTE, pp->peer, TAG_DATA, MPI_COMM_WORLD, &r);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  for (int k = 0; k < rounds; k++) {
    MPI_Request next = MPI_REQUEST_NULL;
    if (k + 1 < rounds) {
      app_clear(pp->rbuf[(k + 1) % 2], size);
      MPI_Irecv(pp->rbuf[(k + 1) % 2], (int)size, MPI_BYTE, pp->peer, TAG_DATA, MPI_COMM_WORLD, &next);
    }
    app_fill(pp->sbuf, size, k, pp->me);
    MPI_Send(pp->sbuf, (int)size, MPI_BYTE, pp->peer, TAG_DATA, MPI_COMM_WORLD);
    MPI_Status st;
    MPI_Wait(&r, &st);
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    const size_t bad = app_check(pp->rbuf[k % 2], size, k, pp->peer) + (count != (int)size);
    if (bad) m2host_printf("mpi_pingping: bytes %zu round %d from rank %d: %zu bytes wrong\n", size, k, pp->peer, bad);
    pp->errors += bad;
    r = next;
  }
  const double dt = (MPI_Wtime() - t0) * 1e6;
  MPI_Barrier(MPI_COMM_WORLD);
  return dt;
}

static int usage(const char *why) {
  m2host_printf("mpi_pingping: %s\n", why);
  app_release_ni();
  return 2;
}

static int mpi_pingping(int argc, char **argv) {
  struct app_pingping_args args;
  const char *wrong = app_pingping_parse(argc, argv, &args);
  if (wrong) return usage(wrong);
  const size_t *sizes = args.sizes;
  const int n_sizes = args.n_sizes, iters = args.iters, warmup = args.warmup, across = args.across;
  struct pp pp = {0};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &pp.me);
  MPI_Comm_size(MPI_COMM_WORLD, &pp.ranks);
  if (pp.ranks < 2 || pp.ranks % 2) {
    m2host_printf("mpi_pingping: needs an even number of ranks, MPI_COMM_WORLD has %d\n", pp.ranks);
    MPI_Finalize();
    return 2;
  }
  pp.peer = app_pingping_peer(pp.me, pp.ranks, across);
  size_t max = 0;
  for (int i = 0; i < n_sizes; i++) max = sizes[i] > max ? sizes[i] : max;
  uint64_t bus;
  pp.sbuf = m2host_phys_alloc(max + APP_GUARD, &bus);
  pp.rbuf[0] = m2host_phys_alloc(max + APP_GUARD, &bus);
  pp.rbuf[1] = m2host_phys_alloc(max + APP_GUARD, &bus);
  if (!pp.sbuf || !pp.rbuf[0] || !pp.rbuf[1]) {
    m2host_printf("mpi_pingping: cannot allocate 3 x %zu bytes\n", max + APP_GUARD);
    MPI_Abort(MPI_COMM_WORLD, 4);
  }
  double *all = pp.me == 0 ? calloc((size_t)pp.ranks, sizeof *all) : NULL;
  if (pp.me == 0) {
    if (!all) MPI_Abort(MPI_COMM_WORLD, 4);
    m2host_printf("mpi_pingping: %d ranks, pairs %s, %d rounds per size after %d warm-up rounds\n", pp.ranks,
                  across ? "n <-> n + ranks/2" : "n <-> n xor 1", iters, warmup);
    m2host_printf("@columns bytes time_us mbps min_pair_mbps\n");
  }
  for (int s = 0; s < n_sizes; s++) {
    m2host_msg_phase("warmup"); /* messages.csv: which rounds count */
    if (warmup > 0) measure(&pp, sizes[s], warmup);
    m2host_msg_phase("timed");
    double us = measure(&pp, sizes[s], iters);
    MPI_Gather(&us, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (pp.me == 0) app_pingping_row(all, pp.ranks, sizes[s], iters, across);
  }
  m2host_msg_phase(NULL);
  free(all);
  m2host_phys_free(pp.sbuf);
  m2host_phys_free(pp.rbuf[0]);
  m2host_phys_free(pp.rbuf[1]);
  MPI_Finalize();
  m2host_result("payload_errors", (int64_t)pp.errors);
  m2host_printf("mpi_pingping: rank %d, peer %d: %d sizes, %zu bytes wrong\n", pp.me, pp.peer, n_sizes, pp.errors);
  return pp.errors ? 1 : 0;
}

M2HOST_APP(mpi_pingping, mpi_pingping,
           "MPI ping-ping between pairs of ranks sending at once: throughput per size, verified (experiment 8)")
