#include "platform/platform_gdb.h"

#include "core/log.h"

namespace m2 {

std::unique_ptr<GdbPlatformServer> start_platform_gdb(const SimSettings& sim, Platform& platform) {
  if (sim.gdb_port.get() == 0) return nullptr;
  const std::string key = sim.gdb_port.origin().where + ": key 'sim.gdb_port'";
  std::vector<Processor*> cpus;
  for (Processor* p : platform.processors())
    if (p->firmware()) cpus.push_back(p);  // a CPU without firmware stays in reset: nothing to debug
  if (cpus.empty()) throw ConfigError(key + ": no CPU of this platform runs firmware to debug");
  std::vector<std::string> names;
  for (Processor* p : cpus) names.push_back(p->name());
  auto server = std::make_unique<GdbPlatformServer>(names);
  try {
    server->listen(static_cast<uint16_t>(sim.gdb_port.get()));
  } catch (const std::runtime_error& e) {
    throw ConfigError(key + ": " + e.what());
  }
  std::string list;
  for (size_t i = 0; i < names.size(); ++i) list += (i ? ", " : "") + std::to_string(i + 1) + " " + names[i];
  Log::instance().out("GDB server for the whole platform on 127.0.0.1:" + std::to_string(server->port()) +
                      ", threads " + list + (sim.gdb_wait.get() ? "" : " (the CPUs run; GDB may connect at any time)"));
  for (size_t i = 0; i < cpus.size(); ++i) cpus[i]->use_platform_gdb(*server, i + 1, sim.gdb_wait.get());
  return server;
}

}  // namespace m2
