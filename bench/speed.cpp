// Benchmark: simulation speed of the loosely-timed mode (issue 13), each
// figure measured in this run:
//  - the default MMP ping-pong (configs/mmp-pingpong.yaml, experiment 2),
//  - experiment 1 (configs/ni-pingpong.yaml),
//  - the NetPIPE sweep to 8 MB on 2 nodes (configs/netpipe.yaml, --max 8M),
//  - experiment 6 on 16 nodes (configs/scale-16.yaml),
// each in LT and in AT; and experiment 6 on 256 nodes on a fat tree
// (configs/cluster-256.yaml, issue 29: every payload checked), in LT only
// (minutes of wall time; its figures are its wall time and peak memory). Per run: wall time, simulated time, peak
// resident memory, instructions executed, the ISS-bound limit (those instructions at the raw Unicorn speed measured
// first) and wall / limit, and the SystemC kernel's timed notifications per simulated microsecond (counted by
// m2_event_count, preloaded). Then the targets as ratios, and how far LT's
// results are from AT's (worst row of each experiment). Experiment 6 has
// rows whose AT result moves by a few percent with nothing but the order of
// same-time wake-ups (docs/speed.md, "Tie order"): AT also runs with no-op
// processes (sim.perturb_ns), and LT is compared with AT's envelope; AT's
// own spread is printed next to it.
// Each run is a child process of the simulator, waited for with wait4, so the
// peak resident set is that run's alone; wall time is from fork to exit.
//
//   ./m2vp bench speed [--only pingpong|ni|netpipe|scale16|scale256]
//
// Not a test: a target not met is a result; it exits non-zero only when a run
// fails.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

#include "child_run.h"
#include "raw_unicorn.h"

namespace fs = std::filesystem;

namespace {

// Issue 13's targets.
constexpr double kNetpipeSpeedupTarget = 5;  // AT wall / LT wall
constexpr double kNetpipeWallTargetS = 8;
constexpr double kPingpongWallTargetS = 0.2;
constexpr double kScale16WallTargetS = 4;
constexpr double kScale16RssTargetMb = 300;
constexpr double kScale256RssTargetMb = 4096;  // issue 29: one machine, under 4 GB
constexpr double kDeviationTarget = 0.03;      // LT vs AT, every size
constexpr unsigned kRawIterations = 20000;     // ~0.5 s of raw Unicorn

// The result columns compared between LT and AT: latency and throughput.
const char* const kComparedColumns[] = {"latency_us", "mean_us", "time_us", "mbps"};

struct Experiment {
  const char* key;  // for --only
  const char* label;
  std::string config;                   // under configs/
  std::vector<std::string> extra;       // more simulator arguments
  std::vector<const char*> perturb_ns;  // AT again with each sim.perturb_ns: the envelope
  bool lt_only = false;                 // too long to run twice: no AT comparison
};

struct Measured {
  m2bench::ChildUsage usage;
  double sim_us = 0;
  double instructions = 0;
  double timed_notifications = 0;
  double data_path_steps = 0;                     // the data-path scheduler's own events (issue 28)
  std::vector<std::vector<std::string>> results;  // results.tsv, header first
};

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "speed: error: %s\n", why.c_str());
  std::exit(1);
}

std::vector<std::vector<std::string>> read_tsv(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream f(p);
  for (std::string line; std::getline(f, line);) {
    if (line.empty()) continue;
    std::vector<std::string> cols;
    std::istringstream in(line);
    for (std::string c; std::getline(in, c, '\t');) cols.push_back(c);
    rows.push_back(cols);
  }
  return rows;
}

Measured measure(const Experiment& e, const std::string& timing, const fs::path& out,
                 const std::string& perturb_ns = "") {
  std::vector<std::string> argv{M2VP_SIM,
                                "run",
                                std::string(M2VP_SOURCE_DIR) + "/configs/" + e.config,
                                "--quiet",
                                "--out",
                                out.string(),
                                "--set",
                                "sim.timing=" + timing};
  argv.insert(argv.end(), e.extra.begin(), e.extra.end());
  if (!perturb_ns.empty()) argv.insert(argv.end(), {"--set", "sim.perturb_ns=" + perturb_ns});
  std::error_code ec;
  fs::remove_all(out, ec);
  fs::create_directories(out);
  const fs::path log = out.string() + ".log", events = out.string() + ".events";
  Measured m;
  m.usage = m2bench::run_measured(
      argv, log, {std::string("LD_PRELOAD=") + M2VP_EVENT_COUNT_LIB, "M2VP_EVENT_COUNT_FILE=" + events.string()});
  if (m.usage.exit_code != 0) {
    std::string cmd;
    for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    die(std::string(e.label) + " (" + timing + "): the run failed (exit " + std::to_string(m.usage.exit_code) +
        "): " + cmd + "\n  (output in " + log.string() + ")");
  }
  for (const auto& row : read_tsv(out / "stats.tsv")) {
    if (row.size() != 3) continue;
    if (row[0] == "run" && row[1] == "sim_time_us") m.sim_us = std::stod(row[2]);
    if (row[1] == "instructions") m.instructions += std::stod(row[2]);
    if (row[0] == "data_path" && row[1] == "steps") m.data_path_steps = std::stod(row[2]);
  }
  if (m.sim_us <= 0) die(std::string(e.label) + ": no simulated time in " + (out / "stats.tsv").string());
  std::ifstream ev(events);
  if (!(ev >> m.timed_notifications))
    die("no event count in " + events.string() + " (preload " M2VP_EVENT_COUNT_LIB ")");
  m.results = read_tsv(out / "results.tsv");
  fs::remove_all(out, ec);
  fs::remove(log, ec);
  fs::remove(events, ec);
  return m;
}

void print_run(const char* timing, const Measured& m, double raw_ips) {
  const double limit_s = m.instructions / raw_ips;
  std::printf(
      "    %s: wall %.2f s, simulated %.4f s, peak resident %.0f MB, %.3g instructions, ISS-bound limit "
      "%.3f s, wall/limit %.0fx, %.2f timed notifications and %.2f data-path steps per simulated us\n",
      timing, m.usage.wall_s, m.sim_us * 1e-6, m.usage.max_rss_mb, m.instructions, limit_s, m.usage.wall_s / limit_s,
      m.timed_notifications / m.sim_us, m.data_path_steps / m.sim_us);
  std::fflush(stdout);
}

// How far LT's results are from AT's: over all rows (matched by position;
// the runs have the same sizes) and compared columns, the largest relative
// distance of LT's value from the range of AT's values in `at` (one run: the
// plain difference). `where` names that row; `spread` gets the largest
// relative width of AT's range.
double deviation(const Measured& lt, const std::vector<Measured>& at, std::string& where, double& spread) {
  spread = 0;
  for (const Measured& a : at)
    if (lt.results.size() != a.results.size() || lt.results.empty() || lt.results[0] != a.results[0]) {
      where = "results.tsv differs in shape";
      return INFINITY;
    }
  const auto& header = lt.results[0];
  double worst = 0;
  for (size_t c = 0; c < header.size(); ++c) {
    bool compared = false;
    for (const char* name : kComparedColumns) compared |= header[c] == name;
    if (!compared) continue;
    for (size_t r = 1; r < lt.results.size(); ++r) {
      double lo = INFINITY, hi = -INFINITY;
      std::string at_values;
      for (const Measured& a : at) {
        const double v = std::stod(a.results[r].at(c));
        lo = std::min(lo, v), hi = std::max(hi, v);
        at_values += (at_values.empty() ? "" : "/") + a.results[r][c];
      }
      if (lo <= 0) continue;
      spread = std::max(spread, hi / lo - 1);
      const double l = std::stod(lt.results[r].at(c));
      const double d = l < lo ? (lo - l) / lo : l > hi ? (l - hi) / hi : 0;
      if (d >= worst) {
        worst = d;
        // The row by its first column and its size (e.g. "hotspot 16", "1024").
        std::string row = lt.results[r][0];
        for (size_t k = 1; k < header.size(); ++k)
          if (header[k] == "bytes") row += " " + lt.results[r][k] + " B";
        where = header[c] + " at " + row + ": LT " + lt.results[r][c] + ", AT " + at_values;
      }
    }
  }
  return worst;
}

const char* verdict(bool met) { return met ? "met" : "NOT MET"; }

}  // namespace

int sc_main(int argc, char* argv[]) {
  const std::vector<Experiment> experiments{
      {"pingpong", "default MMP ping-pong (configs/mmp-pingpong.yaml, experiment 2)", "mmp-pingpong.yaml", {}, {}},
      {"ni", "experiment 1 (configs/ni-pingpong.yaml)", "ni-pingpong.yaml", {}, {}},
      {"netpipe",
       "NetPIPE sweep to 8 MB, 2 nodes (configs/netpipe.yaml, --max 8M)",
       "netpipe.yaml",
       {"--set", "node*.host.args=--max 8M"},
       {}},
      {"scale16", "experiment 6 on 16 nodes (configs/scale-16.yaml)", "scale-16.yaml", {}, {"997", "10007"}},
      {"scale256",
       "experiment 6 on 256 nodes, fat tree (configs/cluster-256.yaml), LT only",
       "cluster-256.yaml",
       {},
       {},
       true},
  };
  std::string only;
  if (argc == 3 && std::string(argv[1]) == "--only") only = argv[2];
  else if (argc != 1) die("usage: bench_speed [--only pingpong|ni|netpipe|scale16|scale256]");
  bool known = only.empty();
  for (const Experiment& e : experiments) known |= only == e.key;
  if (!known) die("--only: expected pingpong, ni, netpipe, scale16 or scale256, not '" + only + "'");

  std::printf("speed: LT against AT in the same run\n");
  const double raw_ips = m2bench::raw_instructions_per_second(kRawIterations);
  std::printf("  raw Unicorn (compute kernel, best of 2): %.0f MIPS\n", raw_ips * 1e-6);
  std::fflush(stdout);

  const fs::path tmp = fs::temp_directory_path() / ("m2vp-bench-speed-" + std::to_string(::getpid()));
  // Per experiment: its LT run, its AT runs (unperturbed first) and LT's
  // distance from them (from AT's range when there are several).
  struct Runs {
    Measured lt;
    std::vector<Measured> at;
    double deviation;
  };
  std::map<std::string, Runs> runs;
  for (const Experiment& e : experiments) {
    if (!only.empty() && only != e.key) continue;
    std::printf("  %s\n", e.label);
    const Measured lt = measure(e, "lt", tmp / (std::string(e.key) + "-lt"));
    print_run("LT", lt, raw_ips);
    if (e.lt_only) {
      runs[e.key] = {lt, {}, 0};
      continue;
    }
    std::vector<Measured> at{measure(e, "at", tmp / (std::string(e.key) + "-at"))};
    print_run("AT", at[0], raw_ips);
    for (const char* p : e.perturb_ns) {
      at.push_back(measure(e, "at", tmp / (std::string(e.key) + "-at-" + p), p));
      print_run((std::string("AT, sim.perturb_ns=") + p).c_str(), at.back(), raw_ips);
    }
    std::string where;
    double spread = 0;
    double dev = deviation(lt, {at[0]}, where, spread);
    std::printf("    LT vs AT: worst deviation %.2f%% (%s), AT/LT wall %.2fx\n", dev * 100, where.c_str(),
                at[0].usage.wall_s / lt.usage.wall_s);
    if (at.size() > 1) {
      dev = deviation(lt, at, where, spread);
      std::printf(
          "    AT's spread over the same-time-order perturbations: up to %.2f%%; LT outside AT's range by "
          "at most %.2f%% (%s)\n",
          spread * 100, dev * 100, where.c_str());
    }
    std::fflush(stdout);
    runs[e.key] = {lt, at, dev};
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);

  std::printf("targets (ratio = target / measured for limits, measured / target for speed-ups; >= 1 is met)\n");
  if (runs.count("netpipe")) {
    const Measured& lt = runs["netpipe"].lt;
    const std::vector<Measured>& at = runs["netpipe"].at;
    const double speedup = at[0].usage.wall_s / lt.usage.wall_s;
    std::printf("  NetPIPE to 8 MB: LT %.2fx faster than AT (target %.0fx): ratio %.2f %s\n", speedup,
                kNetpipeSpeedupTarget, speedup / kNetpipeSpeedupTarget, verdict(speedup >= kNetpipeSpeedupTarget));
    std::printf("  NetPIPE to 8 MB: LT wall %.2f s (target %.0f s): ratio %.2f %s\n", lt.usage.wall_s,
                kNetpipeWallTargetS, kNetpipeWallTargetS / lt.usage.wall_s,
                verdict(lt.usage.wall_s < kNetpipeWallTargetS));
  }
  if (runs.count("pingpong")) {
    const double w = runs["pingpong"].lt.usage.wall_s;
    std::printf("  default ping-pong: LT wall %.2f s (target %.1f s): ratio %.2f %s\n", w, kPingpongWallTargetS,
                kPingpongWallTargetS / w, verdict(w < kPingpongWallTargetS));
  }
  if (runs.count("scale16")) {
    const Measured& lt = runs["scale16"].lt;
    std::printf("  experiment 6, 16 nodes: LT wall %.2f s (target %.0f s): ratio %.2f %s\n", lt.usage.wall_s,
                kScale16WallTargetS, kScale16WallTargetS / lt.usage.wall_s,
                verdict(lt.usage.wall_s < kScale16WallTargetS));
    std::printf("  experiment 6, 16 nodes: LT peak resident %.0f MB (target %.0f MB): ratio %.2f %s\n",
                lt.usage.max_rss_mb, kScale16RssTargetMb, kScale16RssTargetMb / lt.usage.max_rss_mb,
                verdict(lt.usage.max_rss_mb < kScale16RssTargetMb));
  }
  if (runs.count("scale256")) {
    const Measured& lt = runs["scale256"].lt;
    std::printf(
        "  experiment 6, 256 nodes (fat tree): LT wall %.1f s, peak resident %.0f MB (target %.0f MB): ratio %.2f %s\n",
        lt.usage.wall_s, lt.usage.max_rss_mb, kScale256RssTargetMb, kScale256RssTargetMb / lt.usage.max_rss_mb,
        verdict(lt.usage.max_rss_mb < kScale256RssTargetMb));
  }
  for (const auto& [key, r] : runs) {
    if (r.at.empty()) continue;
    std::printf("  %s: LT within %.2f%% of AT%s (target %.0f%%): ratio %.2f %s\n", key.c_str(), r.deviation * 100,
                r.at.size() > 1 ? "'s same-time-order range" : "", kDeviationTarget * 100,
                r.deviation > 0 ? kDeviationTarget / r.deviation : INFINITY, verdict(r.deviation <= kDeviationTarget));
  }
  return 0;
}
