/* Broadcast and multicast over the network, NI firmware only: node 0 sends
 * `count` broadcast messages and then `count` messages to multicast group 1;
 * every other node receives the broadcasts, and the members of group 1 (the
 * odd nodes, as configs set it up) the multicast ones, checking every byte
 * and the order. Arguments (<ni>.simctrl.args): nodes, count, payload bytes.
 * Results: 0 messages received, 1 errors. */
#include <mlx.h>
#include <ni_dma.h>
#include <ni_memory_map.h>
#include <ni_mlcx.h>
#include <ni_netbuf.h>

#include "dma.h"
#include "fw.h"
#include "mmio.h"

#define STAGE 0x01000000u

static uint8_t byte_of(uint32_t type, uint32_t n, uint32_t i) { return (uint8_t)(type * 77u + n * 5u + i); }

int main(void) {
  const uint32_t nodes = fw_arg(0, 2), count = fw_arg(1, 4), len = fw_arg(2, 500);
  const uint32_t me = mmio_read32(NI_MLCX_BASE + MLCX_NODE_ADDR);
  if (len < 4 || len + MLX_HEADER_BYTES > 2048) return 3;
  if (me == 0) {
    for (uint32_t type = MLX_TYPE_BROADCAST; type <= MLX_TYPE_MULTICAST; type++)
      for (uint32_t n = 0; n < count; n++) {
        while (mmio_read32(NI_NETBUF_BASE + NETBUF_TX_FREE(0)) < len + MLX_HEADER_BYTES)
          ;
        volatile uint32_t *h = (volatile uint32_t *)STAGE;
        h[0] = MLX_HDR_WORD0(type == MLX_TYPE_BROADCAST ? MLX_BROADCAST_ADDR : 1u, me);
        h[1] = MLX_HDR_WORD1(type, len);
        volatile uint8_t *p = (volatile uint8_t *)(STAGE + 8);
        for (uint32_t i = 0; i < len; i++) p[i] = byte_of(type, n, i);
        fw_dma_copy(STAGE, NI_NETBUF_TX_WINDOW(0), len + MLX_HEADER_BYTES);
      }
    printf("node 0: sent %u broadcast and %u multicast messages\n", (unsigned)count, (unsigned)count);
    return 0;
  }
  const uint32_t expected = count * (me % 2 ? 2u : 1u); /* odd nodes are in group 1 */
  uint32_t received = 0, errors = 0, next[3] = {0, 0, 0};
  (void)nodes;
  while (received < expected) {
    if (mmio_read32(NI_NETBUF_BASE + NETBUF_RX_AVAIL(0)) < len + MLX_HEADER_BYTES) continue;
    fw_dma_copy(NI_NETBUF_RX_WINDOW(0), STAGE, len + MLX_HEADER_BYTES);
    const uint32_t w0 = *(volatile uint32_t *)STAGE, w1 = *(volatile uint32_t *)(STAGE + 4);
    const uint32_t type = MLX_HDR_TYPE(w1);
    if (MLX_HDR_SRC(w0) != 0 || MLX_HDR_LEN(w1) != len || (type != MLX_TYPE_BROADCAST && type != MLX_TYPE_MULTICAST)) {
      printf("bad header %08x %08x\n", (unsigned)w0, (unsigned)w1);
      return 4;
    }
    const volatile uint8_t *p = (const volatile uint8_t *)(STAGE + 8);
    const uint32_t n = next[type]++;
    for (uint32_t i = 0; i < len; i++)
      if (p[i] != byte_of(type, n, i)) {
        printf("%s message %u: byte %u differs\n", type == MLX_TYPE_BROADCAST ? "broadcast" : "multicast", (unsigned)n,
               (unsigned)i);
        errors++;
        break;
      }
    received++;
  }
  /* Nothing more may come: a multicast must not reach non-members. */
  dec_sleep_us(100);
  for (unsigned ch = 0; ch < NI_NETBUF_CHANNELS; ch++)
    if (mmio_read32(NI_NETBUF_BASE + NETBUF_RX_AVAIL(ch)) != 0) {
      printf("unexpected data on channel %u after the last expected message\n", ch);
      errors++;
    }
  printf("node %u: received %u broadcast and %u multicast messages, %u errors\n", (unsigned)me, (unsigned)next[1],
         (unsigned)next[2], (unsigned)errors);
  fw_result(0, received);
  fw_result(1, errors);
  return errors ? 1 : 0;
}
