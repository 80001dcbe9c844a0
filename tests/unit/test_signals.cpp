// Declared VCD signals: names under the model, the registry's order and
// refusal of a name declared twice, a busy line's samples, the models' own
// (PCI bus, link, the NI's DMA engine, interrupt controller, network buffer
// and link controller) and the state views those declare for GDB.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "core/params.h"
#include "core/signals.h"
#include "core/state_views.h"
#include "link/link.h"
#include "ni/dma_engine.h"
#include "ni/intc.h"
#include "ni/mlx_engine.h"
#include "ni/netbuf.h"
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

TEST_CASE("signals: a value's width is the bits its largest value needs", "[signals]") {
  CHECK(m2::signal_width_for(0) == 1);
  CHECK(m2::signal_width_for(1) == 1);
  CHECK(m2::signal_width_for(2) == 2);
  CHECK(m2::signal_width_for(2048) == 12);
  CHECK(m2::signal_width_for(2047) == 11);
  CHECK(m2::signal_width_for(uint64_t(1) << 17) == 18);  // a 128 KB channel full is not 0
  CHECK(m2::signal_width_for(~uint64_t(0)) == 64);
}

TEST_CASE("signals: the NI's DMA engine, interrupt controller, network buffer and link controller declare theirs",
          "[signals][ni]") {
  SignalRegistry& reg = SignalRegistry::instance();
  reg.clear();
  m2::StateViewRegistry::instance().clear();
  m2::ParamRegistry::instance().clear();
  m2::ParamRegistry::instance().preset("nb.channel_bytes", "4096", m2::ValueOrigin{"test"});
  m2::ParamRegistry::instance().preset("nb.total_bytes", "16384", m2::ValueOrigin{"test"});
  m2::NetBuf nb("nb");
  m2::DmaEngine dma("dma");
  m2::NiIntc intc("intc");
  m2::MlxEngine mlcx("mlcx", nb, m2::TimingStyle::LT);
  CHECK(names(reg.of("nb")) == std::vector<std::string>{"nb.tx0_used", "nb.rx0_used", "nb.tx1_used", "nb.rx1_used"});
  CHECK(names(reg.of("dma")) == std::vector<std::string>{"dma.busy"});
  CHECK(names(reg.of("intc")) == std::vector<std::string>{"intc.irq"});
  CHECK(names(reg.of("mlcx")) ==
        std::vector<std::string>{"mlcx.tx0_credit", "mlcx.tx0_wait_ack", "mlcx.tx1_credit", "mlcx.tx1_wait_ack"});
  // Widths: a 4 KB channel's level needs 13 bits; credits 32, flags 1.
  CHECK(reg.find("nb.rx1_used")->probe().width == 13);
  CHECK(reg.find("mlcx.tx1_credit")->probe().width == 32);
  CHECK(reg.find("mlcx.tx0_wait_ack")->probe().width == 1);
  CHECK(reg.find("dma.busy")->probe().width == 1);

  // The probes read the models' state.
  const uint8_t data[100] = {};
  nb.rx_push(1, data, 100);
  CHECK(reg.find("nb.rx1_used")->probe().read() == 100);
  CHECK(reg.find("nb.rx0_used")->probe().read() == 0);
  CHECK(reg.find("intc.irq")->probe().read() == 0);
  intc.irq.set(true);  // the output line, as the controller drives it
  CHECK(reg.find("intc.irq")->probe().read() == 1);
  CHECK(reg.find("dma.busy")->probe().read() == 0);
  CHECK(reg.find("mlcx.tx0_credit")->probe().read() == mlcx.tx_credit(0));

  // GDB's `monitor dma` and `monitor netbuf` (platform/ni_node.cpp adds what these declare).
  const auto views = m2::StateViewRegistry::instance().of("dma");
  REQUIRE(views.size() == 1);
  CHECK(views[0]->topic() == "dma");
  CHECK(views[0]->describe() == dma.describe_state());
  CHECK(m2::describe_declared_state("nb") == nb.describe_levels());
  CHECK(m2::describe_declared_state("mlcx") == mlcx.describe_state());
  CHECK(m2::StateViewRegistry::instance().find("nb.netbuf")->help() ==
        "bytes in each network-buffer channel, TX and RX");
}

TEST_CASE("state views: named under the model, in its order, a name declared twice refused, gone with the model",
          "[signals]") {
  m2::StateViewRegistry& reg = m2::StateViewRegistry::instance();
  reg.clear();
  Owner m("node0");
  {
    m2::StateView a{&m, "queue", "the queue", [] { return std::string("3 waiting\n"); }};
    m2::StateView b{&m, "link", "the link", [] { return std::string("up\n"); }};
    CHECK(a.name() == "node0.queue");
    CHECK(reg.find("node0.link") == &b);
    REQUIRE(reg.of("node0").size() == 2);
    CHECK(reg.of("node0")[0] == &a);
    CHECK(m2::describe_declared_state("node0") == "3 waiting\nup\n");
    CHECK(m2::describe_declared_state("node1").empty());
    CHECK_THROWS_WITH((m2::StateView{&m, "queue", "again", [] { return std::string(); }}),
                      "state view 'node0.queue' declared twice");
    CHECK(reg.find("node0.queue") == &a);
  }
  CHECK(reg.of("node0").empty());
}
