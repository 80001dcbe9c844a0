// Benchmark: soak. The 16-node experiment 6 traffic (configs/scale-16.yaml:
// all-to-all, ring and hot spot at 16 B to 64 KB, every payload checked by
// the scale application) repeated for ROUNDS rounds with every link at bit
// error rate 1e-5, for at least 1 simulated second. Prints messages and
// bytes checked, payload bytes wrong, messages lost, duplicated or out of
// order (scale counts them together: each message must arrive exactly once,
// in sequence from its source), frames corrupted and resent, resident
// memory after the first round and at the end, and wall time.
//
//   ./m2vp bench soak [--rounds N] [--ber X]     (default 3 rounds, 1e-5)
//
// Not a test (it takes minutes). It exits non-zero when the run fails, any
// message is wrong, lost, duplicated or reordered, fewer than 1 simulated
// second passed, or resident memory grew by more than kRssGrowthMb from the
// end of the first round to the end (docs/sanitizers.md, "Soak").
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <systemc>

namespace fs = std::filesystem;

namespace {

// After the first round every buffer has been touched (storage is lazy,
// docs/experiments.md): later rounds must not grow. The bound leaves room
// for the allocator's and the trace tables' slack.
constexpr double kRssGrowthMb = 32;
constexpr double kMinSimSeconds = 1.0;

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "soak: error: %s\n", why.c_str());
  std::exit(1);
}

double rss_mb(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;  // kB
  return -1;
}

struct Sample {
  double wall_s, rss_mb;
};

// Runs the simulator with stdout and stderr into `log`, sampling its
// resident memory every 100 ms.
int run_sampled(const std::vector<std::string>& argv, const fs::path& log, std::vector<Sample>& samples,
                double& wall_s) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (!std::freopen(log.c_str(), "w", stdout) || ::dup2(::fileno(stdout), 2) < 0) ::_exit(126);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  if (pid < 0) die("fork failed");
  int status = 0;
  for (;;) {
    const double rss = rss_mb(pid);
    const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) {
      wall_s = t;
      break;
    }
    if (rss > 0) samples.push_back({t, rss});
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// stats.tsv: "source key value" per line; sums of a key over sources.
std::map<std::string, double> sum_stats(const fs::path& file, std::map<std::string, double>& by_source_key) {
  std::map<std::string, double> sums;
  std::ifstream f(file);
  for (std::string line; std::getline(f, line);) {
    std::istringstream in(line);
    std::string source, key;
    double v;
    if (!(in >> source >> key >> v)) continue;
    sums[key] += v;
    by_source_key[source + " " + key] = v;
  }
  return sums;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  int rounds = 3;
  std::string ber = "1e-5";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--rounds" && i + 1 < argc) rounds = std::atoi(argv[++i]);
    else if (a == "--ber" && i + 1 < argc) ber = argv[++i];
    else die("usage: bench_soak [--rounds N] [--ber X]");
  }
  if (rounds < 1 || rounds > 21) die("--rounds: 1 to 21 (scale runs at most 64 patterns)");
  std::string patterns;
  for (int r = 0; r < rounds; ++r) patterns += std::string(r ? "," : "") + "alltoall,neighbour,hotspot";

  const fs::path out = fs::temp_directory_path() / ("m2vp-bench-soak-" + std::to_string(::getpid()));
  std::error_code ec;
  fs::remove_all(out, ec);
  fs::create_directories(out);
  const std::vector<std::string> cmd{M2VP_SIM,
                                     "run",
                                     std::string(M2VP_SOURCE_DIR) + "/configs/scale-16.yaml",
                                     "--quiet",
                                     "--out",
                                     (out / "run").string(),
                                     "--set",
                                     "**.link.bit_error_rate=" + ber,
                                     "--set",
                                     "sim.max_time_ms=100000",
                                     "--set",
                                     "node*.host.args=--sizes 16,256,4k,64k --msgs 8 --patterns " + patterns};
  std::printf("soak: 16 nodes, experiment 6 traffic x %d rounds, every link at bit error rate %s\n", rounds,
              ber.c_str());
  std::vector<Sample> samples;
  double wall_s = 0;
  const int code = run_sampled(cmd, out / "run.log", samples, wall_s);

  std::map<std::string, double> each;
  auto st = sum_stats(out / "run" / "stats.tsv", each);
  const double sim_s = each["run sim_time_us"] * 1e-6;
  // Bytes checked: per (pattern, size) row of results.tsv, bytes x messages.
  double messages_rows = 0, bytes_checked = 0;
  {
    std::ifstream f(out / "run" / "results.tsv");
    for (std::string line; std::getline(f, line);) {
      std::istringstream in(line);
      std::string pattern;
      double nodes, bytes, msgs;
      if (in >> pattern >> nodes >> bytes >> msgs) messages_rows += msgs, bytes_checked += bytes * msgs;
    }
  }
  // Node 0 checks every node's records (scale); "messages" alone would also
  // sum the switch boxes' statistic of that name.
  const double messages = each["node0.host messages"], wrong = each["node0.host payload_errors_all"];
  const double missing = each["node0.host missing"], failures = st["failures"];
  std::printf("  exit code %d, simulated %.3f s, wall %.1f s (sim/wall %.4g)\n", code, sim_s, wall_s,
              wall_s > 0 ? sim_s / wall_s : 0);
  std::printf("  messages checked %.0f (table rows: %.0f), payload bytes checked %.0f\n", messages, messages_rows,
              bytes_checked);
  std::printf("  payload bytes wrong %.0f, lost/duplicated/reordered %.0f, application failures %.0f\n", wrong, missing,
              failures);
  std::printf(
      "  frames corrupted on links %.0f (A->B %.0f, B->A %.0f), retransmissions by the MLX engines (NIs and switch "
      "boxes) %.0f\n",
      st["ab.corrupted"] + st["ba.corrupted"], st["ab.corrupted"], st["ba.corrupted"], st["retransmissions"]);
  // Start: the first sample after elaboration; steady: at the end of the
  // first round (a third of the wall time for 3 rounds); end: the last one.
  double first = -1, steady = -1, last = -1, peak = 0;
  for (const Sample& s : samples) {
    if (first < 0 && s.wall_s >= 1.0) first = s.rss_mb;
    if (steady < 0 && s.wall_s >= wall_s / rounds) steady = s.rss_mb;
    last = s.rss_mb;
    peak = std::max(peak, s.rss_mb);
  }
  std::printf(
      "  resident memory: %.0f MB after 1 s, %.0f MB after the first round, %.0f MB at the end, peak %.0f MB"
      " (growth bound after the first round: %.0f MB)\n",
      first, steady, last, peak, kRssGrowthMb);

  std::vector<std::string> bad;
  if (code != 0)
    bad.push_back("the run failed (exit " + std::to_string(code) + ", log " + (out / "run.log").string() + ")");
  if (messages <= 0 || messages != messages_rows) bad.push_back("messages checked do not match the table");
  if (wrong != 0 || missing != 0 || failures != 0) bad.push_back("messages wrong, lost, duplicated or reordered");
  if (sim_s < kMinSimSeconds) bad.push_back("less than 1 simulated second (more --rounds)");
  if (rounds > 1 && steady > 0 && last - steady > kRssGrowthMb) bad.push_back("resident memory grew");
  if (st["retransmissions"] <= 0) bad.push_back("no retransmission at all: the bit errors did not reach the links");
  for (const std::string& b : bad) std::printf("  FAIL: %s\n", b.c_str());
  if (bad.empty()) {
    std::printf("  ok\n");
    fs::remove_all(out, ec);
  }
  return bad.empty() ? 0 : 1;
}
