#include "ni/intc.h"

#include <stdexcept>
#include <string>

namespace m2 {

NiIntc::NiIntc(sc_core::sc_module_name name) : Peripheral(name) {
  bank().add(
      INTC_RAW, "RAW", [this] { return m_raw; }, nullptr);
  bank().add(
      INTC_PENDING, "PENDING", [this] { return m_pending; },
      [this](uint32_t v) {
        m_pending &= ~v;
        update();
      });
  bank().add(
      INTC_ENABLE, "ENABLE", [this] { return m_enable; },
      [this](uint32_t v) {
        m_enable = v;
        update();
      });
  bank().add(
      INTC_STATUS, "STATUS", [this] { return status(); }, nullptr);
  bank().add(INTC_ENABLE_SET, "ENABLE_SET", nullptr, [this](uint32_t v) {
    m_enable |= v;
    update();
  });
  bank().add(INTC_ENABLE_CLR, "ENABLE_CLR", nullptr, [this](uint32_t v) {
    m_enable &= ~v;
    update();
  });
}

void NiIntc::set_source(unsigned n, bool level) {
  if (n >= kSources) throw std::out_of_range(std::string(name()) + ": no interrupt source " + std::to_string(n));
  const uint32_t bit = 1u << n;
  if (level && !(m_raw & bit)) m_pending |= bit;  // rising edge
  m_raw = level ? m_raw | bit : m_raw & ~bit;
  update();
}

}  // namespace m2
