// Reading a YAML config file: the document, and mappings flattened into
// dotted keys. Shared by the parameter presets (config_loader) and the cases
// a config declares (config_cases).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace m2 {

// One value of a config file: dotted key, value text, 1-based line, and
// whether it was written as a YAML list (only text parameters take lists).
struct ConfigEntry {
  std::string key, text;
  int line;
  bool list = false;
};

// The file's one YAML document: a mapping, or a null node when the file is
// empty or holds only comments. Throws ConfigError naming the file (and line
// and column of a syntax error).
YAML::Node load_yaml_config(const std::string& path);

// 1-based line of a node; yaml-cpp gives implicit nulls no position of their own.
int yaml_line(const YAML::Node& node, int fallback);

// Flattens a mapping: nested mappings become dotted keys, a list of plain
// values one comma-separated text. Top-level keys listed in `skip` are left
// out (they are not presets). Throws ConfigError "<path>:<line>: ..." for
// keys that are not names, values that are missing, lists of non-scalars and
// keys given twice.
std::vector<ConfigEntry> flatten_yaml_mapping(const YAML::Node& mapping, const std::string& path,
                                              const std::vector<std::string>& skip = {});

// A dotted parameter name: no blanks, no empty component.
bool valid_config_key(const std::string& key);

}  // namespace m2
