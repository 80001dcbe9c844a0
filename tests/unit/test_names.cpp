// Hierarchical names: one wildcard selects one kind of thing, and names of the
// earlier flat scheme are errors that give the new name.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "core/glob.h"
#include "core/params.h"
#include "platform/renamed_names.h"

using Catch::Matchers::Contains;
using m2::ConfigError;
using m2::glob_match;
using m2::Param;
using m2::ParamRegistry;
using m2::ValueOrigin;

TEST_CASE("names: '*' stays within one part of a name, '**' crosses parts", "[names]") {
  CHECK(glob_match("sb*.variant", "sb0.variant"));
  CHECK_FALSE(glob_match("sb*.variant", "sb0.port3.mlx.variant"));
  CHECK(glob_match("sb*.port*.mlx.variant", "sb0.port3.mlx.variant"));
  CHECK_FALSE(glob_match("sb*.port*.mlx.variant", "sb0.variant"));
  CHECK(glob_match("node*.ni.firmware", "node12.ni.firmware"));
  CHECK(glob_match("**.link.variant", "node3.link.variant"));
  CHECK(glob_match("**.link.variant", "sb0.port7.link.variant"));
  CHECK_FALSE(glob_match("**.link.variant", "node3.ni.mlcx.variant"));
  CHECK_FALSE(glob_match("*.link.variant", "sb0.port7.link.variant"));
}

namespace {
// The definition, by backtracking (exponential in the number of stars): the
// reference the memoised matcher must agree with.
bool glob_reference(const char* p, const char* s) {
  for (; *p; ++p, ++s) {
    if (*p == '*') {
      const bool any = p[1] == '*';
      const char* rest = any ? p + 2 : p + 1;
      for (const char* t = s;; ++t) {
        if (glob_reference(rest, t)) return true;
        if (!*t || (!any && *t == '.')) return false;
      }
    }
    if (!*s || *p != *s) return false;
  }
  return !*s;
}
}  // namespace

TEST_CASE("names: wildcard matching agrees with its definition and stays fast with many stars", "[names]") {
  // 20000 random short patterns and names over a small alphabet with dots.
  std::mt19937 rng(7);
  const std::string pat_chars = "ab.**", text_chars = "ab.";
  for (int n = 0; n < 20000; ++n) {
    std::string p, t;
    for (size_t k = rng() % 8; k > 0; --k) p += pat_chars[rng() % pat_chars.size()];
    for (size_t k = rng() % 10; k > 0; --k) t += text_chars[rng() % text_chars.size()];
    INFO("pattern '" << p << "', text '" << t << "'");
    REQUIRE(glob_match(p, t) == glob_reference(p.c_str(), t.c_str()));
  }
  // Found by fuzz_config: a key with a hundred '*' before a literal that the
  // name lacks took minutes by backtracking.
  const std::string stars = "t" + std::string(100, '*') + "opo@";
  CHECK_FALSE(glob_match(stars, "topology.nodes"));
  CHECK(glob_match("t" + std::string(101, '*') + "s", "topology.nodes"));
  CHECK_FALSE(glob_match("t" + std::string(99, '*') + "x", std::string(1000, 't')));
}

TEST_CASE("names: a pattern sets one kind of parameter only", "[names]") {
  auto& reg = ParamRegistry::instance();
  reg.preset("sb*.variant", "inorder", ValueOrigin{"--set"});
  Param<std::string> sb{"sb0", "variant", "fifo", "", "switch box variant"};
  Param<std::string> mlx{"sb0.port3.mlx", "variant", "maestro2", "", "engine variant"};
  CHECK(sb.get() == "inorder");
  CHECK(mlx.get() == "maestro2");
  CHECK_NOTHROW(reg.check_all_presets_used());
}

TEST_CASE("names: old flat names map to their hierarchical successors", "[names]") {
  CHECK(m2::renamed_name("sb0_port3_mlx.variant") == "sb0.port3.mlx.variant");
  CHECK(m2::renamed_name("sb0_port*_mlx.variant") == "sb0.port*.mlx.variant");
  CHECK(m2::renamed_name("sb*_mlx.variant") == "sb*.port*.mlx.variant");
  CHECK(m2::renamed_name("link_node3.bit_error_rate") == "node3.link.bit_error_rate");
  CHECK(m2::renamed_name("link_sb0_7_sb1_6.seed") == "sb0.port7.link.seed");
  CHECK(m2::renamed_name("link_*.variant") == "**.link.variant");
  CHECK(m2::renamed_name("sb1.bus_busy") == "sb1.switching_bus.busy");
  CHECK(m2::renamed_name("sb0.port2.tx0_used") == "sb0.port2.buffer.tx0_used");
  CHECK(m2::renamed_name("sb*.stations_occupied") == "sb*.controller.stations_occupied");
  CHECK(m2::renamed_name("sb0.port2.mlx.variant") == "");
  CHECK(m2::renamed_name("node3.link.variant") == "");
  // Whole signal names only: misspelt parameters get their "did you mean".
  CHECK(m2::renamed_name("sb0.stations_count") == "");
  CHECK(m2::renamed_name("sb*.stationss") == "");
  CHECK(m2::renamed_name("sb0.bus_busy_ns") == "");
  CHECK(m2::renamed_name("sb0.port0.tx_credit") == "");
}

TEST_CASE("names: an old name in a config is an error giving the new one", "[names]") {
  auto& reg = ParamRegistry::instance();
  reg.set_renamed_names(m2::renamed_name);
  reg.preset("link_node1.seed", "7", ValueOrigin{"configs/x.yaml:4"});
  Param<int64_t> seed{"node1.link", "seed", 1, "", "seed"};
  CHECK(seed.get() == 1);
  CHECK_THROWS_WITH(reg.check_all_presets_used(),
                    Contains("configs/x.yaml:4: key 'link_node1.seed' is an old name: it is now 'node1.link.seed'"));
  CHECK_THROWS_AS(m2::check_no_old_names("node0.ni, link_*", "--set: key 'sim.vcd'"), ConfigError);
  CHECK_THROWS_WITH(m2::check_no_old_names("node0.ni, link_*", "--set: key 'sim.vcd'"),
                    Contains("'link_*' is an old name: it is now '**.link'"));
  CHECK_NOTHROW(m2::check_no_old_names("node0.ni **.link sb0.controller", "--set: key 'sim.vcd'"));
  reg.set_renamed_names(nullptr);
  ParamRegistry::instance().clear();
}

TEST_CASE("names: the parameters renamed from _mbps to _mbyte_per_s give their new name", "[names]") {
  CHECK(m2::renamed_name("node0.ni.dma.rate_mbps") == "node0.ni.dma.rate_mbyte_per_s");
  CHECK(m2::renamed_name("node*.ni.dma.rate_mbps") == "node*.ni.dma.rate_mbyte_per_s");
  CHECK(m2::renamed_name("dma.rate_mbps") == "dma.rate_mbyte_per_s");
  CHECK(m2::renamed_name("node1.ni.netbuf.loopback_mbps") == "node1.ni.netbuf.loopback_mbyte_per_s");
  CHECK(m2::renamed_name("node2.host.memcpy_mbps") == "node2.host.memcpy_mbyte_per_s");
  // Whole leaves only: a longer or misspelt name is not an old one.
  CHECK(m2::renamed_name("node0.ni.dma.rate_mbps_max") == "");
  CHECK(m2::renamed_name("node0.ni.dma.xrate_mbps") == "");
  auto& reg = ParamRegistry::instance();
  reg.set_renamed_names(m2::renamed_name);
  reg.preset("node0.ni.dma.rate_mbps", "800", ValueOrigin{"configs/x.yaml:9"});
  reg.preset("node0.host.memcpy_mbps", "300MB/s", ValueOrigin{"--set"});
  Param<double> rate{"node0.ni.dma", "rate_mbyte_per_s", 1600.0, "MB/s", "rate"};
  CHECK(rate.get() == 1600.0);  // the old key does not set the new parameter
  try {
    reg.check_all_presets_used();
    FAIL("old names were accepted");
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    CHECK_THAT(msg, Contains("configs/x.yaml:9: key 'node0.ni.dma.rate_mbps' is an old name: it is now "
                             "'node0.ni.dma.rate_mbyte_per_s'"));
    CHECK_THAT(msg, Contains("--set: key 'node0.host.memcpy_mbps' is an old name: it is now "
                             "'node0.host.memcpy_mbyte_per_s'"));
  }
  reg.set_renamed_names(nullptr);
}
