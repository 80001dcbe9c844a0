#include "ni/netbuf.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include <ip/mlx.h>

#include "core/log.h"
#include "ni/mlx_packets.h"

namespace m2 {

namespace {

// The link's packet: the loopback moves at most this much per step.
constexpr unsigned kPacketBytes = 32;

}  // namespace

NetBuf::NetBuf(sc_core::sc_module_name name)
    : Peripheral(name),
      data("data"),
      total_bytes(this->name(), "total_bytes", 8192, "B", "size of the FIFO memory shared by the channels",
                  Range<uint64_t>{16, 1u << 24}),
      channel_bytes(this->name(), "channel_bytes", 2048, "B",
                    "capacity of each of the 2 TX and 2 RX channels; 4 x channel_bytes <= total_bytes",
                    Range<uint64_t>{4, 1u << 22}),
      clock_mhz(this->name(), "clock_mhz", 100.0, "MHz", "clock of the FIFO memory port (assumed: the FPGA's 100 MHz)",
                Range<double>{1, 1000}),
      width_bytes(this->name(), "width_bytes", 16, "B",
                  "bytes the FIFO port moves per clock (calibrated: 128 bit, four Virtex-II block RAMs side by side)",
                  Range<uint64_t>{1, 64}),
      access_cycles(this->name(), "access_cycles", 1, "cycles",
                    "fixed cost of one window access before its first word (calibrated: a block RAM reads in one "
                    "clock)",
                    Range<uint64_t>{0, 1000}),
      loopback(this->name(), "loopback", false, "", "move TX channel c's data into RX channel c (no link: testing)"),
      loopback_mbyte_per_s(this->name(), "loopback_mbyte_per_s", 400.0, "MB/s",
                           "loopback rate, shared by the channels (0: instant); default the 3.2 Gbit/s link",
                           Range<double>{0, 1e6}) {
  if (4 * channel_bytes.get() > total_bytes.get()) {
    char msg[256];
    std::snprintf(msg, sizeof msg,
                  "%s: 4 channels of channel_bytes = %" PRIu64 " need %" PRIu64
                  " bytes, more than total_bytes = %" PRIu64,
                  this->name(), channel_bytes.get(), 4 * channel_bytes.get(), total_bytes.get());
    throw ConfigError(msg);
  }
  for (unsigned c = 0; c < kChannels; ++c) {
    m_tx[c].fifo = ByteFifo(channel_bytes.get());
    m_rx[c].fifo = ByteFifo(channel_bytes.get());
  }
  m_cycle = sc_core::sc_time(1000.0 / clock_mhz.get(), sc_core::SC_NS);
  const unsigned width = signal_width_for(capacity());
  for (unsigned c = 0; c < kChannels; ++c) {
    const std::string n = std::to_string(c);
    m_signals.emplace_back(this, "tx" + n + "_used", width, [this, c] { return uint64_t(tx_available(c)); });
    m_signals.emplace_back(this, "rx" + n + "_used", width, [this, c] { return uint64_t(rx_available(c)); });
  }
  data.register_b_transport(this, &NetBuf::b_transport_data);
  data.register_transport_dbg(this, &NetBuf::transport_dbg_data);
  add_registers();
  if (loopback.get()) SC_THREAD(loopback_thread);
}

void NetBuf::add_registers() {
  bank().add(
      NETBUF_CHANNEL_BYTES, "CHANNEL_BYTES", [this] { return capacity(); }, nullptr);
  bank().add(NETBUF_FLUSH, "FLUSH", nullptr, [this](uint32_t v) {
    for (unsigned c = 0; c < kChannels; ++c) {
      if (v & NETBUF_CH_TX(c)) flush_tx(c);
      if (v & NETBUF_CH_RX(c)) flush_rx(c);
    }
  });
  bank().add(
      NETBUF_IRQ_LEVELS, "IRQ_LEVELS", [this] { return irq_levels(); }, nullptr);
  for (unsigned c = 0; c < kChannels; ++c) {
    const std::string tx_n = "TX" + std::to_string(c) + "_", rx_n = "RX" + std::to_string(c) + "_";
    Channel& t = m_tx[c];
    Channel& r = m_rx[c];
    bank().add(
        NETBUF_TX_FREE(c), tx_n + "FREE", [this, c] { return tx_free(c); }, nullptr);
    bank().add(
        NETBUF_TX_USED(c), tx_n + "USED", [this, c] { return tx_available(c); }, nullptr);
    bank().add(
        NETBUF_TX_THRESHOLD(c), tx_n + "THRESHOLD", [&t] { return t.threshold; },
        [this, &t](uint32_t v) {
          t.threshold = v;
          update_irqs();
        });
    bank().add(
        NETBUF_TX_BYTES_IN(c), tx_n + "BYTES_IN", [&t] { return uint32_t(t.bytes_in); }, nullptr);
    bank().add(
        NETBUF_TX_BYTES_OUT(c), tx_n + "BYTES_OUT", [&t] { return uint32_t(t.bytes_out); }, nullptr);
    bank().add(
        NETBUF_RX_AVAIL(c), rx_n + "AVAIL", [this, c] { return rx_available(c); }, nullptr);
    bank().add(
        NETBUF_RX_FREE(c), rx_n + "FREE", [this, c] { return rx_free(c); }, nullptr);
    bank().add(
        NETBUF_RX_THRESHOLD(c), rx_n + "THRESHOLD", [&r] { return r.threshold; },
        [this, &r](uint32_t v) {
          r.threshold = v;
          update_irqs();
        });
    bank().add(
        NETBUF_RX_BYTES_IN(c), rx_n + "BYTES_IN", [&r] { return uint32_t(r.bytes_in); }, nullptr);
    bank().add(
        NETBUF_RX_BYTES_OUT(c), rx_n + "BYTES_OUT", [&r] { return uint32_t(r.bytes_out); }, nullptr);
  }
}

// ------------------------------------------------------------------ C++ API

NetBuf::Channel& NetBuf::tx(unsigned ch) {
  if (ch >= kChannels) throw std::out_of_range(std::string(name()) + ": no TX channel " + std::to_string(ch));
  return m_tx[ch];
}
NetBuf::Channel& NetBuf::rx(unsigned ch) {
  if (ch >= kChannels) throw std::out_of_range(std::string(name()) + ": no RX channel " + std::to_string(ch));
  return m_rx[ch];
}
const NetBuf::Channel& NetBuf::tx(unsigned ch) const { return const_cast<NetBuf*>(this)->tx(ch); }
const NetBuf::Channel& NetBuf::rx(unsigned ch) const { return const_cast<NetBuf*>(this)->rx(ch); }

unsigned NetBuf::tx_free(unsigned ch) const { return static_cast<unsigned>(tx(ch).fifo.free()); }
unsigned NetBuf::tx_available(unsigned ch) const { return static_cast<unsigned>(tx(ch).fifo.size()); }
unsigned NetBuf::rx_free(unsigned ch) const { return static_cast<unsigned>(rx(ch).fifo.free()); }
unsigned NetBuf::rx_available(unsigned ch) const { return static_cast<unsigned>(rx(ch).fifo.size()); }

void NetBuf::push(Channel& c, const uint8_t* src, unsigned n) {
  c.fifo.push(src, n);
  if (n == 0) return;
  c.bytes_in += n;
  c.data_event.notify(sc_core::SC_ZERO_TIME);
  update_irqs();
}

void NetBuf::pop(Channel& c, uint8_t* dst, unsigned n) {
  c.fifo.pop(dst, n);
  if (n == 0) return;
  c.bytes_out += n;
  c.space_event.notify(sc_core::SC_ZERO_TIME);
  update_irqs();
}

void NetBuf::tx_pop(unsigned ch, uint8_t* dst, unsigned n) { pop(tx(ch), dst, n); }
void NetBuf::rx_push(unsigned ch, const uint8_t* src, unsigned n) { push(rx(ch), src, n); }
void NetBuf::tx_peek(unsigned ch, uint8_t* dst, unsigned n) const { tx(ch).fifo.peek(dst, n); }
void NetBuf::tx_push(unsigned ch, const uint8_t* src, unsigned n) {
  push(tx(ch), src, n);
  if (m_probe)
    follow(m_tx_streams[ch], src, n, MessagePoint::Count, MessagePoint::TxPushed, sc_core::sc_time_stamp().value());
}

// Messages follow each other without gaps; each starts with its MLX header
// (the length) and, for MMP chunks, the rest of the 32-byte wire header.
void NetBuf::follow(Stream& s, const uint8_t* data, unsigned n, MessagePoint named, MessagePoint ended,
                    uint64_t time_ps) {
  const uint64_t head_bytes = s.head.size();
  while (n > 0) {
    const uint64_t end = s.total ? s.total : MLX_HEADER_BYTES;  // a header first: its length
    const unsigned take = static_cast<unsigned>(std::min<uint64_t>(n, end - s.pos));
    if (s.pos < head_bytes)
      std::memcpy(s.head.data() + s.pos, data, static_cast<size_t>(std::min<uint64_t>(take, head_bytes - s.pos)));
    const uint64_t before = s.pos;
    s.pos += take;
    data += take;
    n -= take;
    if (!s.total && s.pos == MLX_HEADER_BYTES) s.total = MlxHeader::read(s.head.data()).total_bytes();
    if (!s.total) continue;
    const uint64_t header = std::min(s.total, head_bytes);
    if (before < header && s.pos >= header) {
      s.id = m_probe.observer->identify(s.head.data(), static_cast<size_t>(header));
      if (named != MessagePoint::Count) m_probe(named, s.id, time_ps);
    }
    if (s.pos == s.total) {
      if (ended != MessagePoint::Count) m_probe(ended, s.id, time_ps);
      s = Stream{};
    }
  }
}
void NetBuf::rx_pop(unsigned ch, uint8_t* dst, unsigned n) { pop(rx(ch), dst, n); }
void NetBuf::rx_peek(unsigned ch, unsigned offset, uint8_t* dst, unsigned n) const { rx(ch).fifo.peek(dst, n, offset); }

void NetBuf::flush_tx(unsigned ch) {
  Channel& c = tx(ch);
  c.fifo.clear();
  m_tx_streams.at(ch) = Stream{};
  c.space_event.notify(sc_core::SC_ZERO_TIME);
  update_irqs();
}

void NetBuf::flush_rx(unsigned ch) {
  Channel& c = rx(ch);
  c.fifo.clear();
  m_rx_streams.at(ch) = Stream{};
  c.space_event.notify(sc_core::SC_ZERO_TIME);
  update_irqs();
}

sc_core::sc_time NetBuf::access_time(unsigned bytes) const {
  const uint64_t w = width_bytes.get();
  return m_cycle * static_cast<double>(access_cycles.get() + (bytes + w - 1) / w);
}

uint32_t NetBuf::irq_levels() const {
  uint32_t v = 0;
  for (unsigned c = 0; c < kChannels; ++c) {
    if (irq_tx[c].level()) v |= NETBUF_CH_TX(c);
    if (irq_rx[c].level()) v |= NETBUF_CH_RX(c);
  }
  return v;
}

void NetBuf::update_irqs() {
  for (unsigned c = 0; c < kChannels; ++c) {
    irq_tx[c].set(m_tx[c].threshold != 0 && m_tx[c].fifo.free() >= m_tx[c].threshold);
    irq_rx[c].set(m_rx[c].threshold != 0 && m_rx[c].fifo.size() >= m_rx[c].threshold);
  }
}

// ------------------------------------------------------------- bus side

bool NetBuf::decode(uint64_t offset, unsigned len, Window& w) const {
  constexpr uint64_t rx_start = NI_NETBUF_RX_WINDOW(0) - NI_NETBUF_DATA_BASE;
  w.tx = offset < rx_start;
  const uint64_t rel = w.tx ? offset : offset - rx_start;
  w.ch = static_cast<unsigned>(rel / NI_NETBUF_WINDOW_SIZE);
  // The access must lie in one window.
  return w.ch < kChannels && len <= NI_NETBUF_WINDOW_SIZE - rel % NI_NETBUF_WINDOW_SIZE;
}

void NetBuf::refuse(tlm::tlm_generic_payload& t, tlm::tlm_response_status status, const std::string& why) {
  char msg[320];
  std::snprintf(msg, sizeof msg, "%u-byte %s at window offset 0x%" PRIx64 " refused: %s", t.get_data_length(),
                t.is_read() ? "read" : "write", static_cast<uint64_t>(t.get_address()), why.c_str());
  m_last_error = m_log.name() + ": " + msg;
  m_log.warning(msg);
  t.set_response_status(status);
}

void NetBuf::b_transport_data(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  if (t.get_command() == tlm::TLM_IGNORE_COMMAND) {
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  const unsigned len = t.get_data_length();
  Window w;
  if (!decode(t.get_address(), len, w))
    return refuse(t, tlm::TLM_ADDRESS_ERROR_RESPONSE, "not inside one channel window");
  if (t.get_byte_enable_ptr()) return refuse(t, tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE, "byte enables are not supported");
  const std::string ch = (w.tx ? "TX channel " : "RX channel ") + std::to_string(w.ch);
  char why[160];
  if (w.tx) {
    if (!t.is_write()) return refuse(t, tlm::TLM_COMMAND_ERROR_RESPONSE, ch + " window is write-only");
    const unsigned free = tx_free(w.ch);
    if (len > free) {
      std::snprintf(why, sizeof why, "%s overflow: %u bytes asked, %u bytes free", ch.c_str(), len, free);
      return refuse(t, tlm::TLM_GENERIC_ERROR_RESPONSE, why);
    }
    push(m_tx[w.ch], t.get_data_ptr(), len);
    if (m_probe)
      follow(m_tx_streams[w.ch], t.get_data_ptr(), len, MessagePoint::Count, MessagePoint::TxPushed,
             sc_core::sc_time_stamp().value());
  } else {
    if (!t.is_read()) return refuse(t, tlm::TLM_COMMAND_ERROR_RESPONSE, ch + " window is read-only");
    const unsigned avail = rx_available(w.ch);
    if (len > avail) {
      std::snprintf(why, sizeof why, "%s underflow: %u bytes asked, %u bytes available", ch.c_str(), len, avail);
      return refuse(t, tlm::TLM_GENERIC_ERROR_RESPONSE, why);
    }
    pop(m_rx[w.ch], t.get_data_ptr(), len);
    if (m_probe)
      follow(m_rx_streams[w.ch], t.get_data_ptr(), len, MessagePoint::RxHeader, MessagePoint::Count,
             (sc_core::sc_time_stamp() + delay).value());
  }
  delay += access_time(len);
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

// Debug reads peek at a channel's oldest bytes without popping them; debug
// writes are not supported (they would have to push).
unsigned NetBuf::transport_dbg_data(tlm::tlm_generic_payload& t) {
  Window w;
  if (!t.is_read() || !decode(t.get_address(), 0, w)) return 0;
  const ByteFifo& f = (w.tx ? m_tx : m_rx)[w.ch].fifo;
  const unsigned n = std::min<unsigned>(t.get_data_length(), static_cast<unsigned>(f.size()));
  f.peek(t.get_data_ptr(), n);
  return n;
}

// ------------------------------------------------------------- loopback

// Stands in for the link: moves one packet at a time from TX channel c to RX
// channel c, the channels taking turns on one link; a packet leaves TX when
// it has been sent.
void NetBuf::loopback_thread() {
  const double ns_per_byte = loopback_mbyte_per_s.get() > 0 ? 1000.0 / loopback_mbyte_per_s.get() : 0.0;
  unsigned next = 0;
  std::array<uint8_t, kPacketBytes> buf;
  sc_core::sc_event_or_list any_change;
  for (unsigned c = 0; c < kChannels; ++c) any_change |= m_tx[c].data_event, any_change |= m_rx[c].space_event;
  for (;;) {
    bool moved = false;
    for (unsigned i = 0; i < kChannels; ++i) {
      const unsigned c = (next + i) % kChannels;
      unsigned n = std::min({kPacketBytes, tx_available(c), rx_free(c)});
      if (n == 0) continue;
      if (ns_per_byte > 0) {
        wait(sc_core::sc_time(n * ns_per_byte, sc_core::SC_NS));
        n = std::min({n, tx_available(c), rx_free(c)});  // a flush may have intervened
      }
      tx_pop(c, buf.data(), n);
      rx_push(c, buf.data(), n);
      next = c + 1;
      moved = true;
      break;
    }
    if (!moved) wait(any_change);
  }
}

std::string NetBuf::describe_levels() const {
  std::string r = std::string(name()) + ": channel bytes used of " + std::to_string(capacity()) + "\n";
  for (unsigned ch = 0; ch < m_tx.size(); ++ch)
    r += "  channel " + std::to_string(ch) + ": TX " + std::to_string(tx_available(ch)) + ", RX " +
         std::to_string(rx_available(ch)) + "\n";
  return r;
}

}  // namespace m2
