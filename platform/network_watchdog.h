// Reports a stalled network instead of a silent hang: every `interval` it
// looks whether messages are pending in the network and whether any byte has
// moved since the last look; after `patience` looks without progress it ends
// the run as stalled, with the state of every buffer, credit and station.
// When nothing else is scheduled it stops looking, so that a platform with
// nothing left to do still ends (the simulation's own stall report). At the
// same looks it asks whether the hosts wait for each other forever.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <systemc>

#include "core/params.h"
#include "core/run_control.h"

namespace m2 {

class NetworkWatchdog : public sc_core::sc_module {
 public:
  // Why a run is ended: the log's report and the summary line ("" report:
  // nothing to end it for).
  struct Verdict {
    std::string report, summary;
  };

  Param<double> interval_us;
  Param<uint64_t> patience;

  struct Probes {
    std::function<uint64_t()> progress;  // grows whenever data moves anywhere
    std::function<bool()> pending;       // messages are somewhere in the network
    std::function<std::string()> state;  // every buffer, credit and station
    // Senders resending one frame over and over ("" when none): a livelock
    // at a high bit error rate rather than a deadlock. Optional.
    std::function<std::string()> livelock = nullptr;
    // Hosts that wait for each other forever, or have all ended while
    // firmware runs on: a verdict that ends the run (empty report when not),
    // asked at every look (platform/host_deadlock_check.h). Optional.
    std::function<Verdict(const sc_core::sc_time& interval)> hosts = nullptr;
    // A host worked (computed, copied, pinned) for most of the interval just
    // looked at: a network that waits for it to receive is not stalled (it
    // may drain once the host gets to it). Optional; asked after `hosts`.
    std::function<bool()> hosts_working = nullptr;
  };

  SC_HAS_PROCESS(NetworkWatchdog);
  NetworkWatchdog(sc_core::sc_module_name name, RunControl& run, Probes probes);

 private:
  void watch();

  RunControl& m_run;
  Probes m_probes;
};

}  // namespace m2
