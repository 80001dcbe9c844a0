#include "platform/single_ni_platform.h"

#include <ip/pci_map.h>

#include "pci/pci_bus.h"
#include "platform/ni_node.h"

namespace m2 {
namespace {

// The NI alone in a PCI backplane: its BARs answer on the bus and its master
// side has a bus to talk to, but there is no host (host-window accesses end
// in a master abort).
class SingleNiPlatform : public Platform {
 public:
  explicit SingleNiPlatform(PlatformContext& ctx) : m_ni("ni0", ctx.run, ctx.config_dir), m_pci("pci", ctx.timing) {
    m_pci.attach(m_ni.pci.bar0, PCI_NI_BAR0(0), PCI_NI_BAR0_SIZE, "ni0 BAR0 (SDRAM)");
    m_pci.attach(m_ni.pci.bar1, PCI_NI_BAR1(0), PCI_NI_BAR1_SIZE, "ni0 BAR1 (registers)");
    m_pci.bind_master(m_ni.pci.pci_master, "ni0");
  }
  std::vector<Processor*> processors() override { return {&m_ni.cpu}; }
  std::vector<TextOutput*> consoles() override { return {&m_ni.console}; }
  void add_signals(SignalProbes& out) override {
    add_ni_signals(m_ni, out);
    add_pci_signals(m_pci, out);
  }

 private:
  NiNode m_ni;
  PciBus m_pci;
};

}  // namespace

std::unique_ptr<Platform> build_single_ni_platform(PlatformContext& ctx) {
  return std::make_unique<SingleNiPlatform>(ctx);
}

}  // namespace m2
