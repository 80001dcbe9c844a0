#include "platform/tie_order_perturbation.h"

namespace m2 {

TieOrderPerturbation::TieOrderPerturbation(sc_core::sc_module_name name, sc_core::sc_time period)
    : sc_module(name), period_(period) {
  SC_HAS_PROCESS(TieOrderPerturbation);
  SC_THREAD(run);
}

void TieOrderPerturbation::run() {
  for (;;) {
    wait(period_);
    // Nothing else pending: the platform would starve now (a finished run or
    // a stall the simulation reports); keeping it alive would hide that.
    if (!sc_core::sc_pending_activity()) return;
  }
}

}  // namespace m2
