#include "platform/signal_sampler.h"

namespace m2 {

SignalSampler::SignalSampler(sc_core::sc_module_name name, RunControl& run, SignalProbes probes, VcdWriter& vcd,
                             sc_core::sc_time period, sc_core::sc_time from, sc_core::sc_time to)
    : sc_module(name), m_run(run), m_probes(std::move(probes)), m_vcd(vcd), m_period(period), m_from(from), m_to(to) {
  for (const SignalProbe& p : m_probes) {
    m_ids.push_back(m_vcd.add_signal(p.name, p.width));
    if (p.enable) p.enable();
  }
  if (!m_probes.empty()) SC_THREAD(sample_loop);
}

void SignalSampler::sample_loop() {
  if (m_from > sc_core::SC_ZERO_TIME) wait(m_from);
  for (;;) {
    const uint64_t now = sc_core::sc_time_stamp().value();
    for (size_t i = 0; i < m_probes.size(); ++i) m_vcd.change(m_ids[i], now, m_probes[i].read());
    if (m_run.finished() || sc_core::sc_time_stamp() + m_period > m_to) return;
    wait(m_period);
    if (!sc_core::sc_pending_activity()) return;  // nothing else will happen
  }
}

}  // namespace m2
