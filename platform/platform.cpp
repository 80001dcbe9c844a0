#include "platform/platform.h"

#include <map>

#include "core/data_path_scheduler.h"
#include "core/params.h"
#include "core/stats.h"
#include "platform/cluster_platform.h"
#include "platform/node_platform.h"
#include "platform/single_ni_platform.h"

namespace m2 {
namespace {

const std::map<std::string, PlatformBuilder>& builders() {
  static const std::map<std::string, PlatformBuilder> b = {
      {"single-ni", build_single_ni_platform},
      {"node", build_node_platform},
      {"cluster", build_cluster_platform},
  };
  return b;
}

}  // namespace

void append_statistics_of(const std::string& model, std::vector<Statistic>& out) {
  for (const StatBase* s : StatRegistry::instance().of(model))
    if (s->reported()) out.push_back({s->owner(), s->local_name(), s->value(), s->format() == StatFormat::Decimals});
}

std::vector<Statistic> Platform::statistics() {
  std::vector<Statistic> s;
  for (const std::string& model : statistics_models()) append_statistics_of(model, s);
  if (DataPathScheduler::in_use())
    append_statistics_of(DataPathScheduler::instance().name(), s);  // the data path's steps (issue 28)
  return s;
}

std::vector<std::string> platform_names() {
  std::vector<std::string> names;
  for (const auto& [name, builder] : builders()) names.push_back(name);
  return names;
}

std::unique_ptr<Platform> build_platform(const std::string& name, PlatformContext& ctx) {
  auto it = builders().find(name);
  if (it == builders().end()) {
    std::string known;
    for (const std::string& n : platform_names()) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError("unknown platform '" + name + "' (known: " + known + ")");
  }
  return it->second(ctx);
}

}  // namespace m2
