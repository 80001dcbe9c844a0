// The switch controller's switching bus: the data path between the ports'
// network buffers and the header buffer. A transfer of n bytes takes
// setup_cycles + ceil(n / width) clocks; one transfer may write several
// destination buffers at once (multicast and broadcast cost one transfer).
//  - LT: a master waits its transfer's time; masters do not wait for each
//    other (the same data, close timing, nothing to arbitrate).
//  - AT: masters contend: one transfer holds the bus, the others wait for
//    the grant (round-robin by master after each transfer).
// Callers are SC_THREADs. See docs/models/switching-bus.md.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <systemc>

#include "core/busy_log.h"

#include "core/timing_style.h"

namespace m2 {

class SwitchingBus {
 public:
  // Throws ConfigError on a width that is not a whole number of bytes.
  SwitchingBus(std::string name, TimingStyle style, uint64_t width_bits, double clock_mhz, uint64_t setup_cycles);

  // A master of the bus, named for the statistics; returns its number.
  unsigned add_master(const std::string& name);

  // Uncontended cost of moving `bytes`: setup + ceil(bytes / width) clocks.
  uint64_t cycles(uint64_t bytes) const { return m_setup + (bytes + m_width_bytes - 1) / m_width_bytes; }
  sc_core::sc_time transfer_time(uint64_t bytes) const;
  sc_core::sc_time clock_period() const;
  uint64_t width_bytes() const { return m_width_bytes; }
  TimingStyle timing_style() const { return m_style; }

  // Moves `bytes` for `master`: returns when the transfer is over (the data
  // may then be written). AT: waits for the grant first.
  void transfer(unsigned master, uint64_t bytes);

  struct MasterStats {
    std::string name;
    uint64_t transfers = 0, bytes = 0;
    sc_core::sc_time busy, waiting;  // waiting: for the grant (AT only)
  };
  const std::vector<MasterStats>& master_stats() const { return m_stats; }
  // Sum of the transfer times (LT: overlapping transfers both count).
  sc_core::sc_time busy_time() const { return m_busy; }
  // Its transfers' times, for a sampled busy signal (kept once enabled).
  BusyLog& busy_log() { return m_busy_log; }
  // "idle" or who holds the bus and who waits (AT).
  std::string describe() const;

 private:
  bool acquire(unsigned master);
  void release(unsigned master);
  struct Waiter {
    unsigned master = 0;
    uint64_t seq = 0;
    bool granted = false;
    sc_core::sc_event event;
  };

  std::string m_name;
  TimingStyle m_style;
  uint64_t m_width_bytes;
  double m_clock_mhz;
  uint64_t m_setup;
  std::vector<MasterStats> m_stats;
  sc_core::sc_time m_busy;
  BusyLog m_busy_log;
  int m_owner = -1;
  std::deque<Waiter*> m_waiters;
  uint64_t m_next_seq = 0;
};

}  // namespace m2
