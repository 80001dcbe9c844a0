/* Ethernet emulation (eth): the contract between the host's network driver
 * model (models/host/tcpip/eth_driver.*) and the NI firmware that emulates an
 * Ethernet device (sw/firmware/eth). Plain C, shared by the host
 * (little-endian) and the PowerPC (big-endian): every word both sides touch
 * in memory is stored big-endian. docs/models/eth-firmware.md explains the
 * protocol; this header fixes its numbers.
 *
 * Shared places:
 *  1. The ring area, in pinned host memory: a status block the NI writes
 *     (ready, node, transmit frames done), the transmit ring (descriptors the
 *     host writes, the NI fetches by DMA), the receive ring (descriptors the
 *     NI writes by DMA after the frame's data), then the transmit buffers and
 *     the receive buffers, one of ETH_BUF_BYTES per slot.
 *  2. NI SDRAM (the host writes through BAR0): a control block with the
 *     firmware's identity and the host's ring geometry.
 *  3. The PCI interface's mailboxes (BAR1): how many frames the host has
 *     posted for transmit, and how many receive slots it has given to the NI;
 *     the doorbell after each wakes a dozing firmware. HOST_IRQ: the NI's
 *     interrupt to the host (ETH_IRQ_*).
 *  4. The wire: a frame of LEN bytes (an IP packet, 1..ETH_MTU) travels as
 *     ceil(LEN / chunk payload) MLX messages on netbuf channel 0, each an MLX
 *     header + a 24-byte eth header (one 32-byte link packet) + payload. */
#ifndef M2_IP_ETH_PROTOCOL_H
#define M2_IP_ETH_PROTOCOL_H

#define ETH_MTU 65000u       /* the Linux driver's MTU on Maestro2 (spec, Software) */
#define ETH_BUF_BYTES 65024u /* one frame buffer: ETH_MTU rounded up to 64 bytes    */
#define ETH_MAX_SLOTS 1024u  /* ring slots at most, each ring                       */
#define ETH_MAX_NODES 256u

/* ---- NI SDRAM control block (NI addresses; host adds PCI_NI_BAR0) ------- */
#define ETH_NI_CTRL_BASE 0x00100000u
#define ETH_CTRL_MAGIC 0x00u    /* NI: ETH_FW_MAGIC once the firmware runs           */
#define ETH_CTRL_VERSION 0x04u  /* NI: ETH_PROTOCOL_VERSION                          */
#define ETH_CTRL_STATE 0x08u    /* NI: ETH_STATE_*                                   */
#define ETH_CTRL_NODE 0x0Cu     /* NI: this node's network address                   */
#define ETH_CTRL_RING_BUS 0x20u /* host: bus address of the ring area                */
#define ETH_CTRL_TX_SLOTS 0x24u /* host: transmit ring slots (1..ETH_MAX_SLOTS)      */
#define ETH_CTRL_RX_SLOTS 0x28u /* host: receive ring slots (1..ETH_MAX_SLOTS)       */

#define ETH_FW_MAGIC 0x45544846u /* "ETHF" */
#define ETH_PROTOCOL_VERSION 1u
#define ETH_STATE_BOOT 0u
#define ETH_STATE_WAIT_INIT 1u
#define ETH_STATE_RUNNING 2u
#define ETH_STATE_FINISHED 3u /* ETH_DOORBELL_DOWN done; the firmware has exited */

/* Doorbell bits (ip/ni_pci.h NIPCI_DOORBELL). */
#define ETH_DOORBELL_INIT 0x1u /* the control block holds the ring geometry        */
#define ETH_DOORBELL_TX 0x2u   /* ETH_MAILBOX_TX_POSTED grew                        */
#define ETH_DOORBELL_RX 0x4u   /* ETH_MAILBOX_RX_GIVEN grew                         */
#define ETH_DOORBELL_DOWN 0x8u /* interface down: send what is posted, then exit    */
/* Mailboxes (NIPCI_MAILBOX(i)), counts since ETH_DOORBELL_INIT, mod 2^32. */
#define ETH_MAILBOX_TX_POSTED 0u /* frames the host has put in the transmit ring     */
#define ETH_MAILBOX_RX_GIVEN                                  \
  1u /* receive frames the NI may deliver: rx_slots at start, \
        + 1 for each slot the host has emptied          */
/* HOST_IRQ bits (NIPCI_HOST_IRQ): the host clears what it handled. */
#define ETH_IRQ_RX 0x1u    /* a receive descriptor is done                        */
#define ETH_IRQ_READY 0x2u /* the firmware accepted ETH_DOORBELL_INIT             */

/* ---- the ring area (pinned host memory) ----------------------------------
 * Transmit frame n (counted from 0) is in slot n % tx_slots: the host writes
 * its buffer, then its descriptor, then the mailbox; it may reuse the slot
 * once ETH_STAT_TX_DONE is above n. Received frame n goes to slot
 * n % rx_slots: the NI writes its buffer, then its descriptor (STATUS last),
 * then sets ETH_IRQ_RX. */
#define ETH_STAT_READY 0x00u   /* NI: ETH_FW_MAGIC when it accepted the ring      */
#define ETH_STAT_NODE 0x04u    /* NI: its network address                           */
#define ETH_STAT_TX_DONE 0x08u /* NI: frames sent whose slot may be reused (count) */
#define ETH_STAT_BYTES 0x40u
#define ETH_DESC_BYTES 16u

#define ETH_TXD_SEQ 0x00u /* n + 1: the slot holds frame n                             */
#define ETH_TXD_DST 0x04u /* destination node                                          */
#define ETH_TXD_LEN 0x08u /* bytes, 1..ETH_MTU                                          */
#define ETH_TXD_BUF 0x0Cu /* bus address of the frame                                  */

#define ETH_RXD_LEN 0x00u    /* the frame's bytes                                      */
#define ETH_RXD_SRC 0x04u    /* sender node                                            */
#define ETH_RXD_SEQ 0x08u    /* the sender's frame number (the wire's SEQ)             */
#define ETH_RXD_STATUS 0x0Cu /* n + 1 when received frame n is in the slot             */

#define ETH_TX_RING(tx_slots) ETH_STAT_BYTES
#define ETH_RX_RING(tx_slots) (ETH_STAT_BYTES + (tx_slots)*ETH_DESC_BYTES)
/* Buffers start on a 4 KB boundary after both rings. */
#define ETH_TX_BUFS(tx_slots, rx_slots) ((ETH_STAT_BYTES + ((tx_slots) + (rx_slots)) * ETH_DESC_BYTES + 4095u) & ~4095u)
#define ETH_RX_BUFS(tx_slots, rx_slots) (ETH_TX_BUFS(tx_slots, rx_slots) + (tx_slots)*ETH_BUF_BYTES)
#define ETH_RING_BYTES(tx_slots, rx_slots) (ETH_RX_BUFS(tx_slots, rx_slots) + (rx_slots)*ETH_BUF_BYTES)

/* ---- wire format ----------------------------------------------------------
 * Chunk k of a frame is the MLX message
 *   MLX header (8 bytes): destination node, source node, unicast, 24 + n
 *   eth header (24 bytes, below)
 *   n payload bytes: the frame's bytes [k * P, k * P + n)
 * where P = chunk size (default the 2 KB netbuf channel) - 32. Every chunk
 * of every frame goes on channel 0, so a frame's chunks and a sender's frames
 * arrive in order; frames of different senders interleave by chunk. */
#define ETH_HDR_KIND 0x00u   /* ETH_WIRE_MAGIC (31..16), flags (7..0)              */
#define ETH_HDR_TOTAL 0x04u  /* the frame's length                                 */
#define ETH_HDR_OFFSET 0x08u /* this chunk's first byte within the frame           */
#define ETH_HDR_SEQ 0x0Cu    /* the sender's frame number                          */
#define ETH_HDR_BYTES 24u
#define ETH_WIRE_HEADER_BYTES 32u /* MLX + eth header: one packet                 */
#define ETH_WIRE_MAGIC 0x4554u    /* "ET" */
#define ETH_HFLAG_LAST 0x01u
#define ETH_KIND_WORD(flags) ((ETH_WIRE_MAGIC << 16) | ((unsigned)(flags)&0xFFu))

/* ---- firmware arguments (<node>.ni.simctrl.args, in this order) ---------- */
#define ETH_ARG_CHUNK                                                             \
  0                       /* chunk size in wire bytes, a multiple of 32 up to the \
                             channel size (default the channel size)            */
#define ETH_ARG_VERBOSE 1 /* 1: print every frame sent and received             */
#define ETH_ARG_FRAME_INSNS                                                                                    \
  2                                  /* instructions of frame handling per frame sent or received (descriptor, \
                                        state; default ETH_FRAME_INSNS_DEFAULT)                                 */
#define ETH_FRAME_INSNS_DEFAULT 200u /* assumption: about as much as the C above does */

#endif
