// Benchmark: simulation speed and memory of the two big runs.
//  1. The full NetPIPE-style sweep to 8 MB on 2 nodes (configs/netpipe.yaml
//     with --max 8M): wall time, simulated time, their ratio, peak memory.
//     Target: under 2 minutes of wall time.
//  2. A 16-node all-to-all over MMP (configs/scale-16.yaml, all-to-all only:
//     16, 64 and 96 bytes, 16 messages per pair, 3840 messages per size):
//     wall time, simulated time, ratio, peak memory. Target: under 1 GB
//     resident.
//  3. The whole 16-node experiment 6 (configs/scale-16.yaml as it is: hot
//     spot and ring up to 64 KB), the same figures, for the memory target.
// Each run is a child process of the simulator, waited for with wait4, so the
// peak resident set (ru_maxrss) is that run's alone. Wall time is from fork
// to exit (elaboration and output files included).
//
//   ./m2vp bench speed [--only netpipe|alltoall|scale16]
//
// Not a test: a target not met is a result; it exits non-zero only when a run
// fails.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <systemc>

#include "child_run.h"

namespace fs = std::filesystem;

namespace {

constexpr double kNetpipeWallTargetS = 120;
constexpr double kRssTargetMb = 1024;

struct Run {
  const char* label;
  std::string config;                 // under configs/
  std::vector<std::string> extra;     // more simulator arguments
};

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "speed: error: %s\n", why.c_str());
  std::exit(1);
}

// stats.tsv's "run sim_time_us" in seconds; negative when missing.
double simulated_seconds(const fs::path& out) {
  std::ifstream f(out / "stats.tsv");
  for (std::string line; std::getline(f, line);) {
    std::istringstream in(line);
    std::string source, key;
    double v;
    if (in >> source >> key >> v && source == "run" && key == "sim_time_us") return v * 1e-6;
  }
  return -1;
}

struct Measured {
  m2bench::ChildUsage usage;
  double sim_s = 0;
};

Measured measure(const Run& r, const fs::path& out) {
  std::vector<std::string> argv{M2VP_SIM, "run", std::string(M2VP_SOURCE_DIR) + "/configs/" + r.config,
                                "--quiet", "--out", out.string()};
  argv.insert(argv.end(), r.extra.begin(), r.extra.end());
  std::error_code ec;
  fs::remove_all(out, ec);
  fs::create_directories(out);
  const fs::path log = out.string() + ".log";
  Measured m;
  m.usage = m2bench::run_measured(argv, log);
  if (m.usage.exit_code != 0) {
    std::string cmd;
    for (const std::string& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
    die(std::string(r.label) + ": the run failed (exit " + std::to_string(m.usage.exit_code) + "): " + cmd +
        "\n  (output in " + log.string() + ")");
  }
  m.sim_s = simulated_seconds(out);
  if (m.sim_s < 0) die(std::string(r.label) + ": no simulated time in " + (out / "stats.tsv").string());
  fs::remove_all(out, ec);
  fs::remove(log, ec);
  return m;
}

void print(const Run& r, const Measured& m) {
  std::printf("  %s\n", r.label);
  std::printf("    wall %.1f s, simulated %.4f s, sim/wall %.4g, peak resident %.0f MB\n", m.usage.wall_s, m.sim_s,
              m.sim_s / m.usage.wall_s, m.usage.max_rss_mb);
  std::fflush(stdout);
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  std::string only;
  if (argc == 3 && std::string(argv[1]) == "--only") only = argv[2];
  else if (argc != 1) die("usage: bench_speed [--only netpipe|alltoall|scale16]");
  if (!only.empty() && only != "netpipe" && only != "alltoall" && only != "scale16")
    die("--only: expected netpipe, alltoall or scale16");

  const fs::path tmp = fs::temp_directory_path() / ("m2vp-bench-speed-" + std::to_string(::getpid()));
  std::printf("speed: wall time, simulated/wall ratio and peak memory of the big runs\n");
  std::fflush(stdout);

  if (only.empty() || only == "netpipe") {
    const Run np{"NetPIPE sweep to 8 MB, 2 nodes (configs/netpipe.yaml, --max 8M)", "netpipe.yaml",
                 {"--set", "node*.host.args=--max 8M"}};
    const Measured m = measure(np, tmp / "netpipe");
    print(np, m);
    std::printf("    target: wall under %.0f s: %s\n", kNetpipeWallTargetS,
                m.usage.wall_s < kNetpipeWallTargetS ? "met" : "NOT MET");
  }
  if (only.empty() || only == "alltoall") {
    const Run a2a{"16-node all-to-all over MMP (configs/scale-16.yaml, --patterns alltoall)", "scale-16.yaml",
                  {"--set", "node*.host.args=--patterns alltoall --sizes 16,64,96 --msgs 16"}};
    const Measured m = measure(a2a, tmp / "alltoall16");
    print(a2a, m);
    std::printf("    target: under %.0f MB resident: %s\n", kRssTargetMb,
                m.usage.max_rss_mb < kRssTargetMb ? "met" : "NOT MET");
  }
  if (only.empty() || only == "scale16") {
    const Run all{"experiment 6 on 16 nodes, all three patterns (configs/scale-16.yaml)", "scale-16.yaml", {}};
    const Measured m = measure(all, tmp / "scale16");
    print(all, m);
    std::printf("    target: under %.0f MB resident: %s\n", kRssTargetMb,
                m.usage.max_rss_mb < kRssTargetMb ? "met" : "NOT MET");
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return 0;
}
