// An NI card's embedded side: the PowerPC 603e, its bus, 64 MB SDRAM, the
// console and the simulation-control device, placed at the addresses of
// ip/ni_memory_map.h. Later issues add the PCI interface, DMA, network buffer
// and MLC-X here.
#pragma once

#include <memory>
#include <string>

#include <systemc>

#include "core/memory.h"
#include "core/params.h"
#include "core/router.h"
#include "core/run_control.h"
#include "cpu/processor.h"
#include "devices/console.h"
#include "devices/simctrl.h"

namespace m2 {

class NiNode : public sc_core::sc_module {
 public:
  Param<std::string> firmware;

  Router bus;
  Memory sdram;
  Processor cpu;
  Console console;
  std::unique_ptr<SimCtrl> simctrl;

  // `config_dir` resolves relative firmware paths. Throws ConfigError when
  // the firmware is missing or not a PowerPC executable.
  NiNode(sc_core::sc_module_name name, RunControl& run, const std::string& config_dir);
};

}  // namespace m2
