#include "platform/signal_probes.h"

#include "link/link.h"
#include "ni/mlx_engine.h"
#include "pci/pci_bus.h"
#include "platform/ni_node.h"
#include "switchbox/switch_box.h"

namespace m2 {

void add_declared_signals(const std::string& model, SignalProbes& out) {
  for (const Signal* s : SignalRegistry::instance().of(model)) out.push_back(s->probe());
}

void add_ni_signals(NiNode& ni, SignalProbes& out) {
  for (const char* model : {ni.cpu.name(), ni.dma.name(), ni.intc.name(), ni.netbuf.name()})
    add_declared_signals(model, out);
  if (ni.mlcx) add_mlx_signals(*ni.mlcx, out);
}

void add_pci_signals(PciBus& pci, SignalProbes& out) { add_declared_signals(pci.name(), out); }

void add_link_signals(Link& link, SignalProbes& out) { add_declared_signals(link.name(), out); }

void add_mlx_signals(MlxEngine& e, SignalProbes& out) { add_declared_signals(e.name(), out); }

void add_switch_box_signals(SwitchBox& sb, SignalProbes& out) {
  // The controller's and the switching bus's (declared by the switch box), its manager's, its port buffers'.
  add_declared_signals(sb.name(), out);
  add_declared_signals(sb.cpu.name(), out);
  for (unsigned p = 0; p < sb.port_count(); ++p) add_declared_signals(sb.port_buffer(p).name(), out);
}

}  // namespace m2
