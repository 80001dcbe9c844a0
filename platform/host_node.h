// One cluster node: a host PC (CPU thread, memory, host bridge) and its PCI
// bus with the NI card in a slot. Names follow the hierarchy: node0.host,
// node0.memory, node0.bridge, node0.pci, node0.ni (node0.ni.cpu, ...).
// The NI's link side stays open for the network (next layer up).
#pragma once

#include <string>

#include <systemc>

#include "core/memory.h"
#include "core/run_control.h"
#include "core/timing_style.h"
#include "host/host_bridge.h"
#include "host/host_cpu.h"
#include "host/mpi_params.h"
#include "host/tcpip/eth_driver.h"
#include "host/tcpip/host_sockets.h"
#include "pci/pci_bus.h"
#include "platform/ni_node.h"
#include "platform/platform.h"
#include "trace/trace_tap.h"

namespace m2 {

class HostNode : public sc_core::sc_module {
 public:
  Memory memory;
  HostBridge bridge;
  PciBus pci;
  HostCpu host;
  MpiParams mpi;  // the MPI library's knobs, as nodeN.host.mpi.*
  NiNode ni;
  // The host's network driver when the NI runs the Ethernet emulation
  // (ni.firmware: eth); else null. The host finds it as host.ip_port().
  std::unique_ptr<EthDriver> eth;
  // Its TCP/IP stack over that driver (nodeN.tcpip); null without eth.
  std::unique_ptr<HostSockets> tcp;

  // `id`/`count`: this node's number and the number of nodes (for the host
  // software); `config_dir` resolves relative firmware paths.
  // `with_link`: the NI gets its link controller (ni.mlcx) for a network.
  HostNode(sc_core::sc_module_name name, RunControl& run, TimingStyle timing, int id, int count,
           const std::string& config_dir, bool with_link = false);

  // The models whose statistics a run reports: the PCI bus, the bridge and
  // the NI's DMA engine, in that order; then the network driver, if any.
  std::vector<std::string> statistics_models() const {
    std::vector<std::string> m{pci.name(), bridge.name(), ni.dma.name()};
    if (eth) m.push_back(eth->name());
    return m;
  }

 private:
  std::vector<std::unique_ptr<TraceTap>> m_taps;  // on traced bindings only
};

}  // namespace m2
