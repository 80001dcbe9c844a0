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
using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_US;

namespace {

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
  WARN("finished at " << b.finished_at() << " bytes " << st.bytes_in << " transfers " << st.transfers << " stalls " << st.stalls << " instr " << b.sb->cpu.instructions());
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

TEST_CASE("sb: the routing firmware reports itself and its route tables", "[model][sb]") {
  Bench b;
  b.default_routes();
  Message m;
  m.dst = node(1);
  b.send(m);
  REQUIRE(b.run_all());
  REQUIRE(!b.sb->console.lines().empty());
  CHECK(b.sb->console.lines().front() == "sb router: 8 ports, 8 stations, out-of-order, routes loaded");
}
