#include "core/peripheral.h"

#include "core/params.h"

namespace m2 {

Peripheral::Peripheral(sc_core::sc_module_name name, const Options& options)
    : sc_module(name),
      regs(options.socket_name),
      access_ns(this->name(), "access_ns", 0.0, "ns", options.access_description, Range<double>{0, 1e6}),
      m_bank(this->name(), options.order),
      m_socket_optional(options.socket_optional),
      m_debug_reads(options.debug_reads),
      m_access_delay(access_ns.get(), sc_core::SC_NS) {
  regs.register_b_transport(this, &Peripheral::b_transport);
  regs.register_transport_dbg(this, &Peripheral::transport_dbg);
}

void Peripheral::before_end_of_elaboration() {
  // The socket type allows no initiator (for the devices that may have no
  // register bus); the others must have one.
  if (!m_socket_optional && regs.get_base_port().size() == 0)
    throw ConfigError(std::string(name()) + ": register socket '" + regs.basename() + "' is not bound");
}

void Peripheral::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  m_access_time = sc_core::sc_time_stamp() + delay;
  delay += m_access_delay;
  m_bank.access(t);
}

}  // namespace m2
