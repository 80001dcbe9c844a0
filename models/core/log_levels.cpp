#include "core/log_levels.h"

#include <cctype>

#include "core/glob.h"
#include "core/params.h"

namespace m2 {

namespace {

std::string trimmed(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

// Module names are made of letters, digits, '_' and '.'; a pattern adds '*'.
bool valid_pattern(const std::string& p) {
  if (p.empty() || p.front() == '.' || p.back() == '.' || p.find("..") != std::string::npos) return false;
  for (char c : p)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '*') return false;
  return true;
}

}  // namespace

LogLevels& LogLevels::instance() {
  static LogLevels levels;
  return levels;
}

const char* LogLevels::name_of(LogLevel level) {
  switch (level) {
    case LogLevel::Error:
      return "error";
    case LogLevel::Warning:
      return "warning";
    case LogLevel::Info:
      return "info";
    case LogLevel::Debug:
      return "debug";
  }
  return "?";
}

void LogLevels::configure(const std::string& spec, const std::string& where) {
  std::vector<Rule> rules;
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t comma = spec.find(',', start);
    const std::string entry =
        trimmed(spec.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    start = comma == std::string::npos ? spec.size() + 1 : comma + 1;
    if (entry.empty()) {
      if (trimmed(spec).empty()) break;  // "" sets nothing
      throw ConfigError(where + ": '" + spec + "' has an empty entry; expected PATTERN=LEVEL, comma-separated");
    }
    const size_t eq = entry.find('=');
    if (eq == std::string::npos)
      throw ConfigError(where + ": '" + entry + "' is not PATTERN=LEVEL (e.g. node0.ni.*=debug)");
    const std::string pattern = trimmed(entry.substr(0, eq)), level = trimmed(entry.substr(eq + 1));
    if (!valid_pattern(pattern))
      throw ConfigError(where + ": '" + pattern + "' in '" + entry +
                        "' is not a module name pattern (letters, digits, '_', '.' between parts, '*' wildcards)");
    Rule r{pattern, LogLevel::Info};
    bool known = false;
    for (LogLevel l : {LogLevel::Error, LogLevel::Warning, LogLevel::Info, LogLevel::Debug})
      if (level == name_of(l)) r.level = l, known = true;
    if (!known)
      throw ConfigError(where + ": level '" + level + "' in '" + entry + "' is not one of error, warning, info, debug");
    rules.push_back(r);
  }
  m_rules = std::move(rules);
  ++m_generation;
}

void LogLevels::clear() {
  m_rules.clear();
  ++m_generation;
}

LogLevel LogLevels::level_of(const std::string& module) const {
  LogLevel level = LogLevel::Info;
  for (const Rule& r : m_rules)
    if (glob_match(r.pattern, module)) level = r.level;
  return level;
}

}  // namespace m2
