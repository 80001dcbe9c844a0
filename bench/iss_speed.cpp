// ISS speed: the compute kernel of compute.elf (sw/firmware/tests/compute/)
// on raw Unicorn and inside the single-NI platform, same instruction count.
// Prints the MIPS of each and the platform/raw ratio.
// Target (issue 28): the platform reaches at least 60% of raw Unicorn speed
// with the default quantum (sim.quantum_ns).
//
//   bench_iss_speed [ITERATIONS]
//
// SystemC allows one elaboration per process, so each platform run is a
// child process: this executable started again with
//   --platform-child ITERATIONS QUANTUM_NS
// which prints one machine-readable line ("child ...") on stdout.
#include <unistd.h>

#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "child_run.h"
#include "raw_unicorn.h"
#include "core/elf_loader.h"
#include "core/log.h"
#include "core/params.h"
#include "core/run_control.h"
#include "platform/paths.h"
#include "platform/platform.h"
#include "platform/sim_settings.h"

namespace {

constexpr unsigned DEFAULT_ITERATIONS = 50000;
// Known result of the kernel for 200 iterations (sw/firmware/tests/compute/).
constexpr unsigned CHECK_ITERATIONS = 200;
constexpr uint32_t CHECK_RESULT = 0x3848bc8d;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string with_commas(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return s;
}

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "iss_speed: error: %s\n", why.c_str());
  std::exit(1);
}

// ---- platform (child process) -------------------------------------------------

// Writes bench_iterations into the NI's memory once elaboration is over: the
// processor loads the ELF in end_of_elaboration, and start_of_simulation
// callbacks run after all of those and before any process.
class IterationsPatch : public sc_core::sc_module {
 public:
  IterationsPatch(sc_core::sc_module_name n, m2::Processor& cpu, unsigned iterations)
      : sc_module(n), m_cpu(cpu), m_iterations(iterations) {}

 private:
  void start_of_simulation() override {
    const auto addr = m_cpu.firmware()->symbol("bench_iterations");
    if (!addr) die("compute.elf has no symbol bench_iterations");
    uint8_t be[4] = {uint8_t(m_iterations >> 24), uint8_t(m_iterations >> 16), uint8_t(m_iterations >> 8),
                     uint8_t(m_iterations)};
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(*addr);
    t.set_data_ptr(be);
    t.set_data_length(4);
    if (m_cpu.socket->transport_dbg(t) != 4) die("cannot write bench_iterations through the NI bus");
  }
  m2::Processor& m_cpu;
  unsigned m_iterations;
};

int platform_child(unsigned iterations, double quantum_ns) {
  m2::Log::instance().set_quiet(true);  // stdout carries the result line only
  m2::ParamRegistry& reg = m2::ParamRegistry::instance();
  reg.preset("ni0.firmware", m2bench::compute_elf(), {"bench"});
  m2::SimSettings sim;
  m2::RunControl run;
  m2::PlatformContext ctx{m2::firmware_dir(), run};
  std::unique_ptr<m2::Platform> platform = m2::build_platform("single-ni", ctx);
  reg.check_all_presets_used();
  m2::Processor& cpu = *platform->processors().at(0);
  IterationsPatch patch("iterations_patch", cpu, iterations);

  tlm::tlm_global_quantum::instance().set(sc_core::sc_time(quantum_ns, sc_core::SC_NS));
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start(sc_core::sc_time(1e6, sc_core::SC_SEC), sc_core::SC_EXIT_ON_STARVATION);
  const double wall = seconds_since(t0);
  for (m2::TextOutput* c : platform->consoles()) c->flush();

  if (!run.finished() || run.outcome() != m2::RunControl::Outcome::Completed || run.exit_code() != 0)
    die("platform run did not complete: " + (run.finished() ? run.summary() : std::string("still running")));
  long long result = -1;
  for (const auto& r : run.results())
    if (r.key == "fw_result0") result = r.value;
  // The console line must agree with the reported result.
  long long console = -1;
  for (const std::string& line : platform->consoles().at(0)->lines()) {
    unsigned v = 0;
    if (std::sscanf(line.c_str(), "compute result = 0x%x", &v) == 1) console = v;
  }
  std::printf("child wall=%.6f instructions=%" PRIu64 " result=%lld console=%lld sim_s=%.9f\n", wall,
              cpu.instructions(), result, console, run.last_exit_time().to_seconds());
  return 0;
}

struct ChildResult {
  double wall = 0, sim_s = 0;
  uint64_t instructions = 0;
  long long result = -1, console = -1;
};

ChildResult spawn_platform(unsigned iterations, double quantum_ns) {
  char q[64];
  std::snprintf(q, sizeof q, "%.17g", quantum_ns);
  const std::string args = "--platform-child " + std::to_string(iterations) + " " + q;
  const auto line = m2bench::run_self(args);
  ChildResult r;
  if (!line || std::sscanf(line->c_str(), "child wall=%lf instructions=%" SCNu64 " result=%lld console=%lld sim_s=%lf",
                           &r.wall, &r.instructions, &r.result, &r.console, &r.sim_s) != 5)
    die("platform run (" + args + ") failed");
  return r;
}

std::string quantum_label(double ns) {
  char b[32];
  if (ns >= 1e6 && std::fmod(ns, 1e6) == 0) std::snprintf(b, sizeof b, "%gms", ns / 1e6);
  else if (ns >= 1e3 && std::fmod(ns, 1e3) == 0) std::snprintf(b, sizeof b, "%gus", ns / 1e3);
  else std::snprintf(b, sizeof b, "%gns", ns);
  return b;
}

int parent(unsigned iterations) {
  const m2::ElfImage img = m2::ElfImage::load(m2bench::compute_elf());
  const uint32_t kernel = m2bench::compute_kernel(img);

  // Sanity check against the kernel's documented result.
  const m2bench::RawResult check = m2bench::run_raw(img, kernel, CHECK_ITERATIONS, false);
  if (check.r3 != CHECK_RESULT) {
    std::printf("MISMATCH: raw Unicorn bench_kernel(%u) = 0x%08x, expected 0x%08x\n", CHECK_ITERATIONS, check.r3,
                CHECK_RESULT);
    return 1;
  }

  const m2bench::RawResult counted = m2bench::run_raw(img, kernel, iterations, true);
  // Best of two timed runs: the machine may be busy.
  m2bench::RawResult raw = m2bench::run_raw(img, kernel, iterations, false);
  const m2bench::RawResult raw2 = m2bench::run_raw(img, kernel, iterations, false);
  if (raw2.seconds < raw.seconds) raw = raw2;
  if (raw.r3 != counted.r3 || raw2.r3 != counted.r3) {
    std::printf("MISMATCH: raw Unicorn results differ with and without the block hook (0x%08x, 0x%08x)\n", raw.r3,
                counted.r3);
    return 1;
  }
  const uint64_t n = counted.instructions;

  double default_q = 0;
  {
    m2::SimSettings sim;  // parameters only, no SystemC objects
    default_q = sim.quantum_ns.get();
  }

  std::printf("iss_speed: compute kernel, %u iterations, %s instructions (raw, counted by a block hook)\n", iterations,
              with_commas(n).c_str());
  const double raw_mips = n / raw.seconds / 1e6;
  std::printf("  %-24s %7.2f s  %6.0f MIPS   (best of 2)\n", "raw unicorn", raw.seconds, raw_mips);
  std::printf("  %-24s %7.2f s  %6.0f MIPS   (instruction count run, not raw speed)\n", "raw unicorn + block hook",
              counted.seconds, n / counted.seconds / 1e6);
  std::fflush(stdout);

  int status = 0;
  for (double q : {default_q, 10 * default_q}) {
    // Best of two, like the raw run.
    ChildResult c = spawn_platform(iterations, q);
    const ChildResult c2 = spawn_platform(iterations, q);
    if (c2.result != c.result || c2.instructions != c.instructions) {
      std::printf(
          "MISMATCH: two platform runs with the same quantum differ (0x%08llx, %llu instructions; "
          "0x%08llx, %llu instructions)\n",
          static_cast<unsigned long long>(c.result), static_cast<unsigned long long>(c.instructions),
          static_cast<unsigned long long>(c2.result), static_cast<unsigned long long>(c2.instructions));
      status = 1;
    }
    if (c2.wall < c.wall) c = c2;
    const double mips = c.instructions / c.wall / 1e6;
    const std::string label = "platform (q=" + quantum_label(q) + ")";
    std::printf("  %-24s %7.2f s  %6.0f MIPS   (best of 2)  ratio %.2f", label.c_str(), c.wall, mips, mips / raw_mips);
    if (q == default_q) std::printf(" (target >= 0.60: %s)", mips / raw_mips >= 0.6 ? "met" : "NOT MET");
    std::printf("\n");
    // Where the extra wall time goes, per quantum end (passed inside the ISS
    // unless another process is due, docs/speed.md): the platform's cost
    // beyond raw execution.
    const double quanta = c.sim_s * 1e9 / q;
    const double overhead_ns = (c.wall - c.instructions / (raw_mips * 1e6)) / quanta * 1e9;
    std::printf("  %-24s %s instructions (+%s for start-up, printf, exit), %.3f s simulated,\n", "",
                with_commas(c.instructions).c_str(), with_commas(c.instructions - n).c_str(), c.sim_s);
    std::printf("  %-24s %s quanta of %.0f instructions, platform overhead %.0f ns per quantum\n", "",
                with_commas(static_cast<uint64_t>(quanta + 0.5)).c_str(), c.instructions / quanta, overhead_ns);
    if (c.result != raw.r3 || c.console != raw.r3) {
      std::printf("MISMATCH: platform result 0x%08llx (console 0x%08llx) != raw Unicorn result 0x%08x\n",
                  static_cast<unsigned long long>(c.result), static_cast<unsigned long long>(c.console), raw.r3);
      status = 1;
    }
    std::fflush(stdout);
  }
  std::printf("  result 0x%08x on all runs%s\n", raw.r3, status ? " EXCEPT the mismatches above" : "");
  if (raw.seconds < 1.0)
    std::printf("  note: the raw run took under 1 s; pass a larger ITERATIONS for steadier figures\n");
  return status;
}

unsigned parse_unsigned(const char* s, const char* what) {
  char* end = nullptr;
  const unsigned long v = std::strtoul(s, &end, 0);
  if (!*s || *end || v == 0 || v > 0xFFFFFFFFul) die(std::string("bad ") + what + " '" + s + "'");
  return static_cast<unsigned>(v);
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  try {
    if (argc == 4 && std::string(argv[1]) == "--platform-child")
      return platform_child(parse_unsigned(argv[2], "iterations"), std::strtod(argv[3], nullptr));
    if (argc > 2 || (argc == 2 && argv[1][0] == '-')) {
      std::fprintf(stderr, "usage: %s [ITERATIONS]   (default %u)\n", argv[0], DEFAULT_ITERATIONS);
      return 64;
    }
    return parent(argc == 2 ? parse_unsigned(argv[1], "iterations") : DEFAULT_ITERATIONS);
  } catch (const std::exception& e) {
    die(e.what());
  }
}
