// A message analyzer (one per SB interface, i.e. per two ports): it follows
// the byte stream of each RX channel of its ports, recognises where each
// message starts (messages follow each other without gaps; the header says
// how long each is) and, once a message's 8-byte header is in the channel,
// puts it with its port and channel into the header buffer. The data stays
// in the channel for the transfer unit. Extraction takes `latency`, then the
// header crosses the switching bus into the header buffer (the analyzer is a
// master of the bus: switching_bus_master.h); a full header buffer stalls the
// analyzer. See docs/models/message-analyzer.md.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

#include "switchbox/bounded_fifo.h"
#include "switchbox/switch_request.h"
#include "switchbox/switching_bus.h"
#include "switchbox/switching_bus_master.h"
#include "trace/message_tag.h"

namespace m2 {

class NetBuf;

class MessageAnalyzer : public sc_core::sc_module {
 public:
  struct Port {
    NetBuf* buffer;
    unsigned number;  // the switch box's port number
  };

  SC_HAS_PROCESS(MessageAnalyzer);
  // `on_header` is called for each header right after it entered `headers`.
  MessageAnalyzer(sc_core::sc_module_name name, std::vector<Port> ports, BoundedFifo<SbHeader>& headers,
                  SwitchingBus& bus, sc_core::sc_time latency, std::function<void(const SbHeader&)> on_header);

  uint64_t headers() const { return m_count; }
  // Message tracing: names each header's message from the wire header in
  // the channel and reports it in the header buffer (MessagePoint::SbHeader).
  void set_message_probe(MessageProbe probe) { m_probe = probe; }
  // Per channel: where the next header starts and how much of it is there.
  std::string describe() const;

 private:
  struct Stream {
    NetBuf* buffer;
    unsigned port, channel;
    uint64_t next = 0;  // stream offset of the next message's header
  };
  bool header_ready(const Stream& s) const;
  void run();

  std::vector<Stream> m_streams;
  BoundedFifo<SbHeader>& m_headers;
  SwitchingBusMaster m_bus_master;  // reported under the analyzer's name
  sc_core::sc_time m_latency;
  std::function<void(const SbHeader&)> m_on_header;
  sc_core::sc_event_or_list m_data;
  size_t m_turn = 0;  // round-robin between the streams
  uint64_t m_count = 0;
  MessageProbe m_probe;
};

}  // namespace m2
