/* MMP ping-pong between two hosts: for each size, rank 0 sends a message and
 * rank 1 sends it back, `iters` times after `warmup` untimed rounds; every
 * payload is checked byte for byte (and the bytes after it for overruns) on
 * both sides. Rank 0 prints the one-way latency (half the mean round trip)
 * and the throughput as the run's measurement table.
 *   mmp_pingpong [--sizes 1,64,2k,...] [--iters N] [--warmup N] [--peer NODE]
 *                [--buffers pinned|heap|phys] [--offset BYTES] [--inline BYTES]
 *                [--phase-spread NS] [--no-verify]
 * The receive for the next message is always posted before the peer can send
 * it, so pinned buffers are zero copy.
 *
 * --phase-spread NS: before each round rank 0 pauses between 0 and NS ns,
 * outside the timed part, spread evenly over the rounds (golden-ratio
 * sequence). A deterministic simulation otherwise starts every round at the
 * same phase of the NI firmware's polling loop (about 0.9 us), which moves a
 * small message's latency by up to +-0.2 us one way or the other; real hosts
 * and NIs run from separate clocks, so a measurement there averages over the
 * phases. Off by default (the calibration runs without it). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"
#include "app_payload.h"
#include "host/host_env.h"
#include "mmp.h"

#define PORT 1
#define MAX_SIZES 64

static const char *kDefaultSizes = "1,4,16,64,256,1k,2k,4k,8k,16k,32k,64k,128k";

struct buffers {
  uint8_t *base[2];
  int kind; /* 0 pinned, 1 heap, 2 phys */
};

static int alloc_buffers(struct buffers *b, size_t bytes, struct MMP_connect *me) {
  for (int i = 0; i < 2; i++) {
    if (b->kind == 0) b->base[i] = MMP_Pindown_malloc(bytes, me);
    else if (b->kind == 1) b->base[i] = malloc(bytes);
    else {
      uint64_t bus;
      b->base[i] = m2host_phys_alloc(bytes, &bus);
    }
    if (!b->base[i]) return -1;
  }
  return 0;
}

static void free_buffers(struct buffers *b, struct MMP_connect *me) {
  for (int i = 0; i < 2; i++) {
    if (!b->base[i]) continue;
    if (b->kind == 0) MMP_Pindown_free(b->base[i], me);
    else if (b->kind == 1) free(b->base[i]);
    else m2host_phys_free(b->base[i]);
  }
}

static int mmp_pingpong(int argc, char **argv) {
  size_t sizes[MAX_SIZES];
  int n_sizes = app_parse_sizes(kDefaultSizes, sizes, MAX_SIZES);
  int iters = 10, warmup = 2, peer = -1, verify = 1;
  double phase_spread_ns = 0;
  size_t offset = 0;
  long long inline_bytes = -1;
  struct buffers bufs = {{NULL, NULL}, 0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--no-verify")) {
      verify = 0;
      continue;
    }
    if (!v) {
      m2host_printf("mmp_pingpong: %s needs a value\n", a);
      app_release_ni();
      return 2;
    }
    i++;
    if (!strcmp(a, "--sizes")) n_sizes = app_parse_sizes(v, sizes, MAX_SIZES);
    else if (!strcmp(a, "--iters")) iters = atoi(v);
    else if (!strcmp(a, "--warmup")) warmup = atoi(v);
    else if (!strcmp(a, "--peer")) peer = atoi(v);
    else if (!strcmp(a, "--offset")) offset = (size_t)app_parse_size(v, NULL);
    else if (!strcmp(a, "--inline")) inline_bytes = app_parse_size(v, NULL);
    else if (!strcmp(a, "--phase-spread")) phase_spread_ns = atof(v);
    else if (!strcmp(a, "--buffers")) {
      bufs.kind = !strcmp(v, "pinned") ? 0 : !strcmp(v, "heap") ? 1 : !strcmp(v, "phys") ? 2 : -1;
      if (bufs.kind < 0) n_sizes = -1;
    } else {
      m2host_printf("mmp_pingpong: unknown option %s\n", a);
      app_release_ni();
      return 2;
    }
  }
  if (n_sizes <= 0 || iters < 1 || warmup < 0 || offset > 4096 || !(phase_spread_ns >= 0 && phase_spread_ns <= 1e6)) {
    m2host_printf(
        "mmp_pingpong: bad arguments (expected --sizes 1,64,2k,... each at most 1024M, --iters N >= 1, "
        "--warmup N >= 0, --offset at most 4096, --phase-spread 0 to 1000000 ns)\n");
    app_release_ni();
    return 2;
  }
  const int me_node = m2host_id();
  if (peer < 0 && me_node > 1) {
    /* Without --peer the pair is hosts 0 and 1: a third host would wait for
     * a partner that never answers. */
    m2host_printf(
        "mmp_pingpong: host %d has no partner: the ping-pong runs between hosts 0 and 1 (this platform "
        "has %d); give each pair --peer N in its node<N>.host.args, or use pingping or scale for more hosts\n",
        me_node, m2host_count());
    app_release_ni();
    return 2;
  }
  if (peer < 0) peer = me_node == 0 ? 1 : 0;
  if (app_check_peer("mmp_pingpong", me_node, peer) != 0) return 2;
  const int rank = me_node < peer ? 0 : 1;
  if (inline_bytes >= 0) {
    struct MMP_options o;
    MMP_get_options(&o);
    o.inline_bytes = (size_t)inline_bytes;
    if (MMP_set_options(&o) != MMP_OK) {
      m2host_printf("mmp_pingpong: bad --inline %lld\n", inline_bytes);
      app_release_ni();
      return 2;
    }
  }

  struct MMP_PNA_table *table = MMP_alloc_PNA_table(2);
  MMP_add_PNA_to_table(table, MMP_PNA(rank == 0 ? me_node : peer));
  MMP_add_PNA_to_table(table, MMP_PNA(rank == 0 ? peer : me_node));
  struct MMP_connect *other = MMP_Make_connect(MMP_PNA(peer), PORT);
  struct MMP_connect *me = MMP_initialize(MMP_Make_connect(0, PORT), table);
  if (!me || !other) {
    m2host_printf("mmp_pingpong: MMP_initialize failed: %s\n", MMP_strerror(MMP_last_error()));
    return 3;
  }
  size_t max = 0;
  for (int i = 0; i < n_sizes; i++) max = sizes[i] > max ? sizes[i] : max;
  if (alloc_buffers(&bufs, max + offset + APP_GUARD, me) != 0) {
    m2host_printf("mmp_pingpong: cannot allocate 2 x %zu bytes\n", max + offset + APP_GUARD);
    MMP_finalize(me);
    return 4;
  }
  uint8_t *sbuf = bufs.base[0] + offset, *rbuf = bufs.base[1] + offset;
  if (rank == 0) m2host_printf("@columns bytes latency_us mbps\n");
  MMP_Sync(rank, 2);

  size_t errors = 0;
  int failures = 0;
  for (int s = 0; s < n_sizes && !failures; s++) {
    const size_t size = sizes[s];
    double total_us = 0;
    for (int it = 0; it < warmup + iters && !failures; it++) {
      m2host_msg_phase(it < warmup ? "warmup" : "timed"); /* messages.csv: which rounds count */
      app_clear(rbuf, size);
      const int dir_in = rank == 0 ? 1 : 0, dir_out = 1 - dir_in;
      if (verify) app_fill(sbuf, size, it, dir_out);
      struct MMP_recv_handle *r = MMP_Recv(rbuf, size, 0, other, me);
      if (!r) {
        m2host_printf("bytes %zu: MMP_Recv failed: %s\n", size, MMP_strerror(MMP_last_error()));
        failures++;
        break;
      }
      if (rank == 0) {
        /* The peer's receive for this round is posted before it sends the last
         * reply, so ours is too: both ends zero copy. */
        if (phase_spread_ns > 0) {
          /* The k-th fraction of the golden-ratio sequence: even over any number of rounds. */
          const double f = fmod((it + 1) * 0.6180339887498949, 1.0);
          m2host_compute_ns(f * phase_spread_ns);
        }
        const double t0 = m2host_now_us();
        struct MMP_send_handle *h = MMP_Send(sbuf, size, 0, me, other);
        const int ws = h ? MMP_Wait_send(h) : -1;
        const int wr = MMP_Wait_recv(r);
        const double dt = m2host_now_us() - t0;
        if (ws < 0 || wr != (int)size) {
          m2host_printf("bytes %zu round %d: send %d, receive %d (%s)\n", size, it, ws, wr,
                        MMP_strerror(MMP_last_error()));
          failures++;
        }
        if (it >= warmup) total_us += dt;
      } else {
        const int wr = MMP_Wait_recv(r);
        if (wr != (int)size) {
          m2host_printf("bytes %zu round %d: receive %d (%s)\n", size, it, wr, MMP_strerror(MMP_last_error()));
          failures++;
          break;
        }
        if (verify) {
          const size_t bad = app_check(rbuf, size, it, dir_in);
          if (bad) m2host_printf("bytes %zu round %d: %zu bytes wrong\n", size, it, bad);
          errors += bad;
        }
        /* The next round's receive is posted as soon as this send is done,
         * long before the reply reaches the peer. */
        struct MMP_send_handle *h = MMP_Send(sbuf, size, 0, me, other);
        if (!h || MMP_Wait_send(h) < 0) {
          m2host_printf("bytes %zu round %d: send failed\n", size, it);
          failures++;
        }
        continue;
      }
      if (verify) {
        const size_t bad = app_check(rbuf, size, it, dir_in);
        if (bad) m2host_printf("bytes %zu round %d: %zu bytes wrong\n", size, it, bad);
        errors += bad;
      }
    }
    if (rank == 0 && !failures) {
      const double lat = total_us / iters / 2;
      const double mbps = lat > 0 ? (double)size * 8 / lat : 0;
      m2host_printf("@row %zu %.3f %.2f\n", size, lat, mbps);
    }
  }
  m2host_msg_phase(NULL);
  free_buffers(&bufs, me);
  MMP_finalize(me);
  m2host_result("payload_errors", (int64_t)errors);
  m2host_result("failures", failures);
  m2host_printf("mmp_pingpong: %d sizes, %s, %zu bytes wrong, %d failures\n", n_sizes,
                verify ? "verified" : "not verified", errors, failures);
  return errors || failures ? 1 : 0;
}

M2HOST_APP(mmp_pingpong, mmp_pingpong, "MMP ping-pong between two hosts: latency and throughput per size, verified")
