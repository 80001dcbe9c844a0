// Markdown statistics tables from the registry (see stats_markdown.h).
#include "platform/stats_markdown.h"

#include <set>
#include <string>
#include <vector>

#include "core/glob.h"
#include "core/params.h"
#include "core/stats.h"
#include "platform/markdown_cell.h"

namespace m2 {

std::string format_stats_markdown(const std::string& module) {
  const StatRegistry& reg = StatRegistry::instance();
  std::set<std::string> models;
  for (const StatBase* s : reg.all()) models.insert(s->owner());
  std::string chosen;
  for (const std::string& m : models) {
    if (m == module || (module.find('*') != std::string::npos && glob_match(module, m))) {
      chosen = m;
      break;
    }
  }
  if (chosen.empty()) {
    std::string msg = "--markdown '" + module + "': no model with statistics has that name";
    std::vector<std::string> names(models.begin(), models.end());
    const std::string near = closest_name(module, names);
    if (!near.empty()) msg += " (did you mean '" + near + "'?)";
    throw ConfigError(msg + " ('stats --list' lists every statistic's full name)");
  }
  std::string out = "| Name | Unit | Description | Reset after warm-up |\n|------|------|-------------|------|\n";
  for (const StatBase* s : reg.of(chosen)) {
    std::string desc = s->description();
    if (s->reported_only_when_nonzero()) desc += " (reported only when non-zero)";
    out += "| `" + s->local_name() + "` | " + markdown_cell(s->unit()) + " | " + markdown_cell(desc) + " | " +
           (s->reset_policy() == StatReset::AfterWarmup ? "yes" : "no") + " |\n";
  }
  return out;
}

}  // namespace m2
