// Samples the platform's signal probes every `period` within a time window
// and records their changes in a VcdWriter (sim.vcd selects the signals by
// name pattern). It stops sampling when nothing else is scheduled, so that a
// finished or stalled platform still ends.
#pragma once

#include <systemc>

#include "core/run_control.h"
#include "platform/signal_probes.h"
#include "trace/vcd_writer.h"

namespace m2 {

class SignalSampler : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(SignalSampler);
  SignalSampler(sc_core::sc_module_name name, RunControl& run, SignalProbes probes, VcdWriter& vcd,
                sc_core::sc_time period, sc_core::sc_time from, sc_core::sc_time to);

 private:
  void sample_loop();

  RunControl& m_run;
  SignalProbes m_probes;
  std::vector<unsigned> m_ids;
  VcdWriter& m_vcd;
  sc_core::sc_time m_period, m_from, m_to;
};

}  // namespace m2
