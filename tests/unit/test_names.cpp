// Hierarchical names: one wildcard selects one kind of thing, and names of the
// earlier flat scheme are errors that give the new name.
#include <catch2/catch.hpp>

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

TEST_CASE("names: a pattern sets one kind of parameter only", "[names]") {
  ParamRegistry::instance().clear();
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
  CHECK(m2::renamed_name("sb0.port2.mlx.variant") == "");
  CHECK(m2::renamed_name("node3.link.variant") == "");
}

TEST_CASE("names: an old name in a config is an error giving the new one", "[names]") {
  ParamRegistry::instance().clear();
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
