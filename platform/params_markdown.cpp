// Markdown parameter tables from the registry (see params_markdown.h).
#include "platform/params_markdown.h"

#include <set>
#include <string>
#include <vector>

#include "core/glob.h"
#include "core/params.h"
#include "platform/markdown_cell.h"

namespace m2 {

namespace {

std::string parent_of(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? "" : name.substr(0, dot);
}

std::string row(const ParamBase& p) {
  const std::string leaf = p.name().substr(parent_of(p.name()).size() + 1);
  const std::string type = p.type_name();
  // Texts in backquotes (a path, a variant's name); an empty one stays empty.
  std::string def = p.default_string();
  if ((type == "string" || type == "enum") && !def.empty()) def = "`" + def + "`";
  std::string desc = p.description();
  if (type == "enum") {
    std::string choices;
    std::string range = p.range_string();
    size_t start = 0;
    while (start <= range.size()) {
      const size_t bar = range.find('|', start);
      const std::string choice = range.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
      choices += (choices.empty() ? "" : ", ") + ("`" + choice + "`");
      if (bar == std::string::npos) break;
      start = bar + 1;
    }
    desc += " (choices: " + choices + ")";
  } else if (!p.range_string().empty()) {
    desc += " (" + p.range_string() + ")";
  }
  return "| `" + leaf + "` | " + markdown_cell(p.unit()) + " | " + markdown_cell(def) + " | " + markdown_cell(desc) +
         " |\n";
}

}  // namespace

std::string format_params_markdown(const std::string& module) {
  const auto all = ParamRegistry::instance().all();
  std::set<std::string> modules;
  for (const ParamBase* p : all) modules.insert(parent_of(p->name()));
  std::string chosen;
  for (const std::string& m : modules) {
    if (m == module || (module.find('*') != std::string::npos && glob_match(module, m))) {
      chosen = m;
      break;
    }
  }
  if (chosen.empty()) {
    std::string msg = "--markdown '" + module + "': no module with parameters has that name";
    std::vector<std::string> names(modules.begin(), modules.end());
    const std::string near = closest_name(module, names);
    if (!near.empty()) msg += " (did you mean '" + near + "'?)";
    throw ConfigError(msg + " ('params' lists every parameter's full name)");
  }
  // Unit cells without a unit stay empty, as in the pages written by hand.
  std::string out = "| Name | Unit | Default | Description |\n|------|------|---------|-------------|\n";
  for (const ParamBase* p : all)
    if (parent_of(p->name()) == chosen) out += row(*p);
  return out;
}

}  // namespace m2
