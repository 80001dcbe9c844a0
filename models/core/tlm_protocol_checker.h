// A TLM-2.0 base-protocol checker for one binding: it sits between an
// initiator and a target, forwards every call both ways unchanged
// (nb_transport_fw/bw, b_transport, get_direct_mem_ptr, transport_dbg,
// invalidate_direct_mem_ptr) and has ProtocolRules (core/tlm_protocol_rules.h)
// judge each one. docs/models/tlm-protocol-checker.md lists the rules.
//
// Binding: wherever `initiator_port.bind(target_port)` was,
//   initiator_port.bind(checker.target_socket);
//   checker.initiator_socket.bind(target_port);
// The sockets are the standard's own tlm_target_socket/tlm_initiator_socket,
// so either side may be a plain, simple, passthrough or multi-passthrough
// socket (one checker per binding: a multi socket's every binding gets its own).
#pragma once

#include <string>

#include <systemc>
#include <tlm>

#include "core/tlm_protocol_rules.h"

namespace m2 {

template <unsigned int BUSWIDTH = 32>
class ProtocolChecker : public sc_core::sc_module,
                        public tlm::tlm_fw_transport_if<>,
                        public tlm::tlm_bw_transport_if<> {
 public:
  tlm::tlm_target_socket<BUSWIDTH> target_socket;        // the initiator binds here
  tlm::tlm_initiator_socket<BUSWIDTH> initiator_socket;  // this binds to the target

  explicit ProtocolChecker(sc_core::sc_module_name name)
      : sc_core::sc_module(name),
        target_socket("target_socket"),
        initiator_socket("initiator_socket"),
        m_rules(std::string(this->name())) {
    target_socket.bind(*this);
    initiator_socket.bind(*this);
  }

  // The rules' state and findings; set_sink() there to collect findings
  // instead of SC_REPORT_ERROR.
  ProtocolRules& rules() { return m_rules; }
  const ProtocolRules& rules() const { return m_rules; }
  std::size_t finding_count() const { return m_rules.finding_count(); }

  // Forward path (initiator -> target).
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override {
    const tlm::tlm_phase sent = phase;
    m_rules.before_fw(gp, phase);
    const tlm::tlm_sync_enum status = initiator_socket->nb_transport_fw(gp, phase, delay);
    m_rules.after_fw(gp, sent, phase, status);
    return status;
  }

  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) override {
    m_rules.before_b_transport(gp);
    initiator_socket->b_transport(gp, delay);
    m_rules.after_b_transport(gp);
  }

  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) override {
    const bool granted = initiator_socket->get_direct_mem_ptr(gp, dmi);
    m_rules.after_get_direct_mem_ptr(gp, granted, dmi);
    return granted;
  }

  unsigned int transport_dbg(tlm::tlm_generic_payload& gp) override {
    const unsigned int count = initiator_socket->transport_dbg(gp);
    m_rules.after_transport_dbg(gp, count);
    return count;
  }

  // Backward path (target -> initiator).
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay) override {
    const tlm::tlm_phase sent = phase;
    m_rules.before_bw(gp, phase);
    const tlm::tlm_sync_enum status = target_socket->nb_transport_bw(gp, phase, delay);
    m_rules.after_bw(gp, sent, phase, status);
    return status;
  }

  void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end) override {
    m_rules.on_invalidate_direct_mem_ptr(start, end);
    target_socket->invalidate_direct_mem_ptr(start, end);
  }

 private:
  ProtocolRules m_rules;
};

}  // namespace m2
