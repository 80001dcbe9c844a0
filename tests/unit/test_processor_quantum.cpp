// Unit tests of how a processor ends its quanta (models/cpu/processor.cpp,
// LocalTime::extend_quantum, Environment::budget_exhausted): alone, a CPU
// passes its quantum ends without waiting in the SystemC kernel and without
// leaving the ISS, and that changes neither the instructions it executes nor
// any time.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <iterator>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "core/elf_loader.h"
#include "cpu/core_factory.h"
#include "cpu/iss.h"
#include "iss_bare_core.h"
#include "processor_mini_node.h"

using m2test::BareCore;
using m2test::BareEnv;
using m2test::MiniNode;

namespace {

// What a firmware run on the mini node ends with.
struct RunEnd {
  uint64_t instructions = 0;
  uint64_t exit_ps = 0;
  int64_t result = -1;
  uint64_t budgets_renewed = 0;
  bool completed = false;
};

RunEnd run_node(const std::string& firmware, bool renew_budgets) {
  MiniNode n(firmware);
  n.cpu.set_renew_budgets(renew_budgets);
  n.simulate();
  RunEnd e;
  e.instructions = n.cpu.instructions();
  e.exit_ps = n.run.last_exit_time().value();
  e.result = n.result("fw_result0").value_or(-1);
  e.budgets_renewed = n.cpu.budgets_renewed();
  e.completed = n.run.finished() && n.run.outcome() == m2::RunControl::Outcome::Completed && n.run.exit_code() == 0;
  return e;
}

// The same run in a child process (SystemC elaborates once per process):
// forked before this process builds any module, it reports through a pipe.
RunEnd run_node_in_child(const std::string& firmware, bool renew_budgets) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    int code = 1;
    try {
      const RunEnd e = run_node(firmware, renew_budgets);
      code = write(fds[1], &e, sizeof e) == static_cast<ssize_t>(sizeof e) ? 0 : 1;
    } catch (...) {
    }
    _exit(code);  // not Catch's exit path: the parent reports
  }
  close(fds[1]);
  RunEnd e;
  const ssize_t got = read(fds[0], &e, sizeof e);
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  REQUIRE(got == static_cast<ssize_t>(sizeof e));
  return e;
}

// Records where the core asks for a new budget, and grants `budget` each time.
struct RenewingEnv : BareEnv {
  uint64_t budget = 0;
  const m2::iss::Core* core = nullptr;
  std::vector<uint64_t> asked_at;  // instruction counts
  uint64_t budget_exhausted() override {
    asked_at.push_back(core->instruction_count());
    return budget;
  }
};

// A core on `env` with `img` loaded, reset to its entry (as BareCore does).
std::unique_ptr<m2::iss::Core> core_with(RenewingEnv& env, const m2::ElfImage& img) {
  auto core = m2::iss::make_core("ppc603e", env, {"test.cpu", 25'000'000, NI_ISS_PRIVATE_BASE});
  env.core = core.get();
  m2::load_into(img, [&env](uint64_t addr, const uint8_t* data, size_t len) {
    REQUIRE(addr + len <= env.size);
    std::copy(data, data + len, env.ram + addr);
  });
  for (const auto& s : img.segments())
    if (s.executable) core->code_changed(s.paddr, s.memsz);
  core->reset(img.entry());
  return core;
}

}  // namespace

TEST_CASE("processor: a CPU alone passes its quantum ends without a kernel wait and inside the ISS",
          "[model][processor][quantum]") {
  MiniNode n("compute");
  n.simulate();
  REQUIRE(n.run.finished());
  CHECK(n.result("fw_result0") == std::optional<int64_t>(944290957));
  // 1 us quanta; only the run-ahead limit (100 quanta) and the console's
  // accesses at the end make the CPU wait.
  const uint64_t quanta = n.run.last_exit_time().value() / 1'000'000;
  INFO("quanta " << quanta << ", waits " << n.cpu.quantum_waits() << ", extended " << n.cpu.quanta_extended()
                 << ", renewed in the ISS " << n.cpu.budgets_renewed());
  REQUIRE(quanta > 10'000);
  CHECK(n.cpu.quantum_waits() > 0);
  CHECK(n.cpu.quantum_waits() <= quanta / 50);
  CHECK(n.cpu.quanta_extended() + n.cpu.quantum_waits() >= quanta - 2);
  CHECK(n.cpu.budgets_renewed() >= quanta * 9 / 10);
}

TEST_CASE("processor: quantum ends passed inside the ISS change no instruction and no time",
          "[model][processor][quantum]") {
  // hello.elf also sleeps on the decrementer: budgets end at timer events and
  // an interrupt wakes the dozing core.
  for (const char* fw : {"compute", "hello"}) {
    INFO("firmware " << fw);
    const RunEnd without = run_node_in_child(fw, false);
    const RunEnd with = run_node_in_child(fw, true);
    CHECK(without.completed);
    CHECK(with.completed);
    CHECK(without.budgets_renewed == 0);
    CHECK(with.budgets_renewed > 100);
    CHECK(with.instructions == without.instructions);
    CHECK(with.exit_ps == without.exit_ps);
    CHECK(with.result == without.result);
  }
}

TEST_CASE("iss core: a budget renewed inside a step ends where separate steps of that budget end",
          "[model][processor][iss][quantum]") {
  // Budgets of 37 instructions end part-way into blocks; the step ends at the
  // block boundary after them. Separate steps: the reference.
  std::vector<uint64_t> stops;
  m2::iss::StopReason ref_why = m2::iss::StopReason::Budget;
  uint64_t ref_count = 0, ref_pc = 0;
  {
    BareCore ref;
    while ((ref_why = ref.core->step(37)) == m2::iss::StopReason::Budget)
      stops.push_back(ref.core->instruction_count());
    ref_count = ref.core->instruction_count();
    ref_pc = ref.core->fault().pc;
  }
  // compute.elf runs its kernel, then prints: a bus error in this environment.
  REQUIRE(ref_why == m2::iss::StopReason::Fault);
  REQUIRE(stops.size() > 10'000);

  const m2::ElfImage img = m2::ElfImage::load(m2test::firmware_path("compute"));
  RenewingEnv env;
  env.budget = 37;
  const auto core = core_with(env, img);
  // Every budget stop of the reference became a renewal, except where the
  // core stops on its own (it wrote the decrementer, set MSR): there its step
  // ends as the reference's did.
  std::vector<uint64_t> ends;
  m2::iss::StopReason why = m2::iss::StopReason::Budget;
  while ((why = core->step(37)) == m2::iss::StopReason::Budget) ends.push_back(core->instruction_count());
  CHECK(why == m2::iss::StopReason::Fault);
  CHECK(core->instruction_count() == ref_count);
  CHECK(core->fault().pc == ref_pc);
  INFO("renewals " << env.asked_at.size() << ", steps " << ends.size() << ", reference steps " << stops.size());
  CHECK(env.asked_at.size() > stops.size() * 9 / 10);
  std::vector<uint64_t> both;
  std::merge(env.asked_at.begin(), env.asked_at.end(), ends.begin(), ends.end(), std::back_inserter(both));
  CHECK(both.size() == stops.size());
  const auto differ = std::mismatch(both.begin(), both.end(), stops.begin(), stops.end());
  CHECK(differ.first == both.end());  // the same instruction counts, in order

  // Without a new budget (0) every such step ends as a budget stop, where the reference's did.
  RenewingEnv stop_env;
  const auto stopping = core_with(stop_env, img);
  std::vector<uint64_t> stopping_ends;
  while (stopping->step(37) == m2::iss::StopReason::Budget) stopping_ends.push_back(stopping->instruction_count());
  const bool same_stops = stopping_ends == stops;  // (not printed: tens of thousands)
  CHECK(same_stops);
  CHECK(stop_env.asked_at.size() == env.asked_at.size());
}
