#include "platform/network_watchdog.h"

namespace m2 {

NetworkWatchdog::NetworkWatchdog(sc_core::sc_module_name name, RunControl& run, Probes probes)
    : sc_module(name),
      interval_us(this->name(), "interval_us", 1000.0, "us",
                  "how often the watchdog looks for progress in the network and at the hosts (0: off)",
                  Range<double>{0, 1e9}),
      patience(this->name(), "patience", 5, "intervals",
               "intervals without progress, with messages pending, before the run is declared stalled",
               Range<uint64_t>{1, 1000000}),
      m_run(run),
      m_probes(std::move(probes)) {
  if (interval_us.get() > 0) SC_THREAD(watch);
}

void NetworkWatchdog::watch() {
  const sc_core::sc_time interval(interval_us.get(), sc_core::SC_US);
  uint64_t last = m_probes.progress();
  uint64_t idle_looks = 0;
  for (;;) {
    wait(interval);
    if (m_run.finished()) return;
    // Asked at every look (it counts looks in a row); a stalled network is the
    // more precise diagnosis, so it is told only when the network is not.
    const Verdict hosts = m_probes.hosts ? m_probes.hosts(interval) : Verdict{};
    const uint64_t now = m_probes.progress();
    const bool pending = m_probes.pending();
    const bool hosts_working = m_probes.hosts_working && m_probes.hosts_working();
    if (now != last || !pending || hosts_working) {
      idle_looks = 0;
      last = now;
      if (!hosts.report.empty()) {
        m_run.stalled(hosts.report + "network state:\n" + m_probes.state(), hosts.summary);
        return;
      }
      // Nothing in flight and nothing else scheduled: let the simulation end
      // on its own (or be reported stalled by it) rather than tick forever.
      if (!pending && !sc_core::sc_pending_activity()) return;
      continue;
    }
    if (++idle_looks < patience.get()) continue;
    const std::string livelock = m_probes.livelock ? m_probes.livelock() : "";
    if (!livelock.empty()) {
      m_run.stalled("network livelocked at " + sc_core::sc_time_stamp().to_string() +
                        ": frames keep being resent but none has arrived intact for " + std::to_string(patience.get()) +
                        " x " + interval_us.value_string() + " us (no payload byte delivered):\n" + livelock +
                        "network state:\n" + m_probes.state(),
                    "network livelocked: frames resent, none arrives intact (bit error rate too high for the frame "
                    "size; see the log)");
      return;
    }
    m_run.stalled("network stalled at " + sc_core::sc_time_stamp().to_string() + ": messages are pending but no " +
                      "byte has moved for " + std::to_string(patience.get()) + " x " + interval_us.value_string() +
                      " us; network state:\n" + m_probes.state(),
                  "network stalled: messages pending, no progress (see the network state in the log)");
    return;
  }
}

}  // namespace m2
