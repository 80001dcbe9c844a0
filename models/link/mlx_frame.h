// An MLX frame as it crosses a link (docs/models/mlx-engine.md). It travels
// as a TLM extension on a tlm_generic_payload (command write, data = the
// packets) so that pass-through trace sockets can be bound between an engine
// and the link and see every field.
//
// On the wire a data frame is
//   header | burst 0 packets | continue | burst 1 packets | ... | checksum
// and an info frame is a header alone. The header carries, for every
// channel, the acknowledge of the last data frame received and the credit
// limit; a data frame's header also announces its channel, sequence number
// and first burst, each continue command the next burst. The sizes of these
// fields are the sending engine's parameters, carried here so that the link
// can time the frame without knowing the engine.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include <ip/mlx.h>

namespace m2 {

struct MlxFrame : tlm::tlm_extension<MlxFrame> {
  static constexpr unsigned kChannels = 2;
  enum class Kind : uint8_t { Data, Info };

  // What the header says about one channel of the sender's receive side.
  struct ChannelInfo {
    bool ack_valid = false;     // a data frame has been received on this channel
    uint32_t ack_seq = 0;       // sequence number of the last good data frame received
    uint64_t credit_limit = 0;  // packets the peer may have sent in total on this channel
  };

  Kind kind = Kind::Info;
  uint8_t channel = 0;          // data frames: the channel its packets belong to
  uint32_t seq = 0;             // data frames: sequence number on that channel
  bool retransmission = false;  // a repeat of an earlier frame (not on the wire: for traces)
  bool credit_request = false;  // asks the peer for an info frame (credit lost?)
  std::array<ChannelInfo, kChannels> info{};
  // Packets announced by the header and by each continue command: the frame
  // holds bursts.size() - 1 continue commands.
  std::vector<uint16_t> bursts;
  std::vector<uint8_t> packets;       // MLX_PACKET_BYTES each, padding included
  std::vector<uint64_t> message_ids;  // traced messages with packets in this frame (MessageId; may be empty)

  // Wire format of the sender (bytes).
  uint16_t header_bytes = 8, checksum_bytes = 4, continue_bytes = 4;

  // Set by the link.
  bool checksum_ok = true;                // false: corrupted on the wire (the receiver discards it)
  uint64_t number = 0;                    // 1, 2, ... per link direction, in wire order
  sc_core::sc_time wire_start, wire_end;  // first and last bit leave the sender

  // Continuous network burst: called by the link when the frame's content
  // so far has been serialised; the sender may append a continue command and
  // another burst (add_burst) and return true to keep the link. Empty: the
  // frame ends. Not copied with the frame (it belongs to the sending engine).
  std::function<bool(MlxFrame&)> extend;

  bool is_data() const { return kind == Kind::Data; }
  unsigned packet_count() const { return static_cast<unsigned>(packets.size() / MLX_PACKET_BYTES); }
  unsigned continues() const { return bursts.empty() ? 0 : static_cast<unsigned>(bursts.size() - 1); }
  // Bytes on the wire, without and with the trailing checksum.
  uint64_t body_bytes() const {
    return header_bytes + (is_data() ? uint64_t(continues()) * continue_bytes + packets.size() : 0);
  }
  uint64_t wire_bytes() const { return body_bytes() + (is_data() ? checksum_bytes : 0); }

  // Appends one burst of whole packets (a continue command unless it is the first).
  void add_burst(const uint8_t* data, unsigned n_packets) {
    bursts.push_back(static_cast<uint16_t>(n_packets));
    packets.insert(packets.end(), data, data + size_t(n_packets) * MLX_PACKET_BYTES);
  }

  // One line for logs and traces: "#12 data ch0 seq 3 pkts 16+16 ack 2/- lim 80/64".
  std::string describe() const;
  // Points `t`'s data at the packets (after they changed).
  void sync_payload(tlm::tlm_generic_payload& t) {
    t.set_address(is_data() ? channel : 0);
    t.set_data_ptr(packets.empty() ? nullptr : packets.data());
    t.set_data_length(static_cast<unsigned>(packets.size()));
    t.set_streaming_width(static_cast<unsigned>(packets.size()));
  }

  tlm::tlm_extension_base* clone() const override {
    auto* f = new MlxFrame;
    f->copy_from(*this);
    return f;
  }
  void copy_from(const tlm::tlm_extension_base& other) override {
    const auto& o = static_cast<const MlxFrame&>(other);
    kind = o.kind;
    channel = o.channel;
    seq = o.seq;
    retransmission = o.retransmission;
    credit_request = o.credit_request;
    info = o.info;
    bursts = o.bursts;
    packets = o.packets;
    message_ids = o.message_ids;
    header_bytes = o.header_bytes;
    checksum_bytes = o.checksum_bytes;
    continue_bytes = o.continue_bytes;
    checksum_ok = o.checksum_ok;
    number = o.number;
    wire_start = o.wire_start;
    wire_end = o.wire_end;
    extend = nullptr;
  }
};

// A generic payload owning its frame: the payload's data pointer is the
// frame's packets. Call reset() before sending it.
class MlxFrameTransaction {
 public:
  MlxFrameTransaction() {
    m_gp.set_extension(&frame);
    reset();
  }
  ~MlxFrameTransaction() { m_gp.clear_extension(&frame); }
  MlxFrameTransaction(const MlxFrameTransaction&) = delete;
  MlxFrameTransaction& operator=(const MlxFrameTransaction&) = delete;

  MlxFrame frame;

  tlm::tlm_generic_payload& payload() { return m_gp; }
  void reset() {
    m_gp.set_command(tlm::TLM_WRITE_COMMAND);
    frame.sync_payload(m_gp);
    m_gp.set_byte_enable_ptr(nullptr);
    m_gp.set_dmi_allowed(false);
    m_gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }

 private:
  tlm::tlm_generic_payload m_gp;
};

// The frame a payload carries, or nullptr.
inline MlxFrame* mlx_frame(tlm::tlm_generic_payload& t) { return t.get_extension<MlxFrame>(); }

}  // namespace m2
