/* NetPIPE-style sweep over MMP between two hosts (written for the virtual
 * platform, after NetPIPE's method). Block sizes c grow from --start up to
 * --max as 1, 2, 3, 4, 6, 8, 12, 16, 24, ... (powers of two and the midpoints
 * between them); for each c the sizes c-p, c and c+p are measured (p the
 * perturbation, default 3; 0 measures c alone). A measurement is `trials`
 * trials of nrepeat ping-pongs, both hosts synchronised before each trial;
 * the best trial gives T = best / (2 * nrepeat), the one-way time. nrepeat
 * follows the previous measurement's T so that a trial lasts about
 * --target-us of simulated time (NetPIPE aims at a quarter second of wall
 * time; simulated time is dearer), unless --nrepeat fixes it; rank 0 tells
 * rank 1 by a small message.
 *
 * Output (rank 0): NetPIPE's own file format in np.out of the run's output
 * folder (--out NAME): one line per measurement, "bytes Mbit/s seconds";
 * console lines as NetPIPE prints them; and the run's measurement table
 * (@columns bytes latency_us mbps).
 *   netpipe [--max BYTES (8M)] [--start BYTES (1)] [--perturbation P] [--trials N]
 *           [--nrepeat N] [--target-us US] [--peer NODE] [--out NAME] [--verify]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "host/host_env.h"
#include "mmp.h"

#define PORT 2
#define TAG_DATA 1
#define TAG_CTRL 2
#define MAX_REPEAT 100000

struct np {
  int rank;
  struct MMP_connect *me, *peer;
  uint8_t *sbuf, *rbuf;
  int verify;
  long errors;
};

static uint8_t pattern(size_t i, size_t len) { return (uint8_t)(i * 11u + len * 3u + 5u); }

/* One trial of n round trips of `len` bytes; rank 0's elapsed microseconds,
 * or a negative value when an operation failed. */
static double trial(struct np *np, size_t len, int n) {
  int failed = 0;
  if (np->rank == 0) {
    MMP_Sync(0, 2);
    const double t0 = m2host_now_us();
    for (int i = 0; i < n && !failed; i++) {
      struct MMP_recv_handle *r = MMP_Recv(np->rbuf, len, TAG_DATA, np->peer, np->me);
      struct MMP_send_handle *s = MMP_Send(np->sbuf, len, TAG_DATA, np->me, np->peer);
      failed |= !r || !s || MMP_Wait_send(s) != 0;
      failed |= !r || MMP_Wait_recv(r) != (int)len;
    }
    const double dt = m2host_now_us() - t0;
    return failed ? -1 : dt;
  }
  /* Rank 1: the receive for the next round is always posted before the
   * reply leaves, so every message finds its receive (zero copy). */
  struct MMP_recv_handle *r = MMP_Recv(np->rbuf, len, TAG_DATA, np->peer, np->me);
  MMP_Sync(1, 2);
  for (int i = 0; i < n && !failed; i++) {
    failed |= !r || MMP_Wait_recv(r) != (int)len;
    if (np->verify && !failed && i == 0)
      for (size_t k = 0; k < len; k++) np->errors += np->rbuf[k] != pattern(k, len);
    r = i + 1 < n ? MMP_Recv(np->rbuf, len, TAG_DATA, np->peer, np->me) : NULL;
    struct MMP_send_handle *s = MMP_Send(np->sbuf, len, TAG_DATA, np->me, np->peer);
    failed |= !s || MMP_Wait_send(s) != 0;
  }
  return failed ? -1 : 0;
}

/* Rank 0 decides nrepeat and tells rank 1. */
static int agree_nrepeat(struct np *np, int n) {
  uint32_t v = (uint32_t)n;
  if (np->rank == 0) {
    struct MMP_send_handle *s = MMP_Send(&v, sizeof v, TAG_CTRL, np->me, np->peer);
    return s && MMP_Wait_send(s) == 0 ? n : -1;
  }
  struct MMP_recv_handle *r = MMP_Recv(&v, sizeof v, TAG_CTRL, np->peer, np->me);
  return r && MMP_Wait_recv(r) == (int)sizeof v ? (int)v : -1;
}

static int netpipe(int argc, char **argv) {
  long long max = 8 * 1024 * 1024, start = 1, pert = 3, nrepeat_fixed = 0; /* NetPIPE's full 8 MB */
  int trials = 3, peer = -1, verify = 0;
  double target_us = 200;
  const char *out_name = "np.out";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
    if (!strcmp(a, "--verify")) {
      verify = 1;
      continue;
    }
    i++;
    if (!strcmp(a, "--max")) max = app_parse_size(v, NULL);
    else if (!strcmp(a, "--start")) start = app_parse_size(v, NULL);
    else if (!strcmp(a, "--perturbation")) pert = app_parse_size(v, NULL);
    else if (!strcmp(a, "--trials")) trials = atoi(v);
    else if (!strcmp(a, "--nrepeat")) nrepeat_fixed = app_parse_size(v, NULL);
    else if (!strcmp(a, "--target-us")) target_us = atof(v);
    else if (!strcmp(a, "--peer")) peer = atoi(v);
    else if (!strcmp(a, "--out")) out_name = v;
    else {
      m2host_printf("netpipe: unknown option %s\n", a);
      app_release_ni();
      return 2;
    }
  }
  if (max < 1 || start < 1 || start > max || pert < 0 || trials < 1 || nrepeat_fixed < 0 ||
      nrepeat_fixed > MAX_REPEAT || target_us <= 0 || max > 0x40000000) {
    m2host_printf("netpipe: bad arguments\n");
    app_release_ni();
    return 2;
  }
  const int me_node = m2host_id();
  if (peer < 0) peer = me_node == 0 ? 1 : 0;
  if (app_check_peer("netpipe", me_node, peer) != 0) return 2;
  struct np np;
  memset(&np, 0, sizeof np);
  np.rank = me_node < peer ? 0 : 1;
  np.verify = verify;
  struct MMP_PNA_table *table = MMP_alloc_PNA_table(2);
  MMP_add_PNA_to_table(table, MMP_PNA(np.rank == 0 ? me_node : peer));
  MMP_add_PNA_to_table(table, MMP_PNA(np.rank == 0 ? peer : me_node));
  np.peer = MMP_Make_connect(MMP_PNA(peer), PORT);
  np.me = MMP_initialize(MMP_Make_connect(0, PORT), table);
  if (!np.me || !np.peer) {
    m2host_printf("netpipe: MMP_initialize failed: %s\n", MMP_strerror(MMP_last_error()));
    return 3;
  }
  const size_t bytes = (size_t)(max + pert);
  np.sbuf = MMP_Pindown_malloc(bytes, np.me);
  np.rbuf = MMP_Pindown_malloc(bytes, np.me);
  if (!np.sbuf || !np.rbuf) {
    m2host_printf("netpipe: cannot pin 2 x %zu bytes: %s\n", bytes, MMP_strerror(MMP_last_error()));
    MMP_finalize(np.me);
    return 4;
  }
  /* Both ranks check the name, so both stop (and stop their NI) alike. */
  char path[4096];
  FILE *out = NULL;
  if (m2host_output_path(out_name, path, sizeof path) != 0 || (np.rank == 0 && !(out = fopen(path, "w")))) {
    m2host_printf("netpipe: cannot write %s in the run's output folder\n", out_name);
    MMP_finalize(np.me);
    return 5;
  }
  if (np.rank == 0) {
    m2host_printf("netpipe: MMP between node %d and node %d, up to %lld bytes, perturbation %lld, %d trials\n", me_node,
                  peer, max, pert, trials);
    m2host_printf("@columns bytes latency_us mbps\n");
  }
  int n_meas = 0, failures = 0;
  double t_prev_us = 10; /* guess for the first nrepeat */
  for (long long c = start; c <= max && !failures;) {
    for (int k = -1; k <= 1 && !failures; k++) {
      if (pert == 0 && k != 0) continue;
      const long long len = c + k * pert;
      if (len < 1 || len > max + pert) continue;
      int nrepeat = (int)nrepeat_fixed;
      if (!nrepeat) {
        const double n = target_us / (2 * t_prev_us);
        nrepeat = n < 1 ? 1 : n > MAX_REPEAT ? MAX_REPEAT : (int)n;
      }
      nrepeat = agree_nrepeat(&np, nrepeat);
      if (nrepeat < 1) {
        m2host_printf("netpipe: could not agree on nrepeat\n");
        failures++;
        break;
      }
      if (np.rank == 0 && verify)
        for (long long i = 0; i < len; i++) np.sbuf[i] = pattern((size_t)i, (size_t)len);
      if (np.rank == 1 && verify)
        for (long long i = 0; i < len; i++) np.sbuf[i] = pattern((size_t)i, (size_t)len);
      double best = -1;
      for (int t = 0; t < trials; t++) {
        const double us = trial(&np, (size_t)len, nrepeat);
        if (us < 0) {
          m2host_printf("netpipe: %lld bytes: a transfer failed: %s\n", len, MMP_strerror(MMP_last_error()));
          failures++;
          break;
        }
        if (best < 0 || us < best) best = us;
      }
      if (failures || np.rank != 0) continue;
      if (verify)
        for (long long i = 0; i < len; i++) np.errors += np.rbuf[i] != pattern((size_t)i, (size_t)len);
      const double t_us = best / (2.0 * nrepeat), mbps = (double)len * 8 / t_us;
      t_prev_us = t_us;
      n_meas++;
      fprintf(out, "%10lld %14.6f %16.9f\n", len, mbps, t_us * 1e-6);
      m2host_printf("%3d: %9lld bytes %6d times --> %10.3f Mbps in %12.3f usec\n", n_meas, len, nrepeat, mbps, t_us);
      m2host_printf("@row %lld %.3f %.3f\n", len, t_us, mbps);
    }
    /* 1, 2, 3, 4, 6, 8, 12, ...: alternately x 3/2 and x 4/3 from 2 on. */
    c = c < 4 ? c + 1 : (c & (c - 1)) == 0 ? c + c / 2 : c + c / 3;
  }
  if (out) fclose(out);
  MMP_Pindown_free(np.sbuf, np.me);
  MMP_Pindown_free(np.rbuf, np.me);
  MMP_finalize(np.me);
  m2host_result("measurements", n_meas);
  m2host_result("failures", failures);
  if (verify) m2host_result("payload_errors", np.errors);
  if (np.rank == 0) m2host_printf("netpipe: %d measurements written to %s\n", n_meas, out_name);
  return failures || np.errors ? 1 : 0;
}

M2HOST_APP(netpipe, netpipe, "NetPIPE-style sweep over MMP between two hosts; NetPIPE's np.out in the run folder")
