// A master's port on the switching bus (switching_bus.h): an initiator socket
// bound to the bus, and transfer(), which moves one transfer's bytes as a
// write to the bus:
//  - LT: b_transport; the caller then waits the time the bus added.
//  - AT: the base protocol's four phases (core/nb_caller.h): BEGIN_REQ, END_REQ
//    at the grant, BEGIN_RESP at the end of the transfer, taken at once.
// The owner (a message analyzer, the transfer unit) is an SC_THREAD that
// calls transfer() and may write the data once it returns.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "core/nb_caller.h"
#include "core/timing_style.h"
#include "switchbox/switching_bus.h"

namespace m2 {

class SwitchingBusMaster : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<SwitchingBusMaster> socket;

  // Binds `socket` to `bus`; the bus reports this master as `stat_name`.
  SwitchingBusMaster(sc_core::sc_module_name name, SwitchingBus& bus, const std::string& stat_name);

  // From an SC_THREAD: moves `bytes` bytes at `data` to `destinations`
  // (SwitchingBus::kHeaderBuffer or a port mask); returns when the transfer
  // is over. The bus only reads `data`.
  void transfer(uint64_t destinations, uint8_t* data, uint32_t bytes);

  unsigned port() const { return m_port; }

 private:
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    return m_nb.nb_transport_bw(t, phase, delay);
  }

  const TimingStyle m_style;
  NbCaller m_nb;
  unsigned m_port;
  tlm::tlm_generic_payload m_payload;  // one transfer at a time: reused
};

}  // namespace m2
