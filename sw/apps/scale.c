/* Traffic patterns over MMP on 2..N hosts (experiment 6, scale): all-to-all,
 * nearest neighbour and hot spot, one after another in one run; for each
 * pattern and size the one-way latency of every message and the throughput
 * per node.
 *
 *   scale [--sizes [PATTERN=]16,1k,...] [--msgs N] [--patterns alltoall,neighbour,hotspot]
 *         [--hot NODE] [--out NAME]
 *
 * --sizes LIST sets the sizes of every pattern (default 16,256,4k,64k),
 * --sizes PATTERN=LIST those of one (the later option wins); --msgs is the
 * number of messages per (sender, receiver) pair and size (default 4);
 * --patterns the patterns, run in that order (default all three).
 *
 * Patterns (node i of n; "k" runs 1, 2, ...):
 *  - alltoall:  i sends to i+k (mod n) for every k < n, so every node sends to
 *               every other;
 *  - neighbour: a ring, i sends to i+1 and to i-1 (one neighbour when n = 2);
 *  - hotspot:   every node but the hot one (--hot, node 0) sends to it; the hot
 *               node only receives.
 * A phase is one (pattern, size): every node posts all its receives (zero
 * copy into pinned buffers), then MMP_Sync; node 0 then sends every node the
 * phase's start time (its clock + 20 us + 10 us per node) and node i waits
 * until START_STAGGER_NS x i after it (the barrier releases the nodes
 * microseconds apart, and a small-message phase would measure that skew; a
 * node that gets the start late says so and counts it in the late_starts
 * result). Then --msgs rounds; in a round a
 * node sends one message to each of its destinations (in the order above),
 * waits for the round's message from each of its sources (in the order they
 * send: i-1, i-2, ...), then for its sends. The receive side of the hot spot
 * takes the round's message from every sender; the senders just stream.
 *
 * Every message carries a 16-byte header (sequence number = round, source,
 * destination, the sender's m2host_now_us() just before MMP_Send) and then a
 * pattern of (source, destination, sequence, offset). The receiver takes
 * m2host_now_us() when its Wait returns: latency = that - the send time. Both
 * read the one global simulated clock, a privilege of the virtual platform (a
 * real cluster has no common clock to the microsecond). The latency is the one
 * the application sees: a message that completes while the receiver waits for
 * an earlier one counts from when the Wait for it returns. Every payload byte
 * and the guard bytes behind it are checked; each message must come in
 * sequence from the right source.
 *
 * After each phase every node sends node 0 its records (source, destination,
 * sequence, latency) and its received bytes and phase times by MMP messages,
 * once every node has finished the phase: a token goes round 0, 1, ... n-1, 0,
 * each node passing it on when its own part is over, then node 0 asks every
 * node for its records (gather()). So no record crosses the network while a
 * node still receives the phase's messages (records sent as soon as a sender
 * was done reached the hot node of a hot spot, the last to finish, as
 * unexpected messages in the middle of its phase and slowed it). Node 0 checks
 * that every message sent arrived exactly once, prints the phase's row
 * (latency min, mean, p50, p99, max over all messages of all nodes; throughput
 * per node = received payload bits / phase time, the mean over all nodes and
 * the min over the nodes that receive in the pattern; the phase time is from
 * the common start to the last message's arrival on any node) and appends
 * every latency to the file --out (latencies.tsv, in the run folder: pattern
 * bytes src dst latency_us).
 *
 * Sizes are at least 16 bytes (the header). A node posts (sources x --msgs)
 * receives at once, and the start's: at most 255 (MMP's handle pool of 256).
 * Nothing but MMP calls costs simulated time: filling and checking payloads
 * is free. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ip/mmp_protocol.h>

#include "app_args.h"
#include "host/host_env.h"
#include "mmp.h"

#define PORT 6
#define TAG_DATA_BASE 0x100 /* + phase number */
#define TAG_GATHER 0x10
#define TAG_START 0x11
#define TAG_COLLECT 0x12               /* node 0 asks a node for its records */
#define TAG_DONE 0x13                  /* the token: every node before this one has finished the phase */
#define MAX_NODES ((int)MMP_MAX_NODES) /* 256: every node MMP addresses (configs/cluster-256.yaml) */
#define MAX_SIZES 32
#define MAX_PHASES 64 /* patterns in --patterns: a soak repeats them (bench/soak.cpp) */
#define MAX_SIZE (16u << 20)
#define MAX_RECVS MMP_MAX_RECVS
#define HEADER_BYTES 16u
#define GUARD_BYTES 16u
#define POISON 0xEE
/* How far ahead of node 0's clock a phase starts: time for node 0 to send
 * every node the start (a few us per small message). */
#define START_AHEAD_US 20.0
#define START_AHEAD_PER_NODE_US 10.0
/* Node i starts i x this after the common start. Real nodes never start at
 * the same instant; in the simulation, n nodes starting at the same
 * picosecond tie at every shared resource, and which wins would follow the
 * order in which SystemC runs same-time wake-ups (unspecified; a no-op
 * change moved hot-spot rows by 4% that way). 100 ns is far below a message's
 * latency and above any tie. */
#define START_STAGGER_NS 100.0

enum pattern { ALLTOALL, NEIGHBOUR, HOTSPOT, N_PATTERNS };
static const char *const kPatternNames[N_PATTERNS] = {"alltoall", "neighbour", "hotspot"};
static const char *kDefaultSizes = "16,256,4k,64k";
static const char *kDefaultPatterns = "alltoall,neighbour,hotspot";

/* The header every message starts with (host byte order; all hosts alike). */
struct msg_header {
  uint32_t seq;
  uint16_t src, dst;
  double send_us;
};

/* One received message, as gathered at node 0. */
struct rec {
  uint16_t src, dst;
  uint32_t seq;
  double latency_us;
};

/* What a node reports to node 0 after a phase, followed by its records. */
struct summary {
  double start_us;   /* this node's start (the common start + stagger) */
  double last_rx_us; /* last receive completed (start_us if none)     */
  uint64_t rx_bytes; /* payload bytes received                         */
  uint32_t n_recs;   /* records that follow                            */
  uint32_t errors;   /* wrong bytes (a bad header counts 16)           */
};

struct peers {
  int n_dst, dst[MAX_NODES];
  int n_src, src[MAX_NODES];
};

struct ctx {
  int me, n, hot, msgs;
  struct MMP_connect *self, *node[MAX_NODES];
  uint8_t *sbuf, *rbuf; /* pinned: a slot per destination, per receive */
  double *start_buf;    /* pinned: the phase's start time, sent by node 0 */
  double *collect_buf;  /* pinned: node 0's request for the records */
  size_t stride;        /* slot size of the current phase               */
  struct rec *recs;     /* this node's records of the current phase     */
  uint8_t *gather;      /* node 0: one summary + records per node       */
  size_t gather_bytes;  /* room per node                                */
  FILE *lat;            /* node 0: latencies.tsv                        */
  long errors;          /* wrong bytes this node received               */
  long failures;
  long late_starts;                   /* phases this node began after their start time */
  long all_errors, missing, messages; /* node 0: over all nodes (gathered)    */
};

static uint8_t body_byte(size_t i, unsigned src, unsigned dst, unsigned seq) {
  return (uint8_t)(i * 7u + src * 29u + dst * 53u + seq * 101u + 0x5Au);
}

static size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

static void peers_of(enum pattern p, int me, int n, int hot, struct peers *q) {
  q->n_dst = q->n_src = 0;
  switch (p) {
    case ALLTOALL:
      for (int k = 1; k < n; k++) {
        q->dst[q->n_dst++] = (me + k) % n;
        q->src[q->n_src++] = (me - k + n) % n;
      }
      break;
    case NEIGHBOUR: {
      const int right = (me + 1) % n, left = (me - 1 + n) % n;
      q->dst[q->n_dst++] = right;
      q->src[q->n_src++] = left; /* the left neighbour sends to us first */
      if (left != right) {
        q->dst[q->n_dst++] = left;
        q->src[q->n_src++] = right;
      }
      break;
    }
    case HOTSPOT:
      if (me == hot)
        for (int k = 1; k < n; k++) q->src[q->n_src++] = (hot + k) % n;
      else q->dst[q->n_dst++] = hot;
      break;
    default:
      break;
  }
}

/* Bytes wrong in a received slot: header, body and the guard behind it. */
static size_t check_message(const uint8_t *p, size_t size, size_t stride, unsigned src, unsigned dst, unsigned seq) {
  struct msg_header h;
  memcpy(&h, p, sizeof h);
  size_t bad = h.seq != seq || h.src != src || h.dst != dst ? HEADER_BYTES : 0;
  for (size_t i = HEADER_BYTES; i < size; i++) bad += p[i] != body_byte(i, src, dst, seq);
  for (size_t i = size; i < stride; i++) bad += p[i] != POISON;
  return bad;
}

static int cmp_double(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted v[0..n-1] (n > 0). */
static double percentile(const double *v, size_t n, double p) {
  size_t k = (size_t)ceil(p * (double)n);
  return v[k ? k - 1 : 0];
}

/* Node 0: checks that every message of the phase arrived exactly once,
 * prints its row and writes its latencies. */
static void report_phase(struct ctx *c, enum pattern p, size_t size) {
  double start = 0, end = 0, sum_mbps = 0, min_mbps = -1;
  size_t n_lat = 0, expected = 0;
  const uint32_t max_recs = (uint32_t)((c->gather_bytes - sizeof(struct summary)) / sizeof(struct rec));
  for (int j = 0; j < c->n; j++) {
    struct summary *s = (struct summary *)(c->gather + (size_t)j * c->gather_bytes);
    if (s->n_recs > max_recs) { /* never from a healthy node: do not read past its slot */
      m2host_printf("scale: node %d reported %u records (at most %u)\n", j, s->n_recs, max_recs);
      s->n_recs = 0;
    }
    if (j == 0 || s->start_us < start) start = s->start_us;
    if (j == 0 || s->last_rx_us > end) end = s->last_rx_us;
    n_lat += s->n_recs;
    c->all_errors += s->errors;
    struct peers q;
    peers_of(p, j, c->n, c->hot, &q);
    expected += (size_t)q.n_dst * (size_t)c->msgs;
  }
  const double phase_us = end - start;
  double *lat = malloc((n_lat ? n_lat : 1) * sizeof *lat);
  if (!lat) {
    m2host_printf("scale: out of memory for %zu latencies\n", n_lat);
    c->missing += (long)expected;
    return;
  }
  size_t k = 0;
  long dup_or_stray = 0;
  for (int j = 0; j < c->n; j++) {
    const struct summary *s = (const struct summary *)(c->gather + (size_t)j * c->gather_bytes);
    const struct rec *r = (const struct rec *)(s + 1);
    struct peers q;
    peers_of(p, j, c->n, c->hot, &q);
    /* Node j's records come in its wait order: round by round, its sources in order. */
    for (uint32_t i = 0; i < s->n_recs; i++) {
      const int src_ok = q.n_src > 0 && r[i].src == q.src[i % (uint32_t)q.n_src];
      dup_or_stray += !src_ok || r[i].dst != j || r[i].seq != i / (uint32_t)(q.n_src ? q.n_src : 1);
      lat[k++] = r[i].latency_us;
      if (c->lat)
        fprintf(c->lat, "%s\t%zu\t%u\t%u\t%.4f\n", kPatternNames[p], size, r[i].src, r[i].dst, r[i].latency_us);
    }
    const double mbps = phase_us > 0 ? (double)s->rx_bytes * 8 / phase_us : 0;
    sum_mbps += mbps;
    if (q.n_src > 0 && (min_mbps < 0 || mbps < min_mbps)) min_mbps = mbps;
  }
  const long missing = (long)expected - (long)n_lat;
  if (missing || dup_or_stray)
    m2host_printf("scale: %s %zu B: %zu messages sent, %zu received, %ld out of place\n", kPatternNames[p], size,
                  expected, n_lat, dup_or_stray);
  c->missing += labs(missing) + dup_or_stray;
  c->messages += (long)n_lat;
  qsort(lat, n_lat, sizeof *lat, cmp_double);
  double mean = 0;
  for (size_t i = 0; i < n_lat; i++) mean += lat[i];
  if (n_lat) {
    mean /= (double)n_lat;
    m2host_printf("@row %s %d %zu %zu %.3f %.3f %.3f %.3f %.3f %.1f %.1f\n", kPatternNames[p], c->n, size, n_lat,
                  lat[0], mean, percentile(lat, n_lat, 0.5), percentile(lat, n_lat, 0.99), lat[n_lat - 1],
                  sum_mbps / c->n, min_mbps < 0 ? 0 : min_mbps);
  }
  free(lat);
}

/* One 8-byte message (token or request) from or into collect_buf; 0 or -1. */
static int token_send(struct ctx *c, int to, int tag) {
  struct MMP_send_handle *s = MMP_Send(c->collect_buf, sizeof *c->collect_buf, tag, c->self, c->node[to]);
  return s && MMP_Wait_send(s) == 0 ? 0 : -1;
}

static int token_recv(struct ctx *c, int from, int tag) {
  struct MMP_recv_handle *h = MMP_Recv(c->collect_buf, sizeof *c->collect_buf, tag, c->node[from], c->self);
  return h && MMP_Wait_recv(h) == (int)sizeof *c->collect_buf ? 0 : -1;
}

/* Once every node has finished the phase, sends node 0 this node's summary and
 * records; node 0 collects everyone's. A token goes round 0, 1, ... n-1, 0,
 * each node passing it on when its own part is over, so at most that one
 * 8-byte message reaches a node still in the phase; when it is back node 0
 * asks every node for its records. (Records sent as soon as a node was done
 * reached nodes still receiving, the hot node in the hot spot: issue 29.) The
 * receives are posted only now, when the phase's are done: with them and the
 * start a node may already hold all of MMP's receive handles. */
static int gather(struct ctx *c, const struct summary *mine) {
  const size_t bytes = sizeof *mine + mine->n_recs * sizeof(struct rec);
  if (c->me != 0) {
    if (token_recv(c, c->me - 1, TAG_DONE) != 0 || token_send(c, (c->me + 1) % c->n, TAG_DONE) != 0) return -1;
    if (token_recv(c, 0, TAG_COLLECT) != 0) return -1;
    uint8_t *msg = malloc(bytes);
    if (!msg) return -1;
    memcpy(msg, mine, sizeof *mine);
    memcpy(msg + sizeof *mine, c->recs, mine->n_recs * sizeof(struct rec));
    struct MMP_send_handle *s = MMP_Send(msg, bytes, TAG_GATHER, c->self, c->node[0]);
    const int rc = s ? MMP_Wait_send(s) : -1;
    free(msg);
    return rc == 0 ? 0 : -1;
  }
  if (token_send(c, 1, TAG_DONE) != 0 || token_recv(c, c->n - 1, TAG_DONE) != 0) return -1;
  memcpy(c->gather, mine, sizeof *mine);
  memcpy(c->gather + sizeof *mine, c->recs, mine->n_recs * sizeof(struct rec));
  struct MMP_recv_handle *h[MAX_NODES];
  int rc = 0;
  struct MMP_send_handle *ask[MAX_NODES];
  for (int j = 1; j < c->n; j++)
    h[j] = MMP_Recv(c->gather + (size_t)j * c->gather_bytes, c->gather_bytes, TAG_GATHER, c->node[j], c->self);
  for (int j = 1; j < c->n; j++)
    ask[j] = MMP_Send(c->collect_buf, sizeof *c->collect_buf, TAG_COLLECT, c->self, c->node[j]);
  for (int j = 1; j < c->n; j++)
    if (!ask[j] || MMP_Wait_send(ask[j]) != 0) rc = -1;
  for (int j = 1; j < c->n; j++)
    if (!h[j] || MMP_Wait_recv(h[j]) < (int)sizeof(struct summary)) rc = -1;
  return rc;
}

/* The phase's start: node 0 sends one time to every node after the
 * barrier, far enough ahead that it reaches every node first (the barrier
 * alone releases nodes microseconds apart, and a small-message phase would
 * measure that skew and the order the release reached them). Node i waits
 * until START_STAGGER_NS x i after it; *start_us gets that time. -1 when the
 * message failed. */
static int common_start(struct ctx *c, double *start_us) {
  double *start_buf = c->start_buf; /* pinned: no pin-down per message */
  if (c->me == 0) {
    *start_buf = m2host_now_us() + START_AHEAD_US + START_AHEAD_PER_NODE_US * c->n;
    struct MMP_send_handle *s[MAX_NODES];
    for (int j = 1; j < c->n; j++) s[j] = MMP_Send(start_buf, sizeof *start_buf, TAG_START, c->self, c->node[j]);
    for (int j = 1; j < c->n; j++)
      if (!s[j] || MMP_Wait_send(s[j]) != 0) return -1;
  } else {
    struct MMP_recv_handle *h = MMP_Recv(start_buf, sizeof *start_buf, TAG_START, c->node[0], c->self);
    if (!h || MMP_Wait_recv(h) != (int)sizeof *start_buf) return -1;
  }
  const double start = *start_buf + c->me * START_STAGGER_NS * 1e-3;
  const double now = m2host_now_us();
  if (now > start) {
    m2host_printf("scale: node %d got the phase's start %.3f us late\n", c->me, now - start);
    c->late_starts++;
  } else {
    m2host_compute_ns((start - now) * 1e3);
  }
  *start_us = start;
  return 0;
}

/* One phase; -1 when an MMP operation failed (the run cannot go on). */
static int run_phase(struct ctx *c, enum pattern p, size_t size, int phase_no) {
  struct peers q;
  peers_of(p, c->me, c->n, c->hot, &q);
  const int tag = TAG_DATA_BASE + phase_no;
  c->stride = round_up(size + GUARD_BYTES, 64);
  struct MMP_recv_handle *rh[MAX_RECVS];
  struct MMP_send_handle *sh[MAX_NODES];
  const int n_recv = q.n_src * c->msgs;
  memset(c->rbuf, POISON, (size_t)n_recv * c->stride);
  for (int i = 0; i < n_recv; i++) {
    rh[i] = MMP_Recv(c->rbuf + (size_t)i * c->stride, size, tag, c->node[q.src[i % q.n_src]], c->self);
    if (!rh[i]) {
      m2host_printf("scale: MMP_Recv failed: %s\n", MMP_strerror(MMP_last_error()));
      return -1;
    }
  }
  MMP_Sync(c->me, c->n);
  double start_us = 0;
  if (common_start(c, &start_us) != 0) {
    m2host_printf("scale: the phase's start did not arrive: %s\n", MMP_strerror(MMP_last_error()));
    return -1;
  }
  struct summary mine = {start_us, 0, 0, 0, 0};
  mine.last_rx_us = mine.start_us;
  int failed = 0;
  for (int it = 0; it < c->msgs && !failed; it++) {
    for (int k = 0; k < q.n_dst; k++) {
      uint8_t *b = c->sbuf + (size_t)k * c->stride;
      for (size_t i = HEADER_BYTES; i < size; i++)
        b[i] = body_byte(i, (unsigned)c->me, (unsigned)q.dst[k], (unsigned)it);
      struct msg_header h = {(uint32_t)it, (uint16_t)c->me, (uint16_t)q.dst[k], m2host_now_us()};
      memcpy(b, &h, sizeof h);
      sh[k] = MMP_Send(b, size, tag, c->self, c->node[q.dst[k]]);
      failed |= !sh[k];
    }
    for (int k = 0; k < q.n_src && !failed; k++) {
      const int i = it * q.n_src + k;
      const int rc = MMP_Wait_recv(rh[i]);
      const double now = m2host_now_us();
      if (rc != (int)size) {
        m2host_printf("scale: %s %zu B: receive from node %d round %d: %d (%s)\n", kPatternNames[p], size, q.src[k], it,
                      rc, MMP_strerror(MMP_last_error()));
        failed = 1;
        break;
      }
      const uint8_t *m = c->rbuf + (size_t)i * c->stride;
      const size_t bad = check_message(m, size, c->stride, (unsigned)q.src[k], (unsigned)c->me, (unsigned)it);
      if (bad)
        m2host_printf("scale: %s %zu B: message %d from node %d: %zu bytes wrong\n", kPatternNames[p], size, it,
                      q.src[k], bad);
      mine.errors += (uint32_t)bad;
      struct msg_header h;
      memcpy(&h, m, sizeof h);
      /* What the header says, so that node 0 checks what really arrived. */
      c->recs[mine.n_recs++] = (struct rec){h.src, h.dst, h.seq, now - h.send_us};
      mine.rx_bytes += size;
      mine.last_rx_us = now;
    }
    for (int k = 0; k < q.n_dst; k++)
      if (sh[k] && MMP_Wait_send(sh[k]) != 0) failed = 1;
  }
  if (failed) {
    m2host_printf("scale: %s %zu B: an MMP operation failed: %s\n", kPatternNames[p], size,
                  MMP_strerror(MMP_last_error()));
    return -1;
  }
  c->errors += mine.errors;
  if (gather(c, &mine) != 0) {
    m2host_printf("scale: gathering the results at node 0 failed: %s\n", MMP_strerror(MMP_last_error()));
    return -1;
  }
  if (c->me == 0) report_phase(c, p, size);
  return 0;
}

/* "alltoall,hotspot" into a list of patterns; the count or -1. */
static int parse_patterns(const char *s, enum pattern *out, int max) {
  int n = 0;
  while (*s) {
    const char *e = strchr(s, ',');
    const size_t len = e ? (size_t)(e - s) : strlen(s);
    int found = -1;
    for (int p = 0; p < N_PATTERNS; p++)
      if (strlen(kPatternNames[p]) == len && !strncmp(s, kPatternNames[p], len)) found = p;
    if (found < 0 || n >= max) return -1;
    out[n++] = (enum pattern)found;
    s += len + (e ? 1 : 0);
  }
  return n;
}

/* The sizes of each pattern. */
struct size_lists {
  size_t v[N_PATTERNS][MAX_SIZES];
  int n[N_PATTERNS];
};

/* "--sizes LIST" sets every pattern's sizes, "--sizes PATTERN=LIST" one
 * pattern's; 0, or -1 when malformed or a size is out of range. */
static int parse_sizes_option(const char *arg, struct size_lists *l) {
  const char *eq = strchr(arg, '=');
  int first = 0, last = N_PATTERNS - 1;
  if (eq) {
    enum pattern p;
    char name[32];
    const size_t len = (size_t)(eq - arg);
    if (len >= sizeof name) return -1;
    memcpy(name, arg, len);
    name[len] = '\0';
    if (parse_patterns(name, &p, 1) != 1) return -1;
    first = last = (int)p;
    arg = eq + 1;
  }
  size_t v[MAX_SIZES];
  const int n = app_parse_sizes(arg, v, MAX_SIZES);
  if (n <= 0) return -1;
  for (int i = 0; i < n; i++)
    if (v[i] < HEADER_BYTES || v[i] > MAX_SIZE) return -1;
  for (int p = first; p <= last; p++) {
    memcpy(l->v[p], v, (size_t)n * sizeof v[0]);
    l->n[p] = n;
  }
  return 0;
}

static int usage_error(const char *why) {
  m2host_printf("scale: %s\n", why);
  m2host_printf(
      "usage: scale [--sizes [PATTERN=]16,1k,...] [--msgs N] [--patterns alltoall,neighbour,hotspot] "
      "[--hot NODE] [--out NAME]\n");
  app_release_ni();
  return 2;
}

static int scale(int argc, char **argv) {
  struct size_lists sizes;
  enum pattern patterns[MAX_PHASES];
  parse_sizes_option(kDefaultSizes, &sizes);
  int n_patterns = parse_patterns(kDefaultPatterns, patterns, MAX_PHASES);
  int msgs = 4, hot = 0;
  const char *out_name = "latencies.tsv";
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return usage_error("an option needs a value");
    i++;
    if (!strcmp(a, "--sizes")) {
      if (parse_sizes_option(v, &sizes) != 0)
        return usage_error(
            "--sizes: expected [PATTERN=]LIST, a comma-separated list of sizes from 16 bytes (the "
            "header) to 16M, like 16,1k,64k");
    } else if (!strcmp(a, "--msgs")) msgs = (int)app_parse_size(v, NULL);
    else if (!strcmp(a, "--patterns")) n_patterns = parse_patterns(v, patterns, MAX_PHASES);
    else if (!strcmp(a, "--hot")) hot = (int)app_parse_size(v, NULL);
    else if (!strcmp(a, "--out")) out_name = v;
    else return usage_error("unknown option");
  }
  const int n = m2host_count(), me = m2host_id();
  if (n_patterns <= 0)
    return usage_error("--patterns: expected a comma-separated list of alltoall, neighbour, hotspot");
  if (n < 2 || n > MAX_NODES) return usage_error("needs 2..256 hosts");
  if (hot < 0 || hot >= n) return usage_error("--hot: not a node of the platform");
  /* A phase posts all its receives, then the start's: MMP's handle pool must hold both. */
  if (msgs < 1 || (long)msgs * (n - 1) > MAX_RECVS - 1)
    return usage_error(
        "--msgs: at least 1 and at most 255 / (nodes - 1) (all receives of a phase and the start's are posted at "
        "once, from MMP's 256 receive handles)");

  struct ctx c;
  memset(&c, 0, sizeof c);
  c.me = me, c.n = n, c.hot = hot, c.msgs = msgs;
  for (int j = 0; j < n; j++) c.node[j] = MMP_Make_connect(MMP_PNA(j), PORT);
  c.self = MMP_initialize(MMP_Make_connect(0, PORT), NULL);
  if (!c.self) {
    m2host_printf("scale: MMP_initialize failed: %s\n", MMP_strerror(MMP_last_error()));
    return 3;
  }
  size_t max_size = 0;
  for (int p = 0; p < n_patterns; p++)
    for (int s = 0; s < sizes.n[patterns[p]]; s++)
      if (sizes.v[patterns[p]][s] > max_size) max_size = sizes.v[patterns[p]][s];
  const size_t max_stride = round_up(max_size + GUARD_BYTES, 64);
  const size_t max_recvs = (size_t)(n - 1) * (size_t)msgs;
  c.sbuf = MMP_Pindown_malloc((size_t)(n - 1) * max_stride, c.self);
  c.rbuf = MMP_Pindown_malloc(max_recvs * max_stride, c.self);
  c.start_buf = MMP_Pindown_malloc(sizeof *c.start_buf, c.self);
  c.collect_buf = MMP_Pindown_malloc(sizeof *c.collect_buf, c.self);
  c.recs = malloc(max_recvs * sizeof *c.recs);
  c.gather_bytes = sizeof(struct summary) + max_recvs * sizeof(struct rec);
  if (me == 0) c.gather = malloc((size_t)n * c.gather_bytes);
  char path[4096];
  if (me == 0 && m2host_output_path(out_name, path, sizeof path) == 0) {
    c.lat = fopen(path, "w");
    if (!c.lat) m2host_printf("scale: cannot write %s; latencies go to the table only\n", path);
    else fprintf(c.lat, "pattern\tbytes\tsrc\tdst\tlatency_us\n");
  } else if (me == 0) {
    m2host_printf("scale: no run folder (or a bad --out name): %s not written\n", out_name);
  }
  int rc = 0;
  if (c.collect_buf) *c.collect_buf = 0;
  if (!c.sbuf || !c.rbuf || !c.start_buf || !c.collect_buf || !c.recs || (me == 0 && !c.gather)) {
    m2host_printf("scale: cannot allocate %zu pinned bytes: %s\n", (n - 1 + max_recvs) * max_stride,
                  MMP_strerror(MMP_last_error()));
    rc = 4;
  }
  if (me == 0 && !rc) {
    m2host_printf("scale: %d nodes, %d message(s) per pair and size, hot spot node %d\n", n, msgs, hot);
    m2host_printf("@columns pattern nodes bytes messages min_us mean_us p50_us p99_us max_us mbps mbps_min\n");
  }
  for (int p = 0, phase = 0; p < n_patterns && !rc; p++)
    for (int s = 0; s < sizes.n[patterns[p]] && !rc; s++, phase++)
      if (run_phase(&c, patterns[p], sizes.v[patterns[p]][s], phase) != 0) c.failures++, rc = 1;
  if (c.lat) fclose(c.lat);
  if (c.sbuf) MMP_Pindown_free(c.sbuf, c.self);
  if (c.rbuf) MMP_Pindown_free(c.rbuf, c.self);
  if (c.start_buf) MMP_Pindown_free(c.start_buf, c.self);
  if (c.collect_buf) MMP_Pindown_free(c.collect_buf, c.self);
  free(c.recs);
  free(c.gather);
  MMP_finalize(c.self);
  m2host_result("payload_errors", c.errors);
  m2host_result("failures", c.failures);
  m2host_result("late_starts", c.late_starts);
  if (me == 0) {
    m2host_result("messages", c.messages);
    m2host_result("missing", c.missing);
    m2host_result("payload_errors_all", c.all_errors);
    m2host_printf("scale: %ld messages received and checked, %ld payload bytes wrong, %ld missing or out of place\n",
                  c.messages, c.all_errors, c.missing);
  }
  return rc ? rc : c.errors || c.all_errors || c.missing ? 1 : 0;
}

M2HOST_APP(scale, scale,
           "traffic patterns over MMP (all-to-all, nearest neighbour, hot spot): latency distribution "
           "and throughput per node; latencies.tsv in the run folder")
