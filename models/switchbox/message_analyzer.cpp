#include "switchbox/message_analyzer.h"

#include <algorithm>
#include <utility>

#include "core/bytes.h"
#include "ni/netbuf.h"

namespace m2 {

MessageAnalyzer::MessageAnalyzer(sc_core::sc_module_name name, std::vector<Port> ports, BoundedFifo<SbHeader>& headers,
                                 SwitchingBus& bus, sc_core::sc_time latency,
                                 std::function<void(const SbHeader&)> on_header)
    : sc_module(name),
      m_headers(headers),
      m_bus_master("bus_master", bus, this->name()),
      m_latency(latency),
      m_on_header(std::move(on_header)) {
  for (const Port& p : ports) {
    for (unsigned ch = 0; ch < NetBuf::kChannels; ++ch) {
      m_streams.push_back({p.buffer, p.number, ch});
      m_data |= p.buffer->rx_data_event(ch);
    }
  }
  SC_THREAD(run);
}

bool MessageAnalyzer::header_ready(const Stream& s) const {
  return s.buffer->rx_bytes_in(s.channel) >= s.next + MLX_HEADER_BYTES;
}

void MessageAnalyzer::run() {
  for (;;) {
    Stream* s = nullptr;
    for (size_t i = 0; i < m_streams.size() && !s; ++i) {
      Stream& c = m_streams[(m_turn + i) % m_streams.size()];
      if (header_ready(c)) {
        s = &c;
        m_turn = (m_turn + i + 1) % m_streams.size();
      }
    }
    if (!s) {
      wait(m_data);
      continue;
    }
    // The header is still in the channel: the transfer unit only takes a
    // message's bytes after the firmware has seen its header.
    uint8_t b[MLX_HEADER_BYTES];
    const uint64_t offset = s->next - s->buffer->rx_bytes_out(s->channel);
    s->buffer->rx_peek(s->channel, static_cast<unsigned>(offset), b, MLX_HEADER_BYTES);
    SbHeader h;
    h.port = s->port;
    h.channel = s->channel;
    h.word0 = load_be32(b);
    h.word1 = load_be32(b + 4);
    h.position = s->next;
    if (m_probe) {
      // Packets arrive whole: the header's packet (the wire header) is in.
      uint8_t head[MLX_PACKET_BYTES];
      const unsigned n = std::min<unsigned>(
          {MLX_PACKET_BYTES, h.bytes(), s->buffer->rx_available(s->channel) - static_cast<unsigned>(offset)});
      s->buffer->rx_peek(s->channel, static_cast<unsigned>(offset), head, n);
      h.msg = m_probe.observer->identify(head, n);
    }
    s->next += h.bytes();
    wait(m_latency);
    m_bus_master.transfer(SwitchingBus::kHeaderBuffer, b, MLX_HEADER_BYTES);
    while (m_headers.full()) wait(m_headers.space_event());
    h.seen = sc_core::sc_time_stamp();
    m_headers.push(h);
    m_count++;
    m_probe(MessagePoint::SbHeader, h.msg, h.seen.value());
    if (m_on_header) m_on_header(h);
  }
}

std::string MessageAnalyzer::describe() const {
  // Only the channels that carried something: a watchdog report stays short.
  std::string r = "  " + std::string(name()) + ":";
  bool any = false;
  for (const Stream& s : m_streams) {
    const uint64_t in = s.buffer->rx_bytes_in(s.channel);
    if (in == 0) continue;
    const uint64_t have = in > s.next ? std::min<uint64_t>(in - s.next, MLX_HEADER_BYTES) : 0;
    r += "\n    port " + std::to_string(s.port) + " ch " + std::to_string(s.channel) + ": next header at byte " +
         std::to_string(s.next) + " of the channel's stream, " + std::to_string(have) + "/8 bytes of it in";
    any = true;
  }
  return r + (any ? "\n" : " no traffic yet\n");
}

}  // namespace m2
