#include "platform/host_node.h"

#include <ip/pci_map.h>

#include "host/tcpip/host_stack_factory.h"
#include "trace/message_ledger.h"

namespace m2 {
namespace {

constexpr uint64_t kHostMemoryBytes = 512ull << 20;  // 512 MB PC133 SDRAM (maestro2.md)

}  // namespace

HostNode::HostNode(sc_core::sc_module_name name, RunControl& run, TimingStyle timing, int id, int count,
                   const std::string& config_dir, bool with_link)
    : sc_module(name),
      memory("memory", kHostMemoryBytes),
      bridge("bridge", timing),
      pci("pci", timing),
      host("host", run, memory, PCI_HOST_MEMORY_BASE, id, count),
      mpi(std::string(this->name()) + ".host.mpi"),
      ni("ni", run, config_dir, timing, with_link) {
  if (ni.mlcx) ni.mlcx->set_node_address(static_cast<uint16_t>(id));
  host.configure_program(config_dir);
  // Host side: the CPU's programmed I/O and the NI's DMA both meet the
  // memory at the bridge.
  const std::string me = this->name();
  bind_traced(host.pio, me + ".host.pio", m_taps, [this](auto& s) { s.bind(bridge.cpu_side); });
  bridge.memory_side.bind(memory.socket);
  bridge.on_memory_write([this](const sc_core::sc_time& after) { host.memory_written(after); });
  bind_traced(bridge.pci_master, me + ".pci.bridge", m_taps, [this](auto& s) { pci.bind_master(s, "bridge"); });
  pci.attach(bridge.pci_target, PCI_HOST_MEMORY_BASE, memory.size(), "host memory");
  // The NI in slot 0.
  pci.attach(ni.pci.bar0, PCI_NI_BAR0(0), PCI_NI_BAR0_SIZE, "ni BAR0 (SDRAM)");
  pci.attach(ni.pci.bar1, PCI_NI_BAR1(0), PCI_NI_BAR1_SIZE, "ni BAR1 (registers)");
  bind_traced(ni.pci.pci_master, me + ".pci.ni", m_taps, [this](auto& s) { pci.bind_master(s, "ni"); });
  if (runs_eth_firmware(ni.firmware.get())) {
    eth = std::make_unique<EthDriver>("eth", host, id);
    host.set_ip_port(eth.get());
    // The host's TCP/IP stack over that driver: its programs' sockets and
    // MPI's TCP device use it (docs/tcpip.md).
    tcp = make_host_sockets("tcpip", *eth, host);
    host.set_sockets(tcp.get());
  }
  ni.pci.inta.connect([this](bool level) {
    host.pci_interrupt(level);
    if (eth) eth->interrupt(level);
  });
  // Message tracing: everything on this node reports for it.
  MessageLedger& ledger = MessageLedger::instance();
  if (ledger.enabled()) {
    const MessageProbe probe = ledger.probe(MessageLedger::SiteKind::Node, static_cast<unsigned>(id));
    host.set_message_probe(probe);
    ni.simctrl->set_message_probe(probe);
    ni.dma.set_message_probe(probe);
    ni.pci.set_message_probe(probe);
    ni.netbuf.set_message_probe(probe);
    if (ni.mlcx) ni.mlcx->set_message_probe(probe);
  }
}

}  // namespace m2
