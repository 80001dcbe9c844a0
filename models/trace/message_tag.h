// Message identity for traces: what every model that can tell which message
// some data belongs to uses to say so (docs/models/message-breakdown.md).
//
//  - MessageId: one MMP message end to end, (source node, the number its
//    sender's library gave it); 0 means "none".
//  - MessageTag: a TLM extension carrying a MessageId on the transactions of
//    a message (the DMA engine's and the host's request writes, so PCI and
//    NI bus taps see them); MLX frames carry theirs in MlxFrame::message_ids.
//  - MessageObserver: where models report the points a message passes (the
//    run's MessageLedger implements it); a MessageProbe is a model's handle
//    on it. Models without a probe (the default) do nothing: tracing off is
//    one pointer test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <tlm>

namespace m2 {

using MessageId = uint64_t;

constexpr MessageId make_message_id(unsigned src_node, uint32_t seq) {
  return uint64_t(1) << 63 | uint64_t(src_node & 0xFFFFu) << 32 | seq;
}
constexpr unsigned message_src(MessageId id) { return static_cast<unsigned>(id >> 32 & 0xFFFFu); }
constexpr uint32_t message_seq(MessageId id) { return static_cast<uint32_t>(id); }
// "3.17": node 3's message 17 ("" for none).
std::string message_name(MessageId id);

struct MessageTag : tlm::tlm_extension<MessageTag> {
  MessageId id = 0;
  tlm::tlm_extension_base* clone() const override {
    auto* t = new MessageTag;
    t->id = id;
    return t;
  }
  void copy_from(const tlm::tlm_extension_base& other) override { id = static_cast<const MessageTag&>(other).id; }
};

// The message a transaction belongs to (its MessageTag), or 0.
inline MessageId message_of(const tlm::tlm_generic_payload& t) {
  const MessageTag* tag = t.get_extension<MessageTag>();
  return tag ? tag->id : 0;
}

// The points of a message's way (in path order), as the models see them.
enum class MessagePoint : uint8_t {
  HostSend,      // the sender's library was called (host hook)
  HostPosted,    // the send request is posted to the NI (host hook)
  RequestIn,     // a PIO write of the request (descriptor, doorbell) reached the NI
  SendTaken,     // the sender's firmware took the request (optional trace mark)
  TxDmaQueued,   // firmware queued a DMA into a TX netbuf channel (DMA CTRL write)
  TxDmaDone,     //   ... and it completed
  TxPushed,      // the last byte of one of its chunks entered a TX netbuf channel
  MlxCut,        // an MLX engine cut a packet of it into a frame
  LinkIn,        // an MLX engine received a frame holding packets of it
  SbHeader,      // a switch box's analyzer put a chunk's header into the header buffer
  SbRequest,     // the switch box's firmware pushed the chunk's switching request
  SbMoveStart,   // the transfer unit starts moving a chunk's bytes
  SbMoveEnd,     // a move over the switching bus ended (data in the output channel)
  RxHeader,      // a chunk's wire header was read out of an RX netbuf channel (by the firmware)
  RxDmaQueued,   // firmware queued a DMA out of an RX netbuf channel
  RxDmaDone,     //   ... and it completed
  RecordQueued,  // firmware queued another DMA of it (a completion record)
  RecordDone,    //   ... and it completed
  HostDone,      // the receiver's library has the message (host hook)
  Count
};
const char* message_point_name(MessagePoint p);

class MessageObserver {
 public:
  virtual ~MessageObserver() = default;
  // The message whose first bytes (a chunk's wire header) are `data`; 0 when
  // they do not name one (n: bytes available, at most one packet is read).
  virtual MessageId identify(const uint8_t* data, size_t n) const = 0;
  // The message a firmware trace tag (ip/msg_trace.h) names, or 0.
  virtual MessageId resolve(uint32_t tag) const = 0;
  // The sender's library was called to send `id` (HostSend): the message's
  // record starts. `phase`: the sending application's phase (m2host_msg_phase:
  // "warmup", "timed", ...; empty when it names none).
  virtual void started(unsigned site, MessageId id, unsigned dst_node, uint64_t bytes, uint32_t tag, uint64_t time_ps,
                       const std::string& phase = {}) = 0;
  // The send failed before it reached the NI: the message never existed.
  virtual void cancelled(MessageId id) = 0;
  // `id` passed `point` at `site` (MessageLedger::add_site) at time_ps.
  virtual void passed(MessagePoint point, unsigned site, MessageId id, uint64_t time_ps) = 0;
};

// A model's handle on the observer, with the site it reports for.
struct MessageProbe {
  MessageObserver* observer = nullptr;
  unsigned site = 0;

  explicit operator bool() const { return observer != nullptr; }
  void operator()(MessagePoint point, MessageId id, uint64_t time_ps) const {
    if (observer && id) observer->passed(point, site, id, time_ps);
  }
};

}  // namespace m2
