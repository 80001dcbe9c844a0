/* What the ping-ping applications (pingping over MMP, mpi_pingping over MPI)
 * share: who is paired with whom, and the row host 0 prints for one size
 * from every host's elapsed time. Header-only (static), like app_args.h. */
#ifndef M2_APP_PINGPING_ROW_H
#define M2_APP_PINGPING_ROW_H

#include <stddef.h>

#include "host/host_env.h"

/* adjacent: n <-> n xor 1; across: n <-> n + hosts/2. */
static inline int app_pingping_peer(int node, int hosts, int across) {
  return across ? (node + hosts / 2) % hosts : node ^ 1;
}

/* Prints "@row bytes time_us mbps min_pair_mbps": per round of the slowest
 * pair (a pair's time is the longer of its two hosts'), the throughput of
 * both directions summed over the pairs, and the slowest pair's. */
static inline void app_pingping_row(const double *elapsed_us, int hosts, size_t size, int rounds, int across) {
  double slowest = 0, sum_mbps = 0, min_mbps = 0;
  for (int h = 0; h < hosts; h++) {
    const int p = app_pingping_peer(h, hosts, across);
    if (p < h) continue; /* each pair once */
    const double t = elapsed_us[h] > elapsed_us[p] ? elapsed_us[h] : elapsed_us[p];
    const double mbps = t > 0 ? 2.0 * (double)size * rounds * 8 / t : 0;
    slowest = t > slowest ? t : slowest;
    sum_mbps += mbps;
    min_mbps = h == 0 || mbps < min_mbps ? mbps : min_mbps;
  }
  m2host_printf("@row %zu %.3f %.2f %.2f\n", size, slowest / rounds, sum_mbps, min_mbps);
}

#endif
