// The host's PCI bus: masters (the host bridge, the NIs' PCI interfaces)
// bind to `target`, targets (host memory behind the bridge, the NIs' BARs)
// are attached with their address range. A transaction is forwarded to its
// target with the address made target-relative, and costs PCI clocks:
// per burst arbitration + address + initial latency + data phases +
// turnaround, long transfers split into bursts at the latency timer.
//  - LT: the time is added to the caller's delay; masters do not wait for
//    each other. A master that speaks only nb_transport (an AT model) is
//    answered too: its BEGIN_REQ runs the same b_transport and completes
//    early (TLM_COMPLETED with the LT time annotated).
//  - AT: the TLM-2.0 base protocol (pci_bus_at.cpp). Masters send BEGIN_REQ
//    (nb_transport_fw) and contend for the bus in SystemC time, round-robin
//    between bursts; END_REQ is the grant, BEGIN_RESP the end of the last
//    burst. Targets are called with nb_transport_fw as well. A master may
//    also call b_transport: it then waits inside for the same sequence.
// See docs/models/pci-bus.md.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "core/busy_log.h"
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/peq_with_cb_and_phase.h>

#include "core/address_map.h"
#include "core/ip_variant.h"
#include "core/params.h"
#include "core/protocol_checking.h"
#include "core/response_exclusion.h"
#include "core/tlm_protocol_checker.h"
#include "core/signals.h"
#include "core/stats.h"
#include "core/timing_style.h"

namespace m2 {

class PciBus : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<PciBus> target;        // masters bind here
  tlm_utils::multi_passthrough_initiator_socket<PciBus> initiator;  // targets, through attach()

  VariantParam variant;  // first: its values (ip/pci_variants.h) preset the others

 public:
  Param<double> clock_mhz;
  Param<uint64_t> width_bits;
  Param<uint64_t> arbitration_clocks;
  Param<uint64_t> address_clocks;
  Param<uint64_t> read_initial_clocks;
  Param<uint64_t> write_initial_clocks;
  Param<uint64_t> latency_timer_clocks;
  Param<uint64_t> turnaround_clocks;

  SC_HAS_PROCESS(PciBus);
  PciBus(sc_core::sc_module_name name, TimingStyle style);

  // Binds `socket` (a target) to the next initiator port and maps
  // [base, base+size) of the bus to it. Throws ConfigError on overlap.
  // With sim.check_protocol (core/protocol_checking.h) the binding gets a
  // protocol checker, named check_<name>; port numbers are unchanged.
  template <typename TargetSocket>
  void attach(TargetSocket& socket, uint64_t base, uint64_t size, const std::string& name) {
    m_map.add(base, size, name);
    bind_checked(*this, name, initiator, socket, m_checkers);  // node0.pci.check_<name>
  }
  // Binds a master's initiator socket to `target` and names its port for the
  // statistics; returns the port. Masters bound directly are "master<port>".
  template <typename InitiatorSocket>
  unsigned bind_master(InitiatorSocket& socket, const std::string& name) {
    bind_checked(*this, name, socket, target, m_checkers);
    // After the bind: before the first one, size() counts the binder that
    // registering the callbacks created, which the first bind then takes.
    const unsigned port = target.size() - 1;
    name_master(port, name);
    return port;
  }
  void name_master(unsigned port, const std::string& name);
  // The protocol checkers on the bus's bindings (sim.check_protocol), in binding order.
  const ProtocolCheckers& checkers() const { return m_checkers; }

  // Uncontended cost of one transaction, from the parameters alone.
  struct Plan {
    uint64_t data_phases;  // bus-width words touched (at least one)
    uint64_t bursts;       // separate bus tenures (latency timer)
    uint64_t clocks;       // total, arbitration included
  };
  Plan plan(bool read, uint64_t addr, uint64_t bytes) const;
  static sc_core::sc_time target_time(const tlm::tlm_generic_payload& t, const sc_core::sc_time& transfer);
  sc_core::sc_time transfer_time(bool read, uint64_t addr, uint64_t bytes) const;
  // Data phases one burst may hold before the latency timer ends it.
  uint64_t max_burst_phases(bool read) const;
  sc_core::sc_time clock_period() const;
  sc_core::sc_time clocks(uint64_t n) const { return clock_period() * static_cast<double>(n); }

  TimingStyle timing_style() const { return m_style; }
  const std::vector<AddressMap::Range>& address_map() const { return m_map.ranges(); }

  // Statistics, per master port and for the bus. Busy time is the time a
  // master held the bus (LT: the transfer times it was charged).
  struct MasterStats {
    std::string name;
    uint64_t transactions = 0, bytes = 0, bursts = 0;
    sc_core::sc_time busy, waiting;  // waiting: for the grant (AT only)
  };
  const std::vector<MasterStats>& master_stats() const { return m_stats; }
  sc_core::sc_time busy_time() const { return m_busy; }
  // Its transfers' times, for a sampled busy signal (kept once enabled).
  BusyLog& busy_log() { return m_busy_log; }

 private:
  void end_of_elaboration() override;
  ProtocolCheckers m_checkers;
  MasterStats& stats(unsigned port);
  uint64_t burst_overhead(bool read) const;  // clocks per burst besides arbitration and data

  void b_transport(int port, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  // LT: a non-blocking master's transaction, completed on its BEGIN_REQ.
  tlm::tlm_sync_enum nb_transport_fw_lt(int port, tlm::tlm_generic_payload& trans, tlm::tlm_phase& phase,
                                        sc_core::sc_time& delay);
  bool get_direct_mem_ptr(int port, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(int port, tlm::tlm_generic_payload& trans);
  void invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end);

  // --- AT: the base protocol (pci_bus_at.cpp) ---
  // One master transaction on the bus, from its BEGIN_REQ to its response.
  struct AtTransaction {
    tlm::tlm_generic_payload* t = nullptr;
    unsigned port = 0;
    const AddressMap::Range* range = nullptr;
    uint64_t phases_left = 0;  // data phases still to move
    uint64_t bursts_done = 0;
    uint64_t seq = 0;        // order of asking, kept across bursts (round-robin tie-break)
    bool waited = false;     // the bus was busy when it asked: its arbitration is hidden
    bool blocking = false;   // came by b_transport: `done` wakes the caller
    sc_core::sc_time asked;  // when the current bus request was made
    sc_core::sc_event done;
  };
  tlm::tlm_sync_enum nb_transport_fw(int port, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(int port, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  void b_transport_at(unsigned port, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  // Decodes and counts a transaction; nullptr when it is answered at once
  // (an address no target claims, TLM_IGNORE_COMMAND).
  AtTransaction* admit(unsigned port, tlm::tlm_generic_payload& t, bool blocking);
  void request_arrived(tlm::tlm_generic_payload& t, const tlm::tlm_phase& phase);  // m_request_peq's callback
  void request_bus(AtTransaction* x);
  void sequencer();  // SC_THREAD: grants the bus, one burst at a time
  AtTransaction* next_owner(unsigned after_port);
  sc_core::sc_time call_target(AtTransaction& x, const sc_core::sc_time& at_target);
  void respond(AtTransaction* x);
  void finish(AtTransaction* x);
  [[noreturn]] void protocol_error(const std::string& what) const;

  const TimingStyle m_style;
  AddressMap m_map;
  std::vector<MasterStats> m_stats;
  sc_core::sc_time m_busy;
  // What the run reports (core/stats.h): the bus's busy time, and per master
  // port, once it has its name, its figures under that name.
  StatProbe m_stat_busy{this, "busy_us", "us", "time a master held the bus (LT: the transfer times charged)",
                        [this] { return in_us(m_busy); }};
  std::vector<std::vector<std::unique_ptr<StatProbe>>> m_master_stat_decls;  // by port
  void declare_master_stats(unsigned port);
  BusyLog m_busy_log;
  // The VCD's busy line (core/signals.h).
  Signal m_signal_busy{this, "busy", m_busy_log};
  // AT state.
  tlm_utils::peq_with_cb_and_phase<PciBus> m_request_peq;                    // BEGIN_REQs at their annotated time
  std::map<tlm::tlm_generic_payload*, std::unique_ptr<AtTransaction>> m_at;  // in flight, by payload
  std::deque<AtTransaction*> m_requests;                                     // asking for the bus
  sc_core::sc_event m_request_event;
  bool m_owned = false;       // a burst is on the bus
  unsigned m_last_owner = 0;  // port of the last burst (round-robin)
  uint64_t m_next_seq = 0;
  std::vector<AtTransaction*> m_request_open;  // per port: a BEGIN_REQ not yet answered by END_REQ
  // The target's answer to the transaction on the bus (one at a time).
  tlm::tlm_generic_payload* m_at_target = nullptr;
  bool m_target_responded = false;
  sc_core::sc_time m_target_response_at;
  sc_core::sc_event m_target_event;
  // The masters' response phases (response exclusion per port).
  ResponseExclusion m_responses;
};

}  // namespace m2
