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
#include "core/router.h"
#include "link/link.h"
#include "ni/mlx_engine.h"
#include "ni/mlx_packets.h"
#include "ni/netbuf.h"

#include "message_observer_fake.h"
#include "mlx_bench.h"
#include "test_initiator.h"
#include "test_thread.h"

using m2::TimingStyle;
using m2test::MlxPair;
using m2test::ns;
using m2test::require_clean;
using m2test::Stream;
using sc_core::sc_time;

namespace {

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

Stream::Pacing scripted() {
  Stream::Pacing p;
  p.push = false;
  return p;
}

// n messages of `payload` bytes each.
std::vector<uint32_t> same_sizes(unsigned n, uint32_t payload) { return std::vector<uint32_t>(n, payload); }

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

TEST_CASE("mlx: sending starts once the first 32 bytes of a message are in the channel", "[model][mlx]") {
  MlxPair at("at_", TimingStyle::AT);
  MlxPair lt("lt_", TimingStyle::LT);
  // Channel 0: a 100-byte message (108 B, 4 packets) arriving as 31 B,
  // 1 B, 76 B. Channel 1: a 10-byte message (18 B, 1 packet) as 17 B + 1 B.
  const auto big = m2test::make_message(1, 0, 100), small = m2test::make_message(2, 0, 10);
  const std::vector<Push> ch0 = {{1000, slice(big, 0, 31)}, {2000, slice(big, 31, 32)}, {5000, slice(big, 32, 108)}};
  const std::vector<Push> ch1 = {{10000, slice(small, 0, 17)}, {11000, slice(small, 17, 18)}};
  Script s0a("s0a", at.nb_a, 0, ch0), s1a("s1a", at.nb_a, 1, ch1), s0l("s0l", lt.nb_a, 0, ch0),
      s1l("s1l", lt.nb_a, 1, ch1);
  Stream r0a("r0a", at.nb_a, at.nb_b, 0, 1, {100}, scripted()), r1a("r1a", at.nb_a, at.nb_b, 1, 2, {10}, scripted());
  Stream r0l("r0l", lt.nb_a, lt.nb_b, 0, 1, {100}, scripted()), r1l("r1l", lt.nb_a, lt.nb_b, 1, 2, {10}, scripted());
  sc_core::sc_start(ns(100000));

  for (MlxPair* p : {&at, &lt}) {
    INFO((p == &at ? "AT" : "LT"));
    const auto data = p->a_tx.data_frames();
    REQUIRE(data.size() == 3);
    // The first packet is complete at 2000: its frame is decided then and
    // starts 100 ns later, alone (nothing more is ready at its burst's end).
    CHECK(data[0]->called == ns(2100));
    CHECK(data[0]->frame.channel == 0);
    CHECK(data[0]->frame.bursts == std::vector<uint16_t>{1});
    // The rest (32 + 32 + 12 bytes: three packets, the last padded) at 5000.
    CHECK(data[1]->called == ns(5100));
    CHECK(data[1]->frame.bursts == std::vector<uint16_t>{3});
    CHECK(data[1]->frame.wire_end == ns(5100 + (8 + 96 + 4) * 2.5));
    // The short message goes once its last byte is there.
    CHECK(data[2]->called == ns(11100));
    CHECK(data[2]->frame.channel == 1);
    CHECK(data[2]->frame.bursts == std::vector<uint16_t>{1});
  }
  for (Stream* r : {&r0a, &r1a, &r0l, &r1l}) require_clean(*r);
  CHECK(r0a.delivered[0] == ns(5100 + 270 + 45 + 100));
  CHECK(r0l.delivered[0] == r0a.delivered[0]);
  CHECK(r1a.delivered[0] == ns(11100 + 110 + 45 + 100));
  CHECK(r1l.delivered[0] == r1a.delivered[0]);
}

TEST_CASE("mlx: wire time counts header, continue commands, checksum and padding", "[model][mlx]") {
  MlxPair p("", TimingStyle::AT);
  // A 1-byte and an empty message (one padded packet each), then 1272 bytes
  // (1280 B = 40 packets: bursts of 16 + 16 + 8, two continue commands).
  const auto one = m2test::make_message(1, 0, 1), none = m2test::make_message(1, 1, 0),
             big = m2test::make_message(1, 2, 1272);
  Script s("s", p.nb_a, 0, {{1000, one}, {3000, none}, {5000, big}});
  Stream r("r", p.nb_a, p.nb_b, 0, 1, {1, 0, 1272}, scripted());
  // Traces name the messages with packets in each frame (by their first
  // packet), and report cutting and receiving them.
  m2test::FakeObserver obs;
  p.a.set_message_probe({&obs, 7});
  p.b.set_message_probe({&obs, 8});
  sc_core::sc_start(ns(100000));
  require_clean(r);

  const auto data = p.a_tx.data_frames();
  REQUIRE(data.size() == 3);
  CHECK(data[0]->frame.message_ids == std::vector<uint64_t>{0x1000});
  CHECK(data[1]->frame.message_ids == std::vector<uint64_t>{0x1001});
  CHECK(data[2]->frame.message_ids == std::vector<uint64_t>{0x1002});
  CHECK(p.b_tx.records.back().frame.message_ids.empty());
  CHECK(obs.identified == 3);  // once per message, at its first packet
  // Cut once per burst with its packets (the 40-packet message: 3 bursts);
  // received with each frame, after it was cut.
  const auto cut = obs.of(m2::MessagePoint::MlxCut), in = obs.of(m2::MessagePoint::LinkIn);
  REQUIRE(cut.size() == 5);
  REQUIRE(in.size() == 3);
  CHECK(cut[0].site == 7);
  CHECK(cut[4].id == 0x1002);
  CHECK(cut[4].time_ps > cut[2].time_ps);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(in[i].site == 8);
    CHECK(in[i].id == data[i]->frame.message_ids[0]);
  }
  CHECK(in[2].time_ps > cut[4].time_ps);
  CHECK(data[0]->frame.wire_bytes() == 8 + 32 + 4);
  CHECK(data[1]->frame.wire_bytes() == 8 + 32 + 4);
  CHECK(data[2]->frame.bursts == std::vector<uint16_t>{16, 16, 8});
  CHECK(data[2]->frame.wire_bytes() == 8 + 1280 + 2 * 4 + 4);
  // Every frame is on the wire for exactly its bytes at 2.5 ns each.
  uint64_t bytes[2] = {0, 0};
  for (unsigned side = 0; side < 2; ++side)
    for (const auto& rec : p.tx_tap(side).records) {
      CHECK(rec.frame.wire_end - rec.frame.wire_start == ns(rec.frame.wire_bytes() * 2.5));
      bytes[side] += rec.frame.wire_bytes();
    }
  CHECK(data[2]->frame.wire_end - data[2]->frame.wire_start == ns(3250));
  for (unsigned side = 0; side < 2; ++side) {
    const auto& s = p.link.stats(side);
    CHECK(s.bytes == bytes[side]);
    CHECK(s.busy == ns(bytes[side] * 2.5));
    CHECK(p.engine(side).stats().bytes_sent == bytes[side]);
    CHECK(p.engine(side).stats().tx_busy == s.busy);
    CHECK(p.engine(1 - side).stats().bytes_received == bytes[side]);
  }
  // A->B: the hello info frame and the three data frames. B->A: its hello
  // and one ack per data frame.
  CHECK(p.link.stats(0).bytes == 8 + 44 + 44 + 1300);
  CHECK(p.link.stats(1).bytes == 4 * 8);
  // The padding is not delivered: B's RX got exactly the message bytes.
  CHECK(p.nb_b.rx_bytes_in(0) == 9 + 8 + 1280);
  CHECK(p.a.channel_stats(0).payload_bytes_sent == 9 + 8 + 1280);
  CHECK(p.b.channel_stats(0).payload_bytes_received == 9 + 8 + 1280);
  CHECK(p.a.stats().continues == 2);
}

TEST_CASE("mlx: credits never let the sender overrun the receiver's RX channel", "[model][mlx]") {
  MlxPair p("", TimingStyle::AT);
  // A slow reader on B: 64 bytes every microsecond (64 MB/s) against a
  // 400 MB/s link, so B's RX channel fills up and credit runs out.
  Stream::Pacing slow;
  slow.pop_chunk = 64;
  slow.pop_period = ns(1000);
  Stream r("r", p.nb_a, p.nb_b, 0, 1, m2test::random_sizes(11, 12), slow);
  bool invariant = true;
  uint64_t min_credit_seen = ~0ull;
  m2test::TestThread probe("probe", [&] {
    while (!r.done()) {
      sc_core::wait(ns(50));
      // What B granted and has not received fits into its free space.
      if (p.b.rx_credit(0) * MLX_PACKET_BYTES > p.nb_b.rx_free(0)) invariant = false;
      min_credit_seen = std::min(min_credit_seen, p.a.tx_credit(0));
    }
  });
  sc_core::sc_start(ns(2e6));
  require_clean(r);
  CHECK(invariant);
  CHECK(r.max_rx_fill <= p.nb_b.capacity());
  CHECK(r.max_rx_fill > p.nb_b.capacity() - 2 * MLX_PACKET_BYTES);  // the channel really filled up
  CHECK(min_credit_seen == 0);
  CHECK(p.a.channel_stats(0).credit_stalls > 0);
  CHECK(p.b.stats().packets_received == m2test::packets_of(r.sizes));
  CHECK(p.a.stats().retransmissions == 0);
}

TEST_CASE("mlx: rendezvous: a channel's next data frame leaves only after the previous one's ack", "[model][mlx]") {
  MlxPair p("", TimingStyle::AT);
  // All four streams, so that acks also travel in data frame headers.
  std::vector<std::unique_ptr<Stream>> streams;
  for (unsigned side = 0; side < 2; ++side)
    for (unsigned ch = 0; ch < 2; ++ch)
      streams.push_back(std::make_unique<Stream>(("s" + std::to_string(side) + std::to_string(ch)).c_str(),
                                                 p.buffer(side), p.buffer(1 - side), ch, side * 2 + ch + 1,
                                                 m2test::random_sizes(100 + side * 2 + ch, 25), Stream::Pacing{}));
  sc_core::sc_start(ns(1e7));
  for (auto& s : streams) require_clean(*s);

  const m2test::Timing t;
  unsigned checked = 0;
  for (unsigned side = 0; side < 2; ++side) {
    const m2test::FrameTap& out = p.tx_tap(side);
    const m2test::FrameTap& in = side == 0 ? p.a_rx : p.b_rx;
    for (const auto* f : out.data_frames()) {
      if (f->frame.seq == 0) continue;
      // The first good frame to reach this side that acks the previous one,
      // and when it took effect.
      const unsigned ch = f->frame.channel;
      sc_time acked = sc_core::sc_max_time();
      for (const auto& a : in.records)
        if (a.frame.checksum_ok && a.frame.info[ch].ack_valid && a.frame.info[ch].ack_seq + 1 == f->frame.seq) {
          acked = a.called + ns(a.frame.is_data() ? t.rx_data : t.rx_info);
          break;
        }
      INFO("side " << side << " frame " << f->frame.describe());
      // Decided (100 ns before its call) no earlier than the ack took effect.
      CHECK(f->called - ns(t.tx_data) >= acked);
      ++checked;
    }
  }
  CHECK(checked > 50);
  // Piggybacked acks: some data frames carried acks for the other direction.
  unsigned piggyback = 0;
  for (const auto* f : p.a_tx.data_frames())
    if (f->frame.info[0].ack_valid || f->frame.info[1].ack_valid) ++piggyback;
  CHECK(piggyback > 0);
}

TEST_CASE("mlx: continue commands in maestro2, never in plain", "[model][mlx]") {
  MlxPair m("m_", TimingStyle::AT);
  MlxPair pl("p_", TimingStyle::AT, {{"mlcx_a.variant", "plain"}, {"mlcx_b.variant", "plain"}});
  const auto sizes = m2test::random_sizes(5, 30);
  Stream sm("sm", m.nb_a, m.nb_b, 0, 1, sizes, {}), sp("sp", pl.nb_a, pl.nb_b, 0, 1, sizes, {});
  sc_core::sc_start(ns(1e7));
  require_clean(sm);
  require_clean(sp);
  CHECK(m.a.continuous.get());
  CHECK_FALSE(pl.a.continuous.get());

  unsigned continued = 0;
  for (const auto* f : m.a_tx.data_frames()) {
    CHECK(f->frame.packet_count() <= 64);
    for (uint16_t b : f->frame.bursts) CHECK(b <= 16);
    if (f->frame.continues()) ++continued;
  }
  CHECK(continued > 0);
  CHECK(m.a.stats().continues > 0);
  for (const auto* f : pl.a_tx.data_frames()) {
    CHECK(f->frame.continues() == 0);
    CHECK(f->frame.packet_count() <= 16);
  }
  CHECK(pl.a.stats().continues == 0);
  CHECK(pl.b.stats().continues == 0);
  // Same data, fewer frames.
  CHECK(m.b.stats().packets_received == pl.b.stats().packets_received);
  CHECK(m.a.stats().data_frames_sent < pl.a.stats().data_frames_sent);
}

namespace {

// Four streams at once, random sizes 0..5000, everything checked.
void all_streams(TimingStyle style, const m2test::Presets& presets) {
  m2::ParamRegistry::instance().clear();
  MlxPair p("", style, presets);
  std::vector<std::unique_ptr<Stream>> streams;
  for (unsigned side = 0; side < 2; ++side)
    for (unsigned ch = 0; ch < 2; ++ch)
      streams.push_back(std::make_unique<Stream>(("s" + std::to_string(side) + std::to_string(ch)).c_str(),
                                                 p.buffer(side), p.buffer(1 - side), ch, side * 2 + ch + 1,
                                                 m2test::random_sizes(7 + side * 2 + ch, 40), Stream::Pacing{}));
  sc_core::sc_start(ns(1e7));
  for (unsigned side = 0; side < 2; ++side) {
    const m2::MlxEngine& rx = p.engine(1 - side);
    for (unsigned ch = 0; ch < 2; ++ch) {
      const Stream& s = *streams[side * 2 + ch];
      require_clean(s);
      CHECK(rx.channel_stats(ch).packets_received == m2test::packets_of(s.sizes));
      CHECK(rx.channel_stats(ch).payload_bytes_received == s.payload_bytes());
      CHECK(p.buffer(side).tx_available(ch) == 0);
      CHECK(p.buffer(1 - side).rx_available(ch) == 0);
      CHECK_FALSE(p.engine(side).awaiting_ack(ch));
    }
    CHECK(p.engine(side).stats().retransmissions == 0);
    CHECK(p.engine(side).stats().duplicates == 0);
    CHECK(p.engine(side).stats().bad_frames == 0);
  }
  // Both directions were busy at the same time (full duplex).
  CHECK(streams[0]->first_push == streams[2]->first_push);
  CHECK(p.link.stats(0).waiting == sc_core::SC_ZERO_TIME);
  CHECK(p.link.stats(1).waiting == sc_core::SC_ZERO_TIME);
}

}  // namespace

TEST_CASE("mlx: both directions and both channels at once, random messages intact and in order (maestro2, AT)",
          "[model][mlx]") {
  all_streams(TimingStyle::AT, {});
}

TEST_CASE("mlx: both directions and both channels at once, random messages intact and in order (plain, LT)",
          "[model][mlx]") {
  all_streams(TimingStyle::LT, {{"mlcx_a.variant", "plain"}, {"mlcx_b.variant", "plain"}});
}

TEST_CASE("mlx: plain vs continuous network burst on a long stream, against the formula", "[model][mlx]") {
  const m2test::Presets plain = {{"mlcx_a.variant", "plain"}, {"mlcx_b.variant", "plain"}};
  MlxPair p1("p1_", TimingStyle::AT, plain), c1("c1_", TimingStyle::AT);
  MlxPair p2("p2_", TimingStyle::AT, plain), c2("c2_", TimingStyle::AT);
  // 64 KB as 64 messages of 1024 bytes (32 packets, no padding); the reader
  // and the writer keep up (instant), so only the link and the protocol set
  // the pace. One channel, or the same data split over both channels.
  const auto one = same_sizes(64, 1016), half = same_sizes(32, 1016);
  Stream sp1("sp1", p1.nb_a, p1.nb_b, 0, 1, one, {}), sc1("sc1", c1.nb_a, c1.nb_b, 0, 1, one, {});
  Stream sp2a("sp2a", p2.nb_a, p2.nb_b, 0, 1, half, {}), sp2b("sp2b", p2.nb_a, p2.nb_b, 1, 2, half, {});
  Stream sc2a("sc2a", c2.nb_a, c2.nb_b, 0, 1, half, {}), sc2b("sc2b", c2.nb_a, c2.nb_b, 1, 2, half, {});
  sc_core::sc_start(ns(1e7));
  for (Stream* s : {&sp1, &sc1, &sp2a, &sp2b, &sc2a, &sc2b}) require_clean(*s);

  // One channel: every frame waits for its ack. Plain: 128 frames of 16
  // packets; continuous: 32 frames of 64 (16 + 3 continues x 16), credit
  // (the 2 KB RX channel) ending each frame. The frame k is decided at
  // 1000 + k x cycle and its data are in RX tx + wire + latency + rx later.
  const m2test::Timing t;
  const double plain_cycle = t.ack_cycle(16), cont_cycle = t.ack_cycle(64, 3);
  CHECK(plain_cycle == 1700);
  CHECK(cont_cycle == 5570);
  auto last = [&](unsigned frames, double cycle, double wire) {
    return 1000 + (frames - 1) * cycle + t.tx_data + wire + t.latency + t.rx_data;
  };
  CHECK(sp1.last_delivery() == ns(last(128, plain_cycle, t.data_wire(16))));
  CHECK(sc1.last_delivery() == ns(last(32, cont_cycle, t.data_wire(64, 3))));
  // Two channels: while one waits for its ack the other sends, so frames
  // follow each other at tx + wire (the ack cycle is shorter than two frames).
  const double plain_pair = t.tx_data + t.data_wire(16), cont_pair = t.tx_data + t.data_wire(64, 3);
  CHECK(plain_cycle < 2 * plain_pair);
  CHECK(cont_cycle < 2 * cont_pair);
  CHECK(std::max(sp2a.last_delivery(), sp2b.last_delivery()) == ns(last(128, plain_pair, t.data_wire(16))));
  CHECK(std::max(sc2a.last_delivery(), sc2b.last_delivery()) == ns(last(32, cont_pair, t.data_wire(64, 3))));

  auto gbit = [](double bytes, sc_time from, sc_time to) { return bytes * 8 / (to - from).to_seconds() / 1e9; };
  const double bytes = 64 * 1024;
  const double g_p1 = gbit(bytes, sp1.first_push, sp1.last_delivery());
  const double g_c1 = gbit(bytes, sc1.first_push, sc1.last_delivery());
  const double g_p2 = gbit(bytes, sp2a.first_push, std::max(sp2a.last_delivery(), sp2b.last_delivery()));
  const double g_c2 = gbit(bytes, sc2a.first_push, std::max(sc2a.last_delivery(), sc2b.last_delivery()));
  std::printf(
      "MLX throughput, 64 KB over lvds 3.2 Gbit/s: plain %.3f, continuous %.3f Gbit/s (one channel); "
      "plain %.3f, continuous %.3f Gbit/s (two channels)\n",
      g_p1, g_c1, g_p2, g_c2);
  // Steady state: 512 B per 1700 ns = 2.41 Gbit/s; 2048 B per 5570 ns = 2.94.
  CHECK(g_c1 > g_p1 * 1.15);
  CHECK(g_c2 > g_p2);
  CHECK(g_p1 == Approx(2.41).epsilon(0.01));
  CHECK(g_c1 == Approx(2.94).epsilon(0.01));
}

TEST_CASE("mlx: CONFIG reports burst_packets whole, which is limited to its 8-bit field", "[model][mlx]") {
  // 256 would read as 0: refused, naming the key and the range.
  CHECK_THROWS_WITH((MlxPair("x", TimingStyle::LT, {{"mlcx_a.burst_packets", "256"}})),
                    Catch::Matchers::Contains("burst_packets") && Catch::Matchers::Contains("1..255"));
  m2::ParamRegistry::instance().clear();
  MlxPair p("", TimingStyle::LT, {{"mlcx_a.burst_packets", "255"}, {"mlcx_a.max_frame_packets", "300"}});
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  const uint32_t cfg = p.cpu_a.read32(NI_MLCX_BASE + MLCX_CONFIG);
  CHECK(MLCX_CONFIG_BURST_PACKETS(cfg) == 255);
  CHECK(MLCX_CONFIG_FRAME_PACKETS(cfg) == 300);
}

TEST_CASE("mlx: registers, counters and the link-error interrupt", "[model][mlx]") {
  MlxPair p("", TimingStyle::AT, {{"link.corrupt_frames_ab", "2"}, {"mlcx_a.ack_timeout_ns", "5000"}});
  // Frame 2 from A (the first data frame) is corrupted: B drops it, A sends
  // it again after 5 us.
  Stream s("s", p.nb_a, p.nb_b, 0, 1, same_sizes(4, 1016), {});
  sc_core::sc_start(ns(1e6));
  require_clean(s);
  auto ra = [&](uint32_t off) { return p.cpu_a.read32(NI_MLCX_BASE + off); };
  auto rb = [&](uint32_t off) { return p.cpu_b.read32(NI_MLCX_BASE + off); };
  const uint32_t cfg = ra(MLCX_CONFIG);
  CHECK((cfg & MLCX_CONFIG_CONTINUOUS) != 0);
  CHECK(MLCX_CONFIG_BURST_PACKETS(cfg) == 16);
  CHECK(MLCX_CONFIG_FRAME_PACKETS(cfg) == 64);
  CHECK(ra(MLCX_STATUS) == MLCX_STATUS_LINK_UP);
  const auto& sa = p.a.stats();
  CHECK(ra(MLCX_DATA_FRAMES_SENT) == sa.data_frames_sent);
  CHECK(ra(MLCX_INFO_FRAMES_SENT) == sa.info_frames_sent);
  CHECK(ra(MLCX_PACKETS_SENT) == sa.packets_sent);
  CHECK(ra(MLCX_BYTES_SENT) == sa.bytes_sent);
  CHECK(ra(MLCX_RETRANSMISSIONS) == 1);
  CHECK(ra(MLCX_CONTINUES) == sa.continues);
  CHECK(rb(MLCX_DATA_FRAMES_RCVD) == p.b.stats().data_frames_received);
  CHECK(rb(MLCX_PACKETS_RCVD) == 4 * 32);
  CHECK(rb(MLCX_BYTES_RCVD) == p.b.stats().bytes_received);
  CHECK(rb(MLCX_BAD_FRAMES) == 1);
  CHECK(rb(MLCX_DUPLICATES) == 0);
  CHECK(rb(MLCX_INFO_FRAMES_RCVD) == p.b.stats().info_frames_received);
  CHECK(ra(MLCX_TX_CREDIT(0)) == p.a.tx_credit(0));
  CHECK(ra(MLCX_TX_CREDIT(0)) == 64);  // everything read: the whole channel
  CHECK(rb(MLCX_RX_CREDIT(0)) == 64);
  // Events: B saw a bad frame, A repeated one. The interrupt follows
  // EVENTS & IRQ_ENABLE; writing 1 clears.
  CHECK(rb(MLCX_EVENTS) == MLCX_EV_BAD_FRAME);
  CHECK(ra(MLCX_EVENTS) == MLCX_EV_REPEAT);
  CHECK_FALSE(p.b.irq.level());
  CHECK(p.cpu_b.write32(NI_MLCX_BASE + MLCX_IRQ_ENABLE, MLCX_EV_BAD_FRAME) == tlm::TLM_OK_RESPONSE);
  CHECK(p.b.irq.level());
  CHECK(p.cpu_b.write32(NI_MLCX_BASE + MLCX_EVENTS, MLCX_EV_BAD_FRAME) == tlm::TLM_OK_RESPONSE);
  CHECK_FALSE(p.b.irq.level());
  CHECK(rb(MLCX_EVENTS) == 0);
  // Counters are read-only.
  CHECK(p.cpu_a.write32(NI_MLCX_BASE + MLCX_PACKETS_SENT, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE);
}

TEST_CASE("mlx: describe_state tells credits, outstanding frames and buffer levels", "[model][mlx]") {
  MlxPair p("", TimingStyle::AT);
  Stream s("s", p.nb_a, p.nb_b, 0, 1, same_sizes(8, 1016), {});
  std::string mid, end;
  m2test::TestThread probe("probe", [&] {
    sc_core::wait(ns(1000 + 100 + 3000));  // in the middle of the first frame
    mid = p.a.describe_state();
  });
  sc_core::sc_start(ns(1e6));
  require_clean(s);
  end = p.a.describe_state();
  INFO(mid);
  CHECK_THAT(mid, Catch::Matchers::StartsWith("mlcx_a: link up, maestro2"));
  CHECK_THAT(mid, Catch::Matchers::Contains("ch0 tx: credit "));
  CHECK_THAT(mid, Catch::Matchers::Contains("frame seq 0 awaits ack until"));
  CHECK_THAT(mid, Catch::Matchers::Contains("TX 2048/2048 B"));
  CHECK_THAT(mid, Catch::Matchers::Contains("ch1 tx: credit 64 (limit 64, sent 0), no frame outstanding"));
  INFO(end);
  CHECK_THAT(end,
             Catch::Matchers::Contains("ch0 tx: credit 64 (limit 320, sent 256), no frame outstanding, TX 0/2048 B"));
  CHECK_THAT(end, Catch::Matchers::Contains("ch0 rx: granted 64 (limit 64, accepted 0), nothing received"));
  CHECK_THAT(p.link.describe_state(), Catch::Matchers::StartsWith("link: lvds, full duplex; A->B "));
}

TEST_CASE("mlx: engines without a register bus (switch-box ports) work", "[model][mlx]") {
  // Only the netbufs are on a bus; the engines' regs stay unbound.
  m2::NetBuf na("na"), nb("nb");
  m2::MlxEngine a("a", na, TimingStyle::LT), b("b", nb, TimingStyle::LT);
  m2::Link link("link", TimingStyle::LT);
  m2::Router bus("bus");
  m2test::TestInitiator cpu("cpu");
  cpu.socket.bind(bus.target);
  unsigned base = 0;
  for (m2::NetBuf* n : {&na, &nb}) {
    bus.attach(n->data, base, NI_NETBUF_DATA_SIZE, "data");
    bus.attach(n->regs, base + NI_NETBUF_DATA_SIZE, NI_DEVICE_SIZE, "regs");
    base += 0x01000000;
  }
  a.link_out.bind(link.a_in);
  link.a_out.bind(a.link_in);
  b.link_out.bind(link.b_in);
  link.b_out.bind(b.link_in);
  Stream s("s", na, nb, 1, 5, m2test::random_sizes(2, 5), {});
  sc_core::sc_start(ns(1e6));
  require_clean(s);
}
