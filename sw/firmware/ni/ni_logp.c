/* LogP parameters of the NI level (experiment 5, docs/experiments.md): the
 * firmware of two NIs talking through one switch box, no host, the path of
 * the NI-level ping-pong (experiment 1), measured the way logp (sw/apps/logp.c)
 * measures MMP and MPI (the Berkeley method, shared/spec/experiments.md item 7):
 *  - o_s: node 0 issues a burst of 8 minimum-size sends back to back; the CPU
 *    time per send (wait for room in the TX channel, two header stores, one
 *    DMA descriptor) is the send overhead. The DMA runs behind it.
 *  - g: a burst of 512 messages of 1952 bytes (the largest of the
 *    small-message protocol above, so that the three layers compare) at full
 *    speed: the interval between send starts over the burst's second half.
 *  - o_r: node 0 sends a minimum-size request that node 1 answers, spins on
 *    the timebase for an idle interval delta, then takes the replies that
 *    have come (two header loads, one DMA into SDRAM, waited for). Once delta
 *    dominates, the interval per request is o_s + delta + o_r; o_r is taken
 *    at delta = 40 us. The interval against delta is printed as the
 *    signature.
 *  - L = RTT/2 - o_s - o_r, RTT/2 from a minimum-size ping-pong.
 * Node 0 prints `@columns o_s_us o_r_us g_us L_us rtt2_us` and one `@row`
 * (the columns of logp), and `signature delta_us interval_us` lines.
 * Arguments (<ni>.simctrl.args): 0 minimum payload bytes (default 4),
 * 1 burst length for g (default 512), 2 ping-pong rounds (default 20).
 * Results: 0 messages received with a wrong header (must be 0). */
#include <mlx.h>
#include <ni_memory_map.h>
#include <ni_mlcx.h>
#include <ni_netbuf.h>

#include "dma.h"
#include "fw.h"
#include "mmio.h"

#define TX_BUF 0x01000000u /* what is sent                          */
#define RX_BUF 0x02000000u /* where received payloads go            */
#define SMALL 1952u        /* g's message: MPI's default eager limit */
#define MAX_BURST 1024u
#define CH 0u

static uint32_t g_me, g_peer, g_bad_headers;

/* Starts one message: room for header and payload in the TX channel, the
 * header by two stores, the payload by DMA (not waited for). The previous
 * message's payload must be in the channel before this header (one channel:
 * the stream is header, payload, header, ...). */
static void send_start(uint32_t len) {
  fw_dma_wait(fw_dma_started());
  while (mmio_read32(NI_NETBUF_BASE + NETBUF_TX_FREE(CH)) < MLX_HEADER_BYTES + len)
    ;
  mmio_write32(NI_NETBUF_TX_WINDOW(CH), MLX_HDR_WORD0(g_peer, g_me));
  mmio_write32(NI_NETBUF_TX_WINDOW(CH), MLX_HDR_WORD1(MLX_TYPE_UNICAST, len));
  fw_dma_start(TX_BUF, NI_NETBUF_TX_WINDOW(CH), len);
}

static void sends_end(void) { fw_dma_wait(fw_dma_started()); }

/* 1 when a whole message header is waiting in the RX channel. */
static int arrived(void) { return mmio_read32(NI_NETBUF_BASE + NETBUF_RX_AVAIL(CH)) >= MLX_HEADER_BYTES; }

/* Takes one message of len bytes into SDRAM; returns when it is there. */
static void receive(uint32_t len) {
  while (!arrived())
    ;
  const uint32_t w0 = mmio_read32(NI_NETBUF_RX_WINDOW(CH));
  const uint32_t w1 = mmio_read32(NI_NETBUF_RX_WINDOW(CH));
  if (w0 != MLX_HDR_WORD0(g_me, g_peer) || w1 != MLX_HDR_WORD1(MLX_TYPE_UNICAST, len)) {
    printf("ni_logp: header %08x %08x, expected %08x %08x\n", (unsigned)w0, (unsigned)w1, MLX_HDR_WORD0(g_me, g_peer),
           MLX_HDR_WORD1(MLX_TYPE_UNICAST, len));
    g_bad_headers++;
    fw_result(0, g_bad_headers);
    fw_exit(2); /* the stream cannot be followed any more */
  }
  fw_dma_copy(NI_NETBUF_RX_WINDOW(CH), RX_BUF, len);
}

static uint64_t ps_of(uint64_t ticks) { return tb_to_ns(ticks) * 1000u; }

/* Minimum-size ping-pong: RTT / 2 in ps (node 1 echoes). */
static uint64_t half_rtt(uint32_t len, uint32_t rounds) {
  uint64_t ticks = 0;
  for (uint32_t i = 0; i <= rounds; i++) { /* the first round warms up */
    const uint64_t t0 = tb_read();
    if (g_me == 0) {
      send_start(len);
      receive(len);
    } else {
      receive(len);
      send_start(len);
    }
    sends_end();
    if (i > 0) ticks += tb_read() - t0;
  }
  return ps_of(ticks) / rounds / 2;
}

/* A burst of n messages of len bytes from node 0, acknowledged by one reply
 * at the end. Returns the interval between send starts over the second half
 * (ps) and through *call_ps the time per send call. */
static uint64_t burst(uint32_t n, uint32_t len, uint64_t *call_ps) {
  if (g_me == 1) {
    for (uint32_t k = 0; k < n; k++) receive(len);
    send_start(4);
    sends_end();
    return 0;
  }
  static uint64_t start[MAX_BURST];
  uint64_t calls = 0;
  for (uint32_t k = 0; k < n; k++) {
    start[k] = tb_read();
    send_start(len);
    calls += tb_read() - start[k];
  }
  sends_end();
  receive(4);
  *call_ps = ps_of(calls) / n;
  return ps_of(start[n - 1] - start[n / 2]) / (n - 1 - n / 2);
}

/* n requests with replies and delta us of spinning after each: the interval
 * per request in ps. */
static uint64_t signature(uint32_t n, uint32_t len, uint32_t delta_us) {
  if (g_me == 1) {
    for (uint32_t k = 0; k < n; k++) {
      receive(len);
      send_start(len);
    }
    sends_end();
    return 0;
  }
  const uint64_t delta = tb_from_us(delta_us);
  uint32_t replies = 0;
  const uint64_t t0 = tb_read();
  for (uint32_t k = 0; k < n; k++) {
    send_start(len);
    const uint64_t until = tb_read() + delta;
    while (tb_read() < until)
      ;
    while (replies <= k && arrived()) {
      receive(len);
      replies++;
    }
  }
  while (replies < n) {
    receive(len);
    replies++;
  }
  const uint64_t ticks = tb_read() - t0;
  sends_end();
  return ps_of(ticks) / n;
}

/* ps as "us.fff" (the caller prints it with %u.%03u). */
#define US(ps) (unsigned)((ps) / 1000000u), (unsigned)((ps) / 1000u % 1000u)

int main(void) {
  const uint32_t min = fw_arg(0, 4), n = fw_arg(1, 512), rounds = fw_arg(2, 20);
  const uint32_t channel_bytes = mmio_read32(NI_NETBUF_BASE + NETBUF_CHANNEL_BYTES);
  g_me = mmio_read32(NI_MLCX_BASE + MLCX_NODE_ADDR);
  if (min == 0 || min > SMALL || n < 4 || n > MAX_BURST || rounds == 0 || g_me > 1 ||
      SMALL + MLX_HEADER_BYTES > channel_bytes) {
    printf(
        "ni_logp: bad arguments: minimum %u B (1..%u), burst %u (4..%u), rounds %u (>= 1), node %u "
        "(0 or 1), channel %u B\n",
        (unsigned)min, SMALL, (unsigned)n, MAX_BURST, (unsigned)rounds, (unsigned)g_me, (unsigned)channel_bytes);
    return 3;
  }
  g_peer = 1 - g_me;
  const uint64_t rtt2 = half_rtt(min, rounds);
  uint64_t o_s = 0, calls = 0;
  burst(8, min, &o_s); /* the first burst warms up */
  burst(8, min, &o_s);
  const uint64_t g = burst(n, SMALL, &calls);
  uint64_t interval = 0;
  uint32_t delta = 0;
  for (delta = 0; delta <= 40; delta += 4) {
    interval = signature(32, min, delta);
    if (g_me == 0) printf("signature %u %u.%03u\n", (unsigned)delta, US(interval));
  }
  delta -= 4;
  const uint64_t o_r = interval - o_s - (uint64_t)delta * 1000000u;
  if (g_me == 0) {
    const int64_t l = (int64_t)rtt2 - (int64_t)o_s - (int64_t)o_r;
    printf("@columns o_s_us o_r_us g_us L_us rtt2_us\n");
    printf("@row %u.%03u %u.%03u %u.%03u %s%u.%03u %u.%03u\n", US(o_s), US(o_r), US(g), l < 0 ? "-" : "",
           US((uint64_t)(l < 0 ? -l : l)), US(rtt2));
  }
  fw_result(0, g_bad_headers);
  return 0;
}

FW_RESULT_NAMES("bad headers");
