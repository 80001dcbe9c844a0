/* NI-level ping-pong (experiment 1 of shared/spec/experiments.md): two NIs,
 * firmware only, no host. Node 0 reads the timebase, DMAs a message from its
 * SDRAM into a network-buffer channel, MLC-X sends it through the switch box;
 * node 1 DMAs it from its network buffer into its SDRAM and returns it the
 * same way; node 0 takes it into its SDRAM and reads the timebase again. Half
 * the round trip is the one-way latency.
 *
 * A transfer larger than a channel goes as channel-sized messages (chunks):
 * chunk k on channel k % channels. With one channel (the default, which
 * reproduces the published curve, docs/experiments.md) the chunks follow each
 * other; with two one chunk is DMAed while the other is on the link (double
 * buffering, experiment 3's variant). The firmware writes each chunk's 8-byte
 * MLX header into the TX window itself (two stores) and DMAs only the payload;
 * the receiver pops the header with two loads and DMAs the payload to its
 * place in SDRAM. Like the real firmware it polls the status
 * registers in tight loops: no interrupts.
 *
 * Node 0 fills every message with a pattern of its size and repetition and
 * checks every byte that comes back (outside the timed part).
 *
 * Arguments (<ni>.simctrl.args, the same on both nodes):
 *   0 repetitions per size (timed)                 default 10
 *   1 smallest payload in bytes                    default 32
 *   2 largest payload in bytes (sizes double)      default 4096
 *   3 channels used for chunks: 1 or 2             default 1
 *   4 chunk payload bytes, 0 = channel size - 8    default 0
 *   5 untimed warm-up round trips per size         default 1
 * Output: the table `@columns bytes latency_us mbps`, one `@row` per size
 * (node 0). Results: 0 sizes measured, 1 errors (payload or header). */
#include <mlx.h>
#include <ni_dma.h>
#include <ni_memory_map.h>
#include <ni_mlcx.h>
#include <ni_netbuf.h>

#include "dma.h"
#include "fw.h"
#include "mmio.h"

#define TX_BUF 0x01000000u    /* payload to send (node 0)                  */
#define RX_BUF 0x02000000u    /* payload received (node 1 sends it back)   */
#define MAX_BYTES 0x00F00000u /* largest payload: the buffers are 16 MB apart */

static uint32_t g_errors;

static void fail(const char *what) {
  printf("ni_pingpong: %s\n", what);
  fw_exit(2);
}

/* Sends `bytes` of payload at `buf` to `dst` as chunks of at most `chunk`
 * bytes on `channels` channels; returns when the last byte is in the TX
 * channel (its DMA is done). */
static void send(uint32_t buf, uint32_t bytes, uint32_t me, uint32_t dst, uint32_t chunk, uint32_t channels) {
  const uint32_t base = fw_dma_started();
  for (uint32_t k = 0, off = 0; off < bytes; k++, off += chunk) {
    const uint32_t ch = k % channels, len = bytes - off < chunk ? bytes - off : chunk;
    /* The channel's previous chunk must be in before this header. */
    if (k >= channels) fw_dma_wait(base + k - channels + 1);
    while (mmio_read32(NI_NETBUF_BASE + NETBUF_TX_FREE(ch)) < MLX_HEADER_BYTES)
      ;
    mmio_write32(NI_NETBUF_TX_WINDOW(ch), MLX_HDR_WORD0(dst, me));
    mmio_write32(NI_NETBUF_TX_WINDOW(ch), MLX_HDR_WORD1(MLX_TYPE_UNICAST, len));
    fw_dma_start(buf + off, NI_NETBUF_TX_WINDOW(ch), len);
  }
  fw_dma_wait(fw_dma_started());
}

/* Receives `bytes` of payload from `src` into `buf`, chunked as send() does;
 * returns when the last byte is in SDRAM. */
static void receive(uint32_t buf, uint32_t bytes, uint32_t me, uint32_t src, uint32_t chunk, uint32_t channels) {
  const uint32_t base = fw_dma_started();
  for (uint32_t k = 0, off = 0; off < bytes; k++, off += chunk) {
    const uint32_t ch = k % channels, len = bytes - off < chunk ? bytes - off : chunk;
    /* The channel's previous chunk must be out before its next header. */
    if (k >= channels) fw_dma_wait(base + k - channels + 1);
    while (mmio_read32(NI_NETBUF_BASE + NETBUF_RX_AVAIL(ch)) < MLX_HEADER_BYTES)
      ;
    const uint32_t w0 = mmio_read32(NI_NETBUF_RX_WINDOW(ch));
    const uint32_t w1 = mmio_read32(NI_NETBUF_RX_WINDOW(ch));
    if (w0 != MLX_HDR_WORD0(me, src) || w1 != MLX_HDR_WORD1(MLX_TYPE_UNICAST, len)) {
      printf("chunk %u on channel %u: header %08x %08x, expected %08x %08x\n", (unsigned)k, (unsigned)ch, (unsigned)w0,
             (unsigned)w1, MLX_HDR_WORD0(me, src), MLX_HDR_WORD1(MLX_TYPE_UNICAST, len));
      fail("the stream cannot be followed any more");
    }
    fw_dma_start(NI_NETBUF_RX_WINDOW(ch), buf + off, len);
  }
  fw_dma_wait(fw_dma_started());
}

static uint32_t pattern(uint32_t bytes, uint32_t rep, uint32_t i) {
  uint32_t h = (bytes * 2654435761u) ^ (rep * 40503u) ^ (i * 2246822519u);
  h ^= h >> 15;
  return h * 3266489917u;
}

static void fill(uint32_t buf, uint32_t bytes, uint32_t rep) {
  volatile uint32_t *w = (volatile uint32_t *)buf;
  for (uint32_t i = 0; i < bytes / 4; i++) w[i] = pattern(bytes, rep, i);
  volatile uint8_t *b = (volatile uint8_t *)buf;
  const uint32_t last = pattern(bytes, rep, bytes / 4);
  for (uint32_t i = bytes & ~3u; i < bytes; i++) b[i] = (uint8_t)(last >> (24 - 8 * (i & 3)));
}

/* Index of the first wrong byte, or `bytes` when all are right. */
static uint32_t check(uint32_t buf, uint32_t bytes, uint32_t rep) {
  const volatile uint32_t *w = (const volatile uint32_t *)buf;
  for (uint32_t i = 0; i < bytes / 4; i++)
    if (w[i] != pattern(bytes, rep, i))
      for (uint32_t j = 4 * i;; j++)
        if (((const volatile uint8_t *)buf)[j] != (uint8_t)(pattern(bytes, rep, i) >> (24 - 8 * (j & 3)))) return j;
  const volatile uint8_t *b = (const volatile uint8_t *)buf;
  const uint32_t last = pattern(bytes, rep, bytes / 4);
  for (uint32_t i = bytes & ~3u; i < bytes; i++)
    if (b[i] != (uint8_t)(last >> (24 - 8 * (i & 3)))) return i;
  return bytes;
}

int main(void) {
  const uint32_t reps = fw_arg(0, 10), min = fw_arg(1, 32), max = fw_arg(2, 4096);
  const uint32_t channels = fw_arg(3, 1), warmup = fw_arg(5, 1);
  const uint32_t channel_bytes = mmio_read32(NI_NETBUF_BASE + NETBUF_CHANNEL_BYTES);
  const uint32_t chunk = fw_arg(4, 0) ? fw_arg(4, 0) : channel_bytes - MLX_HEADER_BYTES;
  const uint32_t me = mmio_read32(NI_MLCX_BASE + MLCX_NODE_ADDR);
  if (reps == 0 || min == 0 || max < min || max > MAX_BYTES || channels < 1 || channels > NI_NETBUF_CHANNELS ||
      chunk == 0 || chunk + MLX_HEADER_BYTES > channel_bytes || me > 1) {
    printf("bad arguments: reps %u, bytes %u..%u, channels %u, chunk %u (channel %u B), node %u\n", (unsigned)reps,
           (unsigned)min, (unsigned)max, (unsigned)channels, (unsigned)chunk, (unsigned)channel_bytes, (unsigned)me);
    return 3;
  }
  const uint32_t peer = 1 - me;
  if (me == 0) printf("@columns bytes latency_us mbps\n");
  uint32_t sizes = 0;
  for (uint32_t bytes = min; bytes <= max; bytes *= 2) { /* max <= MAX_BYTES: no overflow */
    uint64_t ticks = 0;
    for (uint32_t rep = 0; rep < warmup + reps; rep++) {
      if (me == 1) {
        /* Echo: the whole message into SDRAM, then back the same way. */
        receive(RX_BUF, bytes, me, peer, chunk, channels);
        send(RX_BUF, bytes, me, peer, chunk, channels);
        continue;
      }
      fill(TX_BUF, bytes, rep);
      const uint64_t t0 = tb_read();
      send(TX_BUF, bytes, me, peer, chunk, channels);
      receive(RX_BUF, bytes, me, peer, chunk, channels);
      const uint64_t t1 = tb_read();
      if (rep >= warmup) ticks += t1 - t0;
      const uint32_t bad = check(RX_BUF, bytes, rep);
      if (bad != bytes) {
        printf("%u bytes, repetition %u: byte %u is 0x%02x, expected another value\n", (unsigned)bytes, (unsigned)rep,
               (unsigned)bad, ((const volatile uint8_t *)RX_BUF)[bad]);
        g_errors++;
      }
    }
    sizes++;
    if (me == 0) {
      /* One way = round trip / 2, in ps; throughput in Mbit/s = bits per us. */
      const uint64_t ps = tb_to_ns(ticks) * 1000u / (2u * reps);
      const uint64_t mbps10 = (uint64_t)bytes * 8u * 10000000u / ps; /* tenths */
      printf("@row %u %u.%03u %u.%u\n", (unsigned)bytes, (unsigned)(ps / 1000000u), (unsigned)(ps / 1000u % 1000u),
             (unsigned)(mbps10 / 10u), (unsigned)(mbps10 % 10u));
    }
  }
  fw_result(0, sizes);
  fw_result(1, g_errors);
  return g_errors ? 1 : 0;
}

FW_RESULT_NAMES("sizes,errors");
