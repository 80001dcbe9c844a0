// Cases: a config file may declare several runs of itself that differ in a
// few settings, as a cross product of named levels:
//
//   cases:
//     show: latency_us            # optional: the column compared per size
//     vary:
//       channels:                 # an axis: a column of the merged results
//         "1": {node*.ni.simctrl.args: "0,1"}    # a level: its settings
//         "2": {node*.ni.simctrl.args: "0,2"}
//       burst:
//         continuous: {node*.ni.mlcx.variant: maestro2}
//         plain: {node*.ni.mlcx.variant: plain}
//
// gives four cases, "channels=1,burst=continuous" ... (the first axis varies
// slowest). A case's settings are presets applied after the rest of the file
// (so they win over it) and before --set (which wins over them). One process
// runs one case (`m2vp-sim run CONFIG --case NAME`); `./m2vp run` runs all of
// them in parallel and merges their tables (traces/cases.py).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/params.h"
#include "platform/yaml_config.h"

namespace m2 {

struct ConfigCase {
  std::string name;  // "channels=1,burst=plain": every axis's level, in axis order
  std::string dir;   // "channels-1_burst-plain": its output folder
  std::vector<std::pair<std::string, std::string>> levels;  // (axis, level)
  std::vector<ConfigEntry> settings;                        // of all its levels
};

struct ConfigCases {
  std::vector<std::string> axes;
  std::string show;  // results column to compare per size and case; "" = the runner's choice
  std::vector<ConfigCase> cases;
  bool empty() const { return cases.empty(); }
};

// Most cases one config may declare.
constexpr size_t MAX_CONFIG_CASES = 256;

// The cases the config file at `path` declares (none without a top-level
// `cases` key). Throws ConfigError "<path>:<line>: ..." for a malformed
// declaration: unknown keys, an axis or level without a usable name, levels
// that are not mappings of settings, a key set by two axes, too many cases.
ConfigCases load_config_cases(const std::string& path);

// The case called `name` (its name or its folder name); a ConfigError listing
// the cases otherwise.
const ConfigCase& find_config_case(const ConfigCases& cases, const std::string& name, const std::string& path);

// Presets the case's settings (origin "<path>:<line>, case <name>").
void apply_case_presets(const ConfigCase& c, const std::string& path, ParamRegistry& reg);

// `m2vp-sim cases`: "#show<TAB>column" when given, then a header "case<TAB>dir<TAB>
// <axis>..." and one line per case.
std::string format_cases_table(const ConfigCases& cases);

}  // namespace m2
