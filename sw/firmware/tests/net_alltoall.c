/* All-to-all over the network, NI firmware only: every node sends `rounds`
 * messages to every other node and receives theirs, checking every payload
 * byte and that each sender's messages arrive in order. Messages go through
 * DMA (SDRAM -> TX channel, RX channel -> SDRAM); a send starts only when the
 * TX channel has room for the whole message and the RX channels are drained
 * all the time, so no node ever blocks the network.
 * Arguments (<ni>.simctrl.args): nodes, rounds, max payload bytes, seed.
 * Results: 0 messages received, 1 errors, 2 bytes received. */
#include <mlx.h>
#include <ni_dma.h>
#include <ni_memory_map.h>
#include <ni_mlcx.h>
#include <ni_netbuf.h>

#include "dma.h"
#include "fw.h"
#include "mmio.h"

#define TX_STAGE 0x01000000u /* message being sent, in SDRAM   */
#define RX_STAGE 0x01100000u /* message being received         */
#define MAX_NODES 64u

static uint32_t length_of(uint32_t src, uint32_t dst, uint32_t round, uint32_t max_len, uint32_t seed) {
  uint32_t h = (src * 2654435761u) ^ (dst * 40503u) ^ (round * 2246822519u) ^ seed;
  h ^= h >> 13;
  h *= 3266489917u;
  h ^= h >> 16;
  return 4 + h % (max_len - 3); /* 4..max_len: room for the round number */
}

static uint8_t byte_of(uint32_t src, uint32_t dst, uint32_t round, uint32_t i) {
  return (uint8_t)(src * 131u + dst * 7u + round * 13u + i);
}

int main(void) {
  const uint32_t nodes = fw_arg(0, 2), rounds = fw_arg(1, 4), max_len = fw_arg(2, 1000), seed = fw_arg(3, 1);
  const uint32_t me = mmio_read32(NI_MLCX_BASE + MLCX_NODE_ADDR);
  if (nodes < 2 || nodes > MAX_NODES || me >= nodes || max_len < 4 || max_len + MLX_HEADER_BYTES > 2048) {
    printf("bad arguments: nodes %u, me %u, max_len %u\n", (unsigned)nodes, (unsigned)me, (unsigned)max_len);
    return 3;
  }
  static uint32_t next_round[MAX_NODES];
  const uint32_t expected = (nodes - 1) * rounds;
  uint32_t sent = 0, received = 0, errors = 0, bytes = 0;
  uint32_t round = 0, k = 1; /* next message: to (me + k) % nodes in round `round` */
  const uint64_t t0 = tb_read();
  while (received < expected || round < rounds) {
    /* Receive whatever is complete on either channel. */
    for (unsigned ch = 0; ch < NI_NETBUF_CHANNELS; ch++) {
      const uint32_t avail = mmio_read32(NI_NETBUF_BASE + NETBUF_RX_AVAIL(ch));
      if (avail < MLX_HEADER_BYTES) continue;
      fw_dma_copy(NI_NETBUF_RX_WINDOW(ch), RX_STAGE, MLX_HEADER_BYTES);
      const uint32_t w0 = *(volatile uint32_t *)RX_STAGE, w1 = *(volatile uint32_t *)(RX_STAGE + 4);
      const uint32_t src = MLX_HDR_SRC(w0), len = MLX_HDR_LEN(w1);
      if (MLX_HDR_DST(w0) != me || src >= nodes || len < 4 || len > max_len) {
        printf("bad header %08x %08x on channel %u\n", (unsigned)w0, (unsigned)w1, ch);
        return 4; /* the stream cannot be followed any more */
      }
      while (mmio_read32(NI_NETBUF_BASE + NETBUF_RX_AVAIL(ch)) < len)
        ;
      fw_dma_copy(NI_NETBUF_RX_WINDOW(ch), RX_STAGE + 8, len);
      const volatile uint8_t *p = (const volatile uint8_t *)(RX_STAGE + 8);
      const uint32_t r = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
      if (r != next_round[src] || len != length_of(src, me, r, max_len, seed)) {
        printf("from node %u: round %u (expected %u), %u bytes\n", (unsigned)src, (unsigned)r,
               (unsigned)next_round[src], (unsigned)len);
        errors++;
      }
      next_round[src] = r + 1;
      for (uint32_t i = 4; i < len; i++)
        if (p[i] != byte_of(src, me, r, i)) {
          printf("from node %u round %u: byte %u is 0x%02x, expected 0x%02x\n", (unsigned)src, (unsigned)r, (unsigned)i,
                 p[i], byte_of(src, me, r, i));
          errors++;
          break;
        }
      received++;
      bytes += len;
    }
    /* Send the next message if its channel has room for all of it. */
    if (round < rounds) {
      const uint32_t dst = (me + k) % nodes, ch = dst % NI_NETBUF_CHANNELS;
      const uint32_t len = length_of(me, dst, round, max_len, seed);
      if (mmio_read32(NI_NETBUF_BASE + NETBUF_TX_FREE(ch)) >= len + MLX_HEADER_BYTES) {
        volatile uint32_t *h = (volatile uint32_t *)TX_STAGE;
        h[0] = MLX_HDR_WORD0(dst, me);
        h[1] = MLX_HDR_WORD1(MLX_TYPE_UNICAST, len);
        volatile uint8_t *p = (volatile uint8_t *)(TX_STAGE + 8);
        p[0] = (uint8_t)(round >> 24);
        p[1] = (uint8_t)(round >> 16);
        p[2] = (uint8_t)(round >> 8);
        p[3] = (uint8_t)round;
        for (uint32_t i = 4; i < len; i++) p[i] = byte_of(me, dst, round, i);
        fw_dma_copy(TX_STAGE, NI_NETBUF_TX_WINDOW(ch), len + MLX_HEADER_BYTES);
        sent++;
        if (++k == nodes) {
          k = 1;
          round++;
        }
      }
    }
  }
  const uint64_t us = tb_to_us(tb_read() - t0);
  printf("node %u: sent %u, received %u messages (%u bytes) in %u us, %u errors\n", (unsigned)me, (unsigned)sent,
         (unsigned)received, (unsigned)bytes, (unsigned)us, (unsigned)errors);
  fw_result(0, received);
  fw_result(1, errors);
  fw_result(2, bytes);
  return errors ? 1 : 0;
}
