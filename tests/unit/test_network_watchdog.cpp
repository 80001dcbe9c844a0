// Unit tests for the network watchdog (platform/network_watchdog.*), with
// probes standing in for the network models.
#include <catch2/catch.hpp>

#include <systemc>

#include "core/params.h"
#include "core/run_control.h"
#include "platform/network_watchdog.h"

using Catch::Matchers::Contains;

namespace {

struct Probe {
  uint64_t bytes = 0;
  bool pending = true;
};

void preset(double interval_us, int patience) {
  m2::ParamRegistry::instance().preset("wd.interval_us", std::to_string(interval_us), {"test"});
  m2::ParamRegistry::instance().preset("wd.patience", std::to_string(patience), {"test"});
}

// Moves `bytes` up every 10 us until `until`.
struct Traffic : sc_core::sc_module {
  SC_HAS_PROCESS(Traffic);
  Traffic(sc_core::sc_module_name n, Probe& p, sc_core::sc_time until) : sc_module(n), probe(p), end(until) {
    SC_THREAD(run);
  }
  void run() {
    while (sc_core::sc_time_stamp() < end) {
      wait(10, sc_core::SC_US);
      probe.bytes += 32;
    }
  }
  Probe& probe;
  sc_core::sc_time end;
};

}  // namespace

TEST_CASE("watchdog: pending messages without progress end the run as stalled, with the state", "[watchdog]") {
  preset(100, 3);
  m2::RunControl run;
  Probe p;
  Traffic traffic("traffic", p, sc_core::sc_time(1, sc_core::SC_MS));
  m2::NetworkWatchdog wd("wd", run,
                         {[&] { return p.bytes; }, [&] { return p.pending; },
                          [] { return std::string("  sb0.port1: rx0 2048/2048 (full), credits 0\n"); }});
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC));
  REQUIRE(run.outcome() == m2::RunControl::Outcome::Stalled);
  CHECK(run.exit_code() == m2::RunControl::EXIT_STALL);
  CHECK_THAT(run.summary(), Contains("network stalled"));
  // Progress until 1 ms; three looks without progress follow (the look at
  // exactly 1 ms may come before or after the last move, same time).
  CHECK(sc_core::sc_time_stamp() >= sc_core::sc_time(1300, sc_core::SC_US));
  CHECK(sc_core::sc_time_stamp() <= sc_core::sc_time(1400, sc_core::SC_US));
}

TEST_CASE("watchdog: an idle network with nothing else to do lets the simulation end", "[watchdog]") {
  preset(100, 3);
  m2::RunControl run;
  Probe p;
  p.pending = false;
  m2::NetworkWatchdog wd("wd", run, {[&] { return p.bytes; }, [&] { return p.pending; }, [] { return std::string(); }});
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC), sc_core::SC_EXIT_ON_STARVATION);
  CHECK(run.outcome() == m2::RunControl::Outcome::Running);
  CHECK(sc_core::sc_time_stamp() == sc_core::sc_time(100, sc_core::SC_US));  // one look, then it stops
}

TEST_CASE("watchdog: steady progress is never a stall", "[watchdog]") {
  preset(20, 2);
  m2::RunControl run;
  Probe p;
  Traffic traffic("traffic", p, sc_core::sc_time(2, sc_core::SC_MS));
  m2::NetworkWatchdog wd(
      "wd", run,
      {[&] { return p.bytes; }, [&] { return sc_core::sc_time_stamp() < sc_core::sc_time(2, sc_core::SC_MS); },
       [] { return std::string(); }});
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC), sc_core::SC_EXIT_ON_STARVATION);
  CHECK(run.outcome() == m2::RunControl::Outcome::Running);
  CHECK(p.bytes == 200 * 32);
}
