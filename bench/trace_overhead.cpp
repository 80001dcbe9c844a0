// Benchmark: the cost of tracing, in the same process tree:
//  - transaction taps: the 8-node all-to-all (configs/cluster-8.yaml) with no
//    tracing and with every binding traced (--trace '*': node PCI masters,
//    host PIO, NI CPUs and DMA engines, links). Target: less than 3x.
//  - the message breakdown: the MMP ping-pong (configs/mmp-pingpong.yaml)
//    with sim.messages off and on, and on with every binding traced too; the
//    results must not change. Target: the breakdown costs less than 10%.
// Prints the wall times and their ratios.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <systemc>

namespace {

// Best wall time of `runs` runs of `config` with `extra` arguments.
double best_wall(const std::string& config, const std::string& extra, const std::string& out, int runs) {
  double best = 1e30;
  for (int i = 0; i < runs; ++i) {
    const std::string cmd = std::string("'") + M2VP_SIM + "' run '" + M2VP_SOURCE_DIR + "/configs/" + config +
                            "' --quiet --out '" + out + "' " + extra + " > /dev/null 2>&1";
    const auto t0 = std::chrono::steady_clock::now();
    if (std::system(cmd.c_str()) != 0) {
      std::printf("trace_overhead: the run failed: %s\n", cmd.c_str());
      std::exit(1);
    }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

double megabytes(const std::string& path) {
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  return ec ? 0.0 : static_cast<double>(bytes) / 1e6;
}

}  // namespace

int sc_main(int, char*[]) {
  const std::string tmp = (std::filesystem::temp_directory_path() / "m2vp-bench-trace").string();
  const double off = best_wall("cluster-8.yaml", "", tmp + "-off", 3);
  const double on = best_wall("cluster-8.yaml", "--trace '*'", tmp + "-on", 3);
  std::printf("trace_overhead: 8-node all-to-all (configs/cluster-8.yaml), best of 3 runs each\n");
  std::printf("  tracing off                 %.3f s wall\n", off);
  std::printf("  tracing every binding       %.3f s wall  (transactions.csv %.1f MB)\n", on,
              megabytes(tmp + "-on/transactions.csv"));
  std::printf("  slowdown                    %.2fx (target < 3x: %s)\n", on / off, on / off < 3 ? "met" : "NOT MET");

  const double plain = best_wall("mmp-pingpong.yaml", "", tmp + "-plain", 3);
  const double msgs = best_wall("mmp-pingpong.yaml", "--set sim.messages=true", tmp + "-msgs", 3);
  const double all = best_wall("mmp-pingpong.yaml", "--set sim.messages=true --trace '*'", tmp + "-all", 1);
  const bool same = read(tmp + "-plain/results.tsv") == read(tmp + "-msgs/results.tsv") &&
                    read(tmp + "-plain/results.tsv") == read(tmp + "-all/results.tsv");
  std::printf("trace_overhead: MMP ping-pong (configs/mmp-pingpong.yaml), best of 3 runs (1 with every binding)\n");
  std::printf("  sim.messages off            %.3f s wall\n", plain);
  std::printf("  sim.messages on             %.3f s wall  (messages.csv %.2f MB, trace.json %.1f MB)\n", msgs,
              megabytes(tmp + "-msgs/messages.csv"), megabytes(tmp + "-msgs/trace.json"));
  std::printf("  on, every binding traced    %.3f s wall  (trace.json %.1f MB)\n", all,
              megabytes(tmp + "-all/trace.json"));
  std::printf("  breakdown cost              %.1f%% (target < 10%%: %s); results %s\n", 100 * (msgs / plain - 1),
              msgs / plain < 1.1 ? "met" : "NOT MET", same ? "identical" : "DIFFER");
  std::error_code ec;
  for (const char* s : {"-off", "-on", "-plain", "-msgs", "-all"}) std::filesystem::remove_all(tmp + s, ec);
  return same ? 0 : 1;
}
