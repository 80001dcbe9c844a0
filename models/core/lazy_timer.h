// A timeout for processes that wait for "an event or a time, whichever comes
// first" over and over. wait(t, e) woken by e leaves its timed notification
// in the kernel's timed-event queue until t (SystemC cancels by marking, not
// removing), and the queue's cost grows with its size: a 100 us timeout
// re-armed at every frame or DMA write kept some 10,000 dead entries there.
// A LazyTimer keeps one pending notification at the earliest time asked for
// and leaves it in place when a later time is asked for: the waiter may then
// wake once too early and must check its own deadline (and arm again).
#pragma once

#include <systemc>

namespace m2 {

class LazyTimer {
 public:
  // Notified at the earliest time armed (and not yet passed).
  const sc_core::sc_event& event() const { return m_event; }
  // Makes sure event() is notified at `at` or earlier (absolute time, not
  // before now).
  void arm(const sc_core::sc_time& at) {
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    if (m_at > now && m_at <= at) return;  // an earlier notification is pending
    m_event.notify(at > now ? at - now : sc_core::SC_ZERO_TIME);
    m_at = at;
  }

 private:
  sc_core::sc_event m_event;
  sc_core::sc_time m_at;  // pending while later than now
};

}  // namespace m2
