// A module's logger: knows the module's hierarchical name, prefixes it to
// every message ("node0.ni.dma: ...") and logs only what the module's level
// (core/log_levels.h, the `sim.log` setting) lets through. Errors and
// warnings go to Log::error/warning, info and debug lines to Log::out
// (debug lines marked "debug: "). Hold one as a member, built with `this`:
//   ModuleLog m_log{this};
//   if (m_log.debug_enabled()) m_log.debug("descriptor " + describe(d) + " queued");
#pragma once

#include <cstdint>
#include <string>

#include <systemc>

#include "core/log_levels.h"

namespace m2 {

class ModuleLog {
 public:
  // The object's name is read when it is constructed: build the logger
  // after the module's sc_module base (as any member is).
  explicit ModuleLog(const sc_core::sc_object* owner) : m_name(owner->name()) {}
  explicit ModuleLog(std::string name) : m_name(std::move(name)) {}

  const std::string& name() const { return m_name; }
  bool enabled(LogLevel level) const { return level <= current(); }
  bool debug_enabled() const { return enabled(LogLevel::Debug); }

  void error(const std::string& what) const;
  void warning(const std::string& what) const;
  void info(const std::string& what) const;
  void debug(const std::string& what) const;

 private:
  LogLevel current() const;

  std::string m_name;
  mutable uint64_t m_generation = 0;  // of LogLevels when m_level was looked up
  mutable LogLevel m_level = LogLevel::Info;
};

}  // namespace m2
