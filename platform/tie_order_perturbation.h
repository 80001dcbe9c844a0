// A process that wakes periodically and does nothing (sim.perturb_ns).
//
// SystemC runs processes woken at the same simulated time in an order the
// standard leaves open; the reference kernel follows the layout of its
// timed-event queue, so adding or removing any timed notification can
// reorder same-time wake-ups elsewhere. Under contention such a reordering
// can change which request wins an arbitration and move a result by a few
// percent. This process adds notifications that change nothing but that
// order: a result that moves with sim.perturb_ns is sensitive to same-time
// order, and the spread over a few periods is its uncertainty
// (docs/speed.md, "Tie order").
#pragma once

#include <systemc>

namespace m2 {

class TieOrderPerturbation : public sc_core::sc_module {
 public:
  TieOrderPerturbation(sc_core::sc_module_name name, sc_core::sc_time period);

 private:
  void run();
  sc_core::sc_time period_;
};

}  // namespace m2
