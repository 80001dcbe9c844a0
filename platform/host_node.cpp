#include "platform/host_node.h"

#include <ip/pci_map.h>

namespace m2 {
namespace {

constexpr uint64_t kHostMemoryBytes = 512ull << 20;  // 512 MB PC133 SDRAM (maestro2.md)

}  // namespace

HostNode::HostNode(sc_core::sc_module_name name, RunControl& run, TimingStyle timing, int id, int count,
                   const std::string& config_dir)
    : sc_module(name),
      memory("memory", kHostMemoryBytes),
      bridge("bridge", timing),
      pci("pci", timing),
      host("host", run, memory, PCI_HOST_MEMORY_BASE, id, count),
      ni("ni", run, config_dir) {
  // Host side: the CPU's programmed I/O and the NI's DMA both meet the
  // memory at the bridge.
  host.pio.bind(bridge.cpu_side);
  bridge.memory_side.bind(memory.socket);
  bridge.on_memory_write([this](const sc_core::sc_time& after) { host.memory_written(after); });
  pci.bind_master(bridge.pci_master, "bridge");
  pci.attach(bridge.pci_target, PCI_HOST_MEMORY_BASE, memory.size(), "host memory");
  // The NI in slot 0.
  pci.attach(ni.pci.bar0, PCI_NI_BAR0(0), PCI_NI_BAR0_SIZE, "ni BAR0 (SDRAM)");
  pci.attach(ni.pci.bar1, PCI_NI_BAR1(0), PCI_NI_BAR1_SIZE, "ni BAR1 (registers)");
  pci.bind_master(ni.pci.pci_master, "ni");
  ni.pci.inta.connect([this](bool level) { host.pci_interrupt(level); });
}

}  // namespace m2
