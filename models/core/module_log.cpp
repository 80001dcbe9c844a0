#include "core/module_log.h"

#include "core/log.h"

namespace m2 {

LogLevel ModuleLog::current() const {
  const LogLevels& levels = LogLevels::instance();
  if (m_generation != levels.generation()) {  // matching patterns once per configuration, not per message
    m_level = levels.level_of(m_name);
    m_generation = levels.generation();
  }
  return m_level;
}

void ModuleLog::error(const std::string& what) const {
  if (enabled(LogLevel::Error)) Log::instance().error(m_name + ": " + what);
}

void ModuleLog::warning(const std::string& what) const {
  if (enabled(LogLevel::Warning)) Log::instance().warning(m_name + ": " + what);
}

void ModuleLog::info(const std::string& what) const {
  if (enabled(LogLevel::Info)) Log::instance().out(m_name + ": " + what);
}

void ModuleLog::debug(const std::string& what) const {
  if (enabled(LogLevel::Debug)) Log::instance().out("debug: " + m_name + ": " + what);
}

}  // namespace m2
