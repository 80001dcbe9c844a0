// The external interrupt input of the processor: raised while the firmware
// dozes, it must wake the CPU and enter the 0x500 vector (the firmware's
// default handler then reports it and exits with 0x7E).
#include <catch2/catch.hpp>

#include <systemc>
#include <tlm>

#include "core/params.h"
#include "core/run_control.h"
#include "platform/platform.h"

namespace {

struct IrqDriver : sc_core::sc_module {
  SC_HAS_PROCESS(IrqDriver);
  IrqDriver(sc_core::sc_module_name n, m2::Processor& cpu, sc_core::sc_time at) : sc_module(n), m_cpu(cpu), m_at(at) {
    SC_THREAD(raise);
  }
  void raise() {
    wait(m_at);
    m_cpu.set_irq(0, true);
  }
  m2::Processor& m_cpu;
  sc_core::sc_time m_at;
};

}  // namespace

// Runs hello with the external interrupt raised at `at`; returns the time
// the firmware exited (in us) and its idle time.
struct IrqRun {
  int exit_code;
  std::string last_line;
  double exit_us, idle_us;
};

static IrqRun run_with_irq_at(const char* firmware, sc_core::sc_time at) {
  m2::ParamRegistry::instance().clear();
  m2::ParamRegistry::instance().preset("ni0.firmware", std::string(M2VP_TEST_FIRMWARE_DIR) + "/" + firmware + ".elf",
                                       {"test"});
  m2::RunControl run;
  m2::PlatformContext ctx{"", run};
  auto platform = m2::build_platform("single-ni", ctx);
  m2::Processor& cpu = *platform->processors().at(0);
  const m2::TextOutput& console = *platform->consoles().at(0);
  IrqDriver driver("driver", cpu, at);
  tlm::tlm_global_quantum::instance().set(sc_core::sc_time(1, sc_core::SC_US));
  sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_MS), sc_core::SC_EXIT_ON_STARVATION);
  REQUIRE(run.finished());
  REQUIRE(run.outcome() == m2::RunControl::Outcome::Completed);
  REQUIRE(!console.lines().empty());
  return {run.exit_code(), console.lines().back(), run.last_exit_time().to_seconds() * 1e6,
          cpu.idle_time().to_seconds() * 1e6};
}

// hello computes for about 500 us with interrupts off, then sleeps 100 us
// (doze with EE on) and exits at about 608 us.
TEST_CASE("external interrupt during doze is taken at once through vector 0x500", "[model][irq]") {
  const IrqRun r = run_with_irq_at("hello", sc_core::sc_time(550, sc_core::SC_US));
  CHECK(r.exit_code == 0x3F);  // 0x7E from the default handler, clamped to 1..63
  CHECK(r.last_line == "unexpected external interrupt");
  CHECK(r.exit_us > 550.0);
  CHECK(r.exit_us < 560.0);
  CHECK(r.idle_us > 30.0);  // it dozed from ~507 us until the interrupt
}

TEST_CASE("external interrupt stays pending while MSR EE is off", "[model][irq]") {
  const IrqRun r = run_with_irq_at("hello", sc_core::sc_time(50, sc_core::SC_US));
  CHECK(r.last_line == "unexpected external interrupt");
  // Not at 50 us: only when the firmware enables interrupts for its sleep.
  CHECK(r.exit_us > 480.0);
  CHECK(r.exit_us < 530.0);
  CHECK(r.idle_us < 1.0);  // it never dozed: the interrupt was already pending
}

// A busy CPU alone on its platform runs ahead of SystemC time without
// syncing (nothing else is pending); an interrupt raised by another process
// must still be taken within one quantum of its time.
TEST_CASE("external interrupt reaches a busy CPU within one quantum", "[model][irq]") {
  const IrqRun r = run_with_irq_at("spin_irq", sc_core::sc_time(777, sc_core::SC_US));
  CHECK(r.exit_code == 0x3F);
  CHECK(r.last_line == "unexpected external interrupt");
  CHECK(r.exit_us >= 777.0);
  // up to one 1 us quantum late, plus about 3.9 us for the handler to print
  // its line and exit (the same with syncs at every quantum end)
  CHECK(r.exit_us < 782.0);
  CHECK(r.idle_us == 0.0);
}
