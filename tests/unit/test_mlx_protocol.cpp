// Unit tests for the MLX protocol engine (models/ni/mlx_engine.*) on a
// point-to-point NI-NI connection (tests/unit/mlx_bench.h): hand-timed
// frames, sending after the first 32 bytes, wire bytes, credits, the
// rendezvous, continue commands, many messages in all four streams at once,
// plain vs continuous throughput, registers and state description.
//
// Default timing (lvds link, 100 MHz engine and netbuf), in ns:
//   wire 2.5 per byte; link latency 20 + 5 x 5 = 45;
//   data frame: 100 before its first bit (4 cycles + a netbuf packet read
//   of 2 + 4 cycles), 100 after its last bit arrived (4 cycles + write);
//   info frame: 40 and 40.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include <ip/mlx.h>
#include <ip/ni_mlcx.h>

#include "core/params.h"
#include "link/link.h"
#include "ni/mlx_engine.h"
#include "ni/mlx_packets.h"
#include "ni/netbuf.h"

#include "mlx_bench.h"
#include "test_initiator.h"
#include "test_thread.h"

using m2::TimingStyle;
using m2test::MlxPair;
using m2test::ns;
using m2test::Stream;
using sc_core::sc_time;

namespace {

void require_clean(const Stream& s) {
  INFO(s.name());
  for (const std::string& e : s.errors) FAIL_CHECK(e);
  CHECK(s.done());
}

// Pushes `bytes` of message into a TX channel at a given time (scripted producers).
struct Push {
  double at_ns;
  std::vector<uint8_t> bytes;
};
struct Script : sc_core::sc_module {
  m2::NetBuf& nb;
  unsigned ch;
  std::vector<Push> pushes;
  SC_HAS_PROCESS(Script);
  Script(sc_core::sc_module_name n, m2::NetBuf& b, unsigned c, std::vector<Push> p)
      : sc_module(n), nb(b), ch(c), pushes(std::move(p)) {
    SC_THREAD(run);
  }
  void run() {
    for (const Push& p : pushes) {
      wait(ns(p.at_ns) - sc_core::sc_time_stamp());
      nb.tx_push(ch, p.bytes.data(), static_cast<unsigned>(p.bytes.size()));
    }
  }
};

std::vector<uint8_t> slice(const std::vector<uint8_t>& v, size_t from, size_t to) {
  return std::vector<uint8_t>(v.begin() + from, v.begin() + to);
}

}  // namespace

// ------------------------------------------------------------ packetizer

TEST_CASE("mlx packets: messages are cut at packet boundaries and padding is dropped", "[model][mlx]") {
  std::vector<uint8_t> stream;
  const std::vector<uint32_t> sizes = {0, 24, 25, 100, 3};
  for (uint32_t k = 0; k < sizes.size(); ++k) {
    const auto m = m2test::make_message(9, k, sizes[k]);
    stream.insert(stream.end(), m.begin(), m.end());
  }
  // 8 B -> 1 packet, 32 -> 1, 33 -> 2, 108 -> 4, 11 -> 1.
  m2::MlxPacketizer p;
  CHECK(p.ready(stream.data(), 7, 100) == 0);       // header incomplete
  CHECK(p.ready(stream.data(), 8, 100) == 1);       // the empty message
  CHECK(p.ready(stream.data(), 8 + 31, 100) == 1);  // the 32-byte one is not complete
  CHECK(p.ready(stream.data(), 8 + 32, 100) == 2);
  CHECK(p.ready(stream.data(), 8 + 32 + 32, 100) == 3);  // first packet of the 33-byte one
  CHECK(p.ready(stream.data(), 8 + 32 + 33, 100) == 4);  // and its 1-byte tail
  size_t bytes = 0;
  CHECK(p.ready(stream.data(), stream.size(), 100, &bytes) == 9);
  CHECK(bytes == stream.size());
  CHECK(p.ready(stream.data(), stream.size(), 5, &bytes) == 5);
  CHECK(bytes == 8 + 32 + 33 + 32);

  std::vector<uint8_t> packets(9 * 32);
  std::vector<m2::MlxHeader> starts;
  CHECK(p.cut(stream.data(), 5, packets.data(), &starts) == 8 + 32 + 33 + 32);
  CHECK(starts.size() == 4);
  CHECK(p.message_left() == 108 - 32);
  CHECK(p.cut(stream.data() + 105, 4, packets.data() + 5 * 32, &starts) == stream.size() - 105);
  CHECK(starts.size() == 5);
  CHECK(p.message_left() == 0);
  CHECK(packets[8] == 0);  // padding after the empty message's header

  m2::MlxDepacketizer d;
  CHECK(d.payload_bytes(packets.data(), 9) == stream.size());
  std::vector<uint8_t> back;
  for (unsigned i = 0; i < 9; ++i) {
    const uint8_t* q = packets.data() + i * 32;
    back.insert(back.end(), q, q + d.take(q));
  }
  CHECK(back == stream);
}

// ------------------------------------------------------------ timing by hand

TEST_CASE("mlx: one short message, hand-timed frame, delivery and ack (AT and LT alike)", "[model][mlx]") {
  m2::ParamRegistry::instance().clear();
  MlxPair at("at_", TimingStyle::AT);
  MlxPair lt("lt_", TimingStyle::LT);
  const auto msg = m2test::make_message(1, 0, 24);  // 32 bytes: one packet
  Stream::Pacing by_script;
  by_script.push = false;
  Script s_at("s_at", at.nb_a, 0, {{1000, msg}}), s_lt("s_lt", lt.nb_a, 0, {{1000, msg}});
  Stream r_at("r_at", at.nb_a, at.nb_b, 0, 1, {24}, by_script), r_lt("r_lt", lt.nb_a, lt.nb_b, 0, 1, {24}, by_script);
  bool waiting_before[2] = {false, false}, waiting_after[2] = {true, true};
  m2test::TestThread probe("probe", [&] {
    sc_core::wait(ns(1499));
    waiting_before[0] = at.a.awaiting_ack(0), waiting_before[1] = lt.a.awaiting_ack(0);
    sc_core::wait(ns(2));
    waiting_after[0] = at.a.awaiting_ack(0), waiting_after[1] = lt.a.awaiting_ack(0);
  });
  sc_core::sc_start(ns(100000));

  for (MlxPair* p : {&at, &lt}) {
    INFO((p == &at ? "AT" : "LT"));
    // Bring-up: each side announces its credit: 40 ns to build, 8 B = 20 ns.
    REQUIRE(p->a_tx.records.size() == 2);
    const auto& hello = p->a_tx.records[0];
    CHECK_FALSE(hello.frame.is_data());
    CHECK(hello.called == ns(40));
    CHECK(hello.frame.wire_start == ns(40));
    CHECK(hello.frame.wire_end == ns(60));
    CHECK(hello.frame.info[0].credit_limit == 2048 / 32);
    // The message: decided at 1000, first bit at 1100 (4 cycles + netbuf
    // read), 8 + 32 + 4 = 44 B = 110 ns on the wire.
    const auto& d = p->a_tx.records[1];
    CHECK(d.frame.is_data());
    CHECK(d.frame.packet_count() == 1);
    CHECK(d.frame.continues() == 0);
    CHECK(d.called == ns(1100));
    CHECK(d.frame.wire_start == ns(1100));
    CHECK(d.frame.wire_end == ns(1210));
    CHECK(d.returned == ns(1210));
    // In B's RX at 1210 + 45 + 100 = 1355.
    Stream& r = p == &at ? r_at : r_lt;
    require_clean(r);
    CHECK(r.delivered[0] == ns(1355));
    // B's ack: info frame at 1355 + 40, arriving 1415 + 45, taking effect 40 later.
    const auto& ack = p->b_tx.records.back();
    CHECK_FALSE(ack.frame.is_data());
    CHECK(ack.called == ns(1395));
    CHECK(ack.frame.wire_end == ns(1415));
    CHECK(ack.frame.info[0].ack_valid);
    CHECK(ack.frame.info[0].ack_seq == 0);
    CHECK(p->link.stats(0).bytes == 8 + 44);
    CHECK(p->link.stats(1).bytes == 8 + 8);
  }
  CHECK(waiting_before[0]);
  CHECK(waiting_before[1]);
  CHECK_FALSE(waiting_after[0]);
  CHECK_FALSE(waiting_after[1]);
}
