// Unit tests for the processor wrapper (models/cpu/processor.*) with the
// Unicorn PowerPC 603e behind the ISS hook, on a minimal platform built here:
// Router + 64 MB Memory + Console + SimCtrl + Processor, wired like
// platform/ni_node.cpp but without the platform layer. Runs real firmware
// from M2VP_TEST_FIRMWARE_DIR.
//
// The last test cases drive the ISS core directly through the ISS hook
// (iss::Core / iss::Environment), without SystemC, to test breakpoints and
// single steps (the GDB server's tests: test_gdb_server.cpp, integration).
// Without a GDB server the Processor resumes at once from breakpoint stops.
#include <catch2/catch.hpp>

#include <sys/mman.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include <ip/ni_memory_map.h>

#include "core/elf_loader.h"
#include "core/memory.h"
#include "core/params.h"
#include "core/router.h"
#include "core/run_control.h"
#include "cpu/core_factory.h"
#include "cpu/iss.h"
#include "cpu/ppc_decode.h"
#include "cpu/processor.h"
#include "devices/console.h"
#include "devices/simctrl.h"
#include "iss_bare_core.h"
#include "processor_mini_node.h"

using Catch::Matchers::StartsWith;
using m2test::BareCore;
using m2test::kRegLr;
using m2test::MiniNode;
using m2test::resume_at;
using m2test::run_until_stop;

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "  " + l + "\n";
  return s;
}

uint32_t be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

// The 32-bit word at `addr` in the image's file bytes.
std::optional<uint32_t> image_word(const m2::ElfImage& img, uint64_t addr) {
  for (const m2::ElfSegment& s : img.segments()) {
    if (addr >= s.vaddr && addr + 4 <= s.vaddr + s.data.size()) return be32(&s.data[addr - s.vaddr]);
  }
  return std::nullopt;
}

const m2::ElfSymbol* find_symbol(const m2::ElfImage& img, const std::string& name) {
  for (const auto& s : img.symbols())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace

TEST_CASE("processor: compute.elf runs to completion with the right result and timing", "[model][processor]") {
  MiniNode n("compute");
  n.simulate();

  INFO("summary: " << n.run.summary() << "\nconsole:\n" << joined(n.console.lines()));
  REQUIRE(n.run.finished());
  CHECK(n.run.outcome() == m2::RunControl::Outcome::Completed);
  CHECK(n.run.exit_code() == 0);
  CHECK(n.run.has_exited(n.cpu.name()));
  const auto& lines = n.console.lines();
  CHECK(std::find(lines.begin(), lines.end(), "compute result = 0x3848bc8d") != lines.end());
  CHECK(n.result("fw_result0") == std::optional<int64_t>(944290957));

  const uint64_t icount = n.cpu.instructions();
  CHECK(icount > 1'000'000u);

  // One instruction = cpi / clock: 1 / 300 MHz by default.
  const double expected_s = static_cast<double>(icount) * n.cpu.cpi.get() / (n.cpu.clock_mhz.get() * 1e6);
  const double exit_s = n.run.last_exit_time().to_seconds();
  INFO("instructions " << icount << ", exit at " << exit_s << " s, expected " << expected_s << " s");
  CHECK(exit_s > 0);
  CHECK(std::fabs(exit_s - expected_s) <= 0.02 * expected_s);
  // The CPU never dozed before exiting (compute-bound).
  CHECK(n.cpu.idle_time() < sc_core::sc_time(1, sc_core::SC_US));
  CHECK(n.cpu.firmware() == n.image.get());
}

TEST_CASE("processor: hello.elf prints, computes and sleeps on the decrementer", "[model][processor]") {
  MiniNode n("hello");
  n.simulate();

  const auto& lines = n.console.lines();
  INFO("summary: " << n.run.summary() << "\nconsole:\n" << joined(lines));
  REQUIRE(n.run.finished());
  CHECK(n.run.outcome() == m2::RunControl::Outcome::Completed);
  CHECK(n.run.exit_code() == 0);
  REQUIRE(lines.size() >= 3);
  CHECK(lines[0] == "Hello from the Maestro2 NI firmware!");
  CHECK(lines[1] == "sum of primes below 10000 = 5736396");
  CHECK_THAT(lines[2], StartsWith("slept ") && Catch::Matchers::EndsWith(" us by the timebase"));
  unsigned slept = 0;
  REQUIRE(std::sscanf(lines[2].c_str(), "slept %u us by the timebase", &slept) == 1);
  CHECK(slept >= 100);
  CHECK(slept <= 102);
  CHECK(n.result("fw_result0") == std::optional<int64_t>(5736396));
  CHECK(n.result("fw_result1") == std::optional<int64_t>(slept));

  // It dozed for the 100 us sleep (and not while busy).
  const double idle_us = n.cpu.idle_time().to_seconds() * 1e6;
  INFO("idle " << idle_us << " us");
  CHECK(idle_us >= 95);
  CHECK(idle_us <= 105);
}

TEST_CASE("processor: the firmware profile counts every instruction and device access per function",
          "[model][processor][profile]") {
  m2::ParamRegistry::instance().preset("cpu.profile", "true", m2::ValueOrigin{"test"});
  MiniNode n("hello");
  n.simulate();
  REQUIRE(n.run.exit_code() == 0);
  const m2::FirmwareProfile* prof = n.cpu.firmware_profile();
  REQUIRE(prof);
  const auto rows = prof->rows(n.image.get(), n.cpu.ns_per_instruction());
  REQUIRE(!rows.empty());
  std::map<std::string, m2::FirmwareProfile::Row> by;
  uint64_t instructions = 0;
  for (const auto& r : rows) {
    by[r.function] = r;
    instructions += r.instructions;
    CHECK(r.instruction_us == Approx(r.instructions / 300.0));  // cpi 1 at 300 MHz: 1/300 us each
  }
  CHECK(instructions == n.cpu.instructions());  // nothing lost, nothing counted twice
  for (size_t i = 1; i < rows.size(); ++i) CHECK(rows[i - 1].total_us() >= rows[i].total_us());
  // The prime sieve (inlined into main) is the bulk of the work.
  CHECK(rows[0].function == "main");
  CHECK(by["main"].instructions > instructions / 2);
  CHECK(by["main"].device_accesses == 0);
  // Every printed character: a status read and a data write by console_putc.
  size_t chars = 0;
  for (const auto& l : n.console.lines()) chars += l.size() + 1;
  CHECK(by["console_putc"].device_accesses == 2 * chars);
  CHECK(by["console_putc"].device_us > 0);
  CHECK(by["fw_result"].device_accesses == 2);  // two results, one write each
  CHECK(by["fw_exit"].device_accesses == 1);
}

TEST_CASE("processor: without the profile parameter nothing is collected", "[model][processor][profile]") {
  MiniNode n("compute");
  n.simulate();
  CHECK(n.run.exit_code() == 0);
  CHECK(n.cpu.firmware_profile() == nullptr);
}

TEST_CASE("processor: timebase.elf sees the timebase follow simulated time", "[model][processor]") {
  MiniNode n("timebase");
  n.simulate();

  INFO("summary: " << n.run.summary() << "\nconsole:\n" << joined(n.console.lines()));
  REQUIRE(n.run.finished());
  CHECK(n.run.exit_code() == 0);
  for (int i = 0; i < 5; ++i) {
    const auto v = n.result("fw_result" + std::to_string(i));
    INFO("round " << i);
    REQUIRE(v);
    CHECK(*v >= 0);
    CHECK(*v <= 80);  // ns between timebase and SimCtrl measurements
  }
  CHECK(n.result("fw_result7") == std::optional<int64_t>(5));
}

TEST_CASE("processor: fault_illegal.elf stops with an exact illegal-instruction fault", "[model][processor]") {
  MiniNode n("fault_illegal");

  // The `.long 0` inside do_illegal, found in the image bytes.
  const m2::ElfSymbol* fn = find_symbol(*n.image, "do_illegal");
  REQUIRE(fn);
  REQUIRE(fn->size >= 4);
  std::optional<uint64_t> illegal_at;
  for (uint64_t a = fn->addr; a + 4 <= fn->addr + fn->size; a += 4) {
    auto w = image_word(*n.image, a);
    REQUIRE(w);
    if (*w == 0) {
      illegal_at = a;
      break;
    }
  }
  REQUIRE(illegal_at);
  REQUIRE(n.symbol("do_illegal") == fn->addr);

  n.simulate();
  INFO("summary: " << n.run.summary() << "\nconsole:\n" << joined(n.console.lines()));
  REQUIRE(n.run.finished());
  CHECK(n.run.outcome() == m2::RunControl::Outcome::FirmwareFault);
  CHECK(n.run.exit_code() == m2::RunControl::EXIT_FAULT);
  const m2::iss::Fault& f = n.cpu.core().fault();
  CHECK(f.kind == "illegal instruction");
  CHECK(f.pc == *illegal_at);
  CHECK(f.pc_exact);
  CHECK_FALSE(f.address.has_value());
  CHECK_THAT(n.cpu.describe(f.pc), StartsWith("do_illegal"));
  const auto& lines = n.console.lines();
  REQUIRE_FALSE(lines.empty());
  CHECK(lines[0] == "about to execute an illegal instruction");
  CHECK(std::find(lines.begin(), lines.end(), "the illegal instruction did not stop the simulation") == lines.end());
}

TEST_CASE("processor: fault_unmapped_load.elf stops with a load fault in do_bad_load", "[model][processor]") {
  MiniNode n("fault_unmapped_load");
  n.simulate();

  INFO("summary: " << n.run.summary() << "\nconsole:\n" << joined(n.console.lines()));
  REQUIRE(n.run.finished());
  CHECK(n.run.outcome() == m2::RunControl::Outcome::FirmwareFault);
  CHECK(n.run.exit_code() == m2::RunControl::EXIT_FAULT);
  const m2::iss::Fault& f = n.cpu.core().fault();
  CHECK(f.kind == "load from unmapped address");
  REQUIRE(f.address.has_value());
  CHECK(*f.address == 0x50000000u);
  CHECK_THAT(n.cpu.describe(f.pc), StartsWith("do_bad_load"));
  CHECK(f.pc_exact);
  // The faulting word really is a load whose effective address can be 0x50000000.
  const auto w = image_word(*n.image, f.pc);
  REQUIRE(w);
  const auto m = m2::ppc::decode_mem_access(*w);
  REQUIRE(m);
  CHECK_FALSE(m->is_store);
  for (const auto& l : n.console.lines()) CHECK_THAT(l, !Catch::Matchers::Contains("instead of stopping"));
}

namespace {

// Inserts a breakpoint once the firmware is loaded (after every
// end_of_elaboration) and before any process runs.
struct BreakpointSetter : sc_core::sc_module {
  m2::Processor& cpu;
  uint64_t addr;
  BreakpointSetter(sc_core::sc_module_name n, m2::Processor& c, uint64_t a) : sc_module(n), cpu(c), addr(a) {}
  void start_of_simulation() override { cpu.core().insert_breakpoint(addr); }
};

}  // namespace

TEST_CASE("processor: a breakpoint does not disturb a firmware run", "[model][processor][breakpoint]") {
  // Without a GDB server the Processor resumes from breakpoint stops at
  // once, so the run must complete unchanged.
  m2::ParamRegistry::instance().clear();
  MiniNode n("compute");
  BreakpointSetter bp("bp", n.cpu, n.symbol("bench_kernel"));
  n.simulate();
  INFO("summary: " << n.run.summary() << "\nconsole:\n" << joined(n.console.lines()));
  REQUIRE(n.run.finished());
  CHECK(n.run.exit_code() == 0);
  CHECK(n.result("fw_result0") == std::optional<int64_t>(944290957));
}

// ---- The ISS core through the ISS hook, without SystemC ---------------------

// BareEnv, BareCore, run_until_stop, resume_at: iss_bare_core.h

TEST_CASE("iss core: breakpoints stop before the instruction and resume transparently",
          "[model][processor][iss][breakpoint]") {
  BareCore c;
  m2::iss::Core& core = *c.core;
  const uint64_t kernel = c.sym("bench_kernel");
  CHECK(core.pc() == c.img.entry());

  core.insert_breakpoint(kernel);
  REQUIRE(run_until_stop(core) == m2::iss::StopReason::Breakpoint);
  CHECK(core.pc() == kernel);
  CHECK(core.read_register(64) == kernel);  // "pc" in GDB order
  const uint64_t at_entry = core.instruction_count();
  CHECK(at_entry > 100);                // crt0 zeroed .bss and main ran up to the call
  CHECK(core.read_register(3) == 200);  // bench_iterations
  const uint64_t ret = core.read_register(kRegLr);
  REQUIRE(ret > c.img.entry());
  CHECK_THAT(c.img.describe(ret).value_or(""), StartsWith("main"));
  const uint64_t sp = core.read_register(1);

  // A breakpoint at the return address; resuming steps over the one at the PC.
  core.insert_breakpoint(ret);
  REQUIRE(run_until_stop(core) == m2::iss::StopReason::Breakpoint);
  CHECK(core.pc() == ret);
  CHECK(core.read_register(3) == 0x3848bc8du);
  CHECK(core.read_register(1) == sp);
  const uint64_t kernel_insns = core.instruction_count() - at_entry;
  CHECK(kernel_insns > 1'000'000u);
  CHECK(c.env.transports == 0);  // self-contained kernel: no device access

  // Run the kernel again from its breakpoint (step-over path): same count.
  core.write_register(3, 200);
  core.write_register(kRegLr, ret);
  uint64_t start = core.instruction_count();
  REQUIRE(resume_at(core, kernel) == m2::iss::StopReason::Breakpoint);
  CHECK(core.pc() == ret);
  CHECK(core.read_register(3) == 0x3848bc8du);
  CHECK(core.instruction_count() - start == kernel_insns);

  // And without the breakpoint at the entry: same result, same count.
  core.remove_breakpoint(kernel);
  core.write_register(3, 200);
  core.write_register(kRegLr, ret);
  start = core.instruction_count();
  REQUIRE(resume_at(core, kernel) == m2::iss::StopReason::Breakpoint);
  CHECK(core.pc() == ret);
  CHECK(core.read_register(3) == 0x3848bc8du);
  CHECK(core.instruction_count() - start == kernel_insns);

  // The breakpoint marker is not visible in memory once removed.
  const auto orig = image_word(c.img, kernel);
  REQUIRE(orig);
  CHECK(be32(c.env.ram + kernel) == *orig);
}

TEST_CASE("iss core: after the last breakpoint the firmware goes on to its device accesses",
          "[model][processor][iss][breakpoint]") {
  BareCore c;
  m2::iss::Core& core = *c.core;
  const uint64_t kernel = c.sym("bench_kernel");
  core.insert_breakpoint(kernel);
  REQUIRE(run_until_stop(core) == m2::iss::StopReason::Breakpoint);
  CHECK(core.pc() == kernel);
  core.remove_breakpoint(kernel);
  // No breakpoint left: main prints the result, and the console (a bus error
  // in this environment) stops the core with a fault outside bench_kernel.
  REQUIRE(run_until_stop(core) == m2::iss::StopReason::Fault);
  CHECK(c.env.transports > 0);
  const auto& f = core.fault();
  INFO(f.kind << " at " << std::hex << f.pc << " " << f.detail);
  REQUIRE(f.address.has_value());
  CHECK((*f.address & ~0xFFFull) == NI_CONSOLE_BASE);
  CHECK_THAT(f.kind, StartsWith("bus error"));
}

TEST_CASE("iss core: a breakpoint is reported when a budget stop lands on it", "[model][processor][iss][breakpoint]") {
  // A step that ends on its budget at a block boundary leaves the PC on the
  // next block's first instruction; if a breakpoint is there, the next step()
  // must report it (with no instruction executed), not step over it. Budget 1
  // stops at every block boundary, so the call into bench_kernel is one.
  m2::ParamRegistry::instance().clear();
  uint64_t ref_count = 0;
  {
    BareCore ref;
    ref.core->insert_breakpoint(ref.sym("bench_kernel"));
    REQUIRE(run_until_stop(*ref.core) == m2::iss::StopReason::Breakpoint);
    ref_count = ref.core->instruction_count();
  }
  BareCore c;
  m2::iss::Core& core = *c.core;
  const uint64_t kernel = c.sym("bench_kernel");
  core.insert_breakpoint(kernel);
  m2::iss::StopReason why = m2::iss::StopReason::Budget;
  for (int i = 0; i < 20'000'000 && why == m2::iss::StopReason::Budget; ++i) why = core.step(1);
  INFO("stopped at pc 0x" << std::hex << core.pc() << " (" << c.img.describe(core.pc()).value_or("?") << ") after "
                          << std::dec << core.instruction_count() << " instructions; fault: " << core.fault().kind);
  CHECK(why == m2::iss::StopReason::Breakpoint);
  CHECK(core.pc() == kernel);
  CHECK(core.instruction_count() == ref_count);
  CHECK(c.env.transports == 0);  // did not run on into main's printf
}

TEST_CASE("iss core: two breakpoints in one block are both reported", "[model][processor][iss][breakpoint]") {
  // bench_kernel starts with lis r6,0 ; addi r6,r6,24860 ; addi r5,r6,1024 in
  // one basic block. Resuming from the first breakpoint must stop at the second
  // after exactly the two instructions between them.
  m2::ParamRegistry::instance().clear();
  BareCore c;
  m2::iss::Core& core = *c.core;
  const uint64_t kernel = c.sym("bench_kernel");
  REQUIRE(image_word(c.img, kernel) == std::optional<uint32_t>(0x3CC00000u));      // lis r6,0
  REQUIRE(image_word(c.img, kernel + 4) == std::optional<uint32_t>(0x38C6611Cu));  // addi r6,r6,24860
  REQUIRE(image_word(c.img, kernel + 8) == std::optional<uint32_t>(0x38A60400u));  // addi r5,r6,1024
  core.insert_breakpoint(kernel);
  core.insert_breakpoint(kernel + 8);
  REQUIRE(run_until_stop(core) == m2::iss::StopReason::Breakpoint);
  REQUIRE(core.pc() == kernel);
  const uint64_t n0 = core.instruction_count();
  const uint64_t ret = core.read_register(kRegLr);
  const uint64_t r5_before = core.read_register(5);

  const auto why = run_until_stop(core);
  CHECK(why == m2::iss::StopReason::Breakpoint);
  CHECK(core.pc() == kernel + 8);
  CHECK(core.instruction_count() == n0 + 2);
  CHECK(core.read_register(6) == 0x611Cu);    // both instructions ran once
  CHECK(core.read_register(5) == r5_before);  // the one under the breakpoint did not

  // Resuming runs the kernel to its return with the right result.
  core.remove_breakpoint(kernel);
  core.insert_breakpoint(ret);
  CHECK(run_until_stop(core) == m2::iss::StopReason::Breakpoint);
  CHECK(core.pc() == ret);
  CHECK(core.read_register(3) == 0x3848bc8du);
}

// ---- Single step and the debugger's view of memory ---------------------------

TEST_CASE("iss core: single_step executes exactly one instruction", "[model][processor][iss][step]") {
  BareCore c;
  m2::iss::Core& core = *c.core;
  const uint64_t kernel = c.sym("bench_kernel");
  core.insert_breakpoint(kernel);
  REQUIRE(run_until_stop(core) == m2::iss::StopReason::Breakpoint);
  REQUIRE(core.pc() == kernel);
  // lis r6,0 ; addi r6,r6,24860 ; addi r5,r6,1024 (one basic block); the
  // breakpoint at the PC does not stop the step.
  const uint64_t n0 = core.instruction_count();
  REQUIRE(core.single_step() == m2::iss::StopReason::Budget);
  CHECK(core.pc() == kernel + 4);
  CHECK(core.instruction_count() == n0 + 1);
  CHECK(core.read_register(6) == 0);
  REQUIRE(core.single_step() == m2::iss::StopReason::Budget);
  CHECK(core.pc() == kernel + 8);
  CHECK(core.read_register(6) == 0x611Cu);
  REQUIRE(core.single_step() == m2::iss::StopReason::Budget);
  CHECK(core.pc() == kernel + 12);
  CHECK(core.read_register(5) == 0x651Cu);
  CHECK(core.instruction_count() == n0 + 3);
  // No temporary breakpoint is left behind.
  for (uint64_t a = kernel + 4; a < kernel + 32; a += 4) CHECK(be32(c.env.ram + a) != 0x00004250u);
}

TEST_CASE("iss core: single steps through branches keep count and result exact", "[model][processor][iss][step]") {
  const uint64_t kernel_insns = m2test::kernel_instructions();
  BareCore c;
  m2::iss::Core& core = *c.core;
  const uint64_t kernel = c.sym("bench_kernel");
  core.insert_breakpoint(kernel);
  REQUIRE(run_until_stop(core) == m2::iss::StopReason::Breakpoint);
  const uint64_t ret = core.read_register(kRegLr);
  const uint64_t n0 = core.instruction_count();
  int jumps = 0;
  for (int i = 0; i < 3000; ++i) {
    const uint64_t pc = core.pc(), n = core.instruction_count();
    REQUIRE(core.single_step() == m2::iss::StopReason::Budget);
    REQUIRE(core.instruction_count() == n + 1);
    if (core.pc() != pc + 4) ++jumps;
  }
  CHECK(jumps > 10);  // went through loop branches
  core.insert_breakpoint(ret);
  REQUIRE(run_until_stop(core) == m2::iss::StopReason::Breakpoint);
  CHECK(core.pc() == ret);
  CHECK(core.read_register(3) == 0x3848bc8du);
  CHECK(core.instruction_count() - n0 == kernel_insns);
}

TEST_CASE("iss core: hide_patches shows the loaded program under breakpoints and intercepts",
          "[model][processor][iss][breakpoint]") {
  BareCore c;
  m2::iss::Core& core = *c.core;
  const uint64_t kernel = c.sym("bench_kernel");
  // An intercepted instruction (mtdec, mfmsr... in crt0 and fwcommon).
  std::optional<uint64_t> intercepted;
  for (const m2::ElfSegment& s : c.img.segments()) {
    if (!s.executable) continue;
    for (uint64_t off = 0; off + 4 <= s.data.size() && !intercepted; off += 4)
      if (m2::ppc::classify(be32(&s.data[off])).kind != m2::ppc::Intercept::None) intercepted = s.vaddr + off;
  }
  REQUIRE(intercepted);
  CHECK(be32(c.env.ram + *intercepted) == 0x00004D32u);  // the core's marker
  core.insert_breakpoint(kernel);
  core.insert_breakpoint(*intercepted);
  CHECK(be32(c.env.ram + kernel) == 0x00004250u);

  for (const uint64_t at : {kernel, *intercepted}) {
    uint8_t buf[12];
    std::memcpy(buf, c.env.ram + at - 4, sizeof buf);
    core.hide_patches(at - 4, buf, sizeof buf);
    CHECK(be32(buf + 4) == *image_word(c.img, at));
    CHECK(be32(buf) == *image_word(c.img, at - 4));
    // A range that cuts the word in half.
    uint8_t half[2];
    std::memcpy(half, c.env.ram + at + 2, 2);
    core.hide_patches(at + 2, half, 2);
    CHECK(((uint32_t(half[0]) << 8) | half[1]) == (*image_word(c.img, at) & 0xFFFFu));
  }
  core.remove_breakpoint(*intercepted);
  CHECK(be32(c.env.ram + *intercepted) == 0x00004D32u);
}

TEST_CASE("iss core: code written over a breakpoint runs and the breakpoint stays",
          "[model][processor][iss][breakpoint]") {
  BareCore c;
  m2::iss::Core& core = *c.core;
  const uint64_t kernel = c.sym("bench_kernel");
  core.insert_breakpoint(kernel);
  core.insert_breakpoint(kernel + 8);
  REQUIRE(run_until_stop(core) == m2::iss::StopReason::Breakpoint);
  REQUIRE(core.pc() == kernel);
  // A debugger replaces "addi r5,r6,1024" by "li r5,7" under the breakpoint.
  const uint8_t li_r5_7[4] = {0x38, 0xA0, 0x00, 0x07};
  std::memcpy(c.env.ram + kernel + 8, li_r5_7, 4);
  core.code_changed(kernel + 8, 4);
  CHECK(be32(c.env.ram + kernel + 8) == 0x00004250u);
  uint8_t buf[4];
  std::memcpy(buf, c.env.ram + kernel + 8, 4);
  core.hide_patches(kernel + 8, buf, 4);
  CHECK(be32(buf) == 0x38A00007u);
  REQUIRE(run_until_stop(core) == m2::iss::StopReason::Breakpoint);
  CHECK(core.pc() == kernel + 8);
  REQUIRE(core.single_step() == m2::iss::StopReason::Budget);
  CHECK(core.read_register(5) == 7);
  core.remove_breakpoint(kernel + 8);
  CHECK(be32(c.env.ram + kernel + 8) == 0x38A00007u);
}
