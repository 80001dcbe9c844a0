#include "platform/renamed_names.h"

#include <regex>

#include "core/params.h"
#include "trace/trace_recorder.h"

namespace m2 {
namespace {

struct Rename {
  std::regex old_prefix;
  const char* replacement;
};

// Each rule rewrites the start of a name; the rest (".variant") stays.
const std::vector<Rename>& renames() {
  static const std::vector<Rename> rules = {
      {std::regex(R"(^sb([0-9]+|\*)_port([0-9]+|\*)_mlx)"), "sb$1.port$2.mlx"},
      {std::regex(R"(^sb([0-9]*)\*_mlx)"), "sb$1*.port*.mlx"},
      {std::regex(R"(^link_node([0-9]+|\*))"), "node$1.link"},
      {std::regex(R"(^link_sb([0-9]+)_([0-9]+)_sb[0-9]+_[0-9]+)"), "sb$1.port$2.link"},
      {std::regex(R"(^link_\*)"), "**.link"},
      // Signals (sim.vcd) that now sit under the component they describe:
      // whole names only, so that a misspelt parameter (sb0.stations_count)
      // gets its "did you mean", not a rename to something that never was.
      {std::regex(R"(^(sb[0-9*]+)\.stations_occupied$)"), "$1.controller.stations_occupied"},
      {std::regex(R"(^(sb[0-9*]+)\.bus_busy$)"), "$1.switching_bus.busy"},
      {std::regex(R"(^(sb[0-9*]+\.port[0-9*]+)\.((tx|rx)[0-9*]*_used)$)"), "$1.buffer.$2"},
      // Parameters whose "mbps" read as megabits per second beside
      // gbit_per_s; they were megabytes per second (whole leaves only).
      {std::regex(R"(^(.*\.)?rate_mbps$)"), "$1rate_mbyte_per_s"},
      {std::regex(R"(^(.*\.)?loopback_mbps$)"), "$1loopback_mbyte_per_s"},
      {std::regex(R"(^(.*\.)?memcpy_mbps$)"), "$1memcpy_mbyte_per_s"},
  };
  return rules;
}

}  // namespace

std::string renamed_name(const std::string& name) {
  for (const Rename& r : renames()) {
    std::smatch m;
    if (std::regex_search(name, m, r.old_prefix)) return m.format(r.replacement) + m.suffix().str();
  }
  return "";
}

void check_no_old_names(const std::string& patterns, const std::string& where) {
  for (const std::string& p : split_trace_patterns(patterns)) {
    const std::string now = renamed_name(p);
    if (!now.empty())
      throw ConfigError(where + ": '" + p + "' is an old name: it is now '" + now +
                        "' (docs/models/cluster.md, names)");
  }
}

}  // namespace m2
