// An NI card: the PowerPC 603e, its bus, 64 MB SDRAM, the console and the
// simulation-control device, and the FPGA blocks (network buffer, DMA engine,
// interrupt controller, PCI interface), placed at the addresses of
// ip/ni_memory_map.h and wired to each other. The PCI side (BARs, master,
// INTA) is bound by whoever puts the card in a slot; the link side of the
// network buffer is taken by the link controller (or its loopback).
#pragma once

#include <memory>
#include <string>

#include <systemc>

#include "core/memory.h"
#include "core/params.h"
#include "core/router.h"
#include "core/run_control.h"
#include "core/timing_style.h"
#include "cpu/processor.h"
#include "devices/console.h"
#include "devices/simctrl.h"
#include "ni/dma_engine.h"
#include "ni/intc.h"
#include "ni/mlx_engine.h"
#include "ni/netbuf.h"
#include "ni/pci_interface.h"
#include "trace/trace_tap.h"

namespace m2 {

class NiNode : public sc_core::sc_module {
 public:
  Param<std::string> firmware;

  Router bus;
  Memory sdram;
  Processor cpu;
  Console console;
  std::unique_ptr<SimCtrl> simctrl;
  NetBuf netbuf;
  DmaEngine dma;
  NiIntc intc;
  NiPciInterface pci;
  // The link controller, on cards cabled to a network (else null): sends
  // from the netbuf's TX channels, delivers into its RX channels.
  std::unique_ptr<MlxEngine> mlcx;

 private:
  std::vector<std::unique_ptr<TraceTap>> m_taps;  // on traced bindings only

 public:
  // `config_dir` resolves relative firmware paths. Throws ConfigError when
  // the firmware is missing or not a PowerPC executable.
  NiNode(sc_core::sc_module_name name, RunControl& run, const std::string& config_dir,
         TimingStyle timing = TimingStyle::LT, bool with_link = false);
};

}  // namespace m2
