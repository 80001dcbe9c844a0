// The no-op process of sim.perturb_ns (platform/tie_order_perturbation.h):
// it wakes with its period while the platform has something to do, changes
// nothing, and ends itself when nothing else is pending, so that a stalled
// platform still starves (and is reported as a stall) instead of running to
// the time limit.
#include <catch2/catch.hpp>

#include <systemc>

#include "platform/tie_order_perturbation.h"

using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {

// Counts 1 us ticks for 20 us, then waits for an event nobody notifies.
struct Worker : sc_core::sc_module {
  int ticks = 0;
  sc_time stuck_at;
  sc_core::sc_event never;
  SC_HAS_PROCESS(Worker);
  explicit Worker(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
  void run() {
    for (; ticks < 20; ++ticks) wait(sc_time(1, SC_US));
    stuck_at = sc_core::sc_time_stamp();
    wait(never);
  }
};

}  // namespace

TEST_CASE("tie-order perturbation: ticks while others work, ends when the platform would starve",
          "[model][perturbation]") {
  Worker w("worker");
  m2::TieOrderPerturbation p("perturbation", sc_time(997, SC_NS));
  sc_core::sc_start(sc_time(1, sc_core::SC_SEC), sc_core::SC_EXIT_ON_STARVATION);
  // The worker ran its course undisturbed.
  CHECK(w.ticks == 20);
  CHECK(w.stuck_at == sc_time(20, SC_US));
  // Starved soon after (at the perturbation's next tick), not at the 1 s limit.
  CHECK(sc_core::sc_time_stamp() > w.stuck_at);
  CHECK(sc_core::sc_time_stamp() <= w.stuck_at + sc_time(997, SC_NS));
  CHECK_FALSE(sc_core::sc_pending_activity());
}
