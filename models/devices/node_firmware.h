// Loading a node's firmware from its config key (an NI's or a switch box's
// `firmware`): the image into the CPU, the names of its results into the
// node's simulation-control device. Every failure is a ConfigError naming the
// key, and for a missing file what would help (core/paths.h).
#pragma once

#include <string>

#include "core/params.h"
#include "cpu/processor.h"
#include "devices/simctrl.h"

namespace m2 {

// Does nothing when the key is empty (a CPU without firmware stays in reset).
void load_node_firmware(const Param<std::string>& firmware, const std::string& config_dir, Processor& cpu,
                        SimCtrl& simctrl);

}  // namespace m2
