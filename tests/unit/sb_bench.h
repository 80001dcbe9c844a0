// A switch box with stand-ins for its links, for the switch-box tests: per
// port and channel a sender thread pushes queued messages into the port's RX
// channel (32-byte packets at a link rate, when there is room) and a drain
// thread pops the port's TX channel (optionally held until some time),
// recording what arrived when. A monitor stops the simulation once every
// sender is done and the switch box is empty. The real routing firmware runs
// on the SB's 603e.
#pragma once

#include <algorithm>
#include <functional>
#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>

#include <ip/mlx.h>

#include "core/params.h"
#include "core/run_control.h"
#include "switchbox/switch_box.h"

#include "test_thread.h"

namespace sbtest {

using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

// The node on port p has network address node(p).
inline uint16_t node(unsigned port) { return static_cast<uint16_t>(0x100 + port); }

struct Message {
  unsigned port = 0, channel = 0;  // where it enters the switch box
  uint16_t dst = 0;
  uint8_t type = MLX_TYPE_UNICAST;
  std::vector<uint8_t> payload;
  sc_time at = sc_core::SC_ZERO_TIME;     // not sent before
  size_t pause_after = 0;                 // with `pause`: stop after this many bytes ...
  sc_time pause = sc_core::SC_ZERO_TIME;  // ... for this long
  uint16_t src() const { return node(port); }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> b(MLX_HEADER_BYTES);
    const uint32_t w0 = MLX_HDR_WORD0(dst, src()), w1 = MLX_HDR_WORD1(type, payload.size());
    for (unsigned i = 0; i < 4; ++i) {
      b[i] = static_cast<uint8_t>(w0 >> (24 - 8 * i));
      b[4 + i] = static_cast<uint8_t>(w1 >> (24 - 8 * i));
    }
    b.insert(b.end(), payload.begin(), payload.end());
    return b;
  }
};

inline std::vector<uint8_t> random_payload(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& x : v) x = static_cast<uint8_t>(rng());
  return v;
}

// A message as a drain parsed it from a TX channel.
struct Received {
  uint16_t src = 0, dst = 0;
  uint8_t type = 0;
  std::vector<uint8_t> payload;
  sc_time first, last;  // when its first and its last byte left the switch box
  unsigned src_port() const { return src - 0x100u; }
};

class Bench {
 public:
  m2::RunControl run;
  std::unique_ptr<m2::SwitchBox> sb;
  double link_mbps = 400;   // sender rate per channel (3.2 Gbit/s); 0: as fast as there is room
  double drain_mbps = 400;  // drain rate per channel; 0: at once

  // `presets`: parameter values relative to the switch box ("mode" ->
  // "in-order"); the SB routing firmware is preset unless given. A second
  // bench in the same simulation passes clear = false and another name.
  explicit Bench(const std::map<std::string, std::string>& presets = {}, m2::TimingStyle timing = m2::TimingStyle::LT,
                 const std::string& name = "sb0", bool clear = true)
      : m_name(name) {
    auto& reg = m2::ParamRegistry::instance();
    if (clear) reg.clear();
    reg.preset(name + ".firmware", std::string(M2VP_TEST_FIRMWARE_DIR) + "/sb_router.elf", {"test"});
    for (const auto& [k, v] : presets) reg.preset(name + "." + k, v, {"test"});
    sb = std::make_unique<m2::SwitchBox>(name.c_str(), run, timing, "");
    tlm::tlm_global_quantum::instance().set(sc_time(1, SC_US));
    const unsigned n = sb->port_count();
    m_streams.resize(n);
    m_held.assign(n, {sc_core::SC_ZERO_TIME, sc_core::SC_ZERO_TIME});
  }

  // Unicast routes: node(p) -> port p for every port.
  void default_routes(m2::SbRoutes r = {}) {
    for (unsigned p = 0; p < sb->port_count(); ++p) r.unicast[node(p)] = p;
    sb->set_routes(r);
  }

  void send(const Message& m) { m_sent.push_back(m); }
  // The drain of (port, ch) pops nothing before `until`.
  void hold_drain(unsigned port, unsigned ch, sc_time until) { m_held.at(port).at(ch) = until; }

  // Calls `f` at simulated time `t` (a probe of the state).
  void at(sc_time t, std::function<void()> f) { m_probes.emplace_back(t, std::move(f)); }

  // Runs until everything sent has left the switch box (or `limit`); true
  // when it got there.
  bool run_all(sc_time limit = sc_time(100, sc_core::SC_MS)) { return run_all({this}, limit); }
  // The same for several benches in one simulation.
  static bool run_all(std::vector<Bench*> benches, sc_time limit = sc_time(100, sc_core::SC_MS)) {
    for (Bench* b : benches) b->prepare();
    static bool done;
    done = false;
    benches.front()->m_threads.push_back(std::make_unique<m2test::TestThread>("monitor", [benches] {
      for (;;) {
        bool all = true;
        for (Bench* b : benches) {
          if (!b->m_done && b->idle()) {
            b->m_done = true;
            b->m_finished_at = sc_core::sc_time_stamp();
          }
          all = all && b->m_done;
        }
        if (all) break;
        sc_core::wait(sc_time(100, SC_NS));
      }
      done = true;
      sc_core::sc_stop();
    }));
    sc_core::sc_start(limit);
    return done;
  }
  // When everything had left the switch box (100 ns resolution).
  sc_time finished_at() const { return m_finished_at; }

  // The messages that left on (port, ch), in order.
  std::vector<Received> received(unsigned port, unsigned ch) const {
    const Stream& s = m_streams.at(port).at(ch);
    std::vector<Received> out;
    size_t off = 0;
    while (off + MLX_HEADER_BYTES <= s.bytes.size()) {
      const uint8_t* h = s.bytes.data() + off;
      const uint32_t w0 = uint32_t(h[0]) << 24 | uint32_t(h[1]) << 16 | uint32_t(h[2]) << 8 | h[3];
      const uint32_t w1 = uint32_t(h[4]) << 24 | uint32_t(h[5]) << 16 | uint32_t(h[6]) << 8 | h[7];
      const size_t total = MLX_HEADER_BYTES + MLX_HDR_LEN(w1);
      if (off + total > s.bytes.size()) break;  // incomplete: left out
      Received r;
      r.src = static_cast<uint16_t>(MLX_HDR_SRC(w0));
      r.dst = static_cast<uint16_t>(MLX_HDR_DST(w0));
      r.type = static_cast<uint8_t>(MLX_HDR_TYPE(w1));
      r.payload.assign(s.bytes.begin() + off + MLX_HEADER_BYTES, s.bytes.begin() + off + total);
      r.first = time_of(s, off);
      r.last = time_of(s, off + total - 1);
      out.push_back(std::move(r));
      off += total;
    }
    return out;
  }
  size_t bytes_out(unsigned port, unsigned ch) const { return m_streams.at(port).at(ch).bytes.size(); }
  // When the drain of (port, ch) had popped at least `n` bytes.
  sc_time time_of_byte(unsigned port, unsigned ch, size_t n) const { return time_of(m_streams.at(port).at(ch), n); }

  // Per (source port, channel, destination port): the payloads sent and
  // received there, in order, to compare.
  using Key = std::tuple<unsigned, unsigned, unsigned>;
  std::map<Key, std::vector<std::vector<uint8_t>>> received_by_flow() const {
    std::map<Key, std::vector<std::vector<uint8_t>>> m;
    for (unsigned p = 0; p < sb->port_count(); ++p)
      for (unsigned ch = 0; ch < m2::NetBuf::kChannels; ++ch)
        for (const Received& r : received(p, ch)) m[{r.src_port(), ch, p}].push_back(r.payload);
    return m;
  }

 private:
  struct Stream {
    std::vector<uint8_t> bytes;
    std::vector<std::pair<size_t, sc_time>> pops;  // (bytes after the pop, time)
  };
  static sc_time time_of(const Stream& s, size_t offset) {
    for (const auto& [end, t] : s.pops)
      if (end > offset) return t;
    return sc_core::SC_ZERO_TIME;
  }

  void sender(unsigned port, unsigned ch) {
    m2::NetBuf& nb = sb->port_buffer(port);
    for (const Message& m : m_sent) {
      if (m.port != port || m.channel != ch) continue;
      if (m.at > sc_core::sc_time_stamp()) sc_core::wait(m.at - sc_core::sc_time_stamp());
      const std::vector<uint8_t> b = m.bytes();
      for (size_t off = 0; off < b.size();) {
        const unsigned k = static_cast<unsigned>(std::min<size_t>(MLX_PACKET_BYTES, b.size() - off));
        while (nb.rx_free(ch) < k) sc_core::wait(nb.rx_space_event(ch));
        nb.rx_push(ch, b.data() + off, k);
        off += k;
        if (m.pause > sc_core::SC_ZERO_TIME && off == m.pause_after) sc_core::wait(m.pause);
        if (link_mbps > 0) sc_core::wait(sc_time(k / link_mbps, SC_US));
      }
    }
  }

  void drain(unsigned port, unsigned ch) {
    m2::NetBuf& nb = sb->port_buffer(port);
    Stream& s = m_streams[port][ch];
    const sc_time hold = m_held[port][ch];
    if (hold > sc_core::SC_ZERO_TIME) sc_core::wait(hold);
    // Straight into the stream: no buffer on this never-ending thread's
    // stack, which LeakSanitizer does not scan (docs/sanitizers.md).
    for (;;) {
      unsigned n = nb.tx_available(ch);
      if (n == 0) {
        sc_core::wait(nb.tx_data_event(ch));
        continue;
      }
      if (drain_mbps > 0) n = std::min<unsigned>(n, MLX_PACKET_BYTES);
      const size_t at = s.bytes.size();
      s.bytes.resize(at + n);
      nb.tx_pop(ch, s.bytes.data() + at, n);
      s.pops.emplace_back(s.bytes.size(), sc_core::sc_time_stamp());
      if (drain_mbps > 0) sc_core::wait(sc_time(n / drain_mbps, SC_US));
    }
  }

  bool idle() const {
    for (const auto* t : m_senders)
      if (!t->finished) return false;
    for (unsigned p = 0; p < sb->port_count(); ++p) {
      const m2::NetBuf& nb = sb->port_buffer(p);
      for (unsigned ch = 0; ch < m2::NetBuf::kChannels; ++ch)
        if (nb.rx_available(ch) || nb.tx_available(ch)) return false;
    }
    return sb->controller().occupied() == 0;
  }

  void prepare() {
    for (unsigned p = 0; p < sb->port_count(); ++p) {
      for (unsigned ch = 0; ch < m2::NetBuf::kChannels; ++ch) {
        const std::string n = m_name + "_" + std::to_string(p) + "_" + std::to_string(ch);
        m_threads.push_back(
            std::make_unique<m2test::TestThread>(("send_" + n).c_str(), [this, p, ch] { sender(p, ch); }));
        m_senders.push_back(m_threads.back().get());
        m_threads.push_back(
            std::make_unique<m2test::TestThread>(("drain_" + n).c_str(), [this, p, ch] { drain(p, ch); }));
      }
    }
    for (size_t i = 0; i < m_probes.size(); ++i) {
      m_threads.push_back(
          std::make_unique<m2test::TestThread>(("probe_" + m_name + std::to_string(i)).c_str(), [this, i] {
            sc_core::wait(m_probes[i].first);
            m_probes[i].second();
          }));
    }
  }

  std::string m_name;
  std::vector<Message> m_sent;
  std::vector<std::pair<sc_time, std::function<void()>>> m_probes;
  std::vector<std::array<Stream, 2>> m_streams;
  std::vector<std::array<sc_time, 2>> m_held;
  std::vector<std::unique_ptr<m2test::TestThread>> m_threads;
  std::vector<m2test::TestThread*> m_senders;
  bool m_done = false;
  sc_time m_finished_at;
};

}  // namespace sbtest
