#include "devices/console.h"

#include <ip/console.h>

#include "core/log.h"

namespace m2 {

Console::Console(sc_core::sc_module_name name, std::string speaker)
    : sc_module(name),
      socket("socket"),
      access_ns(this->name(), "access_ns", 0.0, "ns", "device latency per register access", Range<double>{0, 1e6}),
      m_speaker(std::move(speaker)),
      m_regs(this->name()) {
  m_regs.add(CONSOLE_TXDATA, "TXDATA", nullptr, [this](uint32_t v) { put(static_cast<char>(v & 0xFF)); });
  m_regs.add(CONSOLE_STATUS, "STATUS", [] { return CONSOLE_STATUS_READY; }, nullptr);
  socket.register_b_transport(this, &Console::b_transport);
}

void Console::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  m_regs.access(t);
  delay += sc_core::sc_time(access_ns.get(), sc_core::SC_NS);
}

void Console::put(char c) {
  if (c == '\n') {
    m_lines.push_back(m_current);
    Log::instance().out("[" + m_speaker + "] " + m_current);
    if (m_listener) m_listener(m_current + "\n");
    m_current.clear();
  } else if (c != '\r') {
    m_current += c;
  }
}

void Console::flush() {
  if (!m_current.empty()) put('\n');
}

}  // namespace m2
