// The switch box's switching bus (models/switchbox/switching_bus.*): the
// time formula against hand computation, LT masters overlapping, AT masters
// serialised round-robin, statistics.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <systemc>

#include "core/params.h"
#include "switchbox/switching_bus.h"

#include "test_thread.h"

using Catch::Matchers::Contains;
using m2::SwitchingBus;
using m2::TimingStyle;
using sc_core::SC_NS;
using sc_core::sc_time;

TEST_CASE("sb switching bus: transfer time = setup + ceil(bytes / width) clocks", "[model][sb]") {
  SwitchingBus b("bus", TimingStyle::LT, 128, 100.0, 2);  // 16 bytes per 10 ns clock
  CHECK(b.width_bytes() == 16);
  CHECK(b.clock_period() == sc_time(10, SC_NS));
  CHECK(b.cycles(0) == 2);
  CHECK(b.cycles(1) == 3);
  CHECK(b.cycles(16) == 3);
  CHECK(b.cycles(17) == 4);
  CHECK(b.cycles(32) == 4);
  CHECK(b.cycles(256) == 18);
  CHECK(b.transfer_time(8) == sc_time(30, SC_NS));
  CHECK(b.transfer_time(208) == sc_time(150, SC_NS));
  CHECK(b.transfer_time(256) == sc_time(180, SC_NS));

  SwitchingBus m1("m1", TimingStyle::LT, 32, 50.0, 2);  // maestro1: 4 bytes per 20 ns clock
  CHECK(m1.cycles(256) == 66);
  CHECK(m1.transfer_time(256) == sc_time(1320, SC_NS));

  SwitchingBus odd("odd", TimingStyle::LT, 64, 66.0, 0);  // one rounding per transfer
  CHECK(odd.transfer_time(8 * 66) == sc_time(1000, SC_NS));

  CHECK_THROWS_WITH(SwitchingBus("bad", TimingStyle::LT, 12, 100.0, 2), Contains("whole number of bytes"));
}

namespace {

// Two masters each making `n` transfers of `bytes` from time 0; returns
// when each finished.
struct Contention {
  SwitchingBus bus;
  unsigned a, b;
  sc_time a_done, b_done;
  std::vector<std::string> order;
  m2test::TestThread ta, tb;
  Contention(const std::string& name, TimingStyle style, unsigned n, uint64_t bytes)
      : bus(name, style, 128, 100.0, 2),
        a(bus.add_master("a")),
        b(bus.add_master("b")),
        ta((name + "_a").c_str(),
           [this, n, bytes] {
             for (unsigned i = 0; i < n; ++i) {
               bus.transfer(a, bytes);
               order.push_back("a");
             }
             a_done = sc_core::sc_time_stamp();
           }),
        tb((name + "_b").c_str(), [this, n, bytes] {
          for (unsigned i = 0; i < n; ++i) {
            bus.transfer(b, bytes);
            order.push_back("b");
          }
          b_done = sc_core::sc_time_stamp();
        }) {}
};

}  // namespace

TEST_CASE("sb switching bus: LT masters overlap, AT masters alternate", "[model][sb]") {
  Contention lt("lt", TimingStyle::LT, 3, 256), at("at", TimingStyle::AT, 3, 256);
  sc_core::sc_start();
  const sc_time one(180, SC_NS);
  // LT: each as if alone.
  CHECK(lt.a_done == one * 3.0);
  CHECK(lt.b_done == one * 3.0);
  // AT: serialised, round-robin after each transfer: a b a b a b.
  CHECK(at.order == std::vector<std::string>{"a", "b", "a", "b", "a", "b"});
  CHECK(at.a_done == one * 5.0);
  CHECK(at.b_done == one * 6.0);
  // Statistics.
  for (const auto* c : {&lt, &at}) {
    const auto& s = c->bus.master_stats();
    REQUIRE(s.size() == 2);
    CHECK(s[0].name == "a");
    CHECK(s[0].transfers == 3);
    CHECK(s[0].bytes == 768);
    CHECK(s[0].busy == one * 3.0);
    CHECK(c->bus.busy_time() == one * 6.0);
  }
  CHECK(lt.bus.master_stats()[1].waiting == sc_core::SC_ZERO_TIME);
  CHECK(at.bus.master_stats()[0].waiting == one * 2.0);  // before its 2nd and 3rd transfers
  CHECK(at.bus.master_stats()[1].waiting == one * 3.0);  // before each of its transfers
  CHECK(at.bus.describe() == "idle");
  CHECK(lt.bus.describe() == "LT (no arbitration)");
}
