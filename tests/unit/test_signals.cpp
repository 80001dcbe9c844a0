// Declared VCD signals: names under the model, the registry's order and
// refusal of a name declared twice, a busy line's samples, a model's own.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "core/params.h"
#include "core/signals.h"
#include "link/link.h"
#include "pci/pci_bus.h"

using m2::Signal;
using m2::SignalRegistry;

namespace {

struct Owner : sc_core::sc_module {
  explicit Owner(sc_core::sc_module_name n) : sc_module(n) {}
};

std::vector<std::string> names(const std::vector<const Signal*>& signals) {
  std::vector<std::string> r;
  for (const Signal* s : signals) r.push_back(s->name());
  return r;
}

}  // namespace

TEST_CASE("signals: a declared signal is named under its model and read through its probe", "[signals]") {
  SignalRegistry& reg = SignalRegistry::instance();
  reg.clear();
  Owner sb("sb0");
  uint64_t level = 5;
  {
    Signal occupied{&sb, "stations_occupied", 8, [&level] { return level; }};
    CHECK(occupied.name() == "sb0.stations_occupied");
    CHECK(occupied.owner() == "sb0");
    CHECK(occupied.probe().width == 8);
    CHECK(reg.find("sb0.stations_occupied") == &occupied);
    level = 7;
    CHECK(occupied.probe().read() == 7);
    CHECK_FALSE(occupied.probe().enable);
  }
  CHECK(reg.find("sb0.stations_occupied") == nullptr);
}

TEST_CASE("signals: a name declared twice is refused, naming it", "[signals]") {
  SignalRegistry::instance().clear();
  Owner m("node0");
  Signal first{&m, "idle", 1, [] { return uint64_t(0); }};
  CHECK_THROWS_WITH((Signal{&m, "idle", 1, [] { return uint64_t(1); }}), "signal 'node0.idle' declared twice");
  CHECK(SignalRegistry::instance().find("node0.idle") == &first);
}

TEST_CASE("signals: a busy line is 1 for a sample period a transfer overlapped, once enabled", "[signals]") {
  SignalRegistry::instance().clear();
  Owner m("bus");
  m2::BusyLog log;
  Signal busy{&m, "busy", log};
  const m2::SignalProbe& p = busy.probe();
  CHECK(p.width == 1);
  REQUIRE(p.enable);
  log.add(sc_core::SC_ZERO_TIME, sc_core::sc_time(10, sc_core::SC_NS));
  CHECK_FALSE(log.enabled());  // nothing kept before the signal is chosen
  p.enable();
  CHECK(log.enabled());
  log.add(sc_core::SC_ZERO_TIME, sc_core::sc_time(10, sc_core::SC_NS));
  // At time 0 the period (0, 0] holds nothing yet; the span stays for later samples.
  CHECK(p.read() == 0);
  sc_core::sc_start(5, sc_core::SC_NS);
  CHECK(p.read() == 1);  // (0, 5 ns]
  sc_core::sc_start(20, sc_core::SC_NS);
  CHECK(p.read() == 1);  // (5, 25 ns]: the transfer ran to 10 ns
  sc_core::sc_start(10, sc_core::SC_NS);
  CHECK(p.read() == 0);  // (25, 35 ns]
}

TEST_CASE("signals: the PCI bus and a link declare their busy lines", "[signals][pci][link]") {
  SignalRegistry::instance().clear();
  m2::ParamRegistry::instance().clear();
  m2::PciBus pci("pci", m2::TimingStyle::LT);
  m2::Link link("link0", m2::TimingStyle::LT);
  CHECK(names(SignalRegistry::instance().of("pci")) == std::vector<std::string>{"pci.busy"});
  CHECK(names(SignalRegistry::instance().of("link0")) == std::vector<std::string>{"link0.ab_busy", "link0.ba_busy"});
}
