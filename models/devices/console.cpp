#include "devices/console.h"

#include <ip/console.h>

namespace m2 {

Console::Console(sc_core::sc_module_name name, std::string speaker)
    : sc_module(name),
      TextOutput(std::move(speaker)),
      socket("socket"),
      access_ns(this->name(), "access_ns", 0.0, "ns", "device latency per register access", Range<double>{0, 1e6}),
      m_regs(this->name()) {
  m_regs.add(CONSOLE_TXDATA, "TXDATA", nullptr, [this](uint32_t v) { put(static_cast<char>(v & 0xFF)); });
  m_regs.add(CONSOLE_STATUS, "STATUS", [] { return CONSOLE_STATUS_READY; }, nullptr);
  socket.register_b_transport(this, &Console::b_transport);
}

void Console::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  m_regs.access(t);
  delay += sc_core::sc_time(access_ns.get(), sc_core::SC_NS);
}

}  // namespace m2
