// Unit tests for the link (models/link/link.*) between two MLX engines
// (tests/unit/mlx_bench.h): variants and parameters, configuration errors,
// fault injection (chosen frames, seeded bit-error rate) with every message
// checked and the retransmission counters accounted for, IEEE 1394 vs LVDS
// times against hand-computed formulas, half-duplex alternation, and LT vs
// AT on one contended workload.
//
// ieee1394 timing, ns: 20 per byte; latency 150 + 4.5 x 5 = 172.5;
// arbitration 1000 before every burst.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "core/params.h"
#include "link/link.h"
#include "ni/mlx_engine.h"
#include "ni/netbuf.h"

#include "mlx_bench.h"
#include "test_thread.h"

using m2::TimingStyle;
using m2test::MlxPair;
using m2test::ns;
using m2test::Presets;
using m2test::require_clean;
using m2test::Stream;
using sc_core::sc_time;

namespace {

const Presets kPlain = {{"mlcx_a.variant", "plain"}, {"mlcx_b.variant", "plain"}};

Presets with(Presets p, const Presets& more) {
  for (const auto& kv : more) p[kv.first] = kv.second;
  return p;
}

// All four streams of a pair (A->B and B->A, channels 0 and 1), seeded.
std::vector<std::unique_ptr<Stream>> four_streams(MlxPair& p, const std::string& prefix, uint32_t seed, unsigned n,
                                                  Stream::Pacing pacing = {}) {
  std::vector<std::unique_ptr<Stream>> v;
  for (unsigned side = 0; side < 2; ++side)
    for (unsigned ch = 0; ch < 2; ++ch)
      v.push_back(std::make_unique<Stream>((prefix + std::to_string(side) + std::to_string(ch)).c_str(), p.buffer(side),
                                           p.buffer(1 - side), ch, side * 2 + ch + 1,
                                           m2test::random_sizes(seed + side * 2 + ch, n), pacing));
  return v;
}

sc_time last_of(const std::vector<std::unique_ptr<Stream>>& v) {
  sc_time t;
  for (const auto& s : v) t = std::max(t, s->last_delivery());
  return t;
}

// Every repeat is accounted for: a data frame sent again was corrupted on
// the wire, or it arrived and its ack was lost (a duplicate at the peer).
void check_accounting(MlxPair& p) {
  for (unsigned side = 0; side < 2; ++side) {
    INFO("side " << side);
    const m2::MlxEngine& tx = p.engine(side);
    const m2::MlxEngine& rx = p.engine(1 - side);
    CHECK(tx.stats().retransmissions == p.link.stats(side).corrupted_data + rx.stats().duplicates);
    CHECK(tx.stats().timeouts == tx.stats().retransmissions);
    CHECK(rx.stats().bad_frames == p.link.stats(side).corrupted());
  }
}

}  // namespace

TEST_CASE("link: variants and parameters", "[model][link]") {
  m2::ParamRegistry::instance().preset("slow.cable_m", "2", m2::ValueOrigin{"test"});
  m2::Link fast("fast", TimingStyle::LT);
  m2::Link slow("slow", TimingStyle::AT);
  CHECK(slow.cable_m.get() == 2);
  CHECK(fast.variant.get() == "lvds");
  CHECK(fast.gbit_per_s.get() == 3.2);
  CHECK_FALSE(fast.half_duplex());
  CHECK(fast.wire_time(44) == ns(110));
  CHECK(fast.latency() == ns(45));
  CHECK(fast.arbitration() == sc_core::SC_ZERO_TIME);
  CHECK(fast.timing_style() == TimingStyle::LT);
  m2::ParamRegistry::instance().clear();
  m2::ParamRegistry::instance().preset("old.variant", "ieee1394", m2::ValueOrigin{"test"});
  m2::ParamRegistry::instance().preset("old.cable_m", "2", m2::ValueOrigin{"test"});  // wins over the variant
  m2::Link old("old", TimingStyle::AT);
  CHECK(old.gbit_per_s.get() == 0.4);
  CHECK(old.half_duplex());
  CHECK(old.wire_time(44) == ns(880));
  CHECK(old.latency() == ns(150 + 2 * 5));
  CHECK(old.arbitration() == ns(1000));
  CHECK(old.cable_m.origin().where == "test");
  CHECK(old.gbit_per_s.origin().where == "variant ieee1394");
}

TEST_CASE("link: configuration errors", "[model][link]") {
  auto& reg = m2::ParamRegistry::instance();
  reg.preset("l1.corrupt_frames_ab", "3, x", m2::ValueOrigin{"test"});
  CHECK_THROWS_WITH(m2::Link("l1", TimingStyle::LT),
                    Catch::Matchers::Contains("l1.corrupt_frames_ab: expected comma-separated frame numbers") &&
                        Catch::Matchers::Contains("'x'"));
  reg.preset("l2.corrupt_frames_ba", "0", m2::ValueOrigin{"test"});
  CHECK_THROWS_AS(m2::Link("l2", TimingStyle::LT), m2::ConfigError);
  reg.preset("l3.variant", "myrinet", m2::ValueOrigin{"test"});
  CHECK_THROWS_AS(m2::Link("l3", TimingStyle::LT), m2::ConfigError);
  m2::NetBuf nb("nb");
  reg.preset("e1.burst_packets", "65", m2::ValueOrigin{"test"});
  CHECK_THROWS_WITH(m2::MlxEngine("e1", nb, TimingStyle::LT),
                    Catch::Matchers::Contains("burst_packets (65) exceeds max_frame_packets (64)"));
  reg.preset("e2.variant", "maestro3", m2::ValueOrigin{"test"});
  CHECK_THROWS_AS(m2::MlxEngine("e2", nb, TimingStyle::LT), m2::ConfigError);
}

TEST_CASE("link: chosen data frames corrupted are sent again, nothing lost, duplicated or reordered", "[model][link]") {
  // A->B frame 1 is A's hello (info); after it A sends only data frames.
  // Frame 3 is corrupted, and so is its first repeat (4); then frame 7.
  MlxPair p("", TimingStyle::AT, with(kPlain, {{"link.corrupt_frames_ab", "3,4, 7"}}));
  Stream s("s", p.nb_a, p.nb_b, 0, 1, m2test::random_sizes(3, 12), {});
  sc_core::sc_start(ns(1e7));
  require_clean(s);
  CHECK(p.link.stats(0).corrupted_data == 3);
  CHECK(p.link.stats(0).corrupted_info == 0);
  CHECK(p.a.stats().retransmissions == 3);
  CHECK(p.b.stats().bad_frames == 3);
  CHECK(p.b.stats().duplicates == 0);
  check_accounting(p);
  CHECK(p.b.stats().packets_received == m2test::packets_of(s.sizes));

  const auto& r = p.a_tx.records;
  REQUIRE(r.size() > 8);
  for (unsigned i = 0; i < r.size(); ++i) CHECK(r[i].frame.number == i + 1);
  // Frame 3 is repeated twice (4, 5), each 100 us (ack_timeout_ns) after the
  // previous sending ended, plus 100 ns to start.
  CHECK_FALSE(r[2].frame.retransmission);
  for (unsigned i : {3u, 4u}) {
    CHECK(r[i].frame.retransmission);
    CHECK(r[i].frame.seq == r[2].frame.seq);
    CHECK(r[i].frame.packets == r[2].frame.packets);
    CHECK(r[i].called == r[i - 1].returned + ns(100000 + 100));
  }
  CHECK(r[7].frame.retransmission);
  CHECK(r[7].frame.seq == r[6].frame.seq);
  CHECK_FALSE(r[5].frame.retransmission);
  CHECK(r[5].frame.seq == r[2].frame.seq + 1);
}

TEST_CASE("link: a lost acknowledge makes a duplicate, which is acknowledged and dropped", "[model][link]") {
  // B->A: frame 1 is B's hello, 2 acks A's first data frame, 3 its second
  // (in AT one info frame per data frame carries the ack and the fresh
  // credit). A waits for that ack: nothing else comes from B, A's ack
  // timeout expires and it sends the frame again.
  MlxPair p("", TimingStyle::AT, with(kPlain, {{"link.corrupt_frames_ba", "3"}}));
  Stream s("s", p.nb_a, p.nb_b, 0, 1, std::vector<uint32_t>(6, 1016), {});
  sc_core::sc_start(ns(1e7));
  require_clean(s);
  CHECK(p.link.stats(1).corrupted_info == 1);
  CHECK(p.a.stats().retransmissions == 1);
  CHECK(p.b.stats().duplicates == 1);
  CHECK(p.b.channel_stats(0).payload_bytes_received == 6 * 1024);
  check_accounting(p);
}

TEST_CASE("link: a lost credit update: the stalled sender asks for credit after the ack timeout", "[model][link]") {
  // A 3000-byte message (94 packets) into B's 2 KB RX channel, read only
  // from 50 us. A sends 4 plain frames (64 packets, B's whole channel), B
  // acks each (B->A frames 2..5), A stalls on credit. At 50 us B reads the
  // channel empty and announces the credit (frame 6): lost. A asks again
  // 100 us after it stalled, B answers, the rest goes.
  MlxPair p("", TimingStyle::AT, with(kPlain, {{"link.corrupt_frames_ba", "6"}}));
  Stream::Pacing late;
  late.pop_start = ns(50000);
  Stream s("s", p.nb_a, p.nb_b, 0, 1, {3000}, late);
  std::string stalled;
  m2test::TestThread probe("probe", [&] {
    sc_core::wait(ns(60000));
    stalled = p.a.describe_state();
  });
  sc_core::sc_start(ns(1e7));
  require_clean(s);
  CHECK(p.link.stats(1).corrupted_info == 1);
  CHECK(p.a.stats().credit_requests == 1);
  CHECK(p.a.stats().retransmissions == 0);
  CHECK(p.a.channel_stats(0).credit_stalls == 1);
  CHECK_THAT(stalled, Catch::Matchers::Contains("ch0 tx: credit 0 (limit 64, sent 64)") &&
                          Catch::Matchers::Contains("stalled on credit"));
  // The request: an info frame from A with credit_request set, about 100 us
  // after the fourth ack.
  const m2test::FrameTap::Record* ask = nullptr;
  for (const auto& r : p.a_tx.records)
    if (r.frame.credit_request) ask = &r;
  REQUIRE(ask);
  CHECK_FALSE(ask->frame.is_data());
  CHECK(ask->called > ns(100000));
  CHECK(ask->called < ns(110000));
  CHECK(s.last_delivery() > ask->called);
  // Then the remaining 30 packets: the answer (~230 ns), a frame of 16, its
  // ack cycle (1700 ns), a frame of 14 and its delivery (~1300 ns).
  CHECK(s.last_delivery() < ask->called + ns(4000));
}

TEST_CASE("link: seeded bit errors in both directions: all data intact, repeats accounted, same seed same run",
          "[model][link]") {
  const Presets ber = {{"link.bit_error_rate", "1e-5"}, {"link.seed", "7"}};
  MlxPair p1("p1_", TimingStyle::AT, ber), p2("p2_", TimingStyle::AT, ber);
  MlxPair p3("p3_", TimingStyle::AT, with(ber, {{"link.seed", "8"}}));
  auto s1 = four_streams(p1, "a", 21, 25), s2 = four_streams(p2, "b", 21, 25), s3 = four_streams(p3, "c", 21, 25);
  sc_core::sc_start(ns(1e8));
  for (auto* v : {&s1, &s2, &s3})
    for (auto& s : *v) require_clean(*s);
  for (MlxPair* p : {&p1, &p2, &p3}) check_accounting(*p);
  // Errors happened in both directions (info frames, 64 bits, are rarely hit).
  for (unsigned dir = 0; dir < 2; ++dir) CHECK(p1.link.stats(dir).corrupted_data > 0);
  std::printf(
      "BER 1e-5, seed 7: corrupted A->B %llu data + %llu info of %llu frames, B->A %llu + %llu of %llu; "
      "repeats A %llu B %llu, duplicates A %llu B %llu\n",
      (unsigned long long)p1.link.stats(0).corrupted_data, (unsigned long long)p1.link.stats(0).corrupted_info,
      (unsigned long long)p1.link.stats(0).frames, (unsigned long long)p1.link.stats(1).corrupted_data,
      (unsigned long long)p1.link.stats(1).corrupted_info, (unsigned long long)p1.link.stats(1).frames,
      (unsigned long long)p1.a.stats().retransmissions, (unsigned long long)p1.b.stats().retransmissions,
      (unsigned long long)p1.a.stats().duplicates, (unsigned long long)p1.b.stats().duplicates);
  // Same seed, same run: frame for frame.
  for (unsigned dir = 0; dir < 2; ++dir) {
    CHECK(p1.link.stats(dir).frames == p2.link.stats(dir).frames);
    CHECK(p1.link.stats(dir).corrupted_data == p2.link.stats(dir).corrupted_data);
    CHECK(p1.link.stats(dir).corrupted_info == p2.link.stats(dir).corrupted_info);
    CHECK(p1.link.stats(dir).busy == p2.link.stats(dir).busy);
  }
  for (unsigned i = 0; i < 4; ++i) CHECK(s1[i]->delivered == s2[i]->delivered);
  // Another seed, other errors.
  CHECK(last_of(s3) != last_of(s1));
}

TEST_CASE("link: ieee1394 (the first Maestro) vs lvds (Maestro2), against the formula", "[model][link]") {
  const Presets old = {{"link.variant", "ieee1394"}};
  MlxPair l1("l1_", TimingStyle::AT, kPlain), i1("i1_", TimingStyle::AT, with(kPlain, old));
  MlxPair l2("l2_", TimingStyle::AT, kPlain), i2("i2_", TimingStyle::AT, with(kPlain, old));
  MlxPair c2("c2_", TimingStyle::AT, old);  // Maestro2's engine on the old link
  // One 24-byte message (one packet) at 10 us, after the bring-up; and a
  // stream of 16 KB (16 x 1024 B, 32 plain frames) from 10 us.
  Stream::Pacing at10;
  at10.start = ns(10000);
  Stream m_l("m_l", l1.nb_a, l1.nb_b, 0, 1, {24}, at10), m_i("m_i", i1.nb_a, i1.nb_b, 0, 1, {24}, at10);
  const std::vector<uint32_t> sizes(16, 1016);
  Stream s_l("s_l", l2.nb_a, l2.nb_b, 0, 1, sizes, at10), s_i("s_i", i2.nb_a, i2.nb_b, 0, 1, sizes, at10);
  Stream s_c("s_c", c2.nb_a, c2.nb_b, 0, 1, sizes, at10);
  sc_core::sc_start(ns(1e7));
  for (Stream* s : {&m_l, &m_i, &s_l, &s_i, &s_c}) require_clean(*s);

  // One packet: tx 100 + [arbitration] + 44 B + latency + rx 100.
  CHECK(m_l.delivered[0] == ns(10000 + 100 + 44 * 2.5 + 45 + 100));
  CHECK(m_i.delivered[0] == ns(10000 + 100 + 1000 + 44 * 20 + 172.5 + 100));
  // Stream: per frame the data frame and the ack's info frame, each with
  // its arbitration on the half-duplex medium (the sides alternate).
  const double lvds_cycle = 100 + 524 * 2.5 + 45 + 100 + 40 + 8 * 2.5 + 45 + 40;
  const double i_data = 100 + 1000 + 524 * 20 + 172.5 + 100;
  const double i_cycle = i_data + 40 + 1000 + 8 * 20 + 172.5 + 40;
  CHECK(lvds_cycle == 1700);
  CHECK(i_cycle == 13265);
  CHECK(s_l.last_delivery() == ns(10000 + 31 * lvds_cycle + 100 + 524 * 2.5 + 45 + 100));
  CHECK(s_i.last_delivery() == ns(10000 + 31 * i_cycle + i_data));
  // Continuous burst on the old link: 8 frames of 64 packets keep the medium.
  const double c_data = 100 + 1000 + 2072 * 20 + 172.5 + 100;
  const double c_cycle = c_data + 40 + 1000 + 8 * 20 + 172.5 + 40;
  CHECK(s_c.last_delivery() == ns(10000 + 7 * c_cycle + c_data));

  auto mbit = [](const Stream& s) { return 16 * 1024 * 8 / (s.last_delivery() - s.first_push).to_seconds() / 1e6; };
  std::printf(
      "16 KB, plain burst: lvds %.0f Mbit/s, ieee1394 %.0f Mbit/s; continuous on ieee1394 %.0f Mbit/s; "
      "one packet: lvds %.1f ns, ieee1394 %.1f ns\n",
      mbit(s_l), mbit(s_i), mbit(s_c), (m_l.delivered[0] - ns(10000)).to_seconds() * 1e9,
      (m_i.delivered[0] - ns(10000)).to_seconds() * 1e9);
  CHECK(mbit(s_i) == Approx(309).epsilon(0.01));
  CHECK(mbit(s_l) > 7 * mbit(s_i));
}

namespace {

// Frames of both sides in wire order.
struct WireFrame {
  unsigned side;
  sc_time called;
  const m2::MlxFrame* frame;
};
std::vector<WireFrame> wire_order(const MlxPair& p) {
  std::vector<WireFrame> v;
  for (unsigned side = 0; side < 2; ++side)
    for (const auto& r : (side == 0 ? p.a_tx : p.b_tx).records) v.push_back({side, r.called, &r.frame});
  std::sort(v.begin(), v.end(),
            [](const WireFrame& x, const WireFrame& y) { return x.frame->wire_start < y.frame->wire_start; });
  return v;
}

}  // namespace

TEST_CASE("link: half duplex: one frame at a time, the sides alternate when both wait", "[model][link]") {
  const Presets old = {{"link.variant", "ieee1394"}};
  MlxPair at("at_", TimingStyle::AT, old), lt("lt_", TimingStyle::LT, old);
  auto sa = four_streams(at, "a", 31, 10), sl = four_streams(lt, "l", 31, 10);
  sc_core::sc_start(ns(1e8));
  for (auto* v : {&sa, &sl})
    for (auto& s : *v) require_clean(*s);

  for (MlxPair* p : {&at, &lt}) {
    INFO((p == &at ? "AT" : "LT"));
    const auto v = wire_order(*p);
    unsigned switches = 0, unfair = 0;
    for (size_t i = 1; i < v.size(); ++i) {
      // Never two frames on the medium; every burst after its arbitration.
      CHECK(v[i].frame->wire_start >= v[i - 1].frame->wire_end + ns(1000));
      if (v[i].side != v[i - 1].side) {
        ++switches;
        continue;
      }
      // Same side twice: the other side must not have been waiting when
      // the medium was handed on (at the end of the previous frame).
      const sc_time grant = v[i].frame->wire_start - ns(1000);
      for (const WireFrame& w : v)
        if (w.side != v[i].side && w.called <= grant && w.frame->wire_start > v[i].frame->wire_start) ++unfair;
    }
    CHECK(switches > v.size() / 3);
    if (p == &at) CHECK(unfair == 0);
    CHECK(p->link.stats(0).waiting + p->link.stats(1).waiting > sc_core::SC_ZERO_TIME);
  }
}

TEST_CASE("link: LT and AT on one contended workload: the same data, times within 1 %", "[model][link]") {
  // Contended: the half-duplex medium, all four streams, continuous burst
  // (frames keep the medium), random sizes. And the same on lvds.
  const Presets old = {{"link.variant", "ieee1394"}};
  MlxPair at("at_", TimingStyle::AT, old), lt("lt_", TimingStyle::LT, old);
  MlxPair fat("fat_", TimingStyle::AT), flt("flt_", TimingStyle::LT);
  auto sa = four_streams(at, "a", 41, 20), sl = four_streams(lt, "l", 41, 20);
  auto fa = four_streams(fat, "fa", 41, 20), fl = four_streams(flt, "fl", 41, 20);
  sc_core::sc_start(ns(1e8));
  for (auto* v : {&sa, &sl, &fa, &fl})
    for (auto& s : *v) require_clean(*s);
  // The same messages arrived (each stream checks contents and order).
  for (unsigned i = 0; i < 4; ++i) {
    CHECK(lt.engine(i / 2).channel_stats(i % 2).payload_bytes_sent ==
          at.engine(i / 2).channel_stats(i % 2).payload_bytes_sent);
    CHECK(sl[i]->delivered.size() == sa[i]->delivered.size());
  }
  const double t_at = (last_of(sa) - ns(1000)).to_seconds(), t_lt = (last_of(sl) - ns(1000)).to_seconds();
  const double f_at = (last_of(fa) - ns(1000)).to_seconds(), f_lt = (last_of(fl) - ns(1000)).to_seconds();
  std::printf(
      "LT vs AT, 4 streams: ieee1394 AT %.1f us, LT %.1f us (%+.2f %%); lvds AT %.2f us, LT %.2f us "
      "(%+.2f %%)\n",
      t_at * 1e6, t_lt * 1e6, (t_lt / t_at - 1) * 100, f_at * 1e6, f_lt * 1e6, (f_lt / f_at - 1) * 100);
  // Half duplex: LT books the medium first come, first served; AT alternates
  // the waiting sides. Full duplex: one sender per direction, so booking and
  // waiting give the same times.
  CHECK(t_lt == Approx(t_at).epsilon(0.01));
  CHECK(last_of(fl) == last_of(fa));
  // AT really waited for the medium; LT booked it without waiting.
  CHECK(at.link.stats(0).waiting + at.link.stats(1).waiting > sc_core::SC_ZERO_TIME);
}
