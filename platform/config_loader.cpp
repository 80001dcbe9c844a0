// YAML config files and --set options to parameter presets (see config_loader.h).
#include "platform/config_loader.h"

#include <filesystem>
#include <vector>

#include "platform/yaml_config.h"

namespace m2 {

size_t load_config_presets(const std::string& path, ParamRegistry& reg) {
  // `cases` declares runs of this config, not presets (config_cases.h).
  const std::vector<ConfigEntry> entries = flatten_yaml_mapping(load_yaml_config(path), path, {"cases"});
  // Preset only once the whole file is known to be good.
  for (const ConfigEntry& e : entries)
    reg.preset(e.key, e.text, ValueOrigin{path + ":" + std::to_string(e.line)}, e.list);
  return entries.size();
}

void apply_set_override(const std::string& assignment, ParamRegistry& reg) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || !valid_config_key(assignment.substr(0, eq)))
    throw ConfigError("--set '" + assignment + "': expected NAME=VALUE");
  // An empty VALUE is only valid for strings; the parameter decides.
  reg.preset(assignment.substr(0, eq), assignment.substr(eq + 1), ValueOrigin{"--set"});
}

void apply_gdb_option(const std::string& assignment, ParamRegistry& reg) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || !valid_config_key(assignment.substr(0, eq)) || eq + 1 == assignment.size())
    throw ConfigError("--gdb '" + assignment + "': expected CPU=PORT (e.g. ni0.cpu=1234)");
  // The parameter checks the port; an unknown CPU is an unknown key.
  reg.preset(assignment.substr(0, eq) + ".gdb_port", assignment.substr(eq + 1), ValueOrigin{"--gdb"});
}

std::string config_name_of(const std::string& path) { return std::filesystem::path(path).stem().string(); }

}  // namespace m2
