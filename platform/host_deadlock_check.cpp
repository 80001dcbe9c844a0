#include "platform/host_deadlock_check.h"

namespace m2 {

HostDeadlockCheck::HostDeadlockCheck(const std::string& owner, std::vector<HostCpu*> hosts,
                                     std::function<uint64_t()> network_progress,
                                     std::function<std::string()> cpu_states)
    : host_patience(owner, "host_patience", 5, "intervals",
                    "looks in a row with every running host asleep waiting and nothing moving before the run is "
                    "reported as a host deadlock",
                    Range<uint64_t>{1, 1000000}),
      // 0.5: the MPI library's progress loop sleeps 5 us per poll and then
      // looks at every channel, about 90% asleep; a host that computes or
      // pins pages sleeps not at all.
      wait_share(owner, "wait_share", 0.5, "fraction",
                 "share of an interval a running host must spend asleep waiting to count as waiting (the rest is "
                 "its polling loop's own work)",
                 Range<double>{0.01, 1.0}),
      m_hosts(std::move(hosts)),
      m_network_progress(std::move(network_progress)),
      m_cpu_states(std::move(cpu_states)) {
  m_before = snapshot();
}

HostDeadlockCheck::Snapshot HostDeadlockCheck::snapshot() const {
  Snapshot s;
  s.network = m_network_progress();
  for (HostCpu* h : m_hosts) s.hosts.push_back(h->activity());
  return s;
}

bool HostDeadlockCheck::stuck(const Snapshot& now, const sc_core::sc_time& interval) const {
  if (now.network != m_before.network) return false;
  bool any_running = false;
  for (size_t i = 0; i < now.hosts.size(); ++i) {
    const HostCpu::Activity &a = m_before.hosts[i], &b = now.hosts[i];
    if (b.pci_writes != a.pci_writes || b.dma_writes != a.dma_writes) return false;
    if (!b.running) continue;
    any_running = true;
    if (b.waited - a.waited < interval * wait_share.get()) return false;
  }
  return any_running;
}

bool HostDeadlockCheck::all_ended(const Snapshot& now) const {
  bool any = false;
  for (size_t i = 0; i < now.hosts.size(); ++i) {
    if (!m_hosts[i]->has_app()) continue;
    if (!now.hosts[i].ended) return false;
    any = true;
  }
  return any;
}

std::string HostDeadlockCheck::host_states() const {
  std::string s;
  for (HostCpu* h : m_hosts)
    if (h->has_app()) s += "  " + h->state() + "\n";
  return s + "CPUs:\n" + m_cpu_states();
}

NetworkWatchdog::Verdict HostDeadlockCheck::look(const sc_core::sc_time& interval) {
  Snapshot now = snapshot();
  m_working = false;
  for (size_t i = 0; i < now.hosts.size(); ++i) {
    const HostCpu::Activity &a = m_before.hosts[i], &b = now.hosts[i];
    if (b.running && b.waited - a.waited < interval * wait_share.get()) m_working = true;
  }
  const bool is_stuck = stuck(now, interval), ended = all_ended(now);
  m_before = std::move(now);
  m_stuck_looks = is_stuck ? m_stuck_looks + 1 : 0;
  m_ended_looks = ended ? m_ended_looks + 1 : 0;
  const std::string waited = std::to_string(host_patience.get()) + " x " + interval.to_string();
  if (m_ended_looks >= host_patience.get())
    return {
        "every host program has ended, but " + waited + " later at " + sc_core::sc_time_stamp().to_string() +
            " firmware still runs: nothing is left for it to serve (a program that ended without releasing its NI, or "
            "firmware that never answered); the hosts:\n" +
            host_states(),
        "every host program has ended but firmware still runs (see the log)"};
  if (m_stuck_looks >= host_patience.get())
    return {"hosts deadlocked at " + sc_core::sc_time_stamp().to_string() + ": every running host has waited for " +
                waited +
                " while nothing moved (no payload byte in the network, no PCI write from a host, no DMA into a host's "
                "memory); each waits for something no one will send:\n" +
                host_states(),
            "hosts deadlocked: every running host waits and nothing moves (see what each waits in, in the log)"};
  return {};
}

}  // namespace m2
