#include "platform/ni_node.h"

#include "trace/trace_recorder.h"

#include <ip/ni_intc.h>
#include <ip/ni_memory_map.h>
#include <ip/ni_netbuf.h>

#include "core/state_views.h"
#include "devices/node_firmware.h"
#include "platform/paths.h"

namespace m2 {

namespace {

// NI SDRAM timing of a b_transport access (the DMA engine's; the 603e goes
// through DMI). Calibrated with the NI-level ping-pong (docs/experiments.md):
// PC100 SDRAM at the FPGA's 100 MHz, a burst opens its row and waits the CAS
// latency before data: tRCD + CL = 2 + 2 clocks; a write needs tRCD only.
constexpr double kNiSdramReadLatencyNs = 40;
constexpr double kNiSdramWriteLatencyNs = 20;

}  // namespace

NiNode::NiNode(sc_core::sc_module_name name, RunControl& run, const std::string& config_dir, TimingStyle timing,
               bool with_link)
    : sc_module(name),
      firmware(this->name(), "firmware", "", "",
               "firmware ELF: a built firmware's name (hello) or a path relative to the config file; empty = none"),
      bus("bus"),
      sdram("sdram", NI_SDRAM_SIZE, kNiSdramReadLatencyNs, kNiSdramWriteLatencyNs),
      cpu("cpu", run, [this] { return bus.memory_map(); }),
      console("console", cpu.name()),
      netbuf("netbuf"),
      dma("dma"),
      intc("intc"),
      pci("pci", timing) {
  simctrl = std::make_unique<SimCtrl>("simctrl", run, cpu.name(), static_cast<uint32_t>(cpu.timebase_hz.get()),
                                      static_cast<uint32_t>(cpu.clock_mhz.get() * 1e6));
  const std::string me = this->name();
  bind_traced(cpu.socket, me + ".cpu", m_taps, [this](auto& s) { s.bind(bus.target); });
  bus.attach(sdram.socket, NI_SDRAM_BASE, sdram.size(), sdram.name());
  // The cache-inhibited view: no DMI, so each access costs the bus crossing
  // plus the SDRAM's own latency (60 ns a read, 40 ns a write).
  bus.attach_view(NI_SDRAM_UNCACHED_BASE, sdram.size(), std::string(sdram.name()) + " (cache-inhibited)", NI_SDRAM_BASE,
                  false);
  bus.attach(console.regs, NI_CONSOLE_BASE, NI_DEVICE_SIZE, console.name());
  bus.attach(simctrl->regs, NI_SIMCTRL_BASE, NI_DEVICE_SIZE, simctrl->name());
  bus.attach(netbuf.regs, NI_NETBUF_BASE, NI_DEVICE_SIZE, netbuf.name());
  bus.attach(netbuf.data, NI_NETBUF_DATA_BASE, NI_NETBUF_DATA_SIZE, std::string(netbuf.name()) + " data");
  bus.attach(dma.regs, NI_DMA_BASE, NI_DEVICE_SIZE, dma.name());
  bus.attach(intc.regs, NI_INTC_BASE, NI_DEVICE_SIZE, intc.name());
  bus.attach(pci.regs, NI_PCIIF_BASE, NI_DEVICE_SIZE, pci.name());
  bus.attach(pci.host_window, NI_HOST_WINDOW_BASE, NI_HOST_WINDOW_SIZE, std::string(pci.name()) + " host window");
  bind_traced(dma.master, me + ".dma", m_taps, [this](auto& s) { s.bind(bus.target); });
  pci.local.bind(bus.target);
  dma.connect_netbuf(&netbuf);
  // What a firmware engineer asks GDB about the NI around the CPU: the views
  // the DMA engine and the network buffer declare (core/state_views.h).
  for (const char* model : {dma.name(), netbuf.name()})
    for (const StateView* v : StateViewRegistry::instance().of(model))
      cpu.add_monitor_command({v->topic(), v->help(), [v] { return v->describe(); }});
  const std::string node = me.substr(0, me.find('.')) + ".";
  cpu.add_monitor_command({"trace", "the last 16 traced transactions of " + node + "* (needs --trace)",
                           [node] { return TraceRecorder::instance().last_records(node, 16); }});
  // Interrupt sources into the controller, the controller into the 603e.
  auto source = [this](unsigned n) { return [this, n](bool level) { intc.set_source(n, level); }; };
  dma.irq_done.connect(source(NI_IRQ_DMA_DONE));
  dma.irq_error.connect(source(NI_IRQ_DMA_ERROR));
  pci.irq_doorbell.connect(source(NI_IRQ_DOORBELL));
  for (unsigned ch = 0; ch < NI_NETBUF_CHANNELS; ++ch) {
    netbuf.irq_tx[ch].connect(source(NI_IRQ_NETBUF_TX(ch)));
    netbuf.irq_rx[ch].connect(source(NI_IRQ_NETBUF_RX(ch)));
  }
  intc.irq.connect([this](bool level) { cpu.set_irq(0, level); });
  if (with_link) {
    mlcx = std::make_unique<MlxEngine>("mlcx", netbuf, timing);
    bus.attach(mlcx->regs, NI_MLCX_BASE, NI_DEVICE_SIZE, mlcx->name());
    mlcx->irq.connect(source(NI_IRQ_MLCX(0)));
  }
  // A fault on the link controller's registers of an NI built without one
  // (the node platform has no link) says so.
  if (!mlcx)
    cpu.set_address_note([](uint64_t a) -> std::string {
      if (a >= NI_MLCX_BASE && a < NI_MLCX_BASE + NI_DEVICE_SIZE)
        return "the MLC-X link controller's registers (NI_MLCX_BASE, ip/ni_memory_map.h): this NI has no link "
               "controller on this platform (a firmware for a network, such as mmp, needs the cluster platform)";
      return "";
    });
  // Firmware output also reaches GDB when one is attached to the CPU.
  console.on_line([this](const std::string& line) { cpu.console_output(line); });
  load_node_firmware(firmware, config_dir, cpu, *simctrl);
  if (!firmware.get().empty()) run.add_participant(cpu.name());
}

}  // namespace m2
