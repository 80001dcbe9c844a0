// MLX protocol engine (ip/mlx.h, ip/ni_mlcx.h): one end of a link. The NI's
// MLC-X (`ni<n>.mlcx`) and the MLX module of each switch-box port. It sends
// the messages of its network buffer's TX channels to the peer and delivers
// the peer's messages into its RX channels, back to back as they were
// written. See docs/models/mlx-engine.md.
//
// Per channel and direction: credit-based flow control (the receiver grants
// packets as its RX channel has room; the sender never exceeds the grant),
// and a rendezvous (the next data frame on a channel leaves only after the
// peer acknowledged the previous one; the peer acknowledges a frame only if
// its checksum is right; a frame not acknowledged within ack_timeout_ns is
// sent again). A data frame carries up to burst_packets packets of one
// channel, across message boundaries, as many as are ready and credited.
// With `continuous` (variant maestro2) the sender, at the end of a burst,
// inserts a continue command and sends another burst while the channel
// holds packets and credit remains, up to max_frame_packets. Every frame
// header carries both channels' acks and credit limits; an info frame (a
// header alone) is sent when there is news and no data frame to carry it.
//
// One transmitter per engine (the serializer's multiplexer): the channels
// take turns (a channel's due repeat, or its next data frame), then info
// frames. Sending starts as soon
// as a packet is ready: the first 32 bytes of a message, or the whole of a
// shorter one.
//
// Timing style: the engine's own latencies are pipeline stages, not shared
// resources, and it must see acks and credits when they arrive, so it waits
// them in SystemC time in LT and AT alike; the link is where the styles
// differ (LT books a direction, AT waits for it).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <ip/ni_mlcx.h>

#include "core/irq.h"
#include "core/lazy_timer.h"
#include "core/ip_variant.h"
#include "core/module_log.h"
#include "core/params.h"
#include "core/peripheral.h"
#include "core/signals.h"
#include "core/state_views.h"
#include "core/stats.h"
#include "core/timing_style.h"
#include "link/mlx_frame.h"
#include "ni/mlx_packets.h"
#include "trace/message_tag.h"

namespace m2 {

class NetBuf;

class MlxEngine : public Peripheral {
 public:
  static constexpr unsigned kChannels = MlxFrame::kChannels;

  // Frames to the link (bind to the link side's target, e.g. Link::a_in).
  tlm_utils::simple_initiator_socket<MlxEngine> link_out;
  // Frames from the link (the link side's initiator, e.g. Link::a_out, binds here).
  tlm_utils::simple_target_socket<MlxEngine> link_in;
  // Registers: Peripheral::regs (ip/ni_mlcx.h), addresses relative to
  // NI_MLCX_BASE. May stay unbound (a switch-box port without a register bus).

  VariantParam variant;  // first: its values (ip/mlcx_variants.h) preset the others

 public:
  Param<bool> continuous;
  Param<uint64_t> header_bytes;
  Param<uint64_t> checksum_bytes;
  Param<uint64_t> continue_bytes;
  Param<uint64_t> burst_packets;
  Param<uint64_t> max_frame_packets;
  Param<double> clock_mhz;
  Param<uint64_t> tx_cycles;
  Param<uint64_t> rx_cycles;
  Param<double> ack_timeout_ns;
  Param<uint64_t> credit_update_packets;

  // High while (EVENTS & IRQ_ENABLE) != 0; to the intc's NI_IRQ_MLCX(0).
  IrqLine irq;

  struct ChannelStats {
    uint64_t data_frames_sent = 0;    // repeats included
    uint64_t packets_sent = 0;        // repeats included
    uint64_t messages_sent = 0;       // message headers cut (first sending only)
    uint64_t payload_bytes_sent = 0;  // stream bytes (no padding), first sending only
    uint64_t retransmissions = 0;
    uint64_t continues = 0;
    uint64_t data_frames_received = 0;  // accepted (good, new)
    uint64_t packets_received = 0;
    uint64_t payload_bytes_received = 0;  // delivered into the RX channel
    uint64_t duplicates = 0;
    uint64_t credit_stalls = 0;  // a ready packet waited for credit
  };
  struct Stats {
    uint64_t data_frames_sent = 0, info_frames_sent = 0, packets_sent = 0, bytes_sent = 0;
    uint64_t data_frames_received = 0, info_frames_received = 0, packets_received = 0, bytes_received = 0;
    uint64_t retransmissions = 0, continues = 0, duplicates = 0, bad_frames = 0;
    uint64_t timeouts = 0;         // ack timeouts (each leads to one retransmission)
    uint64_t credit_requests = 0;  // info frames sent asking for credit
    sc_core::sc_time tx_busy;      // frames of this engine on the wire
  };

  SC_HAS_PROCESS(MlxEngine);
  // Throws ConfigError on inconsistent parameters.
  MlxEngine(sc_core::sc_module_name name, NetBuf& buffer, TimingStyle style);

  // The network address this end answers to (MLCX_NODE_ADDR): the platform
  // gives each NI its node number.
  void set_node_address(uint16_t a) { m_node_address = a; }
  uint16_t node_address() const { return m_node_address; }

  const Stats& stats() const { return m_stats; }
  const ChannelStats& channel_stats(unsigned ch) const { return m_ch_stats.at(ch); }
  // Packets the peer still accepts on ch (as far as this end knows).
  uint64_t tx_credit(unsigned ch) const;
  // Packets granted to the peer on ch and not received yet.
  uint64_t rx_credit(unsigned ch) const;
  bool awaiting_ack(unsigned ch) const { return m_tx.at(ch).awaiting; }
  TimingStyle timing_style() const { return m_style; }
  uint32_t status() const;
  // Credits, outstanding frames and buffer levels per channel, one line.
  std::string describe_state() const;
  // The outstanding data frame resent most often in a row (none: repeats 0):
  // what a stall report needs to tell a livelock at a high bit error rate.
  struct ResendStreak {
    unsigned channel = 0;
    uint32_t seq = 0;
    uint64_t repeats = 0;     // retransmissions of this frame so far
    uint64_t wire_bytes = 0;  // its size on the wire
  };
  ResendStreak longest_resend_streak() const;

  // Message tracing (docs/models/message-breakdown.md): the engine names the
  // messages with packets in each data frame it sends (MlxFrame::message_ids,
  // from each message's first packet), reports when it cut their packets
  // (MessagePoint::MlxCut) and when a frame with their packets arrived
  // (MessagePoint::LinkIn, from the sender's ids). Off without a probe.
  void set_message_probe(MessageProbe probe) { m_probe = probe; }

 private:
  // The sending half of a channel.
  struct TxChannel {
    MlxPacketizer packetizer;
    uint64_t peer_limit = 0;  // credit limit last heard from the peer
    uint64_t sent = 0;        // packets sent (first sendings)
    uint32_t next_seq = 0;
    uint32_t out_seq = 0;            // sequence number of the frame awaiting its ack
    bool awaiting = false;           // that frame waits for its ack
    bool repeat = false;             // its ack timed out
    uint64_t repeats = 0;            // times that frame has been resent
    sc_core::sc_time deadline;       // ack timeout of `frame`
    bool stalled = false;            // packets ready, no credit
    sc_core::sc_time credit_ask_at;  // when to ask for credit if still stalled
    MlxFrame frame;                  // the last data frame sent, for a repeat
    MessageId message = 0;           // the message being cut (tracing)
  };
  // The receiving half of a channel.
  struct RxChannel {
    MlxDepacketizer depacketizer;
    bool any = false;         // a frame was accepted
    uint32_t last_seq = 0;    // sequence number of the last one
    uint64_t accepted = 0;    // packets accepted
    uint64_t advertised = 0;  // credit limit in the last header sent
    bool ack_pending = false;
  };
  // A frame received, to take effect after rx latency.
  struct Arrival {
    sc_core::sc_time at;
    std::unique_ptr<MlxFrame> frame;
  };

  void b_transport_link(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void add_registers();
  void raise(uint32_t events);
  void update_irq();

  // Transmitter.
  void tx_thread();
  enum class Choice { None, Data, Repeat, Info };
  Choice choose(unsigned& ch);
  bool info_needed() const;
  bool credit_news(unsigned ch) const;
  unsigned ready_packets(unsigned ch, unsigned max);
  unsigned cut_burst(unsigned ch, MlxFrame& f, unsigned max);
  bool extend(unsigned ch, MlxFrame& f);
  void name_messages(unsigned ch, MlxFrame& f, const uint8_t* packets, unsigned n, const std::vector<unsigned>& starts);
  void fill_header(MlxFrame& f);
  void send(MlxFrame& f, sc_core::sc_time latency);
  sc_core::sc_time next_timer() const;
  // The transmitter's time: SystemC time plus m_ahead (see send()).
  sc_core::sc_time tx_now() const { return sc_core::sc_time_stamp() + m_ahead; }
  void check_timers();

  // Receiver.
  void rx_thread();
  void receive(const MlxFrame& f);
  void accept(RxChannel& rx, unsigned ch, const MlxFrame& f);
  uint64_t credit_limit(unsigned ch) const;

  NetBuf& m_buf;
  const TimingStyle m_style;
  ModuleLog m_log{this};  // messages named after this module, at its sim.log level
  std::array<TxChannel, kChannels> m_tx;
  std::array<RxChannel, kChannels> m_rx;
  unsigned m_next_ch = 0;
  bool m_announce = true;     // send an info frame at start (credits)
  bool m_peer_asks = false;   // the peer asked for an info frame
  bool m_ask_credit = false;  // a credit request is due
  bool m_link_up = false;
  uint32_t m_events = 0, m_irq_enable = 0;
  sc_core::sc_event m_wake;  // acks, credits, news for the transmitter
  std::deque<Arrival> m_arrivals;
  std::vector<std::unique_ptr<MlxFrame>> m_spare_frames;  // arrivals' frames, reused
  sc_core::sc_event m_arrived;                            // notified for the time the front arrival takes effect
  LazyTimer m_timer;                                      // ack timeouts and credit requests
  sc_core::sc_time m_ahead;                      // LT: the transmitter is at the end of its last frame, this far ahead
  std::vector<uint8_t> m_rx_bytes, m_cut_bytes;  // reused per frame / burst
  std::vector<MlxHeader> m_cut_starts;
  std::vector<unsigned> m_cut_start_packets;
  MlxFrameTransaction m_tr;     // the transmitter's frame on the wire
  std::vector<uint8_t> m_view;  // TX channel bytes read ahead
  sc_core::sc_time m_cycle, m_tx_data, m_tx_info, m_rx_data, m_rx_info, m_ack_timeout;
  MessageProbe m_probe;
  uint16_t m_node_address = 0xFFFF;
  Stats m_stats;
  std::array<ChannelStats, kChannels> m_ch_stats;
  // What the run reports of m_stats (core/stats.h).
  StatProbe m_stat_retransmissions{this, "retransmissions", "count", "data frames sent again",
                                   [this] { return double(m_stats.retransmissions); }};
  StatProbe m_stat_continues{this, "continues", "count",
                             "continue commands appended to frames (each a burst after the first)",
                             [this] { return double(m_stats.continues); }};
  // Credit and ack wait per channel in the VCD (declared in the constructor,
  // core/signals.h), and the one-line state of a stall report (core/state_views.h).
  std::deque<Signal> m_signals;
  StateView m_view_state{this, "mlx", "the link controller: link state, credits, frames awaiting their ack",
                         [this] { return describe_state(); }};
};

}  // namespace m2
