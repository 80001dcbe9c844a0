// What the console shows (platform/console_report.*, docs/models/console.md):
// a 16-node run's outcome, results and a summary per kind of component, the
// full report in report.txt; --quiet keeps the outcome and the results; the
// simulator prints no SystemC banner even when started directly; hosts'
// applications end as "program exited".
#include <catch2/catch.hpp>

#include <cstdio>
#include <regex>
#include <string>

#include "run_sim.h"

using namespace m2it;

namespace {

std::string config(const std::string& name) { return std::string(M2VP_SOURCE_DIR) + "/configs/" + name + ".yaml"; }

// Lines of the console that are not a component's own output ("[node3.host] ...").
std::vector<std::string> report_lines(const std::string& out) {
  std::vector<std::string> r;
  for (const std::string& l : split_lines(out))
    if (l.rfind("[", 0) != 0) r.push_back(l);
  return r;
}

}  // namespace

TEST_CASE("console: a 16-node run shows the outcome, the results and one line per kind and statistic",
          "[integration][console]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config("scale-16"), "--set", "node*.host.args=--sizes 16 --msgs 1"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const auto lines = report_lines(r.out);
  // Outcome first, then the results table (three patterns at one size).
  REQUIRE(lines.size() > 5);
  CHECK(std::regex_match(
      lines[0],
      std::regex(R"(== scale-16: all firmware exited with code 0 \(exit code 0\), .* simulated in .* wall ==)")));
  CHECK(lines[1] == "results:");
  CHECK(contains(r.out, "alltoall     16     16"));
  // The summary: each kind once per statistic, with its instance count and
  // where the largest value is; no per-instance lines.
  CHECK(std::regex_search(r.out,
                          std::regex(R"(\n  node\*\.ni\.cpu \(16\) +instructions +\d+ +\d+ \(node\d+\.ni\.cpu\)\n)")));
  CHECK(std::regex_search(r.out, std::regex(R"(\n  sb\*\.cpu \(3\) +instructions )")));
  CHECK(std::regex_search(r.out, std::regex(R"(\n  node\*\.link \(16\) +ab\.frames )")));
  CHECK_FALSE(contains(r.out, "\n  node15.ni.cpu "));
  CHECK_FALSE(contains(r.out, "model statistics:"));
  // About 600 lines of per-instance figures stay in the files the console names.
  CHECK(lines.size() < 90);
  CHECK(contains(r.out, "full report: " + r.out_dir.string() + "/report.txt"));
  CHECK(contains(r.out, r.out_dir.string() + "/stats.tsv"));
  const std::string report = r.file("report.txt");
  CHECK(split_lines(report).size() > 400);
  CHECK(contains(report, "node15.ni.cpu"));
  CHECK(contains(report, "model statistics:"));
  // The run log keeps the full report too.
  CHECK(contains(r.file("run.log"), "model statistics:"));
  // Hosts' applications are programs, NIs run firmware; with 16 of each the
  // console folds their exits into one line per kind, run.log has each.
  CHECK(contains(r.out, "[node*.host] 15 more lines like 'program exited with code 0 at # ps' (16 of 16 instances"));
  CHECK(contains(r.out, "[node*.ni.cpu] 15 more lines like 'firmware exited with code 0 at # ps' (16 of 16 instances"));
  CHECK(contains(r.file("run.log"), "[node3.host] program exited with code 0"));
  CHECK(contains(r.file("run.log"), "[node3.ni.cpu] firmware exited with code 0"));
}

TEST_CASE("console: a 16-node run's per-node chatter folds into one line per kind, at most 120 lines in all",
          "[integration][console]") {
  Sandbox sb;
  // One size, one message per pair: the same per-node lines as the default
  // run (138 console lines before the fold with this setting, 156 without).
  const SimResult r = sb.run({"run", config("scale-16"), "--set", "node*.host.args=--sizes 16 --msgs 1"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const auto lines = split_lines(r.out);
  CHECK(lines.size() <= 120);
  // One instance's exit shows as it happens, the other 15 as one line that
  // counts them; alike firmware lines fold the same way.
  size_t exits = 0, folded = 0;
  for (const std::string& l : lines) {
    if (std::regex_match(l, std::regex(R"(\[node\d+\.ni\.cpu\] firmware exited with code 0 at \d+ ps)"))) ++exits;
    if (l.rfind("[node*.ni.cpu] ", 0) == 0 && contains(l, " more line")) ++folded;
  }
  CHECK(exits == 1);
  CHECK(contains(r.out,
                 "[node*.ni.cpu] 15 more lines like 'firmware exited with code 0 at # ps' (16 of 16 instances; "
                 "each in run.log)"));
  CHECK(folded >= 2);
  // The folded lines are all in run.log, and the results are whole on the console.
  const std::string log = r.file("run.log");
  for (int n = 0; n < 16; ++n)
    CHECK(contains(log, "[node" + std::to_string(n) + ".ni.cpu] firmware exited with code 0 at "));
  CHECK(contains(r.out, "[node0.host] @row hotspot 16 16 "));
}

TEST_CASE("console: --quiet keeps the outcome and the results table, drops the firmware output",
          "[integration][console]") {
  Sandbox sb;
  const SimResult r =
      sb.run({"run", config("mmp-pingpong"), "--quiet", "--set", "node*.host.args=--sizes 1,4k --iters 2 --warmup 1"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const auto lines = split_lines(r.out);
  REQUIRE(lines.size() == 6);
  CHECK(contains(lines[0], "mmp-pingpong: all firmware exited with code 0 (exit code 0)"));
  CHECK(lines[1] == "results:");
  CHECK(std::regex_match(lines[2], std::regex(R"( *bytes +latency_us +mbps)")));
  CHECK(std::regex_match(lines[3], std::regex(R"( +1 +\d+\.\d+ +\d+\.\d+)")));
  CHECK(std::regex_match(lines[4], std::regex(R"( +4096 +\d+\.\d+ +\d+\.\d+)")));
  CHECK(lines[5] == "output in " + r.out_dir.string() + "/");
  CHECK_FALSE(contains(r.out, "[node"));
  CHECK(r.err.empty());
  // The firmware's and the hosts' lines are in the run log.
  CHECK(contains(r.file("run.log"), "[node0.host]"));
}

TEST_CASE("console: --help after the command prints the usage, not an error", "[integration][console]") {
  Sandbox sb;
  for (const char* flag : {"--help", "-h"}) {
    const SimResult r = sb.run({"run", flag}, false);
    INFO(r.describe());
    CHECK(r.exited(0));
    CHECK(r.out.rfind("usage: m2vp-sim", 0) == 0);
    CHECK_FALSE(contains(r.out + r.err, "error"));
  }
}

TEST_CASE("console: m2vp-sim started directly prints no SystemC banner", "[integration][console]") {
  // The harness sets SYSTEMC_DISABLE_COPYRIGHT_MESSAGE for every run; here
  // the simulator is started without it, as a user would.
  const std::string cmd = std::string("env -u SYSTEMC_DISABLE_COPYRIGHT_MESSAGE ") + M2VP_SIM + " --help 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  const int status = pclose(p);
  INFO(out);
  CHECK(status == 0);
  CHECK(out.rfind("usage: m2vp-sim", 0) == 0);
  CHECK_FALSE(contains(out, "Copyright"));
  CHECK_FALSE(contains(out, "SystemC 2."));
}

TEST_CASE("console: on a terminal a progress line shows the simulated time, and it changes no result",
          "[integration][console]") {
  // script(1) gives the simulator a pseudo-terminal; the line is rewritten
  // every M2VP_PROGRESS_INTERVAL_MS of wall time (here 1 ms, so that a fast
  // run shows it too).
  Sandbox sb;
  const std::string args = "node*.host.args=--sizes 1,64k --iters 20 --warmup 1";
  const SimResult plain = sb.run({"run", config("mmp-pingpong"), "--set", args});
  INFO(plain.describe());
  REQUIRE(plain.exited(0));
  CHECK_FALSE(contains(plain.out + plain.err, "of at most"));  // not a terminal: no progress

  const fs::path dir = plain.out_dir.parent_path() / "on-a-terminal";
  const fs::path typescript = plain.out_dir.parent_path() / "typescript";
  const std::string inner = std::string("M2VP_PROGRESS_INTERVAL_MS=1 SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 ") +
                            "M2VP_FIRMWARE_DIR=" + M2VP_TEST_FIRMWARE_DIR + " " + M2VP_SIM + " run " +
                            config("mmp-pingpong") + " --set '" + args + "' --out " + dir.string();
  const std::string cmd = "script -qec \"" + inner + "\" " + typescript.string() + " > /dev/null 2>&1";
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string tty = read_text(typescript);
  INFO(tty.substr(0, 2000));
  CHECK(std::regex_search(
      tty, std::regex(R"(\r  simulated \d+\.\d{3} ms of at most 2000 ms in \d+\.\d s wall, at most \d+ s left)")));
  CHECK(contains(tty, "\r\033[K"));  // cleared before the next line
  // The meter schedules no SystemC event: the results are the same.
  CHECK(read_text(dir / "results.tsv") == read_text(plain.out_dir / "results.tsv"));
}
