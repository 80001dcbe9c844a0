// Benchmark: the cost of tracing. Runs the 8-node all-to-all cluster
// (configs/cluster-8.yaml) with no tracing and with every binding traced
// (--trace '*': node PCI masters, host PIO, NI CPUs and DMA engines, links),
// in the same process tree, and prints the wall times and their ratio.
// Target: full tracing costs less than 3x.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <systemc>

namespace {

// Best wall time of `runs` runs of the simulator with `extra` arguments.
double best_wall(const std::string& extra, const std::string& out, int runs) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    const std::string cmd = std::string("'") + M2VP_SIM + "' run '" + M2VP_SOURCE_DIR +
                            "/configs/cluster-8.yaml' --quiet --out '" + out + "' " + extra + " > /dev/null 2>&1";
    const auto t0 = std::chrono::steady_clock::now();
    if (std::system(cmd.c_str()) != 0) {
      std::printf("trace_overhead: the run failed: %s\n", cmd.c_str());
      std::exit(1);
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int sc_main(int, char*[]) {
  const std::string tmp = (std::filesystem::temp_directory_path() / "m2vp-bench-trace").string();
  const double off = best_wall("", tmp + "-off", 3);
  const double on = best_wall("--trace '*'", tmp + "-on", 3);
  std::error_code ec;
  const auto rows = std::filesystem::file_size(tmp + "-on/transactions.csv", ec);
  std::printf("trace_overhead: 8-node all-to-all (configs/cluster-8.yaml), best of 3 runs each\n");
  std::printf("  tracing off                 %.3f s wall\n", off);
  std::printf("  tracing every binding       %.3f s wall  (transactions.csv %.1f MB)\n", on, rows / 1e6);
  std::printf("  slowdown                    %.2fx (target < 3x: %s)\n", on / off, on / off < 3 ? "met" : "NOT MET");
  std::filesystem::remove_all(tmp + "-off", ec);
  std::filesystem::remove_all(tmp + "-on", ec);
  return 0;
}
