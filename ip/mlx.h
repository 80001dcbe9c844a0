/* MLX network messages: the contract between NI firmware, the link
 * controllers (MLC-X in the NI, the MLX modules of the switch-box ports), the
 * switch box's message analyzers and its routing firmware.
 *
 * A message is an 8-byte header followed by `length` payload bytes. In a
 * network-buffer channel messages follow each other without gaps; on a link
 * they travel as 32-byte packets, a message starting on a packet boundary
 * (its last packet is padded on the wire; the padding is not delivered).
 * The header is big-endian, as the PowerPC writes it:
 *   word 0: bits 31..16 destination, bits 15..0 source (network addresses)
 *   word 1: bits 31..24 type (MLX_TYPE_*), bits 23..0 payload length */
#ifndef M2_IP_MLX_H
#define M2_IP_MLX_H

#define MLX_PACKET_BYTES 32u
#define MLX_HEADER_BYTES 8u
#define MLX_MAX_LENGTH 0x00FFFFFFu /* payload bytes of one message */

#define MLX_TYPE_UNICAST 0u   /* to the node `destination`                         */
#define MLX_TYPE_BROADCAST 1u /* to every node except the source (destination ignored) */
#define MLX_TYPE_MULTICAST                                  \
  2u /* to the nodes of group `destination` (groups are set \
        up in the switch boxes' routing tables)            */

#define MLX_BROADCAST_ADDR 0xFFFFu

#define MLX_HDR_WORD0(dst, src) ((((unsigned)(dst)&0xFFFFu) << 16) | ((unsigned)(src)&0xFFFFu))
#define MLX_HDR_WORD1(type, len) ((((unsigned)(type)&0xFFu) << 24) | ((unsigned)(len)&0xFFFFFFu))
#define MLX_HDR_DST(w0) (((w0) >> 16) & 0xFFFFu)
#define MLX_HDR_SRC(w0) ((w0)&0xFFFFu)
#define MLX_HDR_TYPE(w1) (((w1) >> 24) & 0xFFu)
#define MLX_HDR_LEN(w1) ((w1)&0xFFFFFFu)

/* Packets a message of `len` payload bytes occupies on a link. */
#define MLX_PACKETS(len) (((len) + MLX_HEADER_BYTES + MLX_PACKET_BYTES - 1u) / MLX_PACKET_BYTES)

#endif
