// Which messages each module logs: the `sim.log` setting, a comma-separated
// list of PATTERN=LEVEL ("node0.ni.*=debug,sb*=warning"), patterns as in
// core/glob.h matched against a module's hierarchical name, levels error,
// warning, info, debug. The last pattern that matches a name decides; a
// name no pattern matches logs at info (errors, warnings, notes; no debug).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace m2 {

enum class LogLevel { Error = 0, Warning = 1, Info = 2, Debug = 3 };

class LogLevels {
 public:
  static LogLevels& instance();

  // Replaces the table by `spec` ("" for none). Throws ConfigError starting
  // with `where` (e.g. "run.yaml:4: key 'sim.log'") for an entry without
  // '=', an empty or malformed pattern, or an unknown level.
  void configure(const std::string& spec, const std::string& where);
  void clear();

  LogLevel level_of(const std::string& module) const;
  // Changes with every configure()/clear(): loggers cache their level by it.
  uint64_t generation() const { return m_generation; }

  static const char* name_of(LogLevel level);

 private:
  struct Rule {
    std::string pattern;
    LogLevel level;
  };
  std::vector<Rule> m_rules;
  uint64_t m_generation = 1;
};

}  // namespace m2
