// The platform's one GDB connection (sim.gdb_port, --gdb-all PORT): every CPU
// that runs firmware becomes a thread of it, in the platform's order
// (node0.ni.cpu, node1.ni.cpu, ..., sb0.cpu). See docs/models/gdb-server.md.
#pragma once

#include <memory>

#include "debug/gdb_platform_server.h"
#include "platform/platform.h"
#include "platform/sim_settings.h"

namespace m2 {

// nullptr without sim.gdb_port. Throws ConfigError naming the key when the
// port cannot be used or no CPU runs firmware.
std::unique_ptr<GdbPlatformServer> start_platform_gdb(const SimSettings& sim, Platform& platform);

}  // namespace m2
