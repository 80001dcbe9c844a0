// Switch box (models/switchbox) with the real routing firmware on its 603e:
// unicast delivery intact and in order, cut-through after the first packet,
// in-order vs out-of-order switching on a constructed stall, 1/2/4/8
// stations, broadcast and multicast, unknown destinations, LT vs AT on a
// contended workload, the state description. Links are stand-ins
// (sb_bench.h) pushing into the ports' RX channels and draining their TX
// channels. Each TEST_CASE runs in its own process.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <string>
#include <vector>

#include <ip/mlx.h>

#include "core/params.h"
#include "switchbox/switch_box.h"

#include "sb_bench.h"

using Catch::Matchers::Contains;
using sbtest::Bench;
using sbtest::Message;
using sbtest::node;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {

// The routing firmware prints its start-up line in its first ~10 us; timed
// traffic starts after that.
const sc_time kBooted(20, SC_US);

// `count` unicast messages per port, random channel, destination (any port,
// itself included) and size 0..max_len, seeded.
std::vector<Message> random_unicast(unsigned ports, unsigned count, unsigned max_len, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Message> v;
  for (unsigned p = 0; p < ports; ++p) {
    for (unsigned i = 0; i < count; ++i) {
      Message m;
      m.port = p;
      m.channel = rng() % 2;
      m.dst = node(rng() % ports);
      m.payload = sbtest::random_payload(rng, rng() % (max_len + 1));
      v.push_back(m);
    }
  }
  return v;
}

// What each (source port, channel, destination port) flow should deliver.
std::map<Bench::Key, std::vector<std::vector<uint8_t>>> expected_unicast(const std::vector<Message>& sent) {
  std::map<Bench::Key, std::vector<std::vector<uint8_t>>> m;
  for (const Message& s : sent) m[{s.port, s.channel, s.dst - 0x100u}].push_back(s.payload);
  return m;
}

void check_unicast_run(const std::map<std::string, std::string>& presets, unsigned count, unsigned seed) {
  Bench b(presets);
  b.default_routes();
  const std::vector<Message> sent = random_unicast(b.sb->port_count(), count, 5000, seed);
  for (const Message& m : sent) b.send(m);
  const bool done = b.run_all();
  INFO(b.sb->describe_state());
  INFO("stopped at " << sc_core::sc_time_stamp() << ": " << b.run.summary());
  REQUIRE(done);
  const auto got = b.received_by_flow();
  const auto want = expected_unicast(sent);
  CHECK(got.size() == want.size());
  for (const auto& [key, payloads] : want) {
    INFO("flow from port " << std::get<0>(key) << " ch " << std::get<1>(key) << " to port " << std::get<2>(key));
    REQUIRE(got.count(key) == 1);
    CHECK(got.at(key) == payloads);  // intact and in order
  }
  const auto& st = b.sb->controller().stats();
  CHECK(st.messages == sent.size());
  CHECK(st.requests == sent.size());
  CHECK(st.discards == 0);
  CHECK(st.refused == 0);
  CHECK(b.sb->headers_extracted() == sent.size());
  CHECK(b.run.outcome() == m2::RunControl::Outcome::Running);  // no firmware fault
}

}  // namespace

TEST_CASE("sb: unicast messages of 0..5000 bytes arrive intact and in order per source channel", "[model][sb]") {
  check_unicast_run({}, 24, 1);
}

TEST_CASE("sb: unicast intact with the inorder variant", "[model][sb]") {
  check_unicast_run({{"variant", "inorder"}}, 12, 2);
}
TEST_CASE("sb: unicast intact with 1 station (ooo1)", "[model][sb]") {
  check_unicast_run({{"variant", "ooo1"}}, 12, 3);
}
TEST_CASE("sb: unicast intact with 2 stations (ooo2)", "[model][sb]") {
  check_unicast_run({{"variant", "ooo2"}}, 12, 4);
}
TEST_CASE("sb: unicast intact with 4 stations (ooo4)", "[model][sb]") {
  check_unicast_run({{"variant", "ooo4"}}, 12, 5);
}
// The firmware waits for request-buffer room (SB_IRQ_REQ_SPACE) and the
// analyzers for header-buffer room.
TEST_CASE("sb: unicast intact with one-entry header and request buffers and 1 in-order station", "[model][sb]") {
  check_unicast_run(
      {{"mode", "in-order"}, {"stations", "1"}, {"header_buffer_depth", "1"}, {"request_buffer_depth", "1"}}, 12, 8);
}

TEST_CASE("sb: unicast intact on the 4-port maestro1 variant", "[model][sb]") {
  check_unicast_run({{"variant", "maestro1"}}, 12, 6);
}

TEST_CASE("sb: the routing firmware reports itself and its route tables", "[model][sb]") {
  Bench b;
  b.default_routes();
  Message m;
  m.dst = node(1);
  b.send(m);
  REQUIRE(b.run_all());
  REQUIRE(!b.sb->console.lines().empty());
  CHECK(b.sb->console.lines().front() == "sb router: 8 ports, 8 stations, out-of-order, routes loaded");
  CHECK(b.received(1, 0).size() == 1);
}

// Output starts once the first packet is in the source channel: the sender
// stops after 32 bytes of a 4008-byte message for 50 us.
TEST_CASE("sb: output starts after the first 32 bytes, not after the whole message", "[model][sb]") {
  Bench b;
  b.default_routes();
  std::mt19937 rng(7);
  Message m;
  m.port = 0;
  m.channel = 1;
  m.dst = node(5);
  m.payload = sbtest::random_payload(rng, 4000);
  m.at = kBooted;
  m.pause_after = 32;
  m.pause = sc_time(50, SC_US);
  b.send(m);
  REQUIRE(b.run_all());
  // The first packet leaves within a few us (header analysis, firmware,
  // one bus transfer), long before the rest arrives.
  CHECK(b.time_of_byte(5, 1, 0) < kBooted + sc_time(3, SC_US));
  CHECK(b.time_of_byte(5, 1, 31) < kBooted + sc_time(3, SC_US));
  CHECK(b.time_of_byte(5, 1, 32) > kBooted + sc_time(50, SC_US));
  const auto got = b.received(5, 1);
  REQUIRE(got.size() == 1);
  CHECK(got[0].payload == m.payload);
}

namespace {

// Request A (port 0 -> port 1, 6008 bytes, from 20 us) fills port 1's TX
// channel 0, whose drain is held until 120 us: A stalls. Request B (port 2 ->
// port 3, 1008 bytes) comes at 40 us with its destination free.
const sc_time kHold(120, SC_US);
// A's tail can enter port 1's TX channel once the drain has taken all but
// 2048 bytes of it, and has left through the drain 5.1 us later (400 MB/s).
const sc_time kMovedIn = kHold + sc_time((6008 - 2048) / 400.0, SC_US);
const sc_time kDrained = kHold + sc_time(6008 / 400.0, SC_US);
struct StallRun {
  sc_time a_last, b_first, b_last;
  std::string state;  // at 80 us
  uint64_t stalls;
};

StallRun run_stall(const std::map<std::string, std::string>& presets) {
  Bench b(presets);
  b.default_routes();
  std::mt19937 rng(11);
  Message a, bm;
  a.port = 0;
  a.at = kBooted;
  a.dst = node(1);
  a.payload = sbtest::random_payload(rng, 6000);
  bm.port = 2;
  bm.dst = node(3);
  bm.payload = sbtest::random_payload(rng, 1000);
  bm.at = sc_time(40, SC_US);
  b.send(a);
  b.send(bm);
  b.hold_drain(1, 0, kHold);
  StallRun r;
  b.at(sc_time(80, SC_US), [&] { r.state = b.sb->describe_state(); });
  REQUIRE(b.run_all());
  const auto got_a = b.received(1, 0), got_b = b.received(3, 0);
  REQUIRE(got_a.size() == 1);
  REQUIRE(got_b.size() == 1);
  CHECK(got_a[0].payload == a.payload);
  CHECK(got_b[0].payload == bm.payload);
  r.a_last = got_a[0].last;
  r.b_first = got_b[0].first;
  r.b_last = got_b[0].last;
  r.stalls = b.sb->controller().stats().stalls;
  return r;
}

}  // namespace

TEST_CASE("sb: out-of-order switching delivers a ready request while another is stalled", "[model][sb]") {
  const StallRun r = run_stall({{"variant", "maestro2"}});
  INFO(r.state);
  // B arrives at 40 us: 1008 bytes at 400 MB/s take 2.5 us, then its tail
  // crosses the bus: done long before A's destination drains.
  CHECK(r.b_first > sc_time(40, SC_US));
  CHECK(r.b_last < sc_time(45, SC_US));
  // A completes only as its destination drains.
  CHECK(r.a_last > kDrained - sc_time(0.1, SC_US));
  CHECK(r.a_last < kDrained + sc_time(1, SC_US));
  CHECK(r.stalls >= 1);
  CHECK_THAT(r.state, Contains("port 1: RX0 0/2048 TX0 2048/2048"));
  CHECK_THAT(r.state, Contains("0 -> ports 0x2, 2048/6008 bytes; waits for: room: port 1 ch 0 TX has 0 of "
                               "the 32 bytes needed free"));
}

TEST_CASE("sb: in-order switching holds the transfer unit on the stalled request", "[model][sb]") {
  const StallRun r = run_stall({{"variant", "inorder"}});
  INFO(r.state);
  // B waits for A: it moves only after A's tail has entered its destination.
  CHECK(r.a_last > kDrained - sc_time(0.1, SC_US));
  CHECK(r.a_last < kDrained + sc_time(1, SC_US));
  CHECK(r.b_first > kMovedIn);
  CHECK(r.b_first < kMovedIn + sc_time(1, SC_US));
  CHECK_THAT(r.state, Contains("2 ch 0 -> ports 0x8, 0/1008 bytes; waits for: in order behind request #1"));
}

TEST_CASE("sb: out-of-order with 1 station cannot overtake (B waits outside the stations)", "[model][sb]") {
  const StallRun r = run_stall({{"variant", "ooo1"}});
  INFO(r.state);
  CHECK(r.b_first > kMovedIn);
  CHECK_THAT(r.state, Contains("request buffer: 1/16"));  // B waits for a station
}

TEST_CASE("sb: out-of-order with 2 stations overtakes", "[model][sb]") {
  const StallRun r = run_stall({{"variant", "ooo2"}});
  CHECK(r.b_last < sc_time(45, SC_US));
  CHECK(r.a_last > kDrained - sc_time(0.1, SC_US));
}

TEST_CASE("sb: out-of-order with 4 stations overtakes", "[model][sb]") {
  const StallRun r = run_stall({{"variant", "ooo4"}});
  CHECK(r.b_last < sc_time(45, SC_US));
  CHECK(r.a_last > kDrained - sc_time(0.1, SC_US));
}

TEST_CASE("sb: broadcast reaches every port but the source, multicast its group, sent once", "[model][sb]") {
  Bench b;
  m2::SbRoutes routes;
  const uint32_t group = 1u << 1 | 1u << 4 | 1u << 6;
  routes.multicast[0x42] = std::vector<uint32_t>(8, group);
  b.default_routes(routes);
  std::mt19937 rng(13);
  Message bc, mc, mc_member;
  bc.port = 3;
  bc.channel = 1;
  bc.type = MLX_TYPE_BROADCAST;
  bc.dst = MLX_BROADCAST_ADDR;
  bc.payload = sbtest::random_payload(rng, 3000);
  mc.port = 0;
  mc.type = MLX_TYPE_MULTICAST;
  mc.dst = 0x42;
  mc.payload = sbtest::random_payload(rng, 2500);
  mc_member = mc;  // from a member of the group: not back to itself
  mc_member.port = 4;
  mc_member.payload = sbtest::random_payload(rng, 700);
  b.send(bc);
  b.send(mc);
  b.send(mc_member);
  REQUIRE(b.run_all());
  for (unsigned p = 0; p < 8; ++p) {
    INFO("port " << p);
    const auto ch1 = b.received(p, 1);
    if (p == 3) {
      CHECK(ch1.empty());
    } else {
      REQUIRE(ch1.size() == 1);
      CHECK(ch1[0].payload == bc.payload);
      CHECK(ch1[0].type == MLX_TYPE_BROADCAST);
    }
    std::vector<std::vector<uint8_t>> ch0;
    for (const auto& r : b.received(p, 0)) ch0.push_back(r.payload);
    std::vector<std::vector<uint8_t>> want;
    if (p == 1 || p == 6 || p == 4) want.push_back(mc.payload);
    if (p == 1 || p == 6) want.push_back(mc_member.payload);
    std::sort(ch0.begin(), ch0.end());
    std::sort(want.begin(), want.end());
    CHECK(ch0 == want);
  }
  // Each message crossed the switching bus once, written to all its
  // destinations at the same time.
  const auto& st = b.sb->controller().stats();
  const uint64_t in = 3008 + 2508 + 708;
  CHECK(st.bytes_in == in);
  CHECK(st.bytes_out == 7 * 3008 + 3 * 2508 + 2 * 708);
  const auto& masters = b.sb->switching_bus().master_stats();
  const auto tu = std::find_if(masters.begin(), masters.end(),
                               [](const auto& m) { return m.name == "sb0.controller.transfer_unit"; });
  REQUIRE(tu != masters.end());
  CHECK(tu->bytes == in);
  CHECK(st.messages == 3);
}

TEST_CASE("sb: a message without a route is discarded, counted and logged, and its channel goes on", "[model][sb]") {
  Bench b;
  b.default_routes();
  std::mt19937 rng(17);
  Message lost, lost_group, ok;
  lost.dst = 0x999;
  lost.payload = sbtest::random_payload(rng, 3000);
  lost_group.type = MLX_TYPE_MULTICAST;
  lost_group.dst = 0x77;
  lost_group.payload = sbtest::random_payload(rng, 100);
  ok.dst = node(2);
  ok.payload = sbtest::random_payload(rng, 100);
  b.send(lost);
  b.send(lost_group);
  b.send(ok);  // same source channel, behind the lost ones
  REQUIRE(b.run_all());
  const auto got = b.received(2, 0);
  REQUIRE(got.size() == 1);
  CHECK(got[0].payload == ok.payload);
  for (unsigned p = 0; p < 8; ++p)
    if (p != 2) CHECK(b.bytes_out(p, 0) == 0);
  const auto& st = b.sb->controller().stats();
  CHECK(st.discards == 2);
  CHECK(st.messages == 1);
  const auto& lines = b.sb->console.lines();
  REQUIRE(lines.size() == 3);
  CHECK(lines[1] == "sb: no route: port 0 channel 0, type 0 to 0x0999 from 0x0100, 3008 bytes: discarded");
  CHECK(lines[2] == "sb: no route: port 0 channel 0, type 2 to 0x0077 from 0x0100, 108 bytes: discarded");
  bool found = false;
  for (const auto& r : b.run.results())
    if (r.source == "sb0.cpu" && r.key == "fw_result1") found = r.value == 2;
  CHECK(found);
}

TEST_CASE("sb: without routes broadcast still reaches every other port and unicast is discarded", "[model][sb]") {
  Bench b;  // no set_routes
  Message bc, uc;
  bc.port = 2;
  bc.type = MLX_TYPE_BROADCAST;
  bc.payload = {1, 2, 3};
  uc.dst = node(1);
  uc.channel = 1;
  b.send(bc);
  b.send(uc);
  REQUIRE(b.run_all());
  for (unsigned p = 0; p < 8; ++p) CHECK(b.received(p, 0).size() == (p == 2 ? 0u : 1u));
  CHECK(b.bytes_out(1, 1) == 0);
  CHECK(b.sb->controller().stats().discards == 1);
}

// The same contended traffic (every port sending small and large messages as
// fast as there is room, headers and data competing for the switching bus)
// on an LT and an AT switch box in one simulation.
TEST_CASE("sb: LT and AT switching bus: same data, completion times within 10%", "[model][sb]") {
  Bench lt({}, m2::TimingStyle::LT, "sb_lt");
  Bench at({}, m2::TimingStyle::AT, "sb_at", false);
  std::mt19937 rng(19);
  std::vector<Message> sent;
  for (unsigned p = 0; p < 8; ++p) {
    for (unsigned i = 0; i < 40; ++i) {
      Message m;
      m.port = p;
      m.channel = rng() % 2;
      m.dst = node((p + 1 + rng() % 7) % 8);
      m.payload = sbtest::random_payload(rng, i % 4 == 0 ? rng() % 3000 : rng() % 100);
      sent.push_back(m);
    }
  }
  for (Bench* b : {&lt, &at}) {
    b->link_mbps = 0;   // as fast as there is room
    b->drain_mbps = 0;  // destinations take everything at once
    b->default_routes();
    for (const Message& m : sent) b->send(m);
  }
  REQUIRE(Bench::run_all({&lt, &at}));
  CHECK(lt.received_by_flow() == at.received_by_flow());
  CHECK(lt.received_by_flow() == expected_unicast(sent));
  const double t_lt = lt.finished_at().to_seconds(), t_at = at.finished_at().to_seconds();
  INFO("LT " << lt.finished_at() << ", AT " << at.finished_at());
  CHECK(t_at >= t_lt * 0.9);
  CHECK(t_at <= t_lt * 1.1);
  // AT really arbitrated: some master waited for the grant; LT never waits.
  sc_time waited_lt, waited_at;
  for (const auto& m : lt.sb->switching_bus().master_stats()) waited_lt += m.waiting;
  for (const auto& m : at.sb->switching_bus().master_stats()) waited_at += m.waiting;
  CHECK(waited_lt == sc_core::SC_ZERO_TIME);
  CHECK(waited_at > sc_core::SC_ZERO_TIME);
}

// Messages that are in the source channel as a whole before their request:
// one transfer per burst, each setup + ceil(bytes / 16) clocks of 10 ns.
TEST_CASE("sb: transfer unit bus time matches the formula", "[model][sb]") {
  Bench b;
  b.link_mbps = 0;
  b.default_routes();
  std::mt19937 rng(23);
  for (unsigned i = 0; i < 10; ++i) {
    Message m;
    m.port = i % 8;
    m.dst = node((i + 3) % 8);
    m.payload = sbtest::random_payload(rng, i < 5 ? 200 : 1000);
    m.at = sc_time(10.0 * i, SC_US);  // one at a time
    b.send(m);
  }
  REQUIRE(b.run_all());
  const auto& masters = b.sb->switching_bus().master_stats();
  const auto tu = std::find_if(masters.begin(), masters.end(),
                               [](const auto& m) { return m.name == "sb0.controller.transfer_unit"; });
  REQUIRE(tu != masters.end());
  // 208 bytes: 2 + 13 clocks. 1008 bytes: three bursts of 256 (2 + 16) and 240 (2 + 15).
  CHECK(tu->transfers == 5 * 1 + 5 * 4);
  CHECK(tu->busy == sc_time(5 * 150 + 5 * 710, SC_NS));
  CHECK(b.sb->controller().stats().transfers == 25);
  // Each analyzer header write: 2 + 1 clocks.
  for (const auto& m : masters)
    if (m.name.find("analyzer") != std::string::npos) CHECK(m.busy == sc_time(30.0 * m.transfers, SC_NS));
}

// A request stalled for 100 us holds one station; a second one passes it.
TEST_CASE("sb: station occupancy is recorded over time", "[model][sb]") {
  Bench b;
  b.default_routes();
  Message a, c;
  a.at = kBooted;
  a.dst = node(1);
  a.payload.assign(6000, 0xA5);
  c.port = 2;
  c.dst = node(3);
  c.payload.assign(1000, 0x5A);
  c.at = sc_time(40, SC_US);
  b.send(a);
  b.send(c);
  b.hold_drain(1, 0, kHold);
  REQUIRE(b.run_all());
  const auto& ctl = b.sb->controller();
  const std::vector<sc_time> t = ctl.occupancy_time();
  REQUIRE(t.size() == 9);
  CHECK(t[1] > sc_time(100, SC_US));  // A from ~20 us to ~135 us (minus C's time)
  CHECK(t[2] > sc_time(1, SC_US));    // A and C together while C streams in (2.5 us, routed after ~1)
  CHECK(t[2] < sc_time(5, SC_US));
  for (unsigned k = 3; k < t.size(); ++k) CHECK(t[k] == sc_core::SC_ZERO_TIME);
  sc_time sum;
  for (const sc_time& x : t) sum += x;
  CHECK(sum == sc_core::sc_time_stamp());
  // The trace: 0 at start, up to 1 (A), 2 (C), back to 1, then 0.
  std::vector<unsigned> levels;
  for (const auto& s : ctl.occupancy_trace()) levels.push_back(s.occupied);
  CHECK(levels == std::vector<unsigned>{0, 1, 2, 1, 0});
  CHECK(ctl.occupied() == 0);
}
