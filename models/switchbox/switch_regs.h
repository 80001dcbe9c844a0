// The switch controller's register page on the SB manager's bus
// (ip/sb_regs.h): the firmware's side of the header buffer and the request
// buffer, the up-port and source-busy registers, the "header available" /
// "request room" / "source idle" interrupt and the counters.
// A request push the controller cannot take is refused with an error
// response (the 603e reports a bus error) and a logged reason.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "core/irq.h"
#include "core/module_log.h"
#include "core/register_bank.h"
#include "switchbox/bounded_fifo.h"
#include "switchbox/switch_controller.h"
#include "switchbox/switch_request.h"

namespace m2 {

class SwitchRegs : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<SwitchRegs> socket;  // addresses relative to SB_SWITCH_BASE
  IrqLine irq;                                         // to the manager's external interrupt

  // `config` is the SB_CONFIG value; `access` the time of one register access.
  SwitchRegs(sc_core::sc_module_name name, uint32_t config, BoundedFifo<SbHeader>& headers,
             BoundedFifo<SbRequest>& requests, SwitchController& controller, sc_core::sc_time access);

  uint32_t irq_status() const;
  uint32_t irq_enable() const { return m_enable; }
  const std::string& last_error() const { return m_last_error; }

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void add_registers(uint32_t config);
  void update_irq();
  SbRequest staged(uint32_t flags) const;

  BoundedFifo<SbHeader>& m_headers;
  BoundedFifo<SbRequest>& m_requests;
  SwitchController& m_controller;
  RegisterBank m_regs;
  sc_core::sc_time m_access;
  sc_core::sc_time m_access_time;  // of the access being served
  uint32_t m_source = 0, m_dest = 0, m_bytes = 0, m_enable = 0, m_watch = 0;
  std::string m_last_error;
  ModuleLog m_log{this};  // messages named after this module, at its sim.log level
};

}  // namespace m2
