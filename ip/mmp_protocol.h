/* MMP: the contract between the MMP host library (sw/host/mmp) and the MMP
 * protocol engine in the NI firmware (sw/firmware/mmp). Plain C, shared by
 * the host (little-endian, native) and the PowerPC (big-endian): every word
 * below lives in memory that both sides touch and is stored big-endian (the
 * host converts with m2drv_to_be32 / m2drv_from_be32). docs/mmp.md explains
 * the protocol; this header fixes its numbers.
 *
 * Four shared places:
 *  1. The communication buffer, in pinned host memory (as the published
 *     description has it: shared/spec/maestro2.md, Host side): the request
 *     ring where the host posts sends, receives and releases, which the NI
 *     fetches by DMA; one 32-byte completion record per handle, which the NI
 *     writes and the host polls; and the count of ring slots the host may
 *     reuse.
 *  2. NI SDRAM (host writes through BAR0): a control block (the firmware's
 *     identity and the host's init block) and the address translation table
 *     that the host's pin-down fills (the page addresses of pinned memory).
 *  3. The PCI interface's mailbox 0 (BAR1): how many requests the host has
 *     posted; the doorbell after it wakes a dozing firmware.
 *  4. The wire: each MMP chunk is one MLX message (ip/mlx.h) whose payload
 *     starts with a 24-byte MMP header; MLX header + MMP header = 32 bytes =
 *     one link packet. */
#ifndef M2_IP_MMP_PROTOCOL_H
#define M2_IP_MMP_PROTOCOL_H

#include "mmp_fit.h"

/* ---- NI SDRAM (NI addresses; the host adds PCI_NI_BAR0 - NI_SDRAM_BASE) --- */
#define MMP_NI_CTRL_BASE 0x00100000u /* control block, 256 bytes            */
#define MMP_CTRL_MAGIC 0x00u         /* NI: MMP_FW_MAGIC once the firmware runs        */
#define MMP_CTRL_VERSION 0x04u       /* NI: MMP_PROTOCOL_VERSION                        */
#define MMP_CTRL_STATE 0x08u         /* NI: MMP_STATE_*                                 */
#define MMP_CTRL_NODE 0x0Cu          /* NI: this node's network address (MLC-X)          */
#define MMP_CTRL_COMM_BUS 0x20u      /* host: bus address of the communication buffer   */
#define MMP_CTRL_MSGBUF_BUS 0x24u    /* host: bus address of the message buffer      */
#define MMP_CTRL_MSGBUF_BYTES 0x28u  /* host: its size (a multiple of MMP_MSGBUF_BLOCK) */
#define MMP_CTRL_RECORDS 0x2Cu       /* host: completion records in the communication buffer */

#define MMP_FW_MAGIC 0x4D4D5046u /* "MMPF" */
#define MMP_PROTOCOL_VERSION 3u  /* 3: requests in host memory, translated addresses */
#define MMP_STATE_BOOT 0u        /* firmware not started (SDRAM is zero)              */
#define MMP_STATE_WAIT_INIT 1u   /* waiting for the host's MMP_DOORBELL_INIT         */
#define MMP_STATE_RUNNING 2u
#define MMP_STATE_FINISHED 3u /* MMP_OP_FINALIZE done; the firmware has exited    */

/* Doorbell bits (ip/ni_pci.h NIPCI_DOORBELL). The host rings REQ after every
 * request it posts, so a dozing firmware wakes; a busy one reads the mailbox
 * every turn of its loop. */
#define MMP_DOORBELL_INIT 0x1u /* the control block holds the host's parameters */
#define MMP_DOORBELL_REQ 0x2u  /* the request ring has something new             */
/* The PCI interface's mailbox (NIPCI_MAILBOX) that holds the number of
 * requests the host has posted since MMP_DOORBELL_INIT (the host writes it
 * before the doorbell; the firmware fetches the descriptors up to it). */
#define MMP_MAILBOX_POSTED 0u

/* ---- the communication buffer (pinned host memory, MMP_COMM_BYTES) ------
 * Request ring: request n (counted from 0 since MMP_DOORBELL_INIT) is the
 * 32-byte descriptor in slot n % MMP_REQ_SLOTS of the ring at MMP_COMM_RING;
 * the slots are contiguous, so the NI fetches several waiting requests with
 * one DMA. An inline send's payload is in its slot's MMP_INLINE_SLOT_BYTES at
 * MMP_COMM_INLINE, and its ADDR is that payload's offset in the buffer. The
 * host may reuse slot n once the count at MMP_COMM_REQ_FREE is above n (the
 * NI writes it as it retires slots, every MMP_REQ_FREE_STEP of them, which is
 * enough: a host that finds the ring full has more than 3/4 of it waiting in
 * the NI). */
#define MMP_COMM_READY 0x00u    /* NI: MMP_FW_MAGIC when it accepted MMP_DOORBELL_INIT */
#define MMP_COMM_NODE 0x04u     /* NI: its network address                          */
#define MMP_COMM_REQ_FREE 0x08u /* NI: requests whose ring slot may be reused (count) */
#define MMP_COMM_RECORDS 0x100u /* first completion record                        */
#define MMP_RECORD_BYTES 32u    /* one host cache line: one DMA transaction      */
#define MMP_MAX_RECORDS 1024u
#define MMP_REQ_SLOTS 128u
#define MMP_REQ_DESC_BYTES 32u
#define MMP_REQ_FREE_STEP (MMP_REQ_SLOTS / 4u)
#define MMP_COMM_RING (MMP_COMM_RECORDS + MMP_MAX_RECORDS * MMP_RECORD_BYTES)
#define MMP_COMM_INLINE (MMP_COMM_RING + MMP_REQ_SLOTS * MMP_REQ_DESC_BYTES)
#define MMP_INLINE_SLOT_BYTES 256u
#define MMP_INLINE_MAX 192u /* an inline send's payload at most                */
#define MMP_COMM_BYTES (MMP_COMM_INLINE + MMP_REQ_SLOTS * MMP_INLINE_SLOT_BYTES)
#define MMP_REQ_DESC(n) (MMP_COMM_RING + ((unsigned)(n) % MMP_REQ_SLOTS) * MMP_REQ_DESC_BYTES)
#define MMP_REQ_INLINE(n) (MMP_COMM_INLINE + ((unsigned)(n) % MMP_REQ_SLOTS) * MMP_INLINE_SLOT_BYTES)

/* ---- address translation (NI SDRAM, written by the host at pin-down) ----
 * The host's driver hands the NI the page addresses of what it pins (the
 * published pin-down cost includes "the transmission of addresses to the
 * NIC"): MMP_XLATE_ENTRIES words at MMP_NI_XLATE_BASE, entry i the bus
 * address of NI page i, with MMP_XLATE_VALID set while it is pinned. A
 * request names user data by its NI address (page i * MMP_XLATE_PAGE +
 * offset); the firmware looks each page up before its DMA. The message
 * buffer and the communication buffer are given by bus address at init. */
#define MMP_NI_XLATE_BASE 0x00400000u
#define MMP_XLATE_PAGE 4096u
#define MMP_XLATE_ENTRIES 65536u /* 256 MB of pinned memory                   */
#define MMP_XLATE_VALID 0x1u

/* Descriptor words (byte offsets). */
#define MMP_REQ_SEQ 0x00u    /* n + 1: the slot holds request n when this matches  */
#define MMP_REQ_OP 0x04u     /* op (31..24), flags (23..16), peer node (15..0)      */
#define MMP_REQ_COOKIE 0x08u /* generation (31..16), record index (15..0)           */
#define MMP_REQ_PORTS 0x0Cu  /* local port (31..16), peer port (15..0)              */
#define MMP_REQ_TAG 0x10u
#define MMP_REQ_LEN 0x14u /* send: bytes; receive: buffer size; release: bytes  */
#define MMP_REQ_ADDR                                                           \
  0x18u                   /* NI address of the data (inline: its offset in the \
                             communication buffer; release: msgbuf offset)   */
#define MMP_REQ_MSG 0x1Cu /* send: the message's number (the wire header's SEQ)   */

#define MMP_REQ_OP_WORD(op, flags, peer) \
  ((((unsigned)(op)&0xFFu) << 24) | (((unsigned)(flags)&0xFFu) << 16) | ((unsigned)(peer)&0xFFFFu))
#define MMP_REQ_GET_OP(w) (((w) >> 24) & 0xFFu)
#define MMP_REQ_GET_FLAGS(w) (((w) >> 16) & 0xFFu)
#define MMP_REQ_GET_PEER(w) ((w)&0xFFFFu)

#define MMP_OP_SEND 1u /* send LEN bytes at ADDR (or inline) to peer node/port  */
#define MMP_OP_RECV 2u /* post a receive of up to LEN bytes into ADDR            */
#define MMP_OP_RELEASE                                                             \
  3u                       /* the host copied a message out of the message buffer: \
                              free LEN bytes at offset ADDR                          */
#define MMP_OP_FINALIZE 4u /* finish what is queued, then exit                       */

#define MMP_REQF_INLINE 0x01u    /* send: the payload is in the request's inline slot */
#define MMP_REQF_BROADCAST 0x02u /* send: MLX broadcast to every other node (one chunk) */
#define MMP_REQF_NO_RECORD 0x04u /* send: no completion record (inline sends)       */

#define MMP_COOKIE(gen, index) ((((unsigned)(gen)&0xFFFFu) << 16) | ((unsigned)(index)&0xFFFFu))
#define MMP_COOKIE_GEN(c) (((c) >> 16) & 0xFFFFu)
#define MMP_COOKIE_INDEX(c) ((c)&0xFFFFu)

/* Completion record words (byte offsets). The NI writes the whole record in
 * one transaction, the status word last in address order. */
#define MMP_REC_LEN 0x00u    /* the message's length (send: bytes sent)            */
#define MMP_REC_OFFSET 0x04u /* MMP_ST_DONE_MSGBUF: where it is in the message buffer */
#define MMP_REC_SRC 0x08u    /* receive: sender node                                */
#define MMP_REC_PORTS 0x0Cu  /* receive: sender port (31..16), receiver port (15..0) */
#define MMP_REC_TAG 0x10u
#define MMP_REC_TIME 0x14u   /* NI timebase (low word) when the record was written  */
#define MMP_REC_MSG 0x18u    /* the message's number (SEQ; with SRC it names it)     */
#define MMP_REC_STATUS 0x1Cu /* generation (31..16), MMP_ST_* (7..0)                */

#define MMP_ST_PENDING 0u
#define MMP_ST_DONE 1u /* the data is in the buffer the request named         */
#define MMP_ST_DONE_MSGBUF                                   \
  2u /* the data is in the message buffer at OFFSET: copy it \
        out, then MMP_OP_RELEASE it                         */
#define MMP_ST_TRUNCATED                                                       \
  3u                    /* the message (LEN bytes) was longer than the buffer: \
                           nothing delivered, the message is dropped           */
#define MMP_ST_ERROR 4u /* the NI could not carry out the request             */
#define MMP_STATUS_WORD(gen, code) ((((unsigned)(gen)&0xFFFFu) << 16) | ((unsigned)(code)&0xFFu))

/* ---- message buffer (pinned host memory; the NI allocates in it) --------- */
#define MMP_MSGBUF_BLOCK 256u /* allocation unit (whole host lines)             */

/* ---- wire format --------------------------------------------------------
 * An MMP message of LEN bytes travels as ceil(LEN / chunk payload) chunks (one
 * chunk when LEN is 0). Chunk k is the MLX message
 *   MLX header (8 bytes): destination node, source node, type, 24 + n
 *   MMP header (24 bytes, below)
 *   n payload bytes: the message's bytes [k * P, k * P + n)
 * where P = chunk size (default the 2 KB netbuf channel) - 32, a multiple of
 * 32 so that every chunk starts on a host cache line of an aligned buffer.
 * Chunk k goes into netbuf channel k % channels: a message's first chunk is
 * always on channel 0, so first chunks (which decide matching) keep the send
 * order between two nodes; later chunks on channel 1 may overtake and wait at
 * the receiver until their first chunk has been seen.
 * SEQ is the message's number, given by the sender's library (one count per
 * sending node, every destination and broadcasts included): (source node,
 * SEQ) names a message end to end, for chunk matching and for the message
 * traces (ip/msg_trace.h). */
#define MMP_HDR_PORTS 0x00u /* sender port (31..16), receiver port (15..0)        */
#define MMP_HDR_TAG 0x04u
#define MMP_HDR_TOTAL 0x08u  /* the message's length                               */
#define MMP_HDR_OFFSET 0x0Cu /* this chunk's first byte within the message         */
#define MMP_HDR_SEQ 0x10u    /* the message's number (MMP_REQ_MSG)                  */
#define MMP_HDR_KIND 0x14u   /* MMP_WIRE_MAGIC (31..16), kind (15..8), flags (7..0) */
#define MMP_HDR_BYTES 24u
#define MMP_WIRE_HEADER_BYTES 32u /* MLX + MMP header: one packet                  */

#define MMP_WIRE_MAGIC 0x4D4Du /* "MM" */
#define MMP_KIND_DATA 1u
#define MMP_HFLAG_LAST 0x01u      /* the message's last chunk                      */
#define MMP_HFLAG_BROADCAST 0x02u /* sent as MLX broadcast                           */
#define MMP_KIND_WORD(kind, flags) \
  ((MMP_WIRE_MAGIC << 16) | (((unsigned)(kind)&0xFFu) << 8) | ((unsigned)(flags)&0xFFu))

#define MMP_CHUNK_BYTES_DEFAULT 2048u /* the netbuf channel size                  */
#define MMP_SYNC_PORT 0xFFFFu         /* the library's barrier port; user ports are below */
#define MMP_MAX_NODES 256u

/* ---- firmware arguments (<node>.ni.simctrl.args, in this order) ---------- */
#define MMP_ARG_BYPASS                                                            \
  0                        /* payloads up to this many bytes are moved by the CPU \
                              instead of DMA (default MMP_BYPASS_DEFAULT)         */
#define MMP_ARG_CHANNELS 1 /* netbuf channels per direction used: 1 or 2 (default 2) */
#define MMP_ARG_CHUNK                                                             \
  2                       /* chunk size in wire bytes, a multiple of 32 up to the \
                             channel size (default the channel size)            */
#define MMP_ARG_VERBOSE 3 /* 1: print every chunk header and posted receive   */
#define MMP_ARG_TRACE_MARKS                           \
  4 /* 1: store trace marks for the message breakdown \
       (ip/msg_trace.h; one store each, default 0)  */
#define MMP_ARG_REQUEST_INSNS                       \
  5 /* instructions of request handling per request \
       beyond the model's own (default: the fitted  \
       MMP_REQUEST_INSNS_DEFAULT, ip/mmp_fit.h) */
#define MMP_ARG_CHUNK_INSNS                          \
  6 /* instructions of chunk handling per chunk sent \
       or received beyond the model's own (default:  \
       MMP_CHUNK_INSNS_DEFAULT, ip/mmp_fit.h) */
#define MMP_BYPASS_DEFAULT 0u

#endif
