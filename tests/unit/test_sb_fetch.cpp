// Switch box request fetch unit, out-of-order mode (models/switchbox/
// switch_controller.*, docs/models/switch-controller.md): a request that could
// only wait in a station (its destination channel is claimed) stays in the
// request buffer, and one station is kept for requests that do not go up a
// cascade. Both situations used to fill every station with blocked requests
// while a request for a free destination waited outside (the cascade
// deadlock). Real routing firmware; stand-in links (sb_bench.h). Each
// TEST_CASE runs in its own process.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <string>

#include "switchbox/switch_box.h"

#include "sb_bench.h"

using Catch::Matchers::Contains;
using sbtest::Bench;
using sbtest::Message;
using sbtest::node;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {

// Two 6000-byte messages A1 (port 0) and A2 (port 4) go to blocked ports
// (drains held until 120 us); B (port 2 -> port 3, 1000 bytes) comes at 40 us
// with its destination free. Two stations.
const sc_time kHold(120, SC_US);

struct Run {
  sc_time b_last, a_last;
  std::string state;  // at 80 us
};

Run run(unsigned a2_dest, uint32_t up_ports) {
  Bench b(std::map<std::string, std::string>{{"variant", "ooo2"}});
  m2::SbRoutes routes;
  routes.up_ports = up_ports;
  b.default_routes(routes);
  std::mt19937 rng(5);
  Message a1, a2, bm;
  a1.port = 0;
  a1.dst = node(1);
  a1.at = sc_time(20, SC_US);
  a1.payload = sbtest::random_payload(rng, 6000);
  a2.port = 4;
  a2.dst = node(a2_dest);
  a2.at = sc_time(25, SC_US);
  a2.payload = sbtest::random_payload(rng, 6000);
  bm.port = 2;
  bm.dst = node(3);
  bm.at = sc_time(40, SC_US);
  bm.payload = sbtest::random_payload(rng, 1000);
  for (const Message& m : {a1, a2, bm}) b.send(m);
  b.hold_drain(1, 0, kHold);
  b.hold_drain(a2_dest, 0, kHold);
  Run r;
  b.at(sc_time(80, SC_US), [&] { r.state = b.sb->describe_state(); });
  REQUIRE(b.run_all());
  // A1 and A2 arrive at port 1 one after the other when both go there.
  const auto got_1 = b.received(1, 0), got_b = b.received(3, 0);
  const auto got_a2 = a2_dest == 1 ? got_1 : b.received(a2_dest, 0);
  const size_t a2_at = a2_dest == 1 ? 1 : 0;
  REQUIRE(got_1.size() == (a2_dest == 1 ? 2u : 1u));
  REQUIRE(got_a2.size() == a2_at + 1);
  REQUIRE(got_b.size() == 1);
  CHECK(got_1[0].payload == a1.payload);  // intact
  CHECK(got_a2[a2_at].payload == a2.payload);
  CHECK(got_b[0].payload == bm.payload);
  r.b_last = got_b[0].last;
  r.a_last = std::max(got_1[0].last, got_a2[a2_at].last);
  CHECK(b.sb->controller().stats().refused == 0);
  return r;
}

}  // namespace

TEST_CASE("sb fetch: a request for a claimed destination stays out of the stations (ooo2)", "[model][sb]") {
  // A2 also goes to port 1, owned by the stalled A1: fetched, it would take
  // the second station and B would wait for the drain at 120 us.
  const Run r = run(1, 0);
  INFO(r.state);
  // B: 1008 bytes at 400 MB/s from 40 us, long before the drain.
  CHECK(r.b_last < sc_time(45, SC_US));
  CHECK(r.a_last > kHold);
  CHECK_THAT(r.state, Contains("request buffer: 1/16"));  // A2 waits there
  CHECK_THAT(r.state, Contains("4 ch 0 -> ports 0x2, 6008 bytes"));
}

TEST_CASE("sb fetch: one station stays for requests that do not go up (ooo2)", "[model][sb]") {
  // A1 and A2 go up (ports 1 and 5) to blocked destinations: only one of them
  // may take a station, so B gets the other.
  const Run r = run(5, (1u << 1) | (1u << 5));
  INFO(r.state);
  CHECK(r.b_last < sc_time(45, SC_US));
  CHECK(r.a_last > kHold);
  CHECK_THAT(r.state, Contains("up ports 0x22"));
  CHECK_THAT(r.state, Contains("4 ch 0 -> ports 0x20, 6008 bytes"));  // A2 in the request buffer
}

TEST_CASE("sb fetch: without up ports both stations take blocked requests (ooo2)", "[model][sb]") {
  // The same traffic with no up ports: A2 is fetched and B waits for the drain
  // (what the reserved station avoids).
  const Run r = run(5, 0);
  INFO(r.state);
  CHECK(r.b_last > kHold);
  CHECK_THAT(r.state, Contains("request buffer: 1/16"));
}
