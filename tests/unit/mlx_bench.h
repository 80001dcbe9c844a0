// A point-to-point NI-NI connection for the MLX protocol and link tests:
// two network buffers, two MLX engines, one link, a frame tap on each of the
// four bindings (as a trace socket would sit), and traffic: per stream (a
// direction and a channel) a producer pushing seeded messages into a TX
// channel and a consumer popping and checking them from the RX channel.
// Several pairs can live in one simulation (name prefixes), so that one
// test process can compare variants or timing styles side by side.
#pragma once

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <ip/mlx.h>
#include <ip/ni_memory_map.h>
#include <ip/ni_netbuf.h>

#include "core/params.h"
#include "core/router.h"
#include "core/timing_style.h"
#include "link/link.h"
#include "link/mlx_frame.h"
#include "ni/mlx_engine.h"
#include "ni/netbuf.h"

#include "test_initiator.h"

namespace m2test {

using sc_core::SC_NS;
using sc_core::sc_time;

inline sc_time ns(double v) { return sc_time(v, SC_NS); }

// A pass-through on a frame binding that records every frame.
struct FrameTap : sc_core::sc_module {
  tlm_utils::simple_target_socket<FrameTap> in{"in"};
  tlm_utils::simple_initiator_socket<FrameTap> out{"out"};
  struct Record {
    sc_time called;      // the caller's time (SystemC time + delay) at the call
    sc_time returned;    // ... when the call returned
    m2::MlxFrame frame;  // as it came back
  };
  std::vector<Record> records;

  explicit FrameTap(sc_core::sc_module_name n) : sc_module(n) { in.register_b_transport(this, &FrameTap::b_transport); }
  void b_transport(tlm::tlm_generic_payload& t, sc_time& delay) {
    Record r;
    r.called = sc_core::sc_time_stamp() + delay;
    out->b_transport(t, delay);
    r.returned = sc_core::sc_time_stamp() + delay;
    r.frame.copy_from(*m2::mlx_frame(t));
    records.push_back(std::move(r));
  }
  std::vector<const Record*> data_frames() const {
    std::vector<const Record*> v;
    for (const Record& r : records)
      if (r.frame.is_data()) v.push_back(&r);
    return v;
  }
};

// Presets for parameters of the pair, relative to its prefix
// ("mlcx_a.variant", "link.duplex"), applied before the models are built.
using Presets = std::map<std::string, std::string>;

struct MlxPair {
  struct Setup {
    Setup(const std::string& prefix, Presets p) {
      // Timing below counts a 64-bit netbuf port with 2 access cycles: pinned,
      // so that the protocol's hand-computed times do not follow the netbuf's
      // calibrated defaults.
      for (const char* nb : {"nb_a", "nb_b"}) {
        p.emplace(std::string(nb) + ".width_bytes", "8");
        p.emplace(std::string(nb) + ".access_cycles", "2");
      }
      for (const auto& [k, v] : p) m2::ParamRegistry::instance().preset(prefix + k, v, m2::ValueOrigin{"test"});
    }
  } setup;
  m2::NetBuf nb_a, nb_b;
  m2::MlxEngine a, b;
  m2::Link link;
  FrameTap a_tx, a_rx, b_tx, b_rx;  // A's frames into the link, the link's frames to A, ...
  // Each side's NI bus with the netbuf and engine at their real addresses.
  m2::Router bus_a, bus_b;
  TestInitiator cpu_a, cpu_b;

  MlxPair(const std::string& prefix, m2::TimingStyle style, const Presets& p = {})
      : setup(prefix, p),
        nb_a((prefix + "nb_a").c_str()),
        nb_b((prefix + "nb_b").c_str()),
        a((prefix + "mlcx_a").c_str(), nb_a, style),
        b((prefix + "mlcx_b").c_str(), nb_b, style),
        link((prefix + "link").c_str(), style),
        a_tx((prefix + "tap_a_tx").c_str()),
        a_rx((prefix + "tap_a_rx").c_str()),
        b_tx((prefix + "tap_b_tx").c_str()),
        b_rx((prefix + "tap_b_rx").c_str()),
        bus_a((prefix + "bus_a").c_str()),
        bus_b((prefix + "bus_b").c_str()),
        cpu_a((prefix + "cpu_a").c_str()),
        cpu_b((prefix + "cpu_b").c_str()) {
    a.link_out.bind(a_tx.in);
    a_tx.out.bind(link.a_in);
    link.a_out.bind(a_rx.in);
    a_rx.out.bind(a.link_in);
    b.link_out.bind(b_tx.in);
    b_tx.out.bind(link.b_in);
    link.b_out.bind(b_rx.in);
    b_rx.out.bind(b.link_in);
    for (unsigned side = 0; side < 2; ++side) {
      m2::Router& bus = side == 0 ? bus_a : bus_b;
      (side == 0 ? cpu_a : cpu_b).socket.bind(bus.target);
      bus.attach(buffer(side).data, NI_NETBUF_DATA_BASE, NI_NETBUF_DATA_SIZE, "netbuf data");
      bus.attach(buffer(side).regs, NI_NETBUF_BASE, NI_DEVICE_SIZE, "netbuf regs");
      bus.attach(engine(side).regs, NI_MLCX_BASE, NI_DEVICE_SIZE, "mlcx regs");
    }
  }
  m2::NetBuf& buffer(unsigned side) { return side == 0 ? nb_a : nb_b; }
  m2::MlxEngine& engine(unsigned side) { return side == 0 ? a : b; }
  FrameTap& tx_tap(unsigned side) { return side == 0 ? a_tx : b_tx; }
};

// Byte j of message k's payload in stream `tag`.
inline uint8_t payload_byte(uint32_t tag, uint32_t k, uint32_t j) {
  uint32_t x = tag * 0x9E3779B1u ^ k * 0x85EBCA6Bu ^ j * 0xC2B2AE35u;
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  x ^= x >> 12;
  return static_cast<uint8_t>(x);
}

// A message as it is written into a TX channel: header + payload.
inline std::vector<uint8_t> make_message(uint32_t tag, uint32_t k, uint32_t len) {
  std::vector<uint8_t> m(MLX_HEADER_BYTES + len);
  const uint32_t w0 = MLX_HDR_WORD0(tag, k), w1 = MLX_HDR_WORD1(MLX_TYPE_UNICAST, len);
  for (int i = 0; i < 4; ++i) {
    m[i] = static_cast<uint8_t>(w0 >> (24 - 8 * i));
    m[4 + i] = static_cast<uint8_t>(w1 >> (24 - 8 * i));
  }
  for (uint32_t j = 0; j < len; ++j) m[MLX_HEADER_BYTES + j] = payload_byte(tag, k, j);
  return m;
}

// Payload sizes 0..max, seeded.
inline std::vector<uint32_t> random_sizes(uint32_t seed, unsigned count, uint32_t max = 5000) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(count);
  for (auto& s : v) s = rng() % (max + 1);
  return v;
}

// Packets a list of messages takes on the link.
inline uint64_t packets_of(const std::vector<uint32_t>& sizes) {
  uint64_t n = 0;
  for (uint32_t s : sizes) n += MLX_PACKETS(s);
  return n;
}

// One stream: messages from `src`'s TX channel ch to `dst`'s RX channel ch.
struct Stream : sc_core::sc_module {
  struct Pacing {
    bool push = true;                      // false: the test pushes the messages itself
    sc_time start = sc_time(1000, SC_NS);  // after the link's bring-up info frames
    unsigned push_chunk = 0;               // bytes per push, 0: as much as fits
    sc_time push_period;                   // between pushes
    sc_time pop_start;                     // the reader starts then
    unsigned pop_chunk = 0;                // bytes per pop, 0: all there is
    sc_time pop_period;                    // between pops
  };

  m2::NetBuf& src;
  m2::NetBuf& dst;
  const unsigned ch;
  const uint32_t tag;
  const std::vector<uint32_t> sizes;
  const Pacing pacing;

  // Results.
  std::vector<sc_time> delivered;  // when the last byte of each message was popped
  unsigned max_rx_fill = 0;        // largest RX level seen
  std::vector<std::string> errors;
  sc_time first_push, last_push;
  bool done() const { return delivered.size() == sizes.size(); }
  uint64_t payload_bytes() const {
    uint64_t n = 0;
    for (uint32_t s : sizes) n += MLX_HEADER_BYTES + s;
    return n;
  }

  SC_HAS_PROCESS(Stream);
  Stream(sc_core::sc_module_name n, m2::NetBuf& from, m2::NetBuf& to, unsigned channel, uint32_t stream_tag,
         std::vector<uint32_t> message_sizes, Pacing p)
      : sc_module(n), src(from), dst(to), ch(channel), tag(stream_tag), sizes(std::move(message_sizes)), pacing(p) {
    SC_THREAD(produce);
    SC_THREAD(consume);
  }

  void produce() {
    if (!pacing.push) return;
    wait(pacing.start);
    first_push = sc_core::sc_time_stamp();
    for (uint32_t k = 0; k < sizes.size(); ++k) {
      const std::vector<uint8_t> m = make_message(tag, k, sizes[k]);
      size_t off = 0;
      while (off < m.size()) {
        size_t n = std::min<size_t>(m.size() - off, src.tx_free(ch));
        if (pacing.push_chunk) n = std::min<size_t>(n, pacing.push_chunk);
        if (n == 0) {
          wait(src.tx_space_event(ch));
          continue;
        }
        src.tx_push(ch, m.data() + off, static_cast<unsigned>(n));
        off += n;
        if (pacing.push_period != sc_core::SC_ZERO_TIME) wait(pacing.push_period);
      }
    }
    last_push = sc_core::sc_time_stamp();
  }

  void consume() {
    std::vector<uint8_t> cur;  // the message being received
    uint64_t need = 0;         // its total bytes, 0 until its header is in
    std::vector<uint8_t> buf;
    wait(pacing.pop_start);
    while (!done()) {
      unsigned avail = dst.rx_available(ch);
      max_rx_fill = std::max(max_rx_fill, avail);
      if (avail == 0) {
        wait(dst.rx_data_event(ch));
        continue;
      }
      if (pacing.pop_chunk) avail = std::min(avail, pacing.pop_chunk);
      buf.resize(avail);
      dst.rx_pop(ch, buf.data(), avail);
      for (uint8_t byte : buf) {
        cur.push_back(byte);
        if (cur.size() == MLX_HEADER_BYTES) need = m2::MlxHeader::read(cur.data()).total_bytes();
        if (need && cur.size() == need) {
          check(cur);
          cur.clear();
          need = 0;
        }
      }
      if (pacing.pop_period != sc_core::SC_ZERO_TIME) wait(pacing.pop_period);
    }
  }

  void check(const std::vector<uint8_t>& m) {
    const uint32_t k = static_cast<uint32_t>(delivered.size());
    delivered.push_back(sc_core::sc_time_stamp());
    if (k >= sizes.size()) return error("message beyond the last one");
    const m2::MlxHeader h = m2::MlxHeader::read(m.data());
    if (MLX_HDR_DST(h.word0) != (tag & 0xFFFF) || MLX_HDR_SRC(h.word0) != (k & 0xFFFF))
      return error("message " + std::to_string(k) + ": header of another message (src " +
                   std::to_string(MLX_HDR_SRC(h.word0)) + ")");
    if (MLX_HDR_LEN(h.word1) != sizes[k])
      return error("message " + std::to_string(k) + ": length " + std::to_string(MLX_HDR_LEN(h.word1)) + ", sent " +
                   std::to_string(sizes[k]));
    for (uint32_t j = 0; j < sizes[k]; ++j)
      if (m[MLX_HEADER_BYTES + j] != payload_byte(tag, k, j))
        return error("message " + std::to_string(k) + ": payload byte " + std::to_string(j) + " differs");
  }
  void error(const std::string& e) {
    if (errors.size() < 10) errors.push_back(std::string(name()) + ": " + e);
  }
  sc_time last_delivery() const { return delivered.empty() ? sc_core::SC_ZERO_TIME : delivered.back(); }
};

// Default timing of the pair (lvds link, maestro2/plain engine, 100 MHz
// netbuf with the 64-bit port and 2 access cycles MlxPair pins), for
// hand-computed expectations: ns.
struct Timing {
  double ns_per_byte = 2.5;  // 3.2 Gbit/s
  double latency = 45;       // serializer 20 + 5 m x 5 ns/m
  double tx_data = 100;      // 4 cycles + netbuf read of a packet: (2 + 32/8) cycles at 100 MHz
  double tx_info = 40;
  double rx_data = 100;
  double rx_info = 40;
  double header = 8, checksum = 4, cont = 4;
  double data_wire(unsigned packets, unsigned continues = 0) const {
    return (header + 32.0 * packets + cont * continues + checksum) * ns_per_byte;
  }
  double info_wire() const { return header * ns_per_byte; }
  // From a sender deciding on a data frame to the ack taking effect at the
  // sender, the peer answering with an info frame at once.
  double ack_cycle(unsigned packets, unsigned continues = 0) const {
    return tx_data + data_wire(packets, continues) + latency + rx_data + tx_info + info_wire() + latency + rx_info;
  }
};

// A stream that delivered everything it sent, intact and in order.
inline void require_clean(const Stream& s) {
  INFO(s.name());
  for (const std::string& e : s.errors) FAIL_CHECK(e);
  CHECK(s.done());
}

}  // namespace m2test
