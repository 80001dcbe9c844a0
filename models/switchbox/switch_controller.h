// The switch controller's data side: the request fetch unit moves requests
// from the request buffer into free reservation stations; the transfer unit
// serves one request at a time, moving its message from the source port's RX
// channel to the same channel of each destination port's TX channel over the
// switching bus, as much per transfer as the source holds and every
// destination has room for (whole 32-byte packets, the message's tail
// excepted, at most burst_bytes), until the message is complete.
//  - in-order: requests are served in the order they came; a stalled request
//    holds the transfer unit until it can go on;
//  - out-of-order: a stalled request goes back to its station and the oldest
//    ready one is served; the stalled one resumes when data or room appears.
// A message's bytes must not interleave with another's in a destination
// channel: a started request owns its destination channels until it is
// complete. Requests of one source channel run in order (their data is in
// that order in the channel).
// Out of order, the fetch unit skips requests that could only wait in a
// station (behind their source channel or a claimed destination) and keeps
// one station for requests that do not go up a cascade (up ports: set_up_ports),
// so up*/down*-routed cascades cannot fill every station of two neighbouring
// boxes with requests for the link between them. See
// docs/models/switch-controller.md.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "switchbox/bounded_fifo.h"
#include "switchbox/switch_request.h"
#include "switchbox/switching_bus.h"
#include "switchbox/switching_bus_master.h"

namespace m2 {

class NetBuf;

class SwitchController : public sc_core::sc_module {
 public:
  enum class Mode { InOrder, OutOfOrder };
  struct Config {
    unsigned stations = 8;
    Mode mode = Mode::OutOfOrder;
    uint64_t burst_bytes = 256;  // most bytes per bus transfer, a multiple of MLX_PACKET_BYTES
    sc_core::sc_time fetch_latency;
  };

  SC_HAS_PROCESS(SwitchController);
  SwitchController(sc_core::sc_module_name name, const Config& config, std::vector<NetBuf*> ports,
                   BoundedFifo<SbRequest>& requests, SwitchingBus& bus);

  // The analyzers saw the next message of (h.port, h.channel).
  void message_seen(const SbHeader& h);
  // Why `r` cannot be accepted into the request buffer, "" if it can.
  std::string check(const SbRequest& r) const;
  // Accepts a checked request, pushed at time `at`: numbers it and puts it
  // into the request buffer.
  void accept(SbRequest r, sc_core::sc_time at);
  void refused() { m_stats.refused++; }

  // Message tracing (docs/models/message-breakdown.md): reports each traced
  // request's push (MessagePoint::SbRequest) and its moves over the
  // switching bus (SbMoveStart before the first, SbMoveEnd after each).
  void set_message_probe(MessageProbe probe) { m_probe = probe; }
  // Ports cabled towards the root of the up*/down* tree (bit p = port p;
  // SB_UP_PORTS, written by the firmware from the routing tables).
  void set_up_ports(uint32_t mask) { m_up_ports = mask; }
  uint32_t up_ports() const { return m_up_ports; }
  // Source channels with a request in the request buffer or a station: bit
  // port * NetBuf::kChannels + channel (SB_SRC_BUSY).
  uint32_t busy_sources() const;
  // Source channels with a request in the request buffer, stations not
  // counted (SB_SRC_QUEUED): the firmware's reservation of buffer entries.
  uint32_t queued_sources() const;
  // Called when a request leaves its station (the register side's interrupt).
  void on_complete(std::function<void()> f) { m_on_complete = std::move(f); }

  struct Stats {
    uint64_t headers = 0;    // messages the analyzers saw
    uint64_t requests = 0;   // requests accepted
    uint64_t refused = 0;    // request pushes refused
    uint64_t messages = 0;   // switched to every destination
    uint64_t discards = 0;   // consumed by discard requests
    uint64_t transfers = 0;  // bus transfers of the transfer unit
    uint64_t bytes_in = 0;   // taken from source channels (discards included)
    uint64_t bytes_out = 0;  // written to destination channels (once per destination)
    uint64_t stalls = 0;     // a started request could not move a packet
  };
  const Stats& stats() const { return m_stats; }

  unsigned stations() const { return static_cast<unsigned>(m_stations.size()); }
  Mode mode() const { return m_mode; }
  unsigned occupied() const;
  // occupancy_time()[k]: simulated time during which k stations were occupied
  // (up to now).
  std::vector<sc_core::sc_time> occupancy_time() const;
  struct OccupancySample {
    sc_core::sc_time time;
    unsigned occupied;
  };
  // Every change of the number of occupied stations.
  const std::vector<OccupancySample>& occupancy_trace() const { return m_trace; }

  // Stations with their request and what each waits for; the request buffer
  // (lines indented by two spaces).
  std::string describe() const;

 private:
  void fetch_unit();
  int fetchable() const;
  bool goes_up(const SbRequest& r) const { return !r.discard && (r.dest_mask & m_up_ports) != 0; }
  void transfer_unit();
  int pick() const;
  void serve(unsigned station);
  bool is_source_head(const SbRequest& r) const;
  bool destinations_free(const SbRequest& r) const;
  uint32_t movable(const SbRequest& r) const;
  void move(SbRequest& r, uint32_t n);
  void complete(unsigned station);
  void set_occupied(unsigned n);
  std::string blocker(const SbRequest& r) const;

  Mode m_mode;
  uint32_t m_up_ports = 0;
  std::function<void()> m_on_complete;
  uint64_t m_burst;
  sc_core::sc_time m_fetch_latency;
  std::vector<NetBuf*> m_ports;
  BoundedFifo<SbRequest>& m_requests;
  SwitchingBus& m_bus;
  // The transfer unit's port on the bus (module "bus_master": "transfer_unit" is
  // the thread's name), reported as "<controller>.transfer_unit".
  SwitchingBusMaster m_transfer_master;
  std::vector<std::optional<SbRequest>> m_stations;
  int m_active = -1;  // station the transfer unit serves
  // Per port and channel: messages analyzed but not yet requested (their
  // sizes check the firmware's requests), and the request that owns the TX
  // channel (0: none).
  std::vector<std::array<std::deque<SbHeader>, 2>> m_expected;
  std::vector<std::array<uint64_t, 2>> m_dest_owner;
  uint64_t m_next_id = 1;
  sc_core::sc_event m_fetched, m_station_freed;
  sc_core::sc_event_or_list m_wake;  // a station filled, data or room in any port channel
  std::vector<uint8_t> m_buffer;
  Stats m_stats;
  MessageProbe m_probe;
  // Occupancy.
  std::vector<sc_core::sc_time> m_occupancy;
  unsigned m_occupied = 0;
  sc_core::sc_time m_occupied_since;
  std::vector<OccupancySample> m_trace;
};

}  // namespace m2
