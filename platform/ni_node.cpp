#include "platform/ni_node.h"

#include <ip/ni_memory_map.h>

#include "platform/paths.h"

namespace m2 {

NiNode::NiNode(sc_core::sc_module_name name, RunControl& run, const std::string& config_dir)
    : sc_module(name),
      firmware(this->name(), "firmware", "", "",
               "firmware ELF: a built firmware's name (hello) or a path relative to the config file; empty = none"),
      bus("bus"),
      sdram("sdram", NI_SDRAM_SIZE),
      cpu("cpu", run, [this] { return bus.memory_map(); }),
      console("console", cpu.name()) {
  simctrl = std::make_unique<SimCtrl>("simctrl", run, cpu.name(),
                                      static_cast<uint32_t>(cpu.timebase_hz.get()),
                                      static_cast<uint32_t>(cpu.clock_mhz.get() * 1e6));
  cpu.socket.bind(bus.target);
  bus.attach(sdram.socket, NI_SDRAM_BASE, sdram.size(), sdram.name());
  bus.attach(console.socket, NI_CONSOLE_BASE, NI_DEVICE_SIZE, console.name());
  bus.attach(simctrl->socket, NI_SIMCTRL_BASE, NI_DEVICE_SIZE, simctrl->name());
  // Firmware output also reaches GDB when one is attached to the CPU.
  console.on_line([this](const std::string& line) { cpu.console_output(line); });
  if (!firmware.get().empty()) {
    const std::string path = resolve_firmware(firmware.get(), config_dir);
    try {
      cpu.load_firmware(std::make_shared<ElfImage>(ElfImage::load(path)));
      run.add_participant(cpu.name());
    } catch (const ConfigError& e) {
      throw ConfigError(firmware.origin().where + ": key '" + firmware.name() + "': " + e.what());
    }
  }
}

}  // namespace m2
