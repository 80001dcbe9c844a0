/* Ping-ping over MMP (experiment 4): every host is paired with one other and
 * both hosts of a pair send to each other at once. All hosts of the platform
 * take part (an even number); with four, two pairs run at the same time.
 *   pingping [--sizes 1,64,2k,...] [--iters N] [--warmup N] [--pairing adjacent|across]
 * Pairing: adjacent = 0<->1, 2<->3, ...; across = n <-> n + hosts/2 (0<->2,
 * 1<->3 on four hosts).
 *
 * One measurement of `iters` rounds: every host posts its first receive,
 * then all hosts synchronise (MMP_Sync over all of them, released by one
 * switch-box broadcast so that the pairs start together); each round a host
 * posts the next round's receive, sends one message to its peer, waits for
 * the send and for the peer's message, and checks every byte of it (and the
 * guard bytes behind it). A host's time runs from the release of the sync to
 * its last receive; then all synchronise again (nobody starts the next size
 * while another pair still moves data) and report their time to host 0.
 * Untimed warm-up rounds go first, as a measurement of their own. An MMP call
 * that fails ends that host's part with a message; the others then wait for
 * it until the run's time limit.
 *
 * Host 0 prints the run's table, one row per size:
 *   bytes          message size
 *   time_us        per round (one message each way) of the slowest pair; a
 *                  pair's time is the longer of its two hosts'
 *   mbps           aggregate throughput: per pair 2 x bytes x rounds (both
 *                  directions) over the pair's time, summed over the pairs
 *   min_pair_mbps  the slowest pair's throughput (both directions)
 * Exit code 1 when any payload byte was wrong anywhere. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "app_payload.h"
#include "app_pingping.h"
#include "host/host_env.h"
#include "mmp.h"

#define PORT 3
#define TAG_DATA 1
#define TAG_REPORT 2
#define MAX_HOSTS 64

struct pp {
  int me, hosts, peer;
  struct MMP_connect *self, *other, *host[MAX_HOSTS]; /* host[h]: port PORT of host h */
  uint8_t *sbuf, *rbuf[2];
  size_t errors;
};

static struct MMP_recv_handle *post(struct pp *pp, size_t size, int round) {
  uint8_t *buf = pp->rbuf[round % 2];
  app_clear(buf, size);
  return MMP_Recv(buf, size, TAG_DATA, pp->other, pp->self);
}

/* One synchronised measurement of `rounds` rounds; this host's elapsed
 * microseconds, or a negative value when an MMP operation failed. */
static double measure(struct pp *pp, size_t size, int rounds) {
  struct MMP_recv_handle *r = post(pp, size, 0);
  if (!r) return -1;
  MMP_Sync(pp->me, pp->hosts);
  if (MMP_last_error() != MMP_OK) return -1;
  const double t0 = m2host_now_us();
  for (int k = 0; k < rounds; k++) {
    /* Posted before our message leaves, so the peer's next message (sent
     * only after ours arrived) always finds it: zero copy on both sides. */
    struct MMP_recv_handle *next = k + 1 < rounds ? post(pp, size, k + 1) : NULL;
    if (k + 1 < rounds && !next) return -1;
    app_fill(pp->sbuf, size, k, pp->me);
    struct MMP_send_handle *s = MMP_Send(pp->sbuf, size, TAG_DATA, pp->self, pp->other);
    if (!s || MMP_Wait_send(s) != 0 || MMP_Wait_recv(r) != (int)size) {
      m2host_printf("pingping: bytes %zu round %d: %s\n", size, k, MMP_strerror(MMP_last_error()));
      return -1;
    }
    const size_t bad = app_check(pp->rbuf[k % 2], size, k, pp->peer);
    if (bad) m2host_printf("pingping: bytes %zu round %d from host %d: %zu bytes wrong\n", size, k, pp->peer, bad);
    pp->errors += bad;
    r = next;
  }
  const double dt = m2host_now_us() - t0;
  MMP_Sync(pp->me, pp->hosts);
  return MMP_last_error() == MMP_OK ? dt : -1;
}

/* What each host sends host 0 after a measurement (same process, same
 * byte order: the struct travels as it is). Wrong bytes are each host's own
 * business: it prints them and exits with 1. */
struct report {
  double elapsed_us; /* < 0: the measurement failed on that host */
};

/* Host 0: collects every host's report and prints the row for one size;
 * -1 when a host failed. */
static int gather(struct pp *pp, size_t size, int rounds, double my_us, int across) {
  struct report rep[MAX_HOSTS];
  rep[0] = (struct report){my_us};
  int failed = my_us < 0;
  for (int h = 1; h < pp->hosts; h++) {
    struct MMP_recv_handle *r = MMP_Recv(&rep[h], sizeof rep[h], TAG_REPORT, pp->host[h], pp->self);
    if (!r || MMP_Wait_recv(r) != (int)sizeof rep[h]) {
      m2host_printf("pingping: no report from host %d: %s\n", h, MMP_strerror(MMP_last_error()));
      return -1;
    }
    failed |= rep[h].elapsed_us < 0; /* that host said why */
  }
  if (failed) return -1;
  double us[MAX_HOSTS];
  for (int h = 0; h < pp->hosts; h++) us[h] = rep[h].elapsed_us;
  app_pingping_row(us, pp->hosts, size, rounds, across);
  return 0;
}

/* Hosts other than 0: their report for one size. */
static int report(struct pp *pp, double my_us) {
  struct report rep = {my_us}; /* sent before we return */
  struct MMP_send_handle *s = MMP_Send(&rep, sizeof rep, TAG_REPORT, pp->self, pp->host[0]);
  return s && MMP_Wait_send(s) == 0 && my_us >= 0 ? 0 : -1;
}

static int usage(const char *why) {
  m2host_printf("pingping: %s\n", why);
  app_release_ni();
  return 2;
}

static int pingping(int argc, char **argv) {
  struct app_pingping_args args;
  const char *wrong = app_pingping_parse(argc, argv, &args);
  if (wrong) return usage(wrong);
  const size_t *sizes = args.sizes;
  const int n_sizes = args.n_sizes, iters = args.iters, warmup = args.warmup, across = args.across;
  struct pp pp = {0};
  pp.me = m2host_id();
  pp.hosts = m2host_count();
  if (pp.hosts < 2 || pp.hosts % 2 || pp.hosts > MAX_HOSTS) return usage("needs an even number of hosts, 2 or more");
  pp.peer = app_pingping_peer(pp.me, pp.hosts, across);

  /* Every host in the table, rank = node: MMP_Sync over all of them is
   * released by one broadcast. */
  struct MMP_PNA_table *table = MMP_alloc_PNA_table(pp.hosts);
  int connects_ok = 1;
  for (int h = 0; h < pp.hosts; h++) {
    MMP_add_PNA_to_table(table, MMP_PNA(h));
    pp.host[h] = MMP_Make_connect(MMP_PNA(h), PORT);
    connects_ok &= pp.host[h] != NULL;
  }
  pp.other = pp.host[pp.peer];
  pp.self = connects_ok ? MMP_initialize(MMP_Make_connect(0, PORT), table) : NULL;
  if (!pp.self) {
    m2host_printf("pingping: MMP_initialize failed: %s\n", MMP_strerror(MMP_last_error()));
    return 3;
  }
  size_t max = 0;
  for (int i = 0; i < n_sizes; i++) max = sizes[i] > max ? sizes[i] : max;
  pp.sbuf = MMP_Pindown_malloc(max + APP_GUARD, pp.self);
  pp.rbuf[0] = MMP_Pindown_malloc(max + APP_GUARD, pp.self);
  pp.rbuf[1] = MMP_Pindown_malloc(max + APP_GUARD, pp.self);
  if (!pp.sbuf || !pp.rbuf[0] || !pp.rbuf[1]) {
    m2host_printf("pingping: cannot pin 3 x %zu bytes\n", max + APP_GUARD);
    MMP_finalize(pp.self);
    return 4;
  }
  if (pp.me == 0) {
    m2host_printf("pingping: %d hosts, pairs %s, %d rounds per size after %d warm-up rounds\n", pp.hosts,
                  across ? "n <-> n + hosts/2" : "n <-> n xor 1", iters, warmup);
    m2host_printf("@columns bytes time_us mbps min_pair_mbps\n");
  }
  int failed = 0;
  for (int s = 0; s < n_sizes && !failed; s++) {
    /* messages.csv: which rounds count (their synchronisation messages too) */
    m2host_msg_phase("warmup");
    if (warmup > 0 && measure(&pp, sizes[s], warmup) < 0) {
      failed = 1;
      break;
    }
    m2host_msg_phase("timed");
    const double us = measure(&pp, sizes[s], iters);
    failed = (pp.me == 0 ? gather(&pp, sizes[s], iters, us, across) : report(&pp, us)) != 0;
  }
  m2host_msg_phase(NULL);
  MMP_Pindown_free(pp.sbuf, pp.self);
  MMP_Pindown_free(pp.rbuf[0], pp.self);
  MMP_Pindown_free(pp.rbuf[1], pp.self);
  MMP_finalize(pp.self);
  m2host_result("payload_errors", (int64_t)pp.errors);
  m2host_result("failures", failed);
  m2host_printf("pingping: host %d, peer %d: %d sizes, %zu bytes wrong%s\n", pp.me, pp.peer, n_sizes, pp.errors,
                failed ? ", FAILED" : "");
  return pp.errors || failed ? 1 : 0;
}

M2HOST_APP(pingping, pingping, "MMP ping-ping between pairs of hosts sending at once: throughput per size, verified")
