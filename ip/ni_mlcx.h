/* Link controller MLC-X (NI FPGA): the MLX protocol engine between the
 * network buffer's channels and the LVDS link (docs/models/mlx-engine.md).
 * It sends from the TX channels and delivers into the RX channels on its
 * own; firmware reads its state and counters and may take an interrupt on
 * link errors.
 *
 * Registers at NI_MLCX_BASE: 32-bit, big-endian. Counters count since reset,
 * modulo 2^32; "wire bytes" include headers, continue commands, checksums
 * and padding. */
#ifndef M2_IP_NI_MLCX_H
#define M2_IP_NI_MLCX_H

#define MLCX_STATUS 0x000u                      /* R: MLCX_STATUS_* bits                                      */
#define MLCX_CONFIG 0x004u                      /* R: MLCX_CONFIG_* fields                                     */
#define MLCX_EVENTS 0x008u                      /* R: latched MLCX_EV_* bits; W: 1 bits clear                  */
#define MLCX_IRQ_ENABLE 0x00Cu                  /* RW: MLCX_EV_* bits that drive the interrupt (0 at reset)    */
#define MLCX_TX_CREDIT(ch) (0x010u + 4u * (ch)) /* R: packets the peer still accepts on ch     */
#define MLCX_RX_CREDIT(ch)                                         \
  (0x018u + 4u * (ch)) /* R: packets granted to the peer on ch and \
                          not received yet                          */

#define MLCX_DATA_FRAMES_SENT 0x040u /* R: data frames sent, repeats included                 */
#define MLCX_INFO_FRAMES_SENT 0x044u /* R: info frames sent                                    */
#define MLCX_PACKETS_SENT 0x048u     /* R: packets in data frames sent, repeats included       */
#define MLCX_BYTES_SENT 0x04Cu       /* R: wire bytes of all frames sent                       */
#define MLCX_DATA_FRAMES_RCVD 0x050u /* R: data frames accepted (good and new)                 */
#define MLCX_INFO_FRAMES_RCVD 0x054u /* R: good info frames received                           */
#define MLCX_PACKETS_RCVD 0x058u     /* R: packets of the data frames accepted                 */
#define MLCX_BYTES_RCVD 0x05Cu       /* R: wire bytes of all frames received, bad ones included */
#define MLCX_RETRANSMISSIONS 0x060u  /* R: data frames sent again after an ack timeout         */
#define MLCX_CONTINUES 0x064u        /* R: continue commands sent                              */
#define MLCX_BAD_FRAMES 0x068u       /* R: frames received with a wrong checksum (discarded)   */
#define MLCX_DUPLICATES 0x06Cu       /* R: good data frames received again (acked, dropped)    */
#define MLCX_NODE_ADDR                                         \
  0x070u /* R: this end's network address (the node number the \
            cluster's topology gave it; 0xFFFF when unassigned)  */

/* STATUS. */
#define MLCX_STATUS_LINK_UP 0x1u                  /* a good frame came from the peer          */
#define MLCX_STATUS_WAIT_ACK(ch) (0x100u << (ch)) /* a data frame on ch waits for its ack     */
#define MLCX_STATUS_REPEAT(ch) (0x10000u << (ch)) /* its ack timed out: it will be sent again */

/* CONFIG. */
#define MLCX_CONFIG_CONTINUOUS 0x1u                          /* continuous network burst */
#define MLCX_CONFIG_BURST_PACKETS(v) (((v) >> 8) & 0xFFu)    /* packets per burst        */
#define MLCX_CONFIG_FRAME_PACKETS(v) (((v) >> 16) & 0xFFFFu) /* packets per frame        */

/* EVENTS and IRQ_ENABLE. */
#define MLCX_EV_BAD_FRAME 0x1u /* a frame arrived with a wrong checksum              */
#define MLCX_EV_REPEAT 0x2u    /* a data frame was sent again                        */
#define MLCX_EV_DUPLICATE 0x4u /* a repeated data frame arrived (its ack was lost)   */

#endif
