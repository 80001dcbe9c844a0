// Integration test of configuration sweeps (traces/sweep.py, `./m2vp sweep`):
// two variants give two distinct rows, and the same sweep gives the same rows
// again; every variant keeps its full parameter set.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "run_sim.h"

using namespace m2it;

namespace {

std::vector<std::vector<std::string>> sweep_rows(Sandbox& sb, const std::string& out) {
  const std::string py = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const std::string cmd = py + " '" + M2VP_SOURCE_DIR + "/traces/sweep.py' --sim '" + M2VP_SIM + "' '" +
                          M2VP_SOURCE_DIR +
                          "/configs/cluster-2.yaml' --vary '**.link.variant=lvds,ieee1394' --jobs 2 --out '" +
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

namespace {

void write_text(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

// Runs a wrapper script with arguments; its exit code, output in `text`.
int run_script(Sandbox& sb, const std::string& script, const std::string& args, std::string& text) {
  const std::string py = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  const fs::path log = sb.dir() / (script + ".log");
  const std::string cmd = py + " '" + M2VP_SOURCE_DIR + "/traces/" + script + "' --sim '" + M2VP_SIM + "' " + args +
                          " > '" + log.string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  text = read_text(log);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

TEST_CASE("sweeps and case runs: usage errors exit 64 with what was expected", "[integration][sweep]") {
  Sandbox sb;
  const std::string cfg = std::string(M2VP_SOURCE_DIR) + "/configs/";
  const std::string out = " --out '" + (sb.dir() / "out").string() + "'";
  std::string text;
  // A sweep of a config with cases would run every variant into the same error.
  CHECK(run_script(sb, "sweep.py", "'" + cfg + "pingping.yaml' --vary sim.timing=lt,at" + out, text) == 64);
  CHECK(contains(text, "pingping.yaml declares cases"));
  CHECK_FALSE(fs::exists(sb.dir() / "out"));
  CHECK(run_script(sb, "sweep.py", "'" + cfg + "cluster-2.yaml' --vary sim.timing" + out, text) == 64);
  CHECK(contains(text, "--vary 'sim.timing': expected NAME=V1,V2,..."));
  CHECK(run_script(sb, "cases.py", "'" + cfg + "pingping.yaml' --bogus" + out, text) == 64);
  CHECK(contains(text, "unrecognized arguments: --bogus"));
  CHECK_FALSE(contains(text, "--sim"));  // the wrapper's own option is not the user's
  CHECK(run_script(sb, "cases.py", "'" + cfg + "pingping.yaml' --gdb-all 23999" + out, text) == 64);
  CHECK(contains(text, "run one case with --case NAME"));
  // A column no run wrote: said, not silently replaced by the default one.
  CHECK(
      run_script(sb, "sweep.py",
                 "'" + cfg + "mmp-pingpong.yaml' --vary 'node*.host.args=--sizes 1 --iters 2' --metric latencyus" + out,
                 text) == 64);
  CHECK(contains(text, "--metric latencyus: no results.tsv has that column (columns: bytes, latency_us, mbps)"));
}

TEST_CASE("case runs: a --set that takes a case's own setting is warned about, per case", "[integration][sweep]") {
  Sandbox sb;
  std::string text;
  const std::string out = " --out '" + (sb.dir() / "out").string() + "'";
  REQUIRE(run_script(sb, "cases.py",
                     "'" + std::string(M2VP_SOURCE_DIR) +
                         "/configs/mmp-variants.yaml' --set 'node*.host.args=--sizes 1 "
                         "--iters 1'" +
                         out,
                     text) == 0);
  // heap and phys choose their buffers through the application's arguments.
  CHECK(contains(text,
                 "case case=heap: warning: --set node*.host.args overrides case case=heap's own setting "
                 "node*.host.args = "));
  CHECK(contains(text, "case case=phys: warning: --set node*.host.args overrides case case=phys's own setting"));
  CHECK_FALSE(contains(text, "case case=pci32-33: warning"));  // its setting is another key

  // The folder of the cases lists what the run wrote there; plots made from
  // it join the list, and the next run of the cases removes them first.
  const fs::path folder = sb.dir() / "out";
  const std::string listed = read_text(folder / ".m2vp-run-files");
  CHECK(contains(listed, "results.tsv\n"));
  CHECK(contains(listed, "cases.tsv\n"));
  write_text(folder / "latency_cdf.png", "an earlier run's plot");
  write_text(folder / ".m2vp-run-files", listed + "latency_cdf.png\n");
  write_text(folder / "notes.txt", "the user's");
  const std::string again = "'" + std::string(M2VP_SOURCE_DIR) +
                            "/configs/mmp-variants.yaml' --set 'node*.host.args=--sizes 1 --iters 1'" + out;
  // A file no run wrote: the folder is refused before anything runs ...
  REQUIRE(run_script(sb, "cases.py", again, text) == 64);
  CHECK(contains(text, "m2vp run: error: clear-output: " + folder.string() +
                           ": the output folder holds what no run wrote (notes.txt)"));
  CHECK(fs::exists(folder / "latency_cdf.png"));
  // ... unless told to write into it all the same (re-runs into the folder of
  // cases, with their case folders, need nothing of the kind: above).
  REQUIRE(run_script(sb, "cases.py", again + " --out-force", text) == 0);
  CHECK_FALSE(fs::exists(folder / "latency_cdf.png"));
  // The cases' NetPIPE curves (MMP ping-pongs) are drawn anew, one per case.
  CHECK(contains(read_text(folder / "netpipe_throughput.tsv"), "case=phys\t"));
  CHECK(fs::exists(folder / "notes.txt"));
  CHECK(fs::exists(folder / "results.tsv"));
}

TEST_CASE("sweeps: a sweep folder holding what no run wrote is refused, --out-force reaches the variants",
          "[integration][sweep]") {
  Sandbox sb;
  std::string text;
  const fs::path folder = sb.dir() / "out";
  const std::string args = "'" + std::string(M2VP_SOURCE_DIR) +
                           "/configs/cluster-2.yaml' --vary '**.link.variant=lvds' --out '" + folder.string() + "'";
  fs::create_directories(folder / "xx.link.variant-lvds");
  write_text(folder / "xx.link.variant-lvds" / "notes.txt", "the user's");
  // The sweep's own folder is a run's folder: refused before any variant runs.
  CHECK(run_script(sb, "sweep.py", args, text) == 64);
  CHECK(contains(text, folder.string() + ": the output folder holds what no run wrote (xx.link.variant-lvds/)"));
  CHECK_FALSE(fs::exists(folder / "xx.link.variant-lvds" / "results.tsv"));
  REQUIRE(run_script(sb, "sweep.py", args + " --out-force", text) == 0);
  CHECK(fs::exists(folder / "xx.link.variant-lvds" / "results.tsv"));
  CHECK(read_text(folder / "xx.link.variant-lvds" / "notes.txt") == "the user's");
}
