#include "ni/intc.h"

#include <stdexcept>
#include <string>

namespace m2 {

NiIntc::NiIntc(sc_core::sc_module_name name)
    : sc_module(name),
      regs("regs"),
      access_ns(this->name(), "access_ns", 0.0, "ns", "device latency per register access", Range<double>{0, 1e6}),
      m_regs(this->name()) {
  m_regs.add(INTC_RAW, "RAW", [this] { return m_raw; }, nullptr);
  m_regs.add(INTC_PENDING, "PENDING", [this] { return m_pending; }, [this](uint32_t v) {
    m_pending &= ~v;
    update();
  });
  m_regs.add(INTC_ENABLE, "ENABLE", [this] { return m_enable; }, [this](uint32_t v) {
    m_enable = v;
    update();
  });
  m_regs.add(INTC_STATUS, "STATUS", [this] { return status(); }, nullptr);
  m_regs.add(INTC_ENABLE_SET, "ENABLE_SET", nullptr, [this](uint32_t v) {
    m_enable |= v;
    update();
  });
  m_regs.add(INTC_ENABLE_CLR, "ENABLE_CLR", nullptr, [this](uint32_t v) {
    m_enable &= ~v;
    update();
  });
  regs.register_b_transport(this, &NiIntc::b_transport);
  regs.register_transport_dbg(this, &NiIntc::transport_dbg);
}

void NiIntc::set_source(unsigned n, bool level) {
  if (n >= kSources) throw std::out_of_range(std::string(name()) + ": no interrupt source " + std::to_string(n));
  const uint32_t bit = 1u << n;
  if (level && !(m_raw & bit)) m_pending |= bit;  // rising edge
  m_raw = level ? m_raw | bit : m_raw & ~bit;
  update();
}

void NiIntc::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  m_regs.access(t);
  delay += sc_core::sc_time(access_ns.get(), sc_core::SC_NS);
}

}  // namespace m2
