// Temporal decoupling for one initiator: how far its local time runs ahead of
// SystemC time, and where the current global quantum ends (aligned to
// tlm_global_quantum, so that all initiators sync at the same points).
#pragma once

#include <systemc>
#include <tlm>

namespace m2 {

class LocalTime {
 public:
  const sc_core::sc_time& offset() const { return m_offset; }
  void set(const sc_core::sc_time& offset) { m_offset = offset; }
  sc_core::sc_time now() const { return sc_core::sc_time_stamp() + m_offset; }

  // Starts a new quantum from the current SystemC time, offset zero.
  void reset() {
    m_offset = sc_core::SC_ZERO_TIME;
    m_quantum_end = sc_core::sc_time_stamp() + tlm::tlm_global_quantum::instance().compute_local_quantum();
  }
  bool need_sync() const { return now() >= m_quantum_end; }
  // Local time left in the current quantum.
  sc_core::sc_time remaining() const {
    const sc_core::sc_time t = now();
    return t < m_quantum_end ? m_quantum_end - t : sc_core::SC_ZERO_TIME;
  }
  // Lets SystemC catch up with the local time (a real wait), then resets.
  void sync() {
    sc_core::wait(m_offset);
    reset();
  }

  // Ends the quantum without a sync when no other process has anything to
  // do before the end of the next quantum: nobody could observe the
  // difference, so the quantum is simply extended (no context switch) and
  // true returned. The run-ahead stays below `max_ahead` so that time limits
  // and wall-clock responsiveness (GDB, Ctrl-C) keep working. Otherwise
  // changes nothing and returns false: the caller syncs.
  bool extend_quantum(const sc_core::sc_time& max_ahead) {
    const sc_core::sc_time q = tlm::tlm_global_quantum::instance().get();
    if (m_offset + q < max_ahead && m_offset + q < sc_core::sc_time_to_pending_activity()) {
      m_quantum_end += q;
      return true;
    }
    return false;
  }

 private:
  sc_core::sc_time m_offset;
  sc_core::sc_time m_quantum_end;
};

}  // namespace m2
