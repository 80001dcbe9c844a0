// The base of a device behind one register page (VCML's peripheral, small):
// the register socket, the RegisterBank its registers are declared in, the
// `access_ns` parameter every register access costs, and the debug
// transport through which GDB reads the registers. A device derives from it,
// declares its registers in bank() and keeps only what is its own.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "core/params.h"
#include "core/register_bank.h"

namespace m2 {

class Peripheral : public sc_core::sc_module {
 public:
  // Registers, addresses relative to the page; attached by the platform.
  tlm_utils::simple_target_socket_optional<Peripheral> regs;
  Param<double> access_ns;  // added to the delay of every register access

  struct Options {
    const char* socket_name = "regs";  // the socket's SystemC name
    bool socket_optional = false;      // may stay unbound (checked at elaboration)
    const char* access_description = "device latency per register access";
    ByteOrder order = ByteOrder::Big;
    // Whether a debugger reads the registers (through their getters); off
    // for a device whose getters act (SimCtrl's TIME_LO latches TIME_HI).
    bool debug_reads = true;
  };

 protected:
  Peripheral(sc_core::sc_module_name name, const Options& options);
  explicit Peripheral(sc_core::sc_module_name name) : Peripheral(name, Options{}) {}

  RegisterBank& bank() { return m_bank; }
  const RegisterBank& bank() const { return m_bank; }
  // Simulated time of the register access being served (the initiator may
  // run ahead of SystemC time: sc_time_stamp() plus its delay).
  const sc_core::sc_time& access_time() const { return m_access_time; }

  void before_end_of_elaboration() override;

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  unsigned transport_dbg(tlm::tlm_generic_payload& t) { return m_debug_reads ? m_bank.debug_read(t) : 0; }  // GDB

  RegisterBank m_bank;
  bool m_socket_optional, m_debug_reads;
  // access_ns as a time, once: every register access adds it (parameters
  // take their value when constructed).
  const sc_core::sc_time m_access_delay;
  sc_core::sc_time m_access_time;
};

}  // namespace m2
