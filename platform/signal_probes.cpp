#include "platform/signal_probes.h"

#include <ip/ni_dma.h>
#include <ip/ni_memory_map.h>

#include <memory>

#include "link/link.h"
#include "ni/mlx_engine.h"
#include "pci/pci_bus.h"
#include "platform/ni_node.h"
#include "switchbox/switch_box.h"

namespace m2 {
namespace {

// Bits a value up to `max` needs: a signal narrower than its values would
// wrap in the VCD (a 128 KB channel once read 0 when full).
unsigned bits_for(uint64_t max) {
  unsigned n = 1;
  while (n < 64 && (max >> n)) ++n;
  return n;
}

void add_buffer_levels(NetBuf& b, const std::string& prefix, SignalProbes& out) {
  const unsigned width = bits_for(b.capacity());
  for (unsigned ch = 0; ch < NI_NETBUF_CHANNELS; ++ch) {
    const std::string c = std::to_string(ch);
    out.push_back({prefix + ".tx" + c + "_used", width, [&b, ch] { return uint64_t(b.tx_available(ch)); }});
    out.push_back({prefix + ".rx" + c + "_used", width, [&b, ch] { return uint64_t(b.rx_available(ch)); }});
  }
}

}  // namespace

void add_ni_signals(NiNode& ni, SignalProbes& out) {
  const std::string n = ni.name();
  out.push_back({n + ".cpu.idle", 1, [&ni] { return uint64_t(ni.cpu.core().idle()); }});
  out.push_back({n + ".dma.busy", 1, [&ni] { return uint64_t((ni.dma.status() & DMA_STATUS_BUSY) != 0); }});
  out.push_back({n + ".intc.irq", 1, [&ni] { return uint64_t(ni.intc.irq.level()); }});
  add_buffer_levels(ni.netbuf, n + ".netbuf", out);
  if (ni.mlcx) add_mlx_signals(*ni.mlcx, n + ".mlcx", out);
}

void add_declared_signals(const std::string& model, SignalProbes& out) {
  for (const Signal* s : SignalRegistry::instance().of(model)) out.push_back(s->probe());
}

void add_pci_signals(PciBus& pci, SignalProbes& out) { add_declared_signals(pci.name(), out); }

void add_link_signals(Link& link, SignalProbes& out) { add_declared_signals(link.name(), out); }

void add_mlx_signals(MlxEngine& e, const std::string& name, SignalProbes& out) {
  for (unsigned ch = 0; ch < NI_NETBUF_CHANNELS; ++ch) {
    const std::string c = std::to_string(ch);
    // Packets the peer's channel holds: up to its size / 32, whatever ours is.
    out.push_back({name + ".tx" + c + "_credit", 32, [&e, ch] { return e.tx_credit(ch); }});
    out.push_back({name + ".tx" + c + "_wait_ack", 1, [&e, ch] { return uint64_t(e.awaiting_ack(ch)); }});
  }
}

void add_switch_box_signals(SwitchBox& sb, SignalProbes& out) {
  const std::string n = sb.name();
  out.push_back({n + ".controller.stations_occupied", 8, [&sb] { return uint64_t(sb.controller().occupied()); }});
  out.push_back(busy_probe(n + ".switching_bus.busy", sb.switching_bus().busy_log()));
  out.push_back({n + ".cpu.idle", 1, [&sb] { return uint64_t(sb.cpu.core().idle()); }});
  for (unsigned p = 0; p < sb.port_count(); ++p)
    add_buffer_levels(sb.port_buffer(p), sb.port_buffer(p).name(), out);
}

}  // namespace m2
