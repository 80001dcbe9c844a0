// Log levels per module (sim.log, core/log_levels.h, core/module_log.h): a
// model's debug message shows only for the modules a pattern enables, and a
// malformed setting is a configuration error naming the key.
#include <catch2/catch.hpp>

#include <string>

#include "run_sim.h"

using namespace m2it;

namespace {

const std::string kPingPong = std::string(M2VP_SOURCE_DIR) + "/configs/mmp-pingpong.yaml";
const std::string kShort = "node*.host.args=--sizes 1 --iters 2 --warmup 1";

}  // namespace

TEST_CASE("log levels: sim.log=PATTERN=debug shows that module's debug messages only", "[integration][log]") {
  Sandbox sb;
  const SimResult plain = sb.run({"run", kPingPong, "--set", kShort});
  INFO(plain.describe());
  REQUIRE(plain.exited(0));
  CHECK_FALSE(contains(plain.out, "debug: "));

  const SimResult r = sb.run({"run", kPingPong, "--set", kShort, "--set", "sim.log=node0.ni.dma=debug"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  CHECK(contains(r.out, "debug: node0.ni.dma: descriptor src=0x"));
  CHECK(contains(r.out, " queued\n"));
  CHECK_FALSE(contains(r.out, "debug: node1.ni.dma:"));
  CHECK(contains(r.file("run.log"), "debug: node0.ni.dma: descriptor src=0x"));

  // Several patterns; the last that matches decides.
  const SimResult two =
      sb.run({"run", kPingPong, "--set", kShort, "--set", "sim.log=node*.ni.*=debug, node0.ni.dma=info"});
  INFO(two.describe());
  REQUIRE(two.exited(0));
  CHECK(contains(two.out, "debug: node1.ni.dma: descriptor src=0x"));
  CHECK_FALSE(contains(two.out, "debug: node0.ni.dma:"));
}

TEST_CASE("log levels: a bad sim.log entry is a configuration error naming the key", "[integration][log]") {
  Sandbox sb;
  struct Bad {
    std::string value, expected;
  };
  for (const Bad& b : {Bad{"node0.ni.dma=loud",
                           "level 'loud' in 'node0.ni.dma=loud' is not one of error, warning, "
                           "info, debug"},
                       Bad{"node0.ni.dma", "'node0.ni.dma' is not PATTERN=LEVEL"},
                       Bad{"node0..dma=debug", "'node0..dma' in 'node0..dma=debug' is not a module name pattern"},
                       Bad{"node0.ni.dma=debug,,", "has an empty entry"}}) {
    const SimResult r = sb.run({"run", kPingPong, "--set", "sim.log=" + b.value}, true, 20);
    INFO(r.describe());
    CHECK(r.exited(64));
    CHECK(contains(r.err, "key 'sim.log'"));
    CHECK(contains(r.err, b.expected));
    CHECK_FALSE(contains(r.err, "internal error"));
  }
}
