#include "switchbox/switch_controller.h"

#include <algorithm>
#include <cstdio>

#include "core/bytes.h"
#include "core/params.h"
#include "ni/netbuf.h"

namespace m2 {

namespace {

std::string where(unsigned port, unsigned ch) { return "port " + std::to_string(port) + " ch " + std::to_string(ch); }

}  // namespace

SwitchController::SwitchController(sc_core::sc_module_name name, const Config& config, std::vector<NetBuf*> ports,
                                   BoundedFifo<SbRequest>& requests, SwitchingBus& bus)
    : sc_module(name),
      m_mode(config.mode),
      m_burst(config.burst_bytes),
      m_fetch_latency(config.fetch_latency),
      m_ports(std::move(ports)),
      m_requests(requests),
      m_bus(bus),
      m_transfer_master("bus_master", bus, std::string(this->name()) + ".transfer_unit"),
      m_stations(config.stations),
      m_expected(m_ports.size()),
      m_dest_owner(m_ports.size(), {0, 0}),
      m_occupancy(config.stations + 1) {
  if (config.stations == 0) throw ConfigError(std::string(this->name()) + ": at least one reservation station");
  if (m_burst == 0 || m_burst % MLX_PACKET_BYTES != 0)
    throw ConfigError(std::string(this->name()) + ": burst of " + std::to_string(m_burst) +
                      " bytes is not a whole number of packets");
  m_wake |= m_fetched;
  for (NetBuf* p : m_ports) {
    for (unsigned ch = 0; ch < NetBuf::kChannels; ++ch) {
      m_wake |= p->rx_data_event(ch);
      m_wake |= p->tx_space_event(ch);
    }
  }
  m_trace.push_back({sc_core::SC_ZERO_TIME, 0});
  SC_THREAD(fetch_unit);
  SC_THREAD(transfer_unit);
}

// --- request buffer side ---------------------------------------------------

void SwitchController::message_seen(const SbHeader& h) {
  m_expected.at(h.port).at(h.channel).push_back(h);
  m_stats.headers++;
}

std::string SwitchController::check(const SbRequest& r) const {
  const unsigned ports = static_cast<unsigned>(m_ports.size());
  if (m_requests.full()) return "request buffer full (" + std::to_string(m_requests.depth()) + " entries)";
  if (r.port >= ports)
    return "source port " + std::to_string(r.port) + " out of range (" + std::to_string(ports) + " ports)";
  if (r.channel >= NetBuf::kChannels) return "source channel " + std::to_string(r.channel) + " out of range";
  const auto& expected = m_expected[r.port][r.channel];
  if (expected.empty()) return "no analyzed message waiting on " + where(r.port, r.channel);
  if (r.bytes != expected.front().bytes())
    return "REQ_BYTES " + std::to_string(r.bytes) + " but the next message on " + where(r.port, r.channel) + " has " +
           std::to_string(expected.front().bytes()) + " bytes";
  if (r.discard) return "";
  if (r.dest_mask == 0) return "empty destination mask without the discard flag";
  if (ports < 32 && (r.dest_mask >> ports) != 0)
    return "destination mask " + hex(r.dest_mask) + " names ports beyond " + std::to_string(ports - 1);
  return "";
}

void SwitchController::accept(SbRequest r, sc_core::sc_time at) {
  const SbHeader h = m_expected.at(r.port).at(r.channel).front();
  m_expected[r.port][r.channel].pop_front();
  r.id = m_next_id++;
  r.word0 = h.word0;
  r.word1 = h.word1;
  r.msg = h.msg;
  if (r.discard) r.dest_mask = 0;
  r.accepted = at;
  if (!r.discard) m_probe(MessagePoint::SbRequest, r.msg, at.value());
  m_stats.requests++;
  m_requests.push(r);
}

// --- request fetch unit ----------------------------------------------------

void SwitchController::fetch_unit() {
  auto free_station = [this] {
    return std::find_if(m_stations.begin(), m_stations.end(), [](const auto& s) { return !s; });
  };
  for (;;) {
    // Only the request buffer (a push) and the stations (a completion) change
    // what can be fetched; the chosen entry stays fetchable meanwhile.
    int i = -1;
    while (free_station() == m_stations.end() || (i = fetchable()) < 0) wait(m_requests.data_event() | m_station_freed);
    if (m_fetch_latency != sc_core::SC_ZERO_TIME) wait(m_fetch_latency);
    SbRequest r = m_requests.take(static_cast<size_t>(i));
    r.fetched = sc_core::sc_time_stamp();
    *free_station() = r;
    set_occupied(m_occupied + 1);
    m_fetched.notify(sc_core::SC_ZERO_TIME);
  }
}

int SwitchController::fetchable() const {
  if (m_requests.empty()) return -1;
  if (m_mode == Mode::InOrder) return 0;  // strictly the oldest
  // Out of order: the oldest request that could run on its own. Skipped: a
  // request whose source channel has an older request (in a station or
  // earlier in the buffer: its bytes come first), one that shares a
  // destination channel with a request in a station (it could only wait for
  // it), and one that goes up while only one station is left for the others.
  unsigned up = 0;
  for (const auto& o : m_stations)
    if (o && goes_up(*o)) ++up;
  const bool up_room = m_stations.size() < 2 || up + 1 < m_stations.size();
  uint32_t earlier = 0;  // source channels seen earlier in the buffer
  for (size_t i = 0; i < m_requests.size(); ++i) {
    const SbRequest& r = m_requests.at(i);
    const uint32_t src = 1u << (r.port * NetBuf::kChannels + r.channel);
    const bool behind = (earlier & src) != 0;
    earlier |= src;
    if (behind) continue;
    bool blocked = false;
    for (const auto& o : m_stations) {
      if (!o) continue;
      if ((o->port == r.port && o->channel == r.channel) || (o->channel == r.channel && (o->dest_mask & r.dest_mask)))
        blocked = true;
    }
    if (blocked || (goes_up(r) && !up_room)) continue;
    return static_cast<int>(i);
  }
  return -1;
}

// A source channel's bit in SB_SRC_QUEUED / SB_SRC_BUSY.
static uint32_t source_bit(const SbRequest& r) { return 1u << (r.port * NetBuf::kChannels + r.channel); }

uint32_t SwitchController::queued_sources() const {
  uint32_t queued = 0;
  for (size_t i = 0; i < m_requests.size(); ++i) queued |= source_bit(m_requests.at(i));
  return queued;
}

uint32_t SwitchController::busy_sources() const {
  uint32_t busy = queued_sources();
  for (const auto& o : m_stations)
    if (o) busy |= source_bit(*o);
  return busy;
}

// --- transfer unit ---------------------------------------------------------

void SwitchController::transfer_unit() {
  for (;;) {
    const int s = pick();
    if (s < 0) {
      wait(m_wake);
      continue;
    }
    serve(static_cast<unsigned>(s));
  }
}

int SwitchController::pick() const {
  int best = -1;
  for (unsigned i = 0; i < m_stations.size(); ++i) {
    const auto& r = m_stations[i];
    if (!r) continue;
    // Out of order: only a request that can move a packet now.
    if (m_mode == Mode::OutOfOrder && !(is_source_head(*r) && destinations_free(*r) && movable(*r) > 0)) continue;
    if (best < 0 || r->id < m_stations[best]->id) best = static_cast<int>(i);
  }
  return best;
}

void SwitchController::serve(unsigned station) {
  SbRequest& r = *m_stations[station];
  m_active = static_cast<int>(station);
  bool stalled = false;
  for (;;) {
    // In order the request served is the oldest: it heads its source and no
    // other request owns a channel.
    const uint32_t n = movable(r);
    if (n > 0) {
      if (!r.started) {
        r.started = true;
        for (unsigned d = 0; d < m_ports.size(); ++d)
          if (r.dest_mask & (1u << d)) m_dest_owner[d][r.channel] = r.id;
      }
      stalled = false;
      move(r, n);
      if (r.moved == r.bytes) {
        complete(station);
        break;
      }
      continue;
    }
    if (!stalled) {
      stalled = true;
      r.stalls++;
      m_stats.stalls++;
    }
    if (m_mode == Mode::OutOfOrder) break;  // back to its station
    wait(m_wake);
  }
  m_active = -1;
}

bool SwitchController::is_source_head(const SbRequest& r) const {
  for (const auto& o : m_stations)
    if (o && o->id < r.id && o->port == r.port && o->channel == r.channel) return false;
  return true;
}

bool SwitchController::destinations_free(const SbRequest& r) const {
  for (unsigned d = 0; d < m_ports.size(); ++d) {
    const uint64_t owner = m_dest_owner[d][r.channel];
    if ((r.dest_mask & (1u << d)) && owner != 0 && owner != r.id) return false;
  }
  return true;
}

uint32_t SwitchController::movable(const SbRequest& r) const {
  const uint32_t remaining = r.bytes - r.moved;
  uint64_t n = std::min<uint64_t>({remaining, m_ports[r.port]->rx_available(r.channel), m_burst});
  for (unsigned d = 0; d < m_ports.size(); ++d)
    if (r.dest_mask & (1u << d)) n = std::min<uint64_t>(n, m_ports[d]->tx_free(r.channel));
  // Whole packets; only the message's tail may be shorter.
  if (n < remaining) n -= n % MLX_PACKET_BYTES;
  return static_cast<uint32_t>(n);
}

void SwitchController::move(SbRequest& r, uint32_t n) {
  // The data moves at the end of the transfer. Neither side can shrink
  // meanwhile: only this unit pops the source and fills owned destinations.
  // The bus transfer carries the bytes it moves (read from the source, which
  // gives them up only once they are written).
  m_buffer.resize(n);
  if (!r.discard) {
    if (r.moved == 0) m_probe(MessagePoint::SbMoveStart, r.msg, sc_core::sc_time_stamp().value());
    m_ports[r.port]->rx_peek(r.channel, 0, m_buffer.data(), n);
    m_transfer_master.transfer(r.dest_mask, m_buffer.data(), n);
    m_stats.transfers++;
  }
  m_ports[r.port]->rx_pop(r.channel, m_buffer.data(), n);
  for (unsigned d = 0; d < m_ports.size(); ++d) {
    if (!(r.dest_mask & (1u << d))) continue;
    m_ports[d]->tx_push(r.channel, m_buffer.data(), n);
    m_stats.bytes_out += n;
  }
  r.moved += n;
  m_stats.bytes_in += n;
  if (!r.discard) m_probe(MessagePoint::SbMoveEnd, r.msg, sc_core::sc_time_stamp().value());
}

void SwitchController::complete(unsigned station) {
  const SbRequest& r = *m_stations[station];
  for (unsigned d = 0; d < m_ports.size(); ++d)
    if (m_dest_owner[d][r.channel] == r.id) m_dest_owner[d][r.channel] = 0;
  if (r.discard) m_stats.discards++;
  else m_stats.messages++;
  m_stations[station].reset();
  set_occupied(m_occupied - 1);
  m_station_freed.notify(sc_core::SC_ZERO_TIME);
  if (m_on_complete) m_on_complete();
}

// --- statistics and state --------------------------------------------------

unsigned SwitchController::occupied() const { return m_occupied; }

void SwitchController::set_occupied(unsigned n) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  m_occupancy[m_occupied] += now - m_occupied_since;
  m_occupied_since = now;
  m_occupied = n;
  m_trace.push_back({now, n});
}

std::vector<sc_core::sc_time> SwitchController::occupancy_time() const {
  std::vector<sc_core::sc_time> t = m_occupancy;
  t[m_occupied] += sc_core::sc_time_stamp() - m_occupied_since;
  return t;
}

std::string SwitchController::blocker(const SbRequest& r) const {
  for (const auto& o : m_stations)
    if (o && o->id < r.id && o->port == r.port && o->channel == r.channel)
      return "behind request #" + std::to_string(o->id) + " of the same source channel";
  if (m_mode == Mode::InOrder && m_active >= 0 && m_stations[m_active] && m_stations[m_active]->id != r.id)
    return "in order behind request #" + std::to_string(m_stations[m_active]->id);
  for (unsigned d = 0; d < m_ports.size(); ++d) {
    const uint64_t owner = m_dest_owner[d][r.channel];
    if ((r.dest_mask & (1u << d)) && owner != 0 && owner != r.id)
      return where(d, r.channel) + " TX owned by request #" + std::to_string(owner);
  }
  const uint32_t remaining = r.bytes - r.moved;
  const uint32_t need = std::min<uint32_t>(remaining, MLX_PACKET_BYTES);
  const unsigned have = m_ports[r.port]->rx_available(r.channel);
  if (have < need)
    return "data: " + where(r.port, r.channel) + " RX holds " + std::to_string(have) + " of the " +
           std::to_string(need) + " bytes needed";
  for (unsigned d = 0; d < m_ports.size(); ++d) {
    if (!(r.dest_mask & (1u << d))) continue;
    const unsigned room = m_ports[d]->tx_free(r.channel);
    if (room < need)
      return "room: " + where(d, r.channel) + " TX has " + std::to_string(room) + " of the " + std::to_string(need) +
             " bytes needed free";
  }
  return "ready";
}

std::string SwitchController::describe() const {
  std::string s = "  " + std::string(name()) + ": " + (m_mode == Mode::InOrder ? "in-order" : "out-of-order") + ", " +
                  std::to_string(m_occupied) + "/" + std::to_string(m_stations.size()) +
                  " stations occupied, up ports " + hex(m_up_ports) + ", switching bus " + m_bus.describe() + "\n";
  s += "    request buffer: " + std::to_string(m_requests.size()) + "/" + std::to_string(m_requests.depth()) + "\n";
  for (size_t i = 0; i < m_requests.size(); ++i) {
    const SbRequest& r = m_requests.at(i);
    s += "      #" + std::to_string(r.id) + " " + where(r.port, r.channel) + " -> " +
         (r.discard ? std::string("discard") : "ports " + hex(r.dest_mask)) + ", " + std::to_string(r.bytes) +
         " bytes\n";
  }
  std::string free;
  for (unsigned i = 0; i < m_stations.size(); ++i) {
    const auto& r = m_stations[i];
    if (!r) {
      free += " " + std::to_string(i);
      continue;
    }
    s += "    station " + std::to_string(i) + ": #" + std::to_string(r->id) + " " + where(r->port, r->channel) +
         " -> " + (r->discard ? std::string("discard") : "ports " + hex(r->dest_mask)) + ", " +
         std::to_string(r->moved) + "/" + std::to_string(r->bytes) + " bytes" +
         (static_cast<int>(i) == m_active ? ", active" : "") + "; waits for: " + blocker(*r) + "\n";
  }
  if (!free.empty()) s += "    free stations:" + free + "\n";
  return s;
}

}  // namespace m2
