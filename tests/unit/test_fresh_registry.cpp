// The unit tests' listener (main.cpp): each run through a test case's body
// starts with an empty parameter registry, and presets set at the top of a
// body reach its sections.
#include <catch2/catch.hpp>

#include <memory>

#include "core/params.h"

using m2::Param;
using m2::ParamRegistry;
using m2::ValueOrigin;

namespace {
// Survives the runs through the body below, as a leaked parameter would.
std::unique_ptr<Param<double>> g_leaked;
}  // namespace

TEST_CASE("unit tests: each run through a test case starts with an empty parameter registry", "[params][listener]") {
  auto& reg = ParamRegistry::instance();
  // Each section below runs in its own pass through this body; what the
  // first pass registered and preset is gone in the second.
  CHECK(reg.all().empty());
  CHECK_FALSE(reg.has_preset("dev.leak"));
  reg.preset("dev.top", "7", ValueOrigin{"test"});
  SECTION("first pass registers a parameter and a preset, and keeps them") {
    reg.preset("dev.leak", "2", ValueOrigin{"test"});
    g_leaked = std::make_unique<Param<double>>("dev", "leak", 1.0, "", "outlives its pass");
    CHECK(g_leaked->get() == 2.0);
  }
  SECTION("second pass sees neither, but the preset of this pass's top") {
    CHECK(reg.find("dev.leak") == nullptr);
    CHECK_FALSE(reg.has_preset("dev.leak"));
    CHECK(reg.has_preset("dev.top"));
    Param<double> top{"dev", "top", 1.0, "", "preset above the section"};
    CHECK(top.get() == 7.0);
  }
}
