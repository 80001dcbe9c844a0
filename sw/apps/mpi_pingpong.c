/* MPI ping-pong between ranks 0 and 1 (MPI_Send / MPI_Recv over the MPI
 * library, sw/host/mpi): for each size, rank 0 sends and rank 1 sends it
 * back, `iters` times after `warmup` untimed rounds; every payload is checked
 * byte for byte (and the bytes after it for overruns). Rank 0 prints the
 * one-way latency (half the mean round trip) and the throughput as the run's
 * measurement table, like mmp_pingpong, so that the two layers overlay.
 * Other ranks only take part in MPI_Init and MPI_Finalize.
 *   mpi_pingpong [--sizes 1,64,2k,...] [--iters N] [--warmup N] [--offset BYTES]
 *                [--buffers phys|heap|alloc]
 * Buffers: phys = the host's physical memory, as a user program's pages on
 * the real host (zero copy pins them); heap = memory no DMA reaches in the
 * simulation (MMP copies it through its bounce buffer); alloc = MPI_Alloc_mem
 * (pinned once). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "app_payload.h"
#include "host/host_env.h"
#include "mpi.h"

#define MAX_SIZES 64

static const char *kDefaultSizes = "1,4,16,64,256,1k,1952,1953,4k,8k,16k,32k,64k,128k";

enum kind { PHYS, HEAP, ALLOC };

static uint8_t *alloc_buf(enum kind k, size_t bytes) {
  void *p = NULL;
  uint64_t bus;
  if (k == PHYS) p = m2host_phys_alloc(bytes, &bus);
  else if (k == HEAP) p = malloc(bytes);
  else if (MPI_Alloc_mem((MPI_Aint)bytes, MPI_INFO_NULL, &p) != MPI_SUCCESS) p = NULL;
  return p;
}

static void free_buf(enum kind k, uint8_t *p) {
  if (!p) return;
  if (k == PHYS) m2host_phys_free(p);
  else if (k == HEAP) free(p);
  else MPI_Free_mem(p);
}

static int usage(const char *what) {
  m2host_printf(
      "mpi_pingpong: %s (expected --sizes 1,64,2k,... each at most 1024M, --iters N >= 1, --warmup N >= 0, "
      "--offset at most 4096, --buffers phys|heap|alloc)\n",
      what);
  app_release_ni();
  return 2;
}

static int mpi_pingpong(int argc, char **argv) {
  size_t sizes[MAX_SIZES];
  int n_sizes = app_parse_sizes(kDefaultSizes, sizes, MAX_SIZES);
  int iters = 10, warmup = 2;
  long long offset = 0;
  enum kind kind = PHYS;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return usage(a);
    i++;
    if (!strcmp(a, "--sizes")) n_sizes = app_parse_sizes(v, sizes, MAX_SIZES);
    else if (!strcmp(a, "--iters")) iters = atoi(v);
    else if (!strcmp(a, "--warmup")) warmup = atoi(v);
    else if (!strcmp(a, "--offset")) offset = app_parse_size(v, NULL);
    else if (!strcmp(a, "--buffers")) {
      if (!strcmp(v, "phys")) kind = PHYS;
      else if (!strcmp(v, "heap")) kind = HEAP;
      else if (!strcmp(v, "alloc")) kind = ALLOC;
      else return usage(v);
    } else return usage(a);
  }
  if (n_sizes <= 0 || iters < 1 || warmup < 0 || offset < 0 || offset > 4096) return usage("bad arguments");
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    m2host_printf("mpi_pingpong: needs two ranks, MPI_COMM_WORLD has %d (topology.nodes: 2 or more)\n", size);
    MPI_Finalize();
    return 2;
  }
  size_t max = 0;
  for (int i = 0; i < n_sizes; i++) max = sizes[i] > max ? sizes[i] : max;
  uint8_t *base[2] = {NULL, NULL};
  size_t errors = 0;
  if (rank < 2) {
    for (int i = 0; i < 2; i++) base[i] = alloc_buf(kind, max + (size_t)offset + APP_GUARD);
    if (!base[0] || !base[1]) {
      m2host_printf("mpi_pingpong: cannot allocate 2 x %zu bytes\n", max + (size_t)offset + APP_GUARD);
      MPI_Abort(MPI_COMM_WORLD, 4);
    }
  }
  uint8_t *sbuf = base[0] + offset, *rbuf = base[1] + offset;
  const int peer = 1 - rank;
  if (rank == 0) m2host_printf("@columns bytes latency_us mbps\n");
  for (int s = 0; s < n_sizes && rank < 2; s++) {
    const size_t n = sizes[s];
    double total_us = 0;
    for (int it = 0; it < warmup + iters; it++) {
      m2host_msg_phase(it < warmup ? "warmup" : "timed"); /* messages.csv: which rounds count */
      app_clear(rbuf, n);
      app_fill(sbuf, n, it, rank);
      MPI_Status st;
      int count = -1;
      const double t0 = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(sbuf, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st);
      } else {
        MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD, &st);
        MPI_Send(sbuf, (int)n, MPI_BYTE, peer, 1, MPI_COMM_WORLD);
      }
      const double dt = (MPI_Wtime() - t0) * 1e6;
      MPI_Get_count(&st, MPI_BYTE, &count);
      const size_t bad = app_check(rbuf, n, it, peer) + (count != (int)n);
      if (bad) m2host_printf("bytes %zu round %d: %zu bytes wrong, count %d\n", n, it, bad, count);
      errors += bad;
      if (it >= warmup) total_us += dt;
    }
    if (rank == 0) {
      const double lat = total_us / iters / 2;
      m2host_printf("@row %zu %.3f %.2f\n", n, lat, lat > 0 ? (double)n * 8 / lat : 0);
    }
  }
  m2host_msg_phase(NULL);
  for (int i = 0; i < 2; i++) free_buf(kind, base[i]);
  MPI_Finalize();
  m2host_result("payload_errors", (int64_t)errors);
  m2host_printf("mpi_pingpong: %d sizes, %zu bytes wrong\n", n_sizes, errors);
  return errors ? 1 : 0;
}

M2HOST_APP(mpi_pingpong, mpi_pingpong,
           "MPI ping-pong between ranks 0 and 1 (MPI_Send/MPI_Recv): latency and throughput per size, verified")
