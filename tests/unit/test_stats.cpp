// Statistics: declaration, lookup, listing, reset and the registry's refusal
// of a name declared twice; a model's statistics declared with it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm_utils/simple_initiator_socket.h>

#include "core/params.h"
#include "core/stats.h"
#include "pci/pci_bus.h"

using Catch::Matchers::Contains;
using m2::Stat;
using m2::StatBase;
using m2::StatProbe;
using m2::StatRegistry;
using m2::StatReset;

namespace {

std::vector<std::string> names(const std::vector<StatBase*>& stats) {
  std::vector<std::string> r;
  for (const StatBase* s : stats) r.push_back(s->name());
  return r;
}

}  // namespace

TEST_CASE("stats: a declared statistic has its hierarchical name, unit and description", "[stats]") {
  StatRegistry& reg = StatRegistry::instance();
  reg.clear();
  {
    Stat<uint64_t> descriptors{"node0.ni.dma", "descriptors", "count", "descriptors completed"};
    CHECK(descriptors.name() == "node0.ni.dma.descriptors");
    CHECK(descriptors.owner() == "node0.ni.dma");
    CHECK(descriptors.local_name() == "descriptors");
    CHECK(descriptors.unit() == "count");
    CHECK(descriptors.description() == "descriptors completed");
    CHECK(descriptors.reset_policy() == StatReset::AfterWarmup);
    CHECK(reg.find("node0.ni.dma.descriptors") == &descriptors);
    CHECK(reg.find("node0.ni.dma.bytes") == nullptr);
    // Counting.
    CHECK(descriptors.value() == 0);
    ++descriptors;
    ++descriptors;
    descriptors += 3;
    CHECK(descriptors.get() == 5);
    CHECK(descriptors.value() == 5.0);
  }
  // Gone with its model.
  CHECK(reg.find("node0.ni.dma.descriptors") == nullptr);
  CHECK(reg.all().empty());
}

TEST_CASE("stats: a probe reads the model's state when asked", "[stats]") {
  StatRegistry::instance().clear();
  sc_core::sc_time busy = sc_core::SC_ZERO_TIME;
  StatProbe busy_us{"node0.pci", "busy_us", "us", "time the bus was held", [&busy] { return m2::in_us(busy); }};
  CHECK(busy_us.value() == 0);
  busy += sc_core::sc_time(2500, sc_core::SC_NS);
  CHECK(busy_us.value() == Approx(2.5));
  CHECK(StatRegistry::instance().find("node0.pci.busy_us")->value() == Approx(2.5));
}

TEST_CASE("stats: the registry lists every statistic and one model's in declaration order", "[stats]") {
  StatRegistry& reg = StatRegistry::instance();
  reg.clear();
  Stat<uint64_t> b_frames{"link0", "ab.frames", "count", "frames A to B"};
  Stat<uint64_t> dma_bytes{"node0.ni.dma", "bytes", "bytes", "bytes moved"};
  Stat<uint64_t> a_frames{"link0", "ba.frames", "count", "frames B to A"};
  Stat<double> busy{"link0", "ab.busy_us", "us", "wire busy A to B"};
  CHECK(names(reg.all()) ==
        std::vector<std::string>{"link0.ab.frames", "node0.ni.dma.bytes", "link0.ba.frames", "link0.ab.busy_us"});
  CHECK(names(reg.of("link0")) == std::vector<std::string>{"link0.ab.frames", "link0.ba.frames", "link0.ab.busy_us"});
  CHECK(names(reg.of("node0.ni.dma")) == std::vector<std::string>{"node0.ni.dma.bytes"});
  // A model's name, not a prefix: node0.ni's own statistics are not its DMA engine's.
  CHECK(reg.of("node0.ni").empty());
  CHECK(reg.of("link").empty());
}

TEST_CASE("stats: a warm-up reset zeroes the statistics declared so, and only those", "[stats]") {
  StatRegistry& reg = StatRegistry::instance();
  reg.clear();
  uint64_t model_counter = 7;
  Stat<uint64_t> counted{"sb0", "messages", "count", "messages switched"};
  StatProbe probed{"sb0", "bytes_out", "bytes", "bytes written", [&model_counter] { return double(model_counter); }};
  Stat<uint64_t> kept{"sb0", "routes", "count", "routing table entries", StatReset::Never};
  counted += 4;
  kept += 9;
  reg.reset_after_warmup();
  CHECK(counted.value() == 0);
  CHECK(probed.value() == 0);  // the reading at the reset is its new zero
  CHECK(kept.value() == 9);
  counted += 2;
  model_counter += 5;
  CHECK(counted.value() == 2);
  CHECK(probed.value() == 5);
  CHECK(model_counter == 12);  // the model's own state is not touched
}

TEST_CASE("stats: a name declared twice is refused, naming it, and the first stays registered", "[stats]") {
  StatRegistry& reg = StatRegistry::instance();
  reg.clear();
  Stat<uint64_t> first{"node0.ni.dma", "bytes", "bytes", "bytes moved"};
  CHECK_THROWS_AS((Stat<uint64_t>{"node0.ni.dma", "bytes", "count", "another"}), m2::ConfigError);
  CHECK_THROWS_WITH((Stat<uint64_t>{"node0.ni.dma", "bytes", "count", "another"}),
                    "statistic 'node0.ni.dma.bytes' declared twice (unit 'count', 'another')");
  CHECK_THROWS_AS((StatProbe{"node0.ni.dma", "bytes", "bytes", "again", [] { return 1.0; }}), m2::ConfigError);
  CHECK(reg.find("node0.ni.dma.bytes") == &first);
  CHECK(reg.all().size() == 1);
}

TEST_CASE("stats: reported() leaves out a statistic declared only_when_nonzero while it is zero", "[stats]") {
  StatRegistry::instance().clear();
  Stat<uint64_t> damaged{"link0", "ab.damaged", "count", "frames damaged"};
  damaged.only_when_nonzero();
  Stat<uint64_t> frames{"link0", "ab.frames", "count", "frames"};
  CHECK_FALSE(damaged.reported());
  CHECK(frames.reported());  // zero, but always reported
  ++damaged;
  CHECK(damaged.reported());
}

TEST_CASE("stats: a module's statistic takes its hierarchical name, and PCI masters declare theirs when named",
          "[stats][pci]") {
  StatRegistry& reg = StatRegistry::instance();
  reg.clear();
  m2::ParamRegistry::instance().clear();
  struct Master : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Master> socket{"socket"};
    explicit Master(sc_core::sc_module_name n) : sc_module(n) {}
  };
  m2::PciBus pci("pci", m2::TimingStyle::AT);
  Master cpu("cpu"), ni("ni");
  CHECK(names(reg.of("pci")) == std::vector<std::string>{"pci.busy_us"});
  pci.bind_master(cpu.socket, "bridge");
  pci.bind_master(ni.socket, "ni");
  // AT: the grant waits too.
  CHECK(names(reg.of("pci")) == std::vector<std::string>{"pci.busy_us", "pci.bridge.transactions", "pci.bridge.bytes",
                                                         "pci.bridge.busy_us", "pci.bridge.waiting_us",
                                                         "pci.ni.transactions", "pci.ni.bytes", "pci.ni.busy_us",
                                                         "pci.ni.waiting_us"});
  const StatBase* bytes = reg.find("pci.ni.bytes");
  REQUIRE(bytes != nullptr);
  CHECK(bytes->owner() == "pci");
  CHECK(bytes->local_name() == "ni.bytes");
  CHECK(bytes->unit() == "bytes");
  CHECK_THAT(bytes->description(), Contains("master ni"));
  CHECK(bytes->value() == 0);
}
