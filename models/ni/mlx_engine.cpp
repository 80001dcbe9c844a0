#include "ni/mlx_engine.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "core/ip_variant.h"
#include "core/log.h"
#include "ip/mlcx_variants.h"
#include "ni/netbuf.h"

namespace m2 {

using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

MlxEngine::MlxEngine(sc_core::sc_module_name name, NetBuf& buffer, TimingStyle style)
    : Peripheral(name,
                 [] {
                   Options o;
                   o.socket_optional = true;  // a switch-box port has no register bus
                   return o;
                 }()),
      link_out("link_out"),
      link_in("link_in"),
      variant(this->name(), "variant", "maestro2",
              "protocol generation: maestro2 (continuous network burst), plain (network burst only)", mlcx_variants()),
      continuous(this->name(), "continuous", true, "",
                 "continuous network burst: continue commands extend a frame while the channel holds packets"),
      header_bytes(this->name(), "header_bytes", 8, "B", "frame header on the wire (an info frame is a header alone)",
                   Range<uint64_t>{1, 256}),
      checksum_bytes(this->name(), "checksum_bytes", 4, "B", "checksum at the end of a data frame",
                     Range<uint64_t>{0, 64}),
      continue_bytes(this->name(), "continue_bytes", 4, "B", "one continue command on the wire",
                     Range<uint64_t>{1, 64}),
      burst_packets(this->name(), "burst_packets", 16, "packets",
                    "packets a header or a continue command announces at most (a plain frame's limit; "
                    "CONFIG bits 8..15 report it)",
                    Range<uint64_t>{1, 255}),
      max_frame_packets(this->name(), "max_frame_packets", 64, "packets",
                        "packets of one frame with its continuations (the retransmission buffer); >= burst_packets",
                        Range<uint64_t>{1, 65535}),
      clock_mhz(this->name(), "clock_mhz", 100.0, "MHz", "engine (FPGA) clock", Range<double>{1, 2000}),
      tx_cycles(this->name(), "tx_cycles", 4, "cycles",
                "from choosing a frame to its first word on the wire (data frames add a netbuf packet read)",
                Range<uint64_t>{0, 100000}),
      rx_cycles(this->name(), "rx_cycles", 4, "cycles",
                "from a frame's last word to its acks, credits and data taking effect (data frames add a netbuf "
                "packet write)",
                Range<uint64_t>{0, 100000}),
      ack_timeout_ns(this->name(), "ack_timeout_ns", 100000.0, "ns",
                     "a data frame not acknowledged this long after its end is sent again; also the interval of "
                     "credit requests while stalled",
                     Range<double>{1, 1e12}),
      credit_update_packets(this->name(), "credit_update_packets", 8, "packets",
                            "freed RX packets worth an info frame (any amount when the peer's credit is below this)",
                            Range<uint64_t>{1, 65535}),
      m_buf(buffer),
      m_style(style) {
  if (burst_packets.get() > max_frame_packets.get())
    throw ConfigError(std::string(this->name()) + ": burst_packets (" + burst_packets.value_string() +
                      ") exceeds max_frame_packets (" + max_frame_packets.value_string() + ")");
  m_cycle = sc_time(1000.0 / clock_mhz.get(), SC_NS);
  m_tx_info = m_cycle * static_cast<double>(tx_cycles.get());
  m_rx_info = m_cycle * static_cast<double>(rx_cycles.get());
  // A data frame's first packet is read from, its last written into, the netbuf.
  m_tx_data = m_tx_info + m_buf.access_time(MLX_PACKET_BYTES);
  m_rx_data = m_rx_info + m_buf.access_time(MLX_PACKET_BYTES);
  m_ack_timeout = sc_time(ack_timeout_ns.get(), SC_NS);
  m_view.resize(m_buf.capacity());
  for (unsigned c = 0; c < kChannels; ++c) {
    const std::string n = std::to_string(c);
    // Packets the peer's channel holds: up to its size / 32, whatever ours is.
    m_signals.emplace_back(this, "tx" + n + "_credit", 32, [this, c] { return tx_credit(c); });
    m_signals.emplace_back(this, "tx" + n + "_wait_ack", 1, [this, c] { return uint64_t(awaiting_ack(c)); });
  }
  link_in.register_b_transport(this, &MlxEngine::b_transport_link);
  add_registers();
  SC_THREAD(tx_thread);
  SC_THREAD(rx_thread);
}

// ---------------------------------------------------------------- state

uint64_t MlxEngine::tx_credit(unsigned ch) const {
  const TxChannel& tx = m_tx.at(ch);
  return tx.peer_limit > tx.sent ? tx.peer_limit - tx.sent : 0;
}

uint64_t MlxEngine::rx_credit(unsigned ch) const {
  const RxChannel& rx = m_rx.at(ch);
  return rx.advertised - rx.accepted;
}

// What this end may grant: every packet granted and not yet received may
// bring up to 32 bytes, and they must all fit into the RX channel.
uint64_t MlxEngine::credit_limit(unsigned ch) const { return m_rx[ch].accepted + m_buf.rx_free(ch) / MLX_PACKET_BYTES; }

uint32_t MlxEngine::status() const {
  uint32_t s = m_link_up ? MLCX_STATUS_LINK_UP : 0;
  for (unsigned c = 0; c < kChannels; ++c) {
    if (m_tx[c].awaiting) s |= MLCX_STATUS_WAIT_ACK(c);
    if (m_tx[c].awaiting && m_tx[c].repeat) s |= MLCX_STATUS_REPEAT(c);
  }
  return s;
}

std::string MlxEngine::describe_state() const {
  std::ostringstream o;
  o << name() << ": " << (m_link_up ? "link up" : "link down") << ", " << variant.get();
  for (unsigned c = 0; c < kChannels; ++c) {
    const TxChannel& tx = m_tx[c];
    const RxChannel& rx = m_rx[c];
    o << "; ch" << c << " tx: credit " << tx_credit(c) << " (limit " << tx.peer_limit << ", sent " << tx.sent << "), ";
    if (tx.awaiting)
      o << "frame seq " << tx.out_seq << " "
        << (tx.repeat ? "to repeat" : "awaits ack until " + tx.deadline.to_string());
    else o << "no frame outstanding";
    o << ", TX " << m_buf.tx_available(c) << "/" << m_buf.capacity() << " B"
      << (tx.stalled ? ", stalled on credit" : "") << "; ch" << c << " rx: granted " << rx_credit(c) << " (limit "
      << rx.advertised << ", accepted " << rx.accepted << "), "
      << (rx.any ? "last seq " + std::to_string(rx.last_seq) : std::string("nothing received"))
      << (rx.ack_pending ? " (ack pending)" : "") << ", RX " << m_buf.rx_available(c) << "/" << m_buf.capacity()
      << " B";
  }
  o << "; " << m_arrivals.size() << " frames arriving";
  return o.str();
}

MlxEngine::ResendStreak MlxEngine::longest_resend_streak() const {
  ResendStreak r;
  for (unsigned c = 0; c < kChannels; ++c) {
    const TxChannel& tx = m_tx[c];
    if (tx.awaiting && tx.repeats > r.repeats) r = {c, tx.out_seq, tx.repeats, tx.frame.wire_bytes()};
  }
  return r;
}

// ---------------------------------------------------------------- registers

void MlxEngine::add_registers() {
  bank().add(
      MLCX_STATUS, "STATUS", [this] { return status(); }, nullptr);
  bank().add(
      MLCX_NODE_ADDR, "NODE_ADDR", [this] { return uint32_t(m_node_address); }, nullptr);
  bank().add(
      MLCX_CONFIG, "CONFIG",
      [this] {
        return uint32_t(continuous.get() ? MLCX_CONFIG_CONTINUOUS : 0) | uint32_t(burst_packets.get()) << 8 |
               uint32_t(max_frame_packets.get() & 0xFFFF) << 16;
      },
      nullptr);
  bank().add(
      MLCX_EVENTS, "EVENTS", [this] { return m_events; },
      [this](uint32_t v) {
        m_events &= ~v;
        update_irq();
      });
  bank().add(
      MLCX_IRQ_ENABLE, "IRQ_ENABLE", [this] { return m_irq_enable; },
      [this](uint32_t v) {
        m_irq_enable = v;
        update_irq();
      });
  for (unsigned c = 0; c < kChannels; ++c) {
    const std::string n = std::to_string(c);
    bank().add(
        MLCX_TX_CREDIT(c), "TX_CREDIT" + n, [this, c] { return uint32_t(tx_credit(c)); }, nullptr);
    bank().add(
        MLCX_RX_CREDIT(c), "RX_CREDIT" + n, [this, c] { return uint32_t(rx_credit(c)); }, nullptr);
  }
  auto counter = [this](uint32_t off, const char* name, const uint64_t& v) {
    bank().add(
        off, name, [&v] { return uint32_t(v); }, nullptr);
  };
  counter(MLCX_DATA_FRAMES_SENT, "DATA_FRAMES_SENT", m_stats.data_frames_sent);
  counter(MLCX_INFO_FRAMES_SENT, "INFO_FRAMES_SENT", m_stats.info_frames_sent);
  counter(MLCX_PACKETS_SENT, "PACKETS_SENT", m_stats.packets_sent);
  counter(MLCX_BYTES_SENT, "BYTES_SENT", m_stats.bytes_sent);
  counter(MLCX_DATA_FRAMES_RCVD, "DATA_FRAMES_RCVD", m_stats.data_frames_received);
  counter(MLCX_INFO_FRAMES_RCVD, "INFO_FRAMES_RCVD", m_stats.info_frames_received);
  counter(MLCX_PACKETS_RCVD, "PACKETS_RCVD", m_stats.packets_received);
  counter(MLCX_BYTES_RCVD, "BYTES_RCVD", m_stats.bytes_received);
  counter(MLCX_RETRANSMISSIONS, "RETRANSMISSIONS", m_stats.retransmissions);
  counter(MLCX_CONTINUES, "CONTINUES", m_stats.continues);
  counter(MLCX_BAD_FRAMES, "BAD_FRAMES", m_stats.bad_frames);
  counter(MLCX_DUPLICATES, "DUPLICATES", m_stats.duplicates);
}

void MlxEngine::raise(uint32_t events) {
  m_events |= events;
  update_irq();
}

void MlxEngine::update_irq() { irq.set((m_events & m_irq_enable) != 0); }

// ---------------------------------------------------------------- transmitter

void MlxEngine::tx_thread() {
  sc_core::sc_event_or_list news;
  news |= m_wake;
  news |= m_timer.event();
  for (unsigned c = 0; c < kChannels; ++c) news |= m_buf.tx_data_event(c), news |= m_buf.rx_space_event(c);
  for (;;) {
    check_timers();
    unsigned ch = 0;
    const Choice choice = choose(ch);
    if (choice == Choice::None) {
      // A lazy timer: a fresh timeout per wait would leave a dead entry in
      // the kernel's queue for every frame (see core/lazy_timer.h).
      if (const sc_time t = next_timer(); t != sc_core::sc_max_time()) m_timer.arm(sc_core::sc_time_stamp() + t);
      wait(news);
      m_ahead = SC_ZERO_TIME;  // woken after the last frame's end (see send)
      continue;
    }
    if (m_ahead != SC_ZERO_TIME) {  // decided at the last frame's end; now be there
      wait(m_ahead);
      m_ahead = SC_ZERO_TIME;
    }
    MlxFrame& f = m_tr.frame;
    TxChannel* tx = choice == Choice::Info ? nullptr : &m_tx[ch];
    if (choice == Choice::Repeat) {
      f.copy_from(tx->frame);
      f.retransmission = true;
      tx->repeat = false;
      ++tx->repeats;
      ++m_stats.retransmissions;
      ++m_ch_stats[ch].retransmissions;
      m_stats.continues += f.continues();
      m_ch_stats[ch].continues += f.continues();
      raise(MLCX_EV_REPEAT);
    } else {
      f.copy_from(MlxFrame{});
      f.header_bytes = static_cast<uint16_t>(header_bytes.get());
      f.checksum_bytes = static_cast<uint16_t>(checksum_bytes.get());
      f.continue_bytes = static_cast<uint16_t>(continue_bytes.get());
    }
    if (choice == Choice::Data) {
      f.kind = MlxFrame::Kind::Data;
      f.channel = static_cast<uint8_t>(ch);
      f.seq = tx->out_seq = tx->next_seq++;
      tx->repeats = 0;
      f.packets.reserve(max_frame_packets.get() * MLX_PACKET_BYTES);  // continuations do not reallocate
      const uint64_t max = std::min({burst_packets.get(), max_frame_packets.get(), tx_credit(ch)});
      cut_burst(ch, f, static_cast<unsigned>(max));
      if (continuous.get()) f.extend = [this, ch](MlxFrame& fr) { return extend(ch, fr); };
      tx->awaiting = true;
    }
    send(f, choice == Choice::Info ? m_tx_info : m_tx_data);
    if (tx) {
      tx->frame.copy_from(f);
      tx->deadline = tx_now() + m_ack_timeout;
      ++m_stats.data_frames_sent;
      ++m_ch_stats[ch].data_frames_sent;
      m_stats.packets_sent += f.packet_count();
      m_ch_stats[ch].packets_sent += f.packet_count();
    } else {
      ++m_stats.info_frames_sent;
    }
  }
}

// Repeats and new data frames, the channels taking turns; otherwise an info
// frame if there is news for the peer.
MlxEngine::Choice MlxEngine::choose(unsigned& ch) {
  for (unsigned i = 0; i < kChannels; ++i) {
    const unsigned c = (m_next_ch + i) % kChannels;
    TxChannel& tx = m_tx[c];
    if (tx.awaiting) {
      if (!tx.repeat) continue;  // rendezvous: wait for the ack
      ch = c;
      m_next_ch = c + 1;
      return Choice::Repeat;
    }
    if (ready_packets(c, 1) == 0) {
      tx.stalled = false;
      continue;
    }
    if (tx_credit(c) == 0) {
      if (!tx.stalled) {
        tx.stalled = true;
        tx.credit_ask_at = tx_now() + m_ack_timeout;
        ++m_ch_stats[c].credit_stalls;
      }
      continue;
    }
    tx.stalled = false;
    ch = c;
    m_next_ch = c + 1;
    return Choice::Data;
  }
  return info_needed() ? Choice::Info : Choice::None;
}

bool MlxEngine::credit_news(unsigned ch) const {
  const RxChannel& rx = m_rx[ch];
  const uint64_t limit = credit_limit(ch);
  if (limit <= rx.advertised) return false;
  // Enough freed to be worth a frame, or the peer is running short.
  return limit - rx.advertised >= credit_update_packets.get() ||
         rx.advertised - rx.accepted < credit_update_packets.get();
}

bool MlxEngine::info_needed() const {
  if (m_announce || m_peer_asks || m_ask_credit) return true;
  for (unsigned c = 0; c < kChannels; ++c)
    if (m_rx[c].ack_pending || credit_news(c)) return true;
  return false;
}

unsigned MlxEngine::ready_packets(unsigned ch, unsigned max) {
  const unsigned avail = m_buf.tx_available(ch);
  m_buf.tx_peek(ch, m_view.data(), avail);
  return m_tx[ch].packetizer.ready(m_view.data(), avail, max);
}

// Takes up to `max` ready packets of channel ch from the netbuf into a new
// burst of `f`; returns how many.
unsigned MlxEngine::cut_burst(unsigned ch, MlxFrame& f, unsigned max) {
  const unsigned n = ready_packets(ch, max);
  if (n == 0) return 0;
  TxChannel& tx = m_tx[ch];
  ChannelStats& cs = m_ch_stats[ch];
  // Reused buffers: no allocation per burst.
  std::vector<uint8_t>& out = m_cut_bytes;
  std::vector<MlxHeader>& starts = m_cut_starts;
  std::vector<unsigned>& start_packets = m_cut_start_packets;
  out.resize(size_t(n) * MLX_PACKET_BYTES);
  starts.clear();
  start_packets.clear();
  const size_t bytes = tx.packetizer.cut(m_view.data(), n, out.data(), &starts, m_probe ? &start_packets : nullptr);
  m_buf.tx_pop(ch, nullptr, static_cast<unsigned>(bytes));
  f.add_burst(out.data(), n);
  if (m_probe) name_messages(ch, f, out.data(), n, start_packets);
  tx.sent += n;
  cs.messages_sent += starts.size();
  cs.payload_bytes_sent += bytes;
  return n;
}

// Adds the messages of n packets just cut to the frame's ids; a message is
// named by its first packet (the wire header), later packets belong to the
// message being cut.
void MlxEngine::name_messages(unsigned ch, MlxFrame& f, const uint8_t* packets, unsigned n,
                              const std::vector<unsigned>& starts) {
  TxChannel& tx = m_tx[ch];
  const uint64_t now = sc_core::sc_time_stamp().value();
  MessageId last = 0;  // reported for this burst already
  size_t next = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (next < starts.size() && starts[next] == i) {
      tx.message = m_probe.observer->identify(packets + size_t(i) * MLX_PACKET_BYTES, MLX_PACKET_BYTES);
      ++next;
    }
    if (!tx.message || tx.message == last) continue;
    last = tx.message;
    m_probe(MessagePoint::MlxCut, tx.message, now);
    if (std::find(f.message_ids.begin(), f.message_ids.end(), tx.message) == f.message_ids.end())
      f.message_ids.push_back(tx.message);
  }
}

// Called by the link at the end of each burst of a continuable frame.
bool MlxEngine::extend(unsigned ch, MlxFrame& f) {
  const uint64_t room = max_frame_packets.get() - f.packet_count();
  const uint64_t max = std::min({burst_packets.get(), room, tx_credit(ch)});
  if (max == 0 || cut_burst(ch, f, static_cast<unsigned>(max)) == 0) return false;
  ++m_stats.continues;
  ++m_ch_stats[ch].continues;
  return true;
}

// Acks and credit limits of both channels, as they are when the header is
// built; everything pending goes with it.
void MlxEngine::fill_header(MlxFrame& f) {
  for (unsigned c = 0; c < kChannels; ++c) {
    RxChannel& rx = m_rx[c];
    rx.advertised = std::max(rx.advertised, credit_limit(c));
    f.info[c] = MlxFrame::ChannelInfo{rx.any, rx.last_seq, rx.advertised};
    rx.ack_pending = false;
  }
  f.credit_request = m_ask_credit;
  if (m_ask_credit) ++m_stats.credit_requests;
  m_ask_credit = m_announce = m_peer_asks = false;
}

// Waits the engine's latency, then builds the header, so that it carries
// the acks and credits of the moment the frame starts (in LT too: an older
// header would cost extra info frames). Returns when the frame's last bit
// is out (LT: waits the link's annotated time).
//
// LT skips a wait when no other process has anything to do up to its end
// (strictly before it): the state the engine looks at cannot change
// meanwhile, so the result is the same without the kernel event. The header
// is then built at once and the link gets the latency as annotation; after
// the frame, the transmitter decides at once what comes next (m_ahead: how
// far its decisions are ahead of SystemC time) and waits only if it has to
// send something.
void MlxEngine::send(MlxFrame& f, sc_time latency) {
  sc_time delay = SC_ZERO_TIME;
  if (m_style == TimingStyle::LT && latency < sc_core::sc_time_to_pending_activity()) delay = latency;
  else wait(latency);
  fill_header(f);
  f.checksum_ok = true;
  m_tr.reset();
  link_out->b_transport(m_tr.payload(), delay);
  if (m_tr.payload().get_response_status() != tlm::TLM_OK_RESPONSE)
    m_log.error("the link refused frame " + f.describe());
  if (delay != SC_ZERO_TIME) {
    if (m_style == TimingStyle::LT && delay < sc_core::sc_time_to_pending_activity()) m_ahead = delay;
    else wait(delay);
  }
  m_stats.bytes_sent += f.wire_bytes();
  m_stats.tx_busy += f.wire_end - f.wire_start;
}

sc_time MlxEngine::next_timer() const {
  sc_time next = sc_core::sc_max_time();
  for (const TxChannel& tx : m_tx) {
    if (tx.awaiting && !tx.repeat) next = std::min(next, tx.deadline);
    if (tx.stalled && !tx.awaiting) next = std::min(next, tx.credit_ask_at);
  }
  if (next == sc_core::sc_max_time()) return next;
  const sc_time now = sc_core::sc_time_stamp();
  return next > now ? next - now : SC_ZERO_TIME;
}

void MlxEngine::check_timers() {
  const sc_time now = tx_now();
  for (unsigned c = 0; c < kChannels; ++c) {
    TxChannel& tx = m_tx[c];
    if (tx.awaiting && !tx.repeat && now >= tx.deadline) {
      tx.repeat = true;
      ++m_stats.timeouts;
    }
    // Stalled for a timeout: the credit update may have been lost.
    if (tx.stalled && !tx.awaiting && tx_credit(c) == 0 && now >= tx.credit_ask_at) {
      m_ask_credit = true;
      tx.credit_ask_at = now + m_ack_timeout;
    }
  }
}

// ---------------------------------------------------------------- receiver

void MlxEngine::b_transport_link(tlm::tlm_generic_payload& t, sc_time& delay) {
  const MlxFrame* f = mlx_frame(t);
  if (!f) {
    m_log.warning("a transaction without an MLX frame came from the link");
    t.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  // The receive pipeline keeps the order of arrival.
  const sc_time now = sc_core::sc_time_stamp();
  sc_time at = now + delay + (f->is_data() ? m_rx_data : m_rx_info);
  if (!m_arrivals.empty()) at = std::max(at, m_arrivals.back().at);
  std::unique_ptr<MlxFrame> copy;
  if (m_spare_frames.empty()) {
    copy = std::make_unique<MlxFrame>();
  } else {
    copy = std::move(m_spare_frames.back());
    m_spare_frames.pop_back();
  }
  copy->copy_from(*f);  // reuses the spare's storage
  m_arrivals.push_back(Arrival{at, std::move(copy)});
  // The receive thread sleeps until the front's time; a new front wakes it then.
  if (m_arrivals.size() == 1) m_arrived.notify(at - now);
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

void MlxEngine::rx_thread() {
  for (;;) {
    wait(m_arrived);
    while (!m_arrivals.empty() && m_arrivals.front().at <= sc_core::sc_time_stamp()) {
      std::unique_ptr<MlxFrame> f = std::move(m_arrivals.front().frame);
      m_arrivals.pop_front();
      receive(*f);
      m_spare_frames.push_back(std::move(f));
    }
    if (!m_arrivals.empty()) m_arrived.notify(m_arrivals.front().at - sc_core::sc_time_stamp());
  }
}

void MlxEngine::receive(const MlxFrame& f) {
  m_stats.bytes_received += f.wire_bytes();
  if (!f.checksum_ok) {
    // Nothing of a corrupted frame can be trusted, not even its header.
    ++m_stats.bad_frames;
    raise(MLCX_EV_BAD_FRAME);
    return;
  }
  m_link_up = true;
  for (unsigned c = 0; c < kChannels; ++c) {
    TxChannel& tx = m_tx[c];
    const MlxFrame::ChannelInfo& in = f.info[c];
    tx.peer_limit = std::max(tx.peer_limit, in.credit_limit);
    if (tx.awaiting && in.ack_valid && in.ack_seq == tx.out_seq) tx.awaiting = tx.repeat = false;
  }
  if (f.credit_request) m_peer_asks = true;
  if (!f.is_data()) {
    ++m_stats.info_frames_received;
  } else if (f.channel >= kChannels) {
    m_log.warning("data frame for channel " + std::to_string(f.channel) + " dropped (" + std::to_string(kChannels) +
                  " channels)");
  } else {
    RxChannel& rx = m_rx[f.channel];
    const uint32_t expected = rx.any ? rx.last_seq + 1 : 0;
    if (rx.any && f.seq == rx.last_seq) {
      // Its ack was lost: acknowledge again, drop the data.
      ++m_stats.duplicates;
      ++m_ch_stats[f.channel].duplicates;
      rx.ack_pending = true;
      raise(MLCX_EV_DUPLICATE);
    } else if (f.seq == expected) {
      accept(rx, f.channel, f);
    } else {
      m_log.warning("data frame " + f.describe() + " out of sequence (expected " + std::to_string(expected) +
                    "), dropped");
    }
  }
  m_wake.notify(SC_ZERO_TIME);
}

void MlxEngine::accept(RxChannel& rx, unsigned ch, const MlxFrame& f) {
  const unsigned n = f.packet_count();
  std::vector<uint8_t>& data = m_rx_bytes;  // reused: no allocation per frame
  data.clear();
  for (unsigned i = 0; i < n; ++i) {
    const uint8_t* p = f.packets.data() + size_t(i) * MLX_PACKET_BYTES;
    data.insert(data.end(), p, p + rx.depacketizer.take(p));
  }
  if (data.size() > m_buf.rx_free(ch))
    throw std::logic_error(std::string(name()) + ": credit overrun on RX channel " + std::to_string(ch) + ": " +
                           std::to_string(data.size()) + " bytes for " + std::to_string(m_buf.rx_free(ch)) + " free (" +
                           f.describe() + ")");
  m_buf.rx_push(ch, data.data(), static_cast<unsigned>(data.size()));
  rx.any = true;
  rx.last_seq = f.seq;
  rx.accepted += n;
  rx.ack_pending = true;
  ++m_stats.data_frames_received;
  m_stats.packets_received += n;
  if (m_probe)
    for (MessageId id : f.message_ids) m_probe(MessagePoint::LinkIn, id, sc_core::sc_time_stamp().value());
  ChannelStats& cs = m_ch_stats[ch];
  ++cs.data_frames_received;
  cs.packets_received += n;
  cs.payload_bytes_received += data.size();
}

}  // namespace m2
