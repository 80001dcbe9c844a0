// NI interrupt controller (ip/ni_intc.h): collects the level-sensitive
// interrupt outputs of the NI's FPGA blocks (DMA, doorbell, netbuf, MLC-X)
// into the PowerPC 603e's external interrupt. Each source's rising edge is
// latched in PENDING; the output `irq` is high while (PENDING | RAW) & ENABLE
// is nonzero.
#pragma once

#include <cstdint>

#include <systemc>
#include <tlm>

#include <ip/ni_intc.h>

#include "core/irq.h"
#include "core/peripheral.h"
#include "core/signals.h"

namespace m2 {

class NiIntc : public Peripheral {
 public:
  static constexpr unsigned kSources = NI_IRQ_SOURCES;

  // Registers (Peripheral::regs); addresses relative to NI_INTC_BASE.

  // To the processor's external interrupt (Processor::set_irq(0, level)).
  IrqLine irq;

  explicit NiIntc(sc_core::sc_module_name name);

  // Level of source n (< kSources; else std::out_of_range). The platform
  // connects each device's IrqLine here.
  void set_source(unsigned n, bool level);

  uint32_t raw() const { return m_raw; }
  uint32_t pending() const { return m_pending; }
  uint32_t enable() const { return m_enable; }
  uint32_t status() const { return (m_pending | m_raw) & m_enable; }

 private:
  void update() { irq.set(status() != 0); }

  uint32_t m_raw = 0, m_pending = 0, m_enable = 0;
  // The output's level in the VCD (core/signals.h).
  Signal m_signal_irq{this, "irq", 1, [this] { return uint64_t(irq.level()); }};
};

}  // namespace m2
