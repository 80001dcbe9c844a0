// Idle NI: the wall time one simulated second of a single NI costs.
// Target: under 1 s of wall time for 1 s of simulated time with an idle NI.
//
//   bench_idle_ni
//
// Three single-NI runs (platform "single-ni", default sim.quantum_ns):
//  - no firmware: the CPU stays in reset, only the SystemC kernel runs;
//  - idle_tick.elf: firmware that dozes for 1000 decrementer ticks of 1 ms
//    and exits (the idle case of the target); skipped if it is not built;
//  - spin_forever.elf: a CPU that never idles, for a short simulated time,
//    extrapolated to one simulated second (the busy case, for comparison).
// SystemC allows one elaboration per process, so each run is a child process:
// this executable started again with --child KIND, printing one
// machine-readable line ("child ...") on stdout.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include <systemc>
#include <tlm>

#include "child_run.h"
#include "core/log.h"
#include "core/params.h"
#include "core/run_control.h"
#include "platform/paths.h"
#include "platform/platform.h"
#include "platform/sim_settings.h"

namespace fs = std::filesystem;

namespace {

constexpr double EMPTY_SIM_S = 1.0;
constexpr double IDLE_LIMIT_S = 2.0;  // idle_tick exits after ~1 s
constexpr double BUSY_SIM_S = 0.1;    // spin_forever runs this long, extrapolated to 1 s

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "idle_ni: error: %s\n", why.c_str());
  std::exit(1);
}

std::string firmware_path(const std::string& name) { return (fs::path(m2::firmware_dir()) / (name + ".elf")).string(); }

// ---- child: one platform run -------------------------------------------------

int child(const std::string& kind) {
  m2::Log::instance().set_quiet(true);  // stdout carries the result line only
  m2::ParamRegistry& reg = m2::ParamRegistry::instance();
  double sim_s = 0;
  bool until_exit = false;
  if (kind == "empty") {
    reg.preset("ni0.firmware", "", {"bench"});
    sim_s = EMPTY_SIM_S;
  } else if (kind == "idle_tick") {
    reg.preset("ni0.firmware", firmware_path("idle_tick"), {"bench"});
    sim_s = IDLE_LIMIT_S;
    until_exit = true;
  } else if (kind == "spin_forever") {
    reg.preset("ni0.firmware", firmware_path("spin_forever"), {"bench"});
    sim_s = BUSY_SIM_S;
  } else {
    die("unknown child kind '" + kind + "'");
  }
  m2::SimSettings sim;
  m2::RunControl run;
  m2::PlatformContext ctx{m2::firmware_dir(), run};
  std::unique_ptr<m2::Platform> platform = m2::build_platform("single-ni", ctx);
  reg.check_all_presets_used();
  m2::Processor& cpu = *platform->processors().at(0);

  tlm::tlm_global_quantum::instance().set(sc_core::sc_time(sim.quantum_ns.get(), sc_core::SC_NS));
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start(sc_core::sc_time(sim_s, sc_core::SC_SEC),
                    until_exit ? sc_core::SC_EXIT_ON_STARVATION : sc_core::SC_RUN_TO_TIME);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  if (until_exit && (run.outcome() != m2::RunControl::Outcome::Completed || run.exit_code() != 0))
    die(kind + ": run did not complete: " + (run.finished() ? run.summary() : "still running at the time limit"));
  if (!until_exit && run.finished()) die(kind + ": run ended early: " + run.summary());
  const double simulated = until_exit ? std::max(sc_core::sc_time_stamp(), run.last_exit_time()).to_seconds()
                                      : sc_core::sc_time_stamp().to_seconds();
  std::printf("child wall=%.6f sim_s=%.9f instructions=%" PRIu64 " idle_s=%.9f quantum_ns=%.17g\n", wall, simulated,
              cpu.instructions(), cpu.idle_time().to_seconds(), sim.quantum_ns.get());
  return 0;
}

// ---- parent ------------------------------------------------------------------

struct ChildResult {
  double wall = 0, sim_s = 0, idle_s = 0, quantum_ns = 0;
  uint64_t instructions = 0;
};

ChildResult spawn(const std::string& kind) {
  const auto line = m2bench::run_self("--child " + kind);
  ChildResult r;
  if (!line || std::sscanf(line->c_str(), "child wall=%lf sim_s=%lf instructions=%" SCNu64 " idle_s=%lf quantum_ns=%lf",
                           &r.wall, &r.sim_s, &r.instructions, &r.idle_s, &r.quantum_ns) != 5)
    die("run '" + kind + "' failed");
  return r;
}

void print_row(const char* label, const ChildResult& r, bool target) {
  const double per_s = r.wall / r.sim_s;
  std::printf("  %-28s %7.3f s simulated %8.4f s wall  -> %7.4f s wall per simulated s", label, r.sim_s, r.wall, per_s);
  if (target) std::printf("  (target < 1 s: %s)", per_s < 1.0 ? "met" : "NOT MET");
  std::printf("\n");
  if (r.instructions == 0) {
    std::printf("  %-28s no instructions: the CPU stays in reset\n", "");
    return;
  }
  std::printf("  %-28s %" PRIu64 " instructions", "", r.instructions);
  if (r.idle_s == 0 && r.instructions > 0) std::printf(" (%.0f MIPS)", r.instructions / r.wall / 1e6);
  std::printf(", CPU idle %.1f%% of the simulated time\n", r.sim_s > 0 ? 100.0 * r.idle_s / r.sim_s : 0.0);
}

int parent() {
  double q = 0;
  {
    m2::SimSettings sim;  // parameters only, no SystemC objects
    q = sim.quantum_ns.get();
  }
  std::printf("idle_ni: wall time per simulated second of one NI, quantum %g ns (target: idle NI under 1 s)\n", q);
  std::fflush(stdout);

  print_row("no firmware (CPU in reset)", spawn("empty"), true);
  std::fflush(stdout);

  if (fs::exists(firmware_path("idle_tick"))) {
    print_row("idle_tick (dozes, 1 ms DEC)", spawn("idle_tick"), true);
  } else {
    std::printf("  %-28s skipped: %s is not built (firmware that dozes on a decrementer tick)\n", "idle_tick",
                firmware_path("idle_tick").c_str());
  }
  std::fflush(stdout);

  const ChildResult busy = spawn("spin_forever");
  print_row("spin_forever (busy, no idle)", busy, false);
  std::printf("  %-28s (busy CPU for comparison: extrapolated from %.0f ms simulated; no target)\n", "",
              BUSY_SIM_S * 1e3);
  return 0;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  try {
    if (argc == 3 && std::string(argv[1]) == "--child") return child(argv[2]);
    if (argc != 1) {
      std::fprintf(stderr, "usage: %s\n", argv[0]);
      return 64;
    }
    return parent();
  } catch (const std::exception& e) {
    die(e.what());
  }
}
