// Loosely timed against approximately timed (issue 13): LT takes shortcuts
// for speed (frames handed over at once, syncs skipped, timers kept lazily),
// but its results must stay within 3% of AT's at every size of experiments
// 1, 2 and 6. Each case runs the same config in both styles and compares
// results.tsv row by row: the same sizes in the same order, and latency and
// throughput within 3%.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "run_sim.h"

using namespace m2it;

namespace {

constexpr double kTolerance = 0.03;
const std::vector<std::string> kCompared{"latency_us", "mean_us", "mbps"};
// Columns that say what a row measured: equal in both styles.
const std::vector<std::string> kKeys{"pattern", "nodes", "bytes", "messages"};

std::string config(const std::string& name) { return std::string(M2VP_SOURCE_DIR) + "/configs/" + name + ".yaml"; }

// AT runs carry the protocol checker on every AT binding (sim.check_protocol):
// a broken base-protocol rule fails the run, and the checker changes no result.
SimResult run_style(Sandbox& sb, const std::string& cfg, const std::string& args_key, const std::string& args,
                    const std::string& timing, const std::string& perturb_ns = "0") {
  SimResult r = sb.run({"run", config(cfg), "--quiet", "--set", "sim.timing=" + timing, "--set", args_key + "=" + args,
                        "--set", "sim.perturb_ns=" + perturb_ns, "--set",
                        std::string("sim.check_protocol=") + (timing == "at" ? "true" : "false")},
                       true, 240);
  INFO(r.describe());
  REQUIRE(r.exited(0));
  return r;
}

struct Compared {
  int values = 0;  // timing values compared
  int moved = 0;   // of those, how many differ between the AT runs
};

// Compares LT's results.tsv with the range of the AT runs' (one AT run: the
// plain comparison): the same rows, key columns equal, and every timing value
// within kTolerance of that range, which may itself be at most max_spread wide.
Compared compare(const SimResult& lt, const std::vector<const SimResult*>& at, double max_spread = 0) {
  const auto l = read_tsv(lt.out_dir / "results.tsv");
  std::vector<std::vector<std::vector<std::string>>> a;
  for (const SimResult* r : at) a.push_back(read_tsv(r->out_dir / "results.tsv"));
  REQUIRE(l.size() > 1);
  for (const auto& t : a) {
    REQUIRE(t.size() == l.size());
    REQUIRE(t[0] == l[0]);
  }
  Compared n;
  for (size_t c = 0; c < l[0].size(); ++c) {
    bool timing_column = false, key_column = false;
    for (const std::string& name : kCompared) timing_column |= l[0][c] == name;
    for (const std::string& name : kKeys) key_column |= l[0][c] == name;
    if (!timing_column && !key_column) continue;  // minimum, maximum, percentiles
    for (size_t r = 1; r < l.size(); ++r) {
      REQUIRE(l[r].size() == l[0].size());
      double lo = 1e300, hi = 0;
      for (const auto& t : a) {
        REQUIRE(t[r].size() == l[0].size());
        INFO("row " << r << ": AT " << t[r][0] << " " << t[r][1] << " ..., column " << l[0][c]);
        if (key_column) {
          CHECK(l[r][c] == t[r][c]);
          continue;
        }
        lo = std::min(lo, std::stod(t[r][c]));
        hi = std::max(hi, std::stod(t[r][c]));
      }
      if (key_column) continue;
      const double lt_v = std::stod(l[r][c]);
      INFO("row " << r << ": " << l[r][0] << " " << l[r][1] << " ..., column " << l[0][c] << ": LT " << lt_v << ", AT "
                  << lo << " .. " << hi);
      REQUIRE(lo > 0);
      CHECK(hi <= lo * (1 + max_spread));
      CHECK(lt_v >= lo * (1 - kTolerance));
      CHECK(lt_v <= hi * (1 + kTolerance));
      n.moved += hi > lo;
      ++n.values;
    }
  }
  return n;
}

}  // namespace

TEST_CASE("LT vs AT: experiment 1 (NI ping-pong, 32 B to 1 MB) agrees within 3% at every size",
          "[integration][lt_vs_at]") {
  Sandbox sb;
  const std::string args = "2,32,1048576,1,0,1";  // 2 repetitions per size (the default takes 10)
  const SimResult lt = run_style(sb, "ni-pingpong", "node*.ni.simctrl.args", args, "lt");
  const SimResult at = run_style(sb, "ni-pingpong", "node*.ni.simctrl.args", args, "at");
  CHECK(compare(lt, {&at}).values == 2 * 16);  // 16 sizes, latency and throughput
}

TEST_CASE("LT vs AT: experiment 2 (MMP ping-pong between hosts) agrees within 3% at every size",
          "[integration][lt_vs_at]") {
  Sandbox sb;
  // The default run's 14 sizes, 4 iterations each (the default takes 10).
  const std::string args = "--sizes 1,4,16,64,256,1k,2k,4k,8k,16k,32k,64k,128k,256k --iters 4 --warmup 1";
  const SimResult lt = run_style(sb, "mmp-pingpong", "node*.host.args", args, "lt");
  const SimResult at = run_style(sb, "mmp-pingpong", "node*.host.args", args, "at");
  for (const SimResult* r : {&lt, &at}) {
    CHECK(r->result("node0.host", "payload_errors") == std::optional<std::string>("0"));
    CHECK(r->result("node1.host", "payload_errors") == std::optional<std::string>("0"));
  }
  CHECK(compare(lt, {&at}).values == 2 * 14);  // latency and throughput
}

// Under contention the order in which SystemC runs processes woken at the
// same picosecond (unspecified; it follows the layout of the kernel's event
// queue) can decide arbitrations and move a row of experiment 6 in AT itself
// (docs/speed.md, "Tie order"; the application staggers the nodes' starts so
// that they do not tie, which keeps that spread small). So LT is compared
// with AT's envelope: AT run as is and with two no-op processes
// (sim.perturb_ns) that change nothing but that order. LT must lie within 3%
// of the envelope, and the envelope itself may be no wider than 4% (its
// spread is the measurement's uncertainty; wider would make the comparison
// meaningless). Rows without contention have no spread: there it is the
// plain 3%.
TEST_CASE("LT vs AT: experiment 6 (4 nodes, all three patterns) agrees within 3% of AT's same-time-order envelope",
          "[integration][lt_vs_at]") {
  // 3.25 % measured on the hot spot's 16 B row since the host level's fit
  // (docs/experiments.md): the firmware's longer turns let more same-time
  // arbitrations go either way.
  constexpr double kMaxSpread = 0.04;
  Sandbox sb;
  const std::string args = "--sizes 16,256,4k,64k --msgs 8";  // scale-4's sizes, half its messages
  const std::string key = "node*.host.args";
  const SimResult lt = run_style(sb, "scale-4", key, args, "lt");
  const SimResult at = run_style(sb, "scale-4", key, args, "at");
  const SimResult at997 = run_style(sb, "scale-4", key, args, "at", "997");
  const SimResult at10007 = run_style(sb, "scale-4", key, args, "at", "10007");
  for (const SimResult* r : {&lt, &at, &at997, &at10007})
    CHECK(r->result("node0.host", "payload_errors_all") == std::optional<std::string>("0"));
  const Compared n = compare(lt, {&at, &at997, &at10007}, kMaxSpread);
  CHECK(n.values == 3 * 4 * 2);  // 3 patterns x 4 sizes, mean latency and throughput
  // The perturbation is not a no-op for the comparison: some contended row moves with it.
  CHECK(n.moved > 0);
}

// The perturbation adds nothing but kernel events: where no two requests
// meet at one picosecond (two nodes, one message at a time), every result is
// the same to the last digit, in both styles.
TEST_CASE("sim.perturb_ns leaves a two-node ping-pong unchanged in LT and AT", "[integration][lt_vs_at]") {
  Sandbox sb;
  const std::string args = "--sizes 1,256,4k,64k --iters 3 --warmup 1";
  for (const char* timing : {"lt", "at"}) {
    INFO(timing);
    std::vector<std::string> tables;
    for (const char* period : {"0", "997"})
      tables.push_back(
          read_text(run_style(sb, "mmp-pingpong", "node*.host.args", args, timing, period).out_dir / "results.tsv"));
    CHECK(tables[0].size() > 20);
    CHECK(tables[0] == tables[1]);
  }
}

// A trace tap on an AT binding passes the base protocol's phases through
// (trace/trace_tap.h): tracing the PCI buses changes no result, and every
// transaction is recorded from its BEGIN_REQ to its BEGIN_RESP.
TEST_CASE("AT: tracing the PCI buses records their transactions and changes no result", "[integration][lt_vs_at]") {
  Sandbox sb;
  const std::string args = "--sizes 1,256,4k,64k --iters 3 --warmup 1";
  const SimResult plain = run_style(sb, "mmp-pingpong", "node*.host.args", args, "at");
  SimResult traced = sb.run({"run", config("mmp-pingpong"), "--quiet", "--set", "sim.timing=at", "--set",
                             "node*.host.args=" + args, "--trace", "node*.pci"},
                            true, 240);
  INFO(traced.describe());
  REQUIRE(traced.exited(0));
  CHECK(read_text(traced.out_dir / "results.tsv") == read_text(plain.out_dir / "results.tsv"));
  std::vector<std::vector<std::string>> rows;  // transactions.csv: no quoted fields
  for (const std::string& line : split_lines(read_text(traced.out_dir / "transactions.csv"))) {
    if (line.empty()) continue;
    rows.emplace_back();
    std::string field;
    for (char c : line + ",") {
      if (c != ',') field += c;
      else rows.back().push_back(std::exchange(field, ""));
    }
  }
  REQUIRE(rows.size() > 100);
  int bridge = 0, ni = 0;
  for (size_t r = 1; r < rows.size(); ++r) {
    bridge += rows[r][0] == "node0.pci.bridge";
    ni += rows[r][0] == "node0.pci.ni";
    CHECK(std::stoull(rows[r][2]) > std::stoull(rows[r][1]));  // every transaction takes bus time
    CHECK(rows[r][6] == "ok");
  }
  CHECK(bridge > 10);
  CHECK(ni > 100);
  // A 4-byte CPU read of an idle NI register: 15 clocks of 15.152 ns (66 MHz, 1 ps resolution).
  bool found = false;
  for (size_t r = 1; r < rows.size() && !found; ++r)
    found = rows[r][0] == "node0.pci.bridge" && rows[r][3] == "R" && rows[r][5] == "4" &&
            std::stoull(rows[r][2]) - std::stoull(rows[r][1]) == 15 * 15152;
  CHECK(found);
}
