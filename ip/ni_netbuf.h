/* Network buffer (NI FPGA): FIFO memory between the host/DMA side and the
 * link controller, organised as NI_NETBUF_CHANNELS TX channels (towards the
 * link) and as many RX channels (from the link), 2 KB each by default.
 *
 * Data: the windows NI_NETBUF_TX_WINDOW(ch) / NI_NETBUF_RX_WINDOW(ch)
 * (ip/ni_memory_map.h). A write anywhere in a TX window pushes its bytes into
 * the channel, a read anywhere in an RX window pops them, in address order;
 * an access larger than the free space (TX) or the data available (RX), or in
 * the wrong direction, is refused with a bus error.
 *
 * Registers at NI_NETBUF_BASE: 32-bit, big-endian. Byte counts are in bytes. */
#ifndef M2_IP_NI_NETBUF_H
#define M2_IP_NI_NETBUF_H

#include "ni_memory_map.h"

/* The data target spans every window: the platform attaches it once. */
#define NI_NETBUF_DATA_BASE NI_NETBUF_TX_WINDOW(0)
#define NI_NETBUF_DATA_SIZE (NI_NETBUF_RX_WINDOW(NI_NETBUF_CHANNELS - 1) + NI_NETBUF_WINDOW_SIZE - NI_NETBUF_DATA_BASE)

#define NETBUF_CHANNEL_BYTES 0x000u /* R: capacity of each channel                       */
#define NETBUF_FLUSH                                      \
  0x004u /* W: 1 bits empty those channels (data dropped, \
            counters kept); bits as NETBUF_CH_TX/RX              */
#define NETBUF_IRQ_LEVELS                                      \
  0x008u /* R: current level of each interrupt output; bits as \
            NETBUF_CH_TX/RX                                      */

/* Bits naming a channel in FLUSH and IRQ_LEVELS. */
#define NETBUF_CH_TX(ch) (1u << (ch))
#define NETBUF_CH_RX(ch) (1u << (8u + (ch)))

/* TX channel ch (host/DMA writes, link reads). Its interrupt output is high
 * while FREE >= THRESHOLD and THRESHOLD != 0. */
#define NETBUF_TX_FREE(ch) (0x100u + 0x20u * (ch))      /* R: bytes that can be written now   */
#define NETBUF_TX_USED(ch) (0x104u + 0x20u * (ch))      /* R: bytes waiting for the link      */
#define NETBUF_TX_THRESHOLD(ch) (0x108u + 0x20u * (ch)) /* RW: interrupt level; 0 = off (reset) */
#define NETBUF_TX_BYTES_IN(ch) (0x10Cu + 0x20u * (ch))  /* R: bytes pushed since reset, mod 2^32 */
#define NETBUF_TX_BYTES_OUT(ch) (0x110u + 0x20u * (ch)) /* R: bytes popped since reset, mod 2^32 */

/* RX channel ch (link writes, host/DMA reads). Its interrupt output is high
 * while AVAIL >= THRESHOLD and THRESHOLD != 0. */
#define NETBUF_RX_AVAIL(ch) (0x200u + 0x20u * (ch))     /* R: bytes that can be read now      */
#define NETBUF_RX_FREE(ch) (0x204u + 0x20u * (ch))      /* R: room left for the link          */
#define NETBUF_RX_THRESHOLD(ch) (0x208u + 0x20u * (ch)) /* RW: interrupt level; 0 = off (reset) */
#define NETBUF_RX_BYTES_IN(ch) (0x20Cu + 0x20u * (ch))  /* R: bytes pushed since reset, mod 2^32 */
#define NETBUF_RX_BYTES_OUT(ch) (0x210u + 0x20u * (ch)) /* R: bytes popped since reset, mod 2^32 */

#endif
