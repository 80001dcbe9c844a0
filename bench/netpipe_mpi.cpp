// Benchmark: the full sweep of the real NetPIPE over the platform's MPI.
// Debian's NPmpich2 (netpipe-mpich2) runs unmodified on two simulated hosts
// (configs/netpipe-mpi.yaml) from 1 byte to 8 MB with a fixed, small number
// of repetitions per size (-n, default 1; the simulated time limit is raised
// to 300 s for it); prints wall and simulated time, the one-way time at a
// few sizes and the peak throughput, from the run's results.tsv (NetPIPE's
// np.out is in the run folder's node0/). Target: under 3 minutes (47 s on
// the 2-core machine under load, 37 s simulated: with per-message pinning
// above 16 KB, 8 MB takes 0.59 s one way).
//
//   ./m2vp bench netpipe_mpi [REPETITIONS]
//
// Not a test: a target not met is a result; it exits non-zero only when the
// run fails.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "child_run.h"

namespace fs = std::filesystem;

namespace {

constexpr double kWallTargetS = 180;

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "netpipe_mpi: error: %s\n", why.c_str());
  std::exit(1);
}

// Column `key`'s value in rows (source, key, value) of stats.tsv; negative when missing.
double stat_value(const fs::path& file, const std::string& source, const std::string& key) {
  std::ifstream f(file);
  for (std::string line; std::getline(f, line);) {
    std::istringstream in(line);
    std::string s, k;
    double v;
    if (in >> s >> k >> v && s == source && k == key) return v;
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  const int reps = argc > 1 ? std::atoi(argv[1]) : 1;
  if (reps < 1) die("usage: bench_netpipe_mpi [REPETITIONS >= 1]");
  if (!fs::exists("/usr/bin/NPmpich2")) die("NPmpich2 is not installed (./m2vp installs netpipe-mpich2)");
  const fs::path out = fs::temp_directory_path() / ("m2vp-bench-netpipe-mpi-" + std::to_string(::getpid()));
  fs::create_directories(out);
  const std::string args = "node*.host.args=-n " + std::to_string(reps) + " -u 8388608 -o np.out";
  std::printf("NPmpich2 sweep 1 B .. 8 MB, -n %d, 2 nodes (configs/netpipe-mpi.yaml)\n", reps);
  const m2bench::ChildUsage u =
      m2bench::run_measured({M2VP_SIM, "run", std::string(M2VP_SOURCE_DIR) + "/configs/netpipe-mpi.yaml", "--quiet",
                             "--set", args, "--set", "sim.max_time_ms=300000", "--out", (out / "run").string()},
                            out / "sim.log");
  if (u.exit_code != 0)
    die("the run failed (exit " + std::to_string(u.exit_code) + "): see " + (out / "sim.log").string());
  const double sim_s = stat_value(out / "run" / "stats.tsv", "run", "sim_time_us") * 1e-6;

  std::map<long long, std::pair<double, double>> by_size;  // bytes -> (latency_us, mbps)
  std::ifstream t(out / "run" / "results.tsv");
  std::string line;
  std::getline(t, line);  // header: bytes latency_us mbps
  for (long long b; t >> b;) {
    double us, mbps;
    t >> us >> mbps;
    by_size[b] = {us, mbps};
  }
  if (by_size.empty()) die("no measurements in " + (out / "run" / "results.tsv").string());
  std::printf("  wall %.1f s (target under %.0f s: %s), simulated %.3f s, peak memory %.0f MB\n", u.wall_s,
              kWallTargetS, u.wall_s < kWallTargetS ? "met" : "NOT met", sim_s, u.max_rss_mb);
  std::printf("  %10s %12s %10s\n", "bytes", "latency_us", "Mbit/s");
  for (long long b : {1LL, 32LL, 1024LL, 1952LL, 2048LL, 65536LL, 1048576LL, 8388608LL})
    if (by_size.count(b)) std::printf("  %10lld %12.2f %10.1f\n", b, by_size[b].first, by_size[b].second);
  double peak = 0;
  long long at = 0;
  for (const auto& [b, v] : by_size)
    if (v.second > peak) peak = v.second, at = b;
  std::printf("  peak %.1f Mbit/s at %lld bytes; %zu sizes; np.out in %s\n", peak, at, by_size.size(),
              (out / "run" / "node0").string().c_str());
  return 0;
}
