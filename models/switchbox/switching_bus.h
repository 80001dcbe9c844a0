// The switch controller's switching bus: the data path between the ports'
// network buffers and the header buffer. A transfer of n bytes takes
// setup_cycles + ceil(n / width) clocks; one transfer may write several
// destination buffers at once (multicast and broadcast cost one transfer).
// A TLM target: masters (the message analyzers, the transfer unit; see
// switching_bus_master.h) bind to `target`, one port each, and send a write
// of the transfer's bytes (address: the destinations, kHeaderBuffer or a port
// mask; data: the bytes moved).
//  - LT: b_transport adds the transfer's time to the caller's delay; masters
//    do not wait for each other (the same data, close timing, nothing to
//    arbitrate).
//  - AT: the TLM-2.0 base protocol (switching_bus_at.cpp): BEGIN_REQ asks for
//    the bus, END_REQ is the grant, BEGIN_RESP the end of the transfer; one
//    transfer holds the bus, the others wait for the grant (round-robin by
//    master after each transfer). A master calling b_transport waits inside
//    for the same sequence.
// See docs/models/switching-bus.md.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/peq_with_cb_and_phase.h>

#include "core/busy_log.h"
#include "core/protocol_checking.h"
#include "core/response_exclusion.h"
#include "core/timing_style.h"
#include "core/tlm_protocol_checker.h"

namespace m2 {

class SwitchingBus : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<SwitchingBus> target;  // masters bind here

  // A transfer's address selects its destinations, as the setup clocks do on
  // the real bus (it has no address space): bit p for port p's TX buffer, or
  // this bit (above every port mask) for the header buffer. The payload's own
  // address field rather than an extension: a trace or a protocol checker on
  // the binding shows it without knowing the bus. The bus does not decode it;
  // the master writes the destinations once the transfer is over.
  static constexpr uint64_t kHeaderBuffer = uint64_t(1) << 32;

  SC_HAS_PROCESS(SwitchingBus);
  // Throws ConfigError on a width that is not a whole number of bytes.
  SwitchingBus(sc_core::sc_module_name name, TimingStyle style, uint64_t width_bits, double clock_mhz,
               uint64_t setup_cycles);

  // Binds a master's initiator socket to `target` and names its port for the
  // statistics; returns the port. Masters bound directly are "master<port>".
  template <typename InitiatorSocket>
  unsigned bind_master(InitiatorSocket& socket, const std::string& name) {
    // With sim.check_protocol (core/protocol_checking.h) through a checker.
    bind_checked(*this, name, socket, target, m_checkers);  // sb0.switching_bus.check_<name>
    // After the bind: before the first one, size() counts the binder that
    // registering the callbacks created, which the first bind then takes.
    const unsigned port = target.size() - 1;
    stats(port).name = name;
    return port;
  }

  // The protocol checkers on the bus's bindings (sim.check_protocol), in binding order.
  const ProtocolCheckers& checkers() const { return m_checkers; }

  // Uncontended cost of moving `bytes`: setup + ceil(bytes / width) clocks.
  uint64_t cycles(uint64_t bytes) const { return m_setup + (bytes + m_width_bytes - 1) / m_width_bytes; }
  sc_core::sc_time transfer_time(uint64_t bytes) const;
  sc_core::sc_time clock_period() const;
  uint64_t width_bytes() const { return m_width_bytes; }
  TimingStyle timing_style() const { return m_style; }

  // Statistics, per master port; a transfer counts once it is over.
  struct MasterStats {
    std::string name;
    uint64_t transfers = 0, bytes = 0;
    sc_core::sc_time busy, waiting;  // waiting: for the grant (AT only)
  };
  const std::vector<MasterStats>& master_stats() const {
    count_finished_lt();
    return m_stats;
  }
  // Sum of the transfer times (LT: overlapping transfers both count).
  sc_core::sc_time busy_time() const {
    count_finished_lt();
    return m_busy;
  }
  // Its transfers' times, for a sampled busy signal (kept once enabled).
  BusyLog& busy_log() { return m_busy_log; }
  // "LT (no arbitration)", "idle", or who holds the bus and who waits (AT).
  std::string describe() const;

 private:
  ProtocolCheckers m_checkers;
  void end_of_elaboration() override;
  MasterStats& stats(unsigned port);
  // A transfer is over: its figures go into the statistics.
  void count(unsigned port, uint64_t bytes, const sc_core::sc_time& t) const;

  void b_transport(int port, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(int port, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  // A request the bus answers at once, without a transfer (not a write, byte
  // enables): sets its response status and returns true.
  bool refuse(tlm::tlm_generic_payload& t) const;

  // --- LT ---
  // Starts an LT transfer at the caller's local time: delay += its time.
  void transfer_lt(unsigned port, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  // LT transfers are booked at the call and counted once their time is over,
  // when the figures are read (and at each call, to keep the list short):
  // an event at their end would add to the same-time events and could
  // change the order of others, and so the results.
  void count_finished_lt() const;
  struct LtTransfer {
    unsigned port;
    uint64_t bytes;
    sc_core::sc_time time;
  };
  mutable std::multimap<sc_core::sc_time, LtTransfer> m_lt_running;  // by end time

  // --- AT: the base protocol (switching_bus_at.cpp) ---
  // One master transfer, from its BEGIN_REQ to its response.
  struct AtTransfer {
    tlm::tlm_generic_payload* t = nullptr;
    unsigned port = 0;
    uint64_t seq = 0;       // order of asking (round-robin tie-break)
    bool blocking = false;  // came by b_transport: `done` wakes the caller
    bool granted = false;   // END_REQ given (or due: it holds the bus)
    sc_core::sc_time asked;
    sc_core::sc_event done;
  };
  void b_transport_at(unsigned port, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw_at(unsigned port, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                        sc_core::sc_time& delay);
  AtTransfer* admit(unsigned port, tlm::tlm_generic_payload& t, bool blocking);
  void peq_arrived(tlm::tlm_generic_payload& t, const tlm::tlm_phase& phase);  // m_peq's callback
  void request_bus(AtTransfer* x);
  AtTransfer* next_owner(unsigned after_port);
  void sequencer();  // SC_THREAD: one transfer after the other
  void respond(AtTransfer* x);
  void finish(AtTransfer* x);
  bool request_open(unsigned port) const;
  [[noreturn]] void protocol_error(const std::string& what) const;

  const TimingStyle m_style;
  uint64_t m_width_bytes;
  double m_clock_mhz;
  uint64_t m_setup;
  mutable std::vector<MasterStats> m_stats;  // mutable: LT counts when read
  mutable sc_core::sc_time m_busy;
  BusyLog m_busy_log;
  // AT state.
  tlm_utils::peq_with_cb_and_phase<SwitchingBus> m_peq;                   // late BEGIN_REQs
  std::map<tlm::tlm_generic_payload*, std::unique_ptr<AtTransfer>> m_at;  // in flight, by payload
  AtTransfer* m_owner = nullptr;       // holds the bus (set at the grant, kept through the hand-over)
  std::deque<AtTransfer*> m_requests;  // waiting for the grant, in order of asking
  sc_core::sc_event m_request_event;
  uint64_t m_next_seq = 0;
  // The masters' response phases (response exclusion per port).
  ResponseExclusion m_responses;
};

}  // namespace m2
