/* Switch controller registers (switch box, at SB_SWITCH_BASE): the contract
 * between the SB model and the SB routing firmware.
 *
 * Header buffer: the message analyzers put the 8-byte header of every message
 * that starts in a port's RX channel here, with the port and channel it came
 * from. The firmware reads the oldest entry (SOURCE, WORD0, WORD1; reading has
 * no side effect) and removes it with a write to HDR_POP.
 *
 * Request buffer: the firmware stages a switching request in REQ_SOURCE,
 * REQ_DEST and REQ_BYTES and pushes it by writing the flags to REQ_PUSH. A
 * request moves the next message of the source channel (the one whose header
 * came first) to the same channel of every port in the destination mask, or
 * consumes it (REQ_FLAG_DISCARD, mask ignored). REQ_BYTES must be the message's
 * size on the channel, MLX_HEADER_BYTES + payload length.
 * A push the controller cannot take is refused with a bus error (the 603e
 * faults, the run reports it): buffer full (check REQ_FREE first), a source
 * port or channel out of range, a source channel with no analyzed message
 * left, or REQ_BYTES different from what the analyzer saw. A destination mask
 * with bits at or above the port count is also refused; an empty mask without
 * REQ_FLAG_DISCARD is refused.
 *
 * Deadlock avoidance in cascades (out-of-order mode; docs/models/switchbox.md):
 * UP_PORTS names the ports cabled towards the root of the up / down routing
 * tree (the firmware copies it from the routing tables); the fetch unit keeps
 * one reservation station for requests that go to none of them. SRC_QUEUED
 * shows which source channels have a request in the request buffer (stations
 * not counted); the firmware pushes a second one of a source channel only
 * while the buffer keeps a free entry for every source channel without one
 * there, so the request buffer (depth >= ports * channels) never fills with
 * requests that wait behind others. SRC_BUSY shows which source channels have
 * a request in the request buffer or a station; SRC_WATCH + SB_IRQ_SRC_IDLE
 * wake the firmware when one of the watched source channels has no request
 * left.
 *
 * Interrupt: one level output to the manager's external interrupt, high while
 * IRQ_STATUS & IRQ_ENABLE != 0. Silence it by clearing IRQ_ENABLE bits (the
 * conditions are levels: they stay true until the buffer changes).
 *
 * 32-bit registers, big-endian. */
#ifndef M2_IP_SB_REGS_H
#define M2_IP_SB_REGS_H

#define SB_CONFIG 0x000u    /* R: bits 7..0 ports, 15..8 stations, bit 16 out-of-order  */
#define SB_HDR_DEPTH 0x004u /* R: header buffer entries                                 */
#define SB_REQ_DEPTH 0x008u /* R: request buffer entries                                */

#define SB_HDR_COUNT 0x010u  /* R: headers waiting                                       */
#define SB_HDR_SOURCE 0x014u /* R: oldest header's source: SB_SOURCE layout; 0 if none   */
#define SB_HDR_WORD0 0x018u  /* R: oldest header, word 0 (ip/mlx.h); 0 if none           */
#define SB_HDR_WORD1 0x01Cu  /* R: oldest header, word 1; 0 if none                      */
#define SB_HDR_POP 0x020u    /* W: removes the oldest header (ignored when empty)        */

#define SB_REQ_FREE 0x030u   /* R: free request buffer entries                           */
#define SB_REQ_SOURCE 0x034u /* RW: staged request's source: SB_SOURCE layout            */
#define SB_REQ_DEST 0x038u   /* RW: staged request's destination port mask (bit p = port p) */
#define SB_REQ_BYTES 0x03Cu  /* RW: staged request's message bytes (8 + payload length)  */
#define SB_REQ_PUSH 0x040u   /* W: flags (SB_REQ_FLAG_*); pushes the staged request       */

#define SB_UP_PORTS 0x044u  /* RW: ports towards the root of the routing tree (0 at reset) */
#define SB_SRC_BUSY 0x048u  /* R: SB_SRC_BIT of every source channel with a request held */
#define SB_SRC_WATCH 0x04Cu /* RW: SB_SRC_BIT mask for SB_IRQ_SRC_IDLE (0 at reset)   */

#define SB_IRQ_ENABLE 0x050u /* RW: SB_IRQ_* mask (0 at reset)                           */
#define SB_IRQ_STATUS 0x054u /* R: SB_IRQ_* conditions now, enabled or not               */
#define SB_SRC_QUEUED 0x058u /* R: SB_SRC_BIT of every source channel with a request in the request buffer */

/* Counters since reset, modulo 2^32. */
#define SB_CNT_HEADERS 0x060u  /* R: headers extracted by the analyzers                    */
#define SB_CNT_REQUESTS 0x064u /* R: requests accepted                                     */
#define SB_CNT_MESSAGES 0x068u /* R: messages switched to their destinations (complete)    */
#define SB_CNT_DISCARDS 0x06Cu /* R: messages consumed by discard requests                 */
#define SB_CNT_REFUSED 0x070u  /* R: request pushes refused                                */
#define SB_CNT_STALLS 0x074u   /* R: times an active request could not move a packet       */
#define SB_CNT_BYTES 0x078u    /* R: message bytes taken from source channels              */

/* Source of a header or request: port and channel. */
#define SB_SOURCE(port, ch) ((((unsigned)(port)&0xFFu) << 8) | ((unsigned)(ch)&0xFFu))
#define SB_SOURCE_PORT(v) (((v) >> 8) & 0xFFu)
#define SB_SOURCE_CHANNEL(v) ((v)&0xFFu)
#define SB_SOURCE_VALID 0x80000000u /* set in SB_HDR_SOURCE when an entry exists */
/* A source channel's bit in SB_SRC_BUSY / SB_SRC_QUEUED / SB_SRC_WATCH (2 channels per port). */
#define SB_SRC_BIT(port, ch) (1u << (((unsigned)(port) << 1) + ((unsigned)(ch)&1u)))

#define SB_CONFIG_PORTS(v) ((v)&0xFFu)
#define SB_CONFIG_STATIONS(v) (((v) >> 8) & 0xFFu)
#define SB_CONFIG_OOO 0x00010000u

#define SB_REQ_FLAG_DISCARD 0x1u /* consume the message: no destination              */

#define SB_IRQ_HEADER 0x1u    /* the header buffer is not empty                   */
#define SB_IRQ_REQ_SPACE 0x2u /* the request buffer has a free entry              */
#define SB_IRQ_SRC_IDLE 0x4u  /* SB_SRC_WATCH & ~SB_SRC_BUSY != 0                  */

#endif
