// Integration test of configuration sweeps (traces/sweep.py, `./m2vp sweep`):
// two variants give two distinct rows, and the same sweep gives the same rows
// again; every variant keeps its full parameter set.
#include <catch2/catch.hpp>

#include <string>

#include "run_sim.h"

using namespace m2it;

namespace {

std::vector<std::vector<std::string>> sweep_rows(Sandbox& sb, const std::string& out) {
  const std::string py = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const std::string cmd = py + " '" + M2VP_SOURCE_DIR + "/traces/sweep.py' --sim '" + M2VP_SIM + "' '" +
                          M2VP_SOURCE_DIR + "/configs/cluster-2.yaml' --vary '**.link.variant=lvds,ieee1394' --jobs 2 --out '" +
                          (sb.dir() / out).string() + "' > '" + (sb.dir() / (out + ".txt")).string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  INFO(read_text(sb.dir() / (out + ".txt")));
  REQUIRE(rc == 0);
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : split_lines(read_text(sb.dir() / out / "sweep.tsv"))) rows.push_back(split_tabs(line));
  return rows;
}

}  // namespace

TEST_CASE("a sweep of two variants yields two distinct, reproducible result rows", "[integration][sweep]") {
  Sandbox sb;
  const auto a = sweep_rows(sb, "sweep1");
  REQUIRE(a.size() == 3);
  CHECK(a[0] == std::vector<std::string>{"variant", "exit", "sim_time_us"});
  CHECK(a[1][0] == "**.link.variant=lvds");
  CHECK(a[2][0] == "**.link.variant=ieee1394");
  CHECK(a[1][1] == "0");
  CHECK(a[2][1] == "0");
  CHECK(std::stod(a[2][2]) > std::stod(a[1][2]));  // the 400 Mbit/s links take longer
  const auto b = sweep_rows(sb, "sweep2");
  CHECK(a == b);
  // Each variant's full parameter set is kept with its results.
  const std::string params = read_text(sb.dir() / "sweep1" / "xx.link.variant-ieee1394" / "params.tsv");
  CHECK(contains(params, "node0.link.variant\tieee1394"));
}
