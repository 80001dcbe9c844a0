/* What the ping-ping applications (pingping over MMP, mpi_pingping over MPI)
 * share: their options, who is paired with whom, and the row host 0 prints for one size
 * from every host's elapsed time. Header-only (static), like app_args.h. */
#ifndef M2_APP_PINGPING_H
#define M2_APP_PINGPING_H

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "host/host_env.h"

#define APP_PINGPING_MAX_SIZES 64

/* The options both take: --sizes, --iters, --warmup, --pairing. */
struct app_pingping_args {
  size_t sizes[APP_PINGPING_MAX_SIZES];
  int n_sizes, iters, warmup, across;
};

/* Parses argv into *a (defaults first); NULL, or what is wrong. */
static inline const char *app_pingping_parse(int argc, char **argv, struct app_pingping_args *a) {
  a->n_sizes = app_parse_sizes("1,64,256,1k,2k,4k,8k,16k,32k,64k", a->sizes, APP_PINGPING_MAX_SIZES);
  a->iters = 10;
  a->warmup = 2;
  a->across = 0;
  for (int i = 1; i < argc; i += 2) {
    const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return "an option needs a value";
    if (!strcmp(o, "--sizes")) a->n_sizes = app_parse_sizes(v, a->sizes, APP_PINGPING_MAX_SIZES);
    else if (!strcmp(o, "--iters")) a->iters = atoi(v);
    else if (!strcmp(o, "--warmup")) a->warmup = atoi(v);
    else if (!strcmp(o, "--pairing")) a->across = !strcmp(v, "across") ? 1 : !strcmp(v, "adjacent") ? 0 : -1;
    else return "unknown option (--sizes, --iters, --warmup, --pairing)";
  }
  if (a->n_sizes <= 0 || a->iters < 1 || a->warmup < 0 || a->across < 0)
    return "bad arguments (--sizes 1,2k,... --iters N>=1 --warmup N>=0 --pairing adjacent|across)";
  return NULL;
}

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
