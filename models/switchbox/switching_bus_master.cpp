#include "switchbox/switching_bus_master.h"

#include <stdexcept>

namespace m2 {

using sc_core::sc_time;

SwitchingBusMaster::SwitchingBusMaster(sc_core::sc_module_name name, SwitchingBus& bus, const std::string& stat_name)
    : sc_module(name), socket("socket"), m_style(bus.timing_style()), m_nb(this->name()) {
  socket.register_nb_transport_bw(this, &SwitchingBusMaster::nb_transport_bw);
  m_port = bus.bind_master(socket, stat_name);
}

void SwitchingBusMaster::transfer(uint64_t destinations, uint8_t* data, uint32_t bytes) {
  tlm::tlm_generic_payload& t = m_payload;
  t.set_command(tlm::TLM_WRITE_COMMAND);
  t.set_address(destinations);
  t.set_data_ptr(data);
  t.set_data_length(bytes);
  t.set_streaming_width(bytes);
  t.set_byte_enable_ptr(nullptr);
  t.set_byte_enable_length(0);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_time delay = sc_core::SC_ZERO_TIME;
  if (m_style == TimingStyle::AT) {
    m_nb.transport(*socket.operator->(), t, delay);  // returns at BEGIN_RESP
  } else {
    socket->b_transport(t, delay);
    if (delay != sc_core::SC_ZERO_TIME) sc_core::wait(delay);
  }
  // The bus answers every write OK: anything else is a modelling error.
  if (!t.is_response_ok())
    throw std::logic_error(std::string(name()) + ": the switching bus refused a transfer of " + std::to_string(bytes) +
                           " bytes: " + t.get_response_string());
}

}  // namespace m2
