/* Message trace tags: how firmware names an MMP message to the simulator's
 * message ledger (sim.messages, docs/models/message-breakdown.md). Virtual
 * platform only: the real card has nothing of this, and the simulator does
 * nothing else with it (the timing is the same whether the ledger is on).
 *
 * A tag is 23 bits: the message's source node and the low 15 bits of its
 * number (the wire header's SEQ, ip/mmp_protocol.h); the ledger finds the
 * message among those in flight from that node. It travels in
 *  - DMA descriptors: DMA_CTRL_TRACE(tag) in the CTRL word (ip/ni_dma.h), no
 *    extra store;
 *  - trace marks: one store of SIMCTRL_MARK(event, tag) to SIMCTRL_TRACE_MARK
 *    (ip/simctrl.h) where only the firmware knows a message passed. */
#ifndef M2_IP_MSG_TRACE_H
#define M2_IP_MSG_TRACE_H

#define MSG_TAG(node, seq) ((((unsigned)(node)&0xFFu) << 15) | ((unsigned)(seq)&MSG_TAG_SEQ_MASK))
#define MSG_TAG_NODE(t) (((t) >> 15) & 0xFFu)
#define MSG_TAG_SEQ(t) ((t)&MSG_TAG_SEQ_MASK)
#define MSG_TAG_SEQ_MASK 0x7FFFu
#define MSG_TAG_MASK 0x7FFFFFu /* 23 bits */

#endif
