// Integration tests of the single-NI platform: m2vp-sim runs real firmware
// (sw/firmware) as a subprocess; the tests check its exit code, console
// output, error messages and output folder (run.log, report.txt,
// results.tsv, params.tsv).
#include <catch2/catch.hpp>

#include <regex>

#include "run_sim.h"

using namespace m2it;

namespace {

const std::string kFirmwareDir = M2VP_TEST_FIRMWARE_DIR;
constexpr int EXIT_CONFIG = 64, EXIT_FAULT = 65, EXIT_STALL = 66;

// compute's result with its default 200 iterations: 0x3848bc8d.
constexpr double kComputeResult = 944290957;

// Index of the first line at or after `from` equal to `line`, or -1.
int find_line(const std::vector<std::string>& lines, const std::string& line, int from = 0) {
  for (int i = from; i < static_cast<int>(lines.size()); ++i)
    if (lines[i] == line) return i;
  return -1;
}

// Index of the first line at or after `from` matching `re` (whole line), or -1.
int find_line(const std::vector<std::string>& lines, const std::regex& re, std::smatch& m, int from = 0) {
  for (int i = from; i < static_cast<int>(lines.size()); ++i)
    if (std::regex_match(lines[i], m, re)) return i;
  return -1;
}

// The line of `text` that starts with `prefix` followed by a blank, or "".
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const std::string& l : split_lines(text))
    if (l.rfind(prefix, 0) == 0 && l.size() > prefix.size() && (l[prefix.size()] == ' ' || l[prefix.size()] == '\t'))
      return l;
  return "";
}

// A run with its configuration: `firmware` plus extra top-level YAML.
SimResult run_fw(Sandbox& sb, const std::string& firmware, const std::vector<std::string>& sets = {},
                 const std::string& extra = "") {
  const fs::path cfg = sb.config(firmware, extra);
  std::vector<std::string> args{"run", cfg.string()};
  for (const std::string& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  return sb.run(args);
}

// Runs `config_text` (written to the sandbox as bad.yaml) expecting a
// configuration error; returns the run for further checks.
SimResult run_bad_config(Sandbox& sb, const std::string& config_text, const std::vector<std::string>& extra_args = {},
                         fs::path* cfg_out = nullptr) {
  const fs::path cfg = sb.write("bad.yaml", config_text);
  if (cfg_out) *cfg_out = cfg;
  std::vector<std::string> args{"run", cfg.string()};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  return sb.run(args);
}

// A parameter's value in a run's params.tsv as a number (NaN when missing).
double param_value(const SimResult& r, const std::string& name) {
  for (const auto& row : read_tsv(r.out_dir / "params.tsv"))
    if (row.size() == 5 && row[0] == name) {
      char* end = nullptr;
      const double v = std::strtod(row[1].c_str(), &end);
      return end && *end == '\0' && !row[1].empty() ? v : std::nan("");
    }
  return std::nan("");
}

// A parameter's origin in a run's params.tsv ("" when missing).
std::string param_origin(const SimResult& r, const std::string& name) {
  for (const auto& row : read_tsv(r.out_dir / "params.tsv"))
    if (row.size() == 5 && row[0] == name) return row[4];
  return "";
}

// Checks common to every configuration error: exit 64, an "error: " line on
// stderr, no firmware ran.
void check_config_error(const SimResult& r) {
  CHECK(r.exited(EXIT_CONFIG));
  CHECK(r.err.rfind("error: ", 0) == 0);
  CHECK_FALSE(contains(r.out, "[ni0.cpu]"));
}

}  // namespace

// ---------------------------------------------------------------- hello

TEST_CASE("hello firmware runs to completion and prints its lines", "[integration]") {
  Sandbox sb;
  const SimResult r = run_fw(sb, "hello");
  INFO(r.describe());
  REQUIRE(r.exited(0));
  CHECK_FALSE(contains(r.err, "error:"));

  // Console lines, in order.
  const std::vector<std::string> lines = split_lines(r.out);
  const int l1 = find_line(lines, "[ni0.cpu] Hello from the Maestro2 NI firmware!");
  const int l2 = find_line(lines, "[ni0.cpu] sum of primes below 10000 = 5736396", l1 + 1);
  std::smatch m;
  const int l3 = find_line(lines, std::regex(R"(\[ni0\.cpu\] slept (\d+) us by the timebase)"), m, l2 + 1);
  const long slept = l3 >= 0 ? std::stol(m[1]) : -1;
  const int l4 = find_line(lines, std::regex(R"(\[ni0\.cpu\] elapsed simulated time (\d+) us)"), m, l3 + 1);
  const long elapsed = l4 >= 0 ? std::stol(m[1]) : -1;
  CHECK(l1 >= 0);
  CHECK(l2 > l1);
  CHECK(l3 > l2);
  CHECK(l4 > l3);
  CHECK(slept >= 100);
  CHECK(slept <= 102);
  CHECK(elapsed >= 100);
  CHECK(elapsed <= 102);

  // results.tsv
  const std::string results = r.file("results.tsv");
  INFO("results.tsv:\n" << results);
  CHECK(results.rfind("source\tkey\tvalue\n", 0) == 0);
  CHECK(r.result("ni0.cpu", "fw_result0") == std::optional<std::string>("5736396"));
  // The report names each result as the firmware does (FW_RESULT_NAMES in hello.c).
  CHECK(std::regex_search(r.file("report.txt"), std::regex(R"(\n  ni0\.cpu +fw_result0 +5736396  sum of primes\n)")));
  CHECK(std::regex_search(r.file("report.txt"), std::regex(R"(\n  ni0\.cpu +fw_result1 +\d+  slept us\n)")));
  CHECK(r.result("ni0.cpu", "fw_result1") == std::optional<std::string>(std::to_string(slept)));
  CHECK(r.result("run", "exit_code") == std::optional<std::string>("0"));
  CHECK(r.result_num("ni0.cpu", "instructions") > 0);
  CHECK(r.result_num("run", "sim_time_us") > 100);

  // report.txt and run.log
  const std::string report = r.file("report.txt");
  INFO("report.txt:\n" << report);
  CHECK(contains(report, "all firmware exited with code 0"));
  const std::string log = r.file("run.log");
  INFO("run.log:\n" << log);
  const std::vector<std::string> log_lines = split_lines(log);
  const int g1 = find_line(log_lines, "[ni0.cpu] Hello from the Maestro2 NI firmware!");
  const int g2 = find_line(log_lines, "[ni0.cpu] sum of primes below 10000 = 5736396", g1 + 1);
  const int g3 = find_line(log_lines, "[ni0.cpu] slept " + std::to_string(slept) + " us by the timebase", g2 + 1);
  const int g4 = find_line(log_lines, "[ni0.cpu] elapsed simulated time " + std::to_string(elapsed) + " us", g3 + 1);
  CHECK(g1 >= 0);
  CHECK(g2 > g1);
  CHECK(g3 > g2);
  CHECK(g4 > g3);
  CHECK(contains(log, "all firmware exited with code 0"));

  // params.tsv
  const auto params = read_tsv(r.out_dir / "params.tsv");
  REQUIRE_FALSE(params.empty());
  CHECK(params[0] == std::vector<std::string>{"name", "value", "unit", "default", "origin"});
  bool found = false;
  for (const auto& row : params) {
    if (row.size() == 5 && row[0] == "ni0.cpu.clock_mhz") {
      found = true;
      CHECK(row[1] == "300");
      CHECK(row[2] == "MHz");
    }
  }
  CHECK(found);
}

TEST_CASE("firmware profile: profile.tsv per function agrees with the run's statistics and changes nothing",
          "[integration][profile]") {
  Sandbox sb;
  const fs::path out = sb.dir() / "profiled";
  const fs::path cfg = sb.config("hello");
  SimResult a = sb.run({"run", cfg.string(), "--set", "ni0.cpu.profile=true", "--out", out.string()}, false);
  INFO(a.describe());
  REQUIRE(a.exited(0));
  a.out_dir = out;  // for result(): --out given here, not by the sandbox
  const auto rows = read_tsv(out / "profile.tsv");
  REQUIRE(rows.size() > 3);
  CHECK(rows[0] == std::vector<std::string>{"cpu", "function", "instructions", "instruction_us", "device_accesses",
                                            "device_us", "total_us", "percent"});
  uint64_t instructions = 0;
  double percent = 0, dozing = -1;
  for (size_t i = 1; i < rows.size(); ++i) {
    REQUIRE(rows[i].size() == 8);
    CHECK(rows[i][0] == "ni0.cpu");
    instructions += std::stoull(rows[i][2]);
    percent += std::stod(rows[i][7]);
    if (rows[i][1] == "(dozing)") dozing = std::stod(rows[i][6]);
  }
  CHECK(rows[1][1] == "main");
  CHECK(instructions == static_cast<uint64_t>(a.result_num("ni0.cpu", "instructions")));
  CHECK(dozing == Approx(a.result_num("ni0.cpu", "idle_us")).margin(0.001));
  CHECK(percent == Approx(100).margin(0.2));
  CHECK(contains(read_text(out / "report.txt"), "firmware profile of ni0.cpu"));
  CHECK(contains(read_text(out / ".m2vp-run-files"), "profile.tsv\n"));

  // Profiling observes only: the same instructions, times and results.
  // Read before the second run into the same folder replaces stats.tsv.
  std::map<std::string, std::optional<std::string>> before;
  for (const char* key : {"instructions", "fw_result0", "fw_result1", "idle_us"})
    before[key] = a.result("ni0.cpu", key);
  const auto sim_time = a.result("run", "sim_time_us");
  SimResult b = sb.run({"run", cfg.string(), "--out", out.string()}, false);
  REQUIRE(b.exited(0));
  b.out_dir = out;
  for (const char* key : {"instructions", "fw_result0", "fw_result1", "idle_us"})
    CHECK(b.result("ni0.cpu", key) == before[key]);
  CHECK(b.result("run", "sim_time_us") == sim_time);
  CHECK(sim_time);
  CHECK_FALSE(fs::exists(out / "profile.tsv"));  // the earlier run's profile went with it
  CHECK_FALSE(contains(read_text(out / "report.txt"), "firmware profile"));
}

// ---------------------------------------------------------------- compute

TEST_CASE("compute runs are deterministic", "[integration]") {
  Sandbox sb;
  const fs::path cfg = sb.config("compute");
  const SimResult a = sb.run({"run", cfg.string()});
  const SimResult b = sb.run({"run", cfg.string()});
  INFO(a.describe());
  INFO(b.describe());
  REQUIRE(a.exited(0));
  REQUIRE(b.exited(0));
  CHECK(contains(a.out, "[ni0.cpu] compute result = 0x3848bc8d\n"));
  CHECK(a.result_num("ni0.cpu", "fw_result0") == kComputeResult);
  CHECK(b.result_num("ni0.cpu", "fw_result0") == kComputeResult);

  const auto ia = a.result("ni0.cpu", "instructions"), ib = b.result("ni0.cpu", "instructions");
  const auto ta = a.result("run", "sim_time_us"), tb = b.result("run", "sim_time_us");
  REQUIRE(ia);
  REQUIRE(ta);
  CHECK(a.result_num("ni0.cpu", "instructions") > 1000);
  CHECK(ia == ib);
  CHECK(ta == tb);
}

TEST_CASE("compute result does not depend on the quantum", "[integration]") {
  Sandbox sb;
  const SimResult fine = run_fw(sb, "compute", {"sim.quantum_ns=100"});
  const SimResult coarse = run_fw(sb, "compute", {"sim.quantum_ns=100000"});
  INFO(fine.describe());
  INFO(coarse.describe());
  REQUIRE(fine.exited(0));
  REQUIRE(coarse.exited(0));
  CHECK(fine.result_num("ni0.cpu", "fw_result0") == kComputeResult);
  CHECK(coarse.result_num("ni0.cpu", "fw_result0") == kComputeResult);
  CHECK(contains(fine.out, "compute result = 0x3848bc8d"));
  CHECK(contains(coarse.out, "compute result = 0x3848bc8d"));
  // The quantum really was applied (params.tsv records the --set).
  CHECK(param_value(fine, "sim.quantum_ns") == 100);
  CHECK(param_value(coarse, "sim.quantum_ns") == 100000);
  CHECK(param_origin(fine, "sim.quantum_ns") == "--set");
}

TEST_CASE("compute's simulated time follows clock and CPI", "[integration]") {
  Sandbox sb;
  const SimResult base = run_fw(sb, "compute", {"ni0.cpu.clock_mhz=300"});
  const SimResult slow = run_fw(sb, "compute", {"ni0.cpu.clock_mhz=150"});
  const SimResult cpi2 = run_fw(sb, "compute", {"ni0.cpu.cpi=2"});
  INFO(base.describe());
  INFO(slow.describe());
  INFO(cpi2.describe());
  REQUIRE(base.exited(0));
  REQUIRE(slow.exited(0));
  REQUIRE(cpi2.exited(0));
  const double t300 = base.result_num("run", "sim_time_us");
  const double t150 = slow.result_num("run", "sim_time_us");
  const double tcpi2 = cpi2.result_num("run", "sim_time_us");
  INFO("sim_time_us: 300 MHz " << t300 << ", 150 MHz " << t150 << ", cpi 2 " << tcpi2);
  REQUIRE(t300 > 0);
  CHECK(t150 / t300 >= 1.9);
  CHECK(t150 / t300 <= 2.1);
  CHECK(tcpi2 / t300 >= 1.9);
  CHECK(tcpi2 / t300 <= 2.1);
  // Timing only: the function is the same.
  CHECK(slow.result_num("ni0.cpu", "fw_result0") == kComputeResult);
  CHECK(cpi2.result_num("ni0.cpu", "fw_result0") == kComputeResult);
}

// ---------------------------------------------------------------- timebase

namespace {

void check_timebase(const std::vector<std::string>& sets, unsigned expected_hz) {
  Sandbox sb;
  const SimResult r = run_fw(sb, "timebase", sets);
  INFO(r.describe());
  REQUIRE(r.exited(0));
  CHECK(contains(r.out,
                 "[ni0.cpu] timebase frequency " + std::to_string(expected_hz) + " Hz, core clock 300000000 Hz\n"));
  CHECK(r.result_num("ni0.cpu", "fw_result7") == 5);
  for (int i = 0; i < 5; ++i) {
    const double diff = r.result_num("ni0.cpu", "fw_result" + std::to_string(i));
    INFO("round " << i << ": |timebase - simctrl| = " << diff << " ns");
    CHECK(diff >= 0);  // NaN (missing) fails this
    CHECK(diff <= 80);
  }
}

}  // namespace

TEST_CASE("timebase follows simulated time (default 25 MHz)", "[integration]") { check_timebase({}, 25000000); }

TEST_CASE("timebase follows simulated time at 10 MHz", "[integration]") {
  check_timebase({"ni0.cpu.timebase_hz=10000000"}, 10000000);
}

// ---------------------------------------------------------------- faults

namespace {

// Runs a fault firmware and checks what every fault report must contain.
SimResult run_fault(Sandbox& sb, const std::string& firmware, const std::string& kind) {
  SimResult r = run_fw(sb, firmware);
  INFO(r.describe());
  CHECK(r.term_signal == 0);
  CHECK_FALSE(r.timed_out);
  CHECK(r.exit_code == EXIT_FAULT);
  CHECK(contains(r.err, "error: firmware fault on ni0.cpu: " + kind + "\n"));
  CHECK(contains(r.err, "\n  pc:        0x"));
  CHECK(contains(r.err, "\n  firmware:  " + (fs::path(kFirmwareDir) / (firmware + ".elf")).string() + "\n"));
  CHECK(contains(r.err, "\n  time:      "));
  CHECK(contains(r.err, "\n  registers:\n"));
  CHECK(std::regex_search(r.err, std::regex(R"(\n  r0  [0-9a-f]{8}  r1  [0-9a-f]{8})")));
  std::smatch fault_pc, dump_pc;
  const bool has_fault_pc = std::regex_search(r.err, fault_pc, std::regex(R"(\n  pc:        0x([0-9a-f]{8}))"));
  const bool has_dump_pc = std::regex_search(r.err, dump_pc, std::regex(R"(\n  pc  ([0-9a-f]{8})  msr [0-9a-f]{8})"));
  CHECK(has_fault_pc);
  CHECK(has_dump_pc);
  // The register dump shows the state at the fault: the same pc.
  if (has_fault_pc && has_dump_pc) CHECK(dump_pc[1].str() == fault_pc[1].str());
  // The output folder says the same.
  CHECK(contains(r.file("report.txt"), "firmware fault on ni0.cpu"));
  CHECK(contains(r.file("run.log"), "error: firmware fault on ni0.cpu: " + kind));
  CHECK(r.result("run", "exit_code") == std::optional<std::string>("65"));
  return r;
}

}  // namespace

TEST_CASE("fault: illegal instruction", "[integration]") {
  Sandbox sb;
  const SimResult r = run_fault(sb, "fault_illegal", "illegal instruction");
  INFO(r.describe());
  CHECK(contains(r.out, "[ni0.cpu] about to execute an illegal instruction\n"));
  CHECK_FALSE(contains(r.out, "did not stop"));
  CHECK(std::regex_search(r.err, std::regex(R"(\n  pc:        0x[0-9a-f]{8} \(do_illegal(\+0x[0-9a-f]+)?\))")));
  CHECK(contains(r.err, "insn 0x00000000"));
  CHECK_FALSE(contains(r.err, "overwritten"));  // its own code, as loaded
}

// A store through a null pointer plus 0x900 replaced the decrementer's
// vector; the interrupt then ran into it. The report says the code there is
// not the firmware's (on its own the fault only named the vector).
TEST_CASE("fault: code overwritten after loading is named as such", "[integration]") {
  Sandbox sb;
  const SimResult r = run_fault(sb, "fault_vector_overwritten", "illegal instruction");
  INFO(r.describe());
  CHECK(contains(r.err, "\n  pc:        0x00000900 (fw_vectors+0x900)\n"));
  CHECK(std::regex_search(r.err, std::regex(R"(\n  code:      the word at 0x00000900 is 0x12345678, the firmware has )"
                                            R"(0x[0-9a-f]{8} there: the code was overwritten after loading)")));
}

TEST_CASE("fault: load from unmapped address", "[integration]") {
  Sandbox sb;
  const SimResult r = run_fault(sb, "fault_unmapped_load", "load from unmapped address");
  INFO(r.describe());
  CHECK(contains(r.out, "[ni0.cpu] about to load from unmapped address 0x50000000\n"));
  CHECK_FALSE(contains(r.out, "instead of stopping"));
  CHECK(std::regex_search(r.err, std::regex(R"(\n  pc:        0x[0-9a-f]{8} \(do_bad_load(\+0x[0-9a-f]+)?\))")));
  CHECK(contains(r.err, "\n  address:   0x50000000\n"));
  CHECK(contains(r.err, "load"));
}

TEST_CASE("fault: store to unmapped address", "[integration]") {
  Sandbox sb;
  const SimResult r = run_fault(sb, "fault_unmapped_store", "store to unmapped address");
  INFO(r.describe());
  CHECK(contains(r.out, "[ni0.cpu] about to store to unmapped address 0x50000010\n"));
  CHECK_FALSE(contains(r.out, "did not stop"));
  CHECK(std::regex_search(r.err, std::regex(R"(\n  pc:        0x[0-9a-f]{8} \(do_bad_store(\+0x[0-9a-f]+)?\))")));
  CHECK(contains(r.err, "\n  address:   0x50000010\n"));
}

TEST_CASE("fault: decrementer exception without a handler", "[integration]") {
  Sandbox sb;
  const SimResult r = run_fault(sb, "fault_no_handler", "illegal instruction");
  INFO(r.describe());
  CHECK(contains(r.err, "\n  pc:        0x00000900"));
  CHECK(contains(r.err, "decrementer exception vector"));
  // The CPU faulted ahead of SystemC's time (its local time): the outcome line
  // and stats.tsv give the fault's time, not the kernel's (was 1.003 us).
  std::smatch fault_t, outcome_t;
  REQUIRE(std::regex_search(r.err, fault_t, std::regex(R"(\n  time:      (\d+) ps simulated)")));
  const std::string both = r.out + r.err;
  REQUIRE(std::regex_search(both, outcome_t, std::regex(R"(\(exit code 65\), ([0-9.]+) us simulated)")));
  const double fault_us = std::stod(fault_t[1].str()) * 1e-6;
  CHECK(fault_us > 2.0);
  CHECK(std::stod(outcome_t[1].str()) == Approx(fault_us).margin(0.001));
  REQUIRE(r.result("run", "sim_time_us"));
  CHECK(std::stod(*r.result("run", "sim_time_us")) == Approx(fault_us).margin(0.001));
}

// ---------------------------------------------------------------- exit, time limit

TEST_CASE("firmware exit code becomes the process exit code", "[integration]") {
  Sandbox sb;
  const SimResult r = run_fw(sb, "exit_code");
  INFO(r.describe());
  CHECK(r.exited(3));
  CHECK(contains(r.out, "[ni0.cpu] exiting with 3\n"));
  CHECK(contains(r.out, "[ni0.cpu] firmware exited with code 3"));
  CHECK(r.result("run", "exit_code") == std::optional<std::string>("3"));
  CHECK(contains(r.file("report.txt"), "firmware exited with a non-zero code"));
}

TEST_CASE("time limit stops firmware that never exits", "[integration]") {
  Sandbox sb;
  const SimResult r = run_fw(sb, "spin_forever", {"sim.max_time_ms=0.5"});
  INFO(r.describe());
  CHECK(r.exited(EXIT_STALL));
  CHECK(r.wall_seconds < 5);
  CHECK(contains(r.out, "[ni0.cpu] spinning\n"));
  CHECK(contains(r.err, "error: time limit sim.max_time_ms = 0.5 ms reached"));
  // The CPU state line: where ni0.cpu was spinning.
  CHECK(std::regex_search(
      r.err, std::regex(R"(\n  ni0\.cpu: pc 0x[0-9a-f]{8} \(main(\+0x[0-9a-f]+)?\), running, [0-9]+ instructions)")));
  CHECK(contains(r.file("report.txt"), "time limit reached"));
  // About 0.5 ms of simulated time (within a quantum or two of the limit).
  const double t = r.result_num("run", "sim_time_us");
  CHECK(t >= 498);
  CHECK(t <= 502);
}

// ---------------------------------------------------------------- config errors

TEST_CASE("config error: unknown key with suggestion and line", "[integration]") {
  Sandbox sb;
  SECTION("dotted key") {
    fs::path cfg;
    const SimResult r = run_bad_config(sb,
                                       "# a comment line\n"
                                       "platform: single-ni\n"
                                       "ni0:\n"
                                       "  firmware: hello\n"
                                       "ni0.cpu.clok_mhz: 300\n",
                                       {}, &cfg);
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, cfg.string() + ":5: unknown key 'ni0.cpu.clok_mhz'"));
    CHECK(contains(r.err, "did you mean 'ni0.cpu.clock_mhz'"));
  }
  SECTION("nested key") {
    fs::path cfg;
    const SimResult r = run_bad_config(sb,
                                       "platform: single-ni\n"
                                       "ni0:\n"
                                       "  firmware: hello\n"
                                       "  cpu:\n"
                                       "    clok_mhz: 300\n",
                                       {}, &cfg);
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, cfg.string() + ":5: unknown key 'ni0.cpu.clok_mhz'"));
    CHECK(contains(r.err, "did you mean 'ni0.cpu.clock_mhz'"));
  }
}

TEST_CASE("config error: wrong type and out of range", "[integration]") {
  Sandbox sb;
  SECTION("not a number") {
    fs::path cfg;
    const SimResult r =
        run_bad_config(sb, "platform: single-ni\nni0:\n  firmware: hello\n  cpu:\n    clock_mhz: fast\n", {}, &cfg);
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, cfg.string() + ":5: key 'ni0.cpu.clock_mhz'"));
    CHECK(contains(r.err, "expected a number"));
    CHECK(contains(r.err, "got 'fast'"));
  }
  SECTION("out of range") {
    fs::path cfg;
    const SimResult r =
        run_bad_config(sb, "platform: single-ni\nni0:\n  firmware: hello\n  cpu:\n    clock_mhz: 0\n", {}, &cfg);
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, cfg.string() + ":5: key 'ni0.cpu.clock_mhz'"));
    CHECK(contains(r.err, "expected a number (double, MHz) in 1..4000"));
    CHECK(contains(r.err, "got '0'"));
  }
}

TEST_CASE("config error: missing file, YAML syntax, unknown platform", "[integration]") {
  Sandbox sb;
  SECTION("missing config file") {
    const std::string missing = (sb.dir() / "no-such-config.yaml").string();
    const SimResult r = sb.run({"run", missing});
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, missing + ": cannot open config file"));
  }
  SECTION("YAML syntax error") {
    fs::path cfg;
    const SimResult r = run_bad_config(sb,
                                       "platform: single-ni\n"
                                       "ni0:\n"
                                       "  firmware: hello\n"
                                       "  cpu: [300, 2\n"
                                       "  sdram: 1\n",
                                       {}, &cfg);
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, "YAML syntax error"));
    // The unterminated list starts on line 4; yaml-cpp notices on line 4 or 5.
    CHECK(std::regex_search(
        r.err, std::regex(std::regex_replace(cfg.string(), std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                          R"(:[45]:[0-9]+: YAML syntax error)")));
  }
  SECTION("unknown platform") {
    fs::path cfg;
    const SimResult r = run_bad_config(sb, "platform: no-such-platform\nni0:\n  firmware: hello\n", {}, &cfg);
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, cfg.string() + ":1: key 'platform'"));
    CHECK(contains(r.err, "no-such-platform"));
    CHECK(contains(r.err, "single-ni"));
  }
}

TEST_CASE("config error: malformed --set", "[integration]") {
  Sandbox sb;
  const fs::path cfg = sb.config("hello");
  SECTION("no '='") {
    const SimResult r = sb.run({"run", cfg.string(), "--set", "foo"});
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, "--set 'foo': expected NAME=VALUE"));
  }
  SECTION("bad value") {
    const SimResult r = sb.run({"run", cfg.string(), "--set", "ni0.cpu.cpi=abc"});
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, "--set: key 'ni0.cpu.cpi'"));
    CHECK(contains(r.err, "expected a number"));
    CHECK(contains(r.err, "got 'abc'"));
  }
  SECTION("--set without a value") {
    // No --out: "--set" must be the last argument.
    const SimResult r = sb.run({"run", cfg.string(), "--set"}, /*add_out=*/false);
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, "--set needs a value"));
  }
}

TEST_CASE("config error: firmware missing, truncated, wrong machine", "[integration]") {
  Sandbox sb;
  SECTION("missing firmware") {
    fs::path cfg;
    const SimResult r = run_bad_config(sb, "platform: single-ni\nni0:\n  firmware: nosuchfw\n", {}, &cfg);
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, "key 'ni0.firmware'"));
    CHECK(contains(r.err, cfg.string() + ":3"));
    CHECK(contains(r.err, (fs::path(kFirmwareDir) / "nosuchfw.elf").string()));
  }
  SECTION("truncated ELF") {
    const std::string elf = read_text(fs::path(kFirmwareDir) / "hello.elf");
    REQUIRE(elf.size() > 300);
    const fs::path truncated = sb.write("truncated.elf", elf.substr(0, 300));
    fs::path cfg;
    const SimResult r = run_bad_config(sb, "platform: single-ni\nni0:\n  firmware: truncated.elf\n", {}, &cfg);
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, "key 'ni0.firmware'"));
    CHECK(contains(r.err, truncated.string()));
    CHECK(contains(r.err, "truncated or corrupt ELF"));
  }
  SECTION("not a PowerPC ELF") {
    const std::string sim = fs::absolute(M2VP_SIM).lexically_normal().string();
    fs::path cfg;
    const SimResult r = run_bad_config(sb, "platform: single-ni\nni0:\n  firmware: " + sim + "\n", {}, &cfg);
    INFO(r.describe());
    check_config_error(r);
    CHECK(contains(r.err, "key 'ni0.firmware'"));
    CHECK(contains(r.err, sim));
    CHECK(contains(r.err, "expected PowerPC"));
  }
}

// ---------------------------------------------------------------- params

TEST_CASE("params lists every parameter with value, unit and description", "[integration]") {
  Sandbox sb;
  const fs::path cfg = sb.config("hello", "ni0.cpu.clock_mhz: 300\n");
  const SimResult p = sb.run({"params", cfg.string()});
  INFO(p.describe());
  REQUIRE(p.exited(0));
  CHECK(p.err.empty());
  const std::vector<std::string> lines = split_lines(p.out);
  REQUIRE_FALSE(lines.empty());
  CHECK(std::regex_match(lines[0], std::regex(R"(name +value +unit +default +description)")));

  const std::string clock = line_starting(p.out, "ni0.cpu.clock_mhz");
  INFO("clock line: " << clock);
  CHECK(std::regex_search(clock, std::regex(R"(^ni0\.cpu\.clock_mhz +300 +MHz +300 +core clock)")));
  CHECK(contains(clock, "(set at " + cfg.string() + ":4)"));

  // Every parameter a run knows (params.tsv) is listed with its value and unit.
  const SimResult r = sb.run({"run", cfg.string(), "--quiet"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  // --quiet: the outcome line and the output folder, no firmware output.
  CHECK(split_lines(r.out).size() == 2);
  CHECK(contains(r.out, "all firmware exited with code 0 (exit code 0)"));
  const auto rows = read_tsv(r.out_dir / "params.tsv");
  REQUIRE(rows.size() > 10);
  for (size_t i = 1; i < rows.size(); ++i) {
    REQUIRE(rows[i].size() == 5);
    const std::string& name = rows[i][0];
    const std::string line = line_starting(p.out, name);
    INFO("parameter " << name << ": line '" << line << "'");
    CHECK_FALSE(line.empty());
    std::istringstream is(line.substr(name.size()));
    std::string value;
    is >> value;
    if (!rows[i][1].empty()) CHECK(value == rows[i][1]);
    if (!rows[i][2].empty()) CHECK(contains(line.substr(name.size()), " " + rows[i][2] + " "));
  }
  CHECK(lines.size() == rows.size());  // one line per parameter plus the header

  // --set shows up with its origin.
  const SimResult s = sb.run({"params", cfg.string(), "--set", "ni0.cpu.clock_mhz=200"});
  INFO(s.describe());
  REQUIRE(s.exited(0));
  const std::string clock200 = line_starting(s.out, "ni0.cpu.clock_mhz");
  INFO("clock line with --set: " << clock200);
  CHECK(std::regex_search(clock200, std::regex(R"(^ni0\.cpu\.clock_mhz +200 +MHz +300 +core clock)")));
  CHECK(contains(clock200, "(set at --set)"));
}

TEST_CASE("params rejects a bad configuration too", "[integration]") {
  Sandbox sb;
  const fs::path cfg = sb.config("hello");
  const SimResult r = sb.run({"params", cfg.string(), "--set", "ni0.cpu.clok_mhz=200"});
  INFO(r.describe());
  CHECK(r.exited(EXIT_CONFIG));
  CHECK(contains(r.err, "--set: unknown key 'ni0.cpu.clok_mhz' (did you mean 'ni0.cpu.clock_mhz'?)"));
}
