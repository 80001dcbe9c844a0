// Tells hosts that wait for each other forever, for the watchdog: two MPI
// ranks that each wait for the other's message, or a host that waits for a
// peer that has exited. The network watchdog alone cannot see it (nothing is
// pending in the network) and the hosts keep polling, so the simulation never
// runs out of events and would only end at its time limit.
//
// At each of the watchdog's looks (every watchdog.interval_us) the hosts
// count as stuck when nothing one side could do for another has happened
// since the last look: no payload byte moved in the network, no host wrote to
// its NI over PCI, no DMA wrote into a host's memory; and every running host
// spent at least `wait_share` of the interval asleep in a poll or an interrupt
// wait. The last condition tells a deadlock from a host busy on its own
// (pinning 8 MB is 266 ms of host time in which nothing else moves: that host
// is not waiting). After `host_patience` stuck looks in a row it reports.
//
// The same looks tell when every host program has ended but the run goes on
// (an NI's firmware still runs because a program ended without releasing its
// NI, or the firmware never answered): nothing is left for the firmware to
// serve, so after `host_patience` such looks the run ends and says so instead
// of running to its time limit.
//
// Not a SystemC process of its own: it runs in the watchdog's wake-ups, so
// that watching adds no event (an extra process changes the order of
// processes woken at the same time, and with it contention results).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <systemc>

#include "core/params.h"
#include "host/host_cpu.h"
#include "platform/network_watchdog.h"

namespace m2 {

class HostDeadlockCheck {
 public:
  Param<uint64_t> host_patience;
  Param<double> wait_share;

  // `owner`: the watchdog's name, under which the parameters are listed;
  // `cpu_states`: where every CPU stands, for the reports.
  HostDeadlockCheck(const std::string& owner, std::vector<HostCpu*> hosts, std::function<uint64_t()> network_progress,
                    std::function<std::string()> cpu_states);

  // One look, `interval` after the previous one: an empty verdict, or the
  // report of a deadlock (what every host waits in) or of ended hosts.
  NetworkWatchdog::Verdict look(const sc_core::sc_time& interval);
  // At the last look: a running host spent less than `wait_share` of the
  // interval waiting, i.e. it was working on its own.
  bool hosts_working() const { return m_working; }

 private:
  struct Snapshot {
    uint64_t network = 0;
    std::vector<HostCpu::Activity> hosts;
  };
  Snapshot snapshot() const;
  bool stuck(const Snapshot& now, const sc_core::sc_time& interval) const;
  // Every host with a program has run it and it has ended.
  bool all_ended(const Snapshot& now) const;
  std::string host_states() const;

  std::vector<HostCpu*> m_hosts;
  std::function<uint64_t()> m_network_progress;
  std::function<std::string()> m_cpu_states;
  Snapshot m_before;
  uint64_t m_stuck_looks = 0, m_ended_looks = 0;
  bool m_working = false;
};

}  // namespace m2
