#include "devices/node_firmware.h"

#include <memory>

#include "core/elf_loader.h"
#include "core/paths.h"

namespace m2 {

void load_node_firmware(const Param<std::string>& firmware, const std::string& config_dir, Processor& cpu,
                        SimCtrl& simctrl) {
  if (firmware.get().empty()) return;
  try {
    auto image = std::make_shared<ElfImage>(ElfImage::load(resolve_firmware(firmware.get(), config_dir)));
    simctrl.set_result_names(SimCtrl::result_names_of(*image));
    cpu.load_firmware(image);
  } catch (const ConfigError& e) {
    throw ConfigError(firmware.origin().where + ": key '" + firmware.name() + "': " + e.what() +
                      missing_firmware_hint(firmware.get(), config_dir));
  }
}

}  // namespace m2
