#include "host/host_apps.h"

#include <algorithm>

namespace m2 {
namespace {

// A function-local static: registration runs from static constructors of
// other translation units, before main, in an unspecified order.
std::vector<HostAppInfo>& registry() {
  static std::vector<HostAppInfo> apps;
  return apps;
}

}  // namespace

const std::vector<HostAppInfo>& host_apps() { return registry(); }

const HostAppInfo* find_host_app(const std::string& name) {
  for (const HostAppInfo& a : registry())
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace m2

extern "C" void m2host_register_app(const char* name, m2host_app_main main, const char* description) {
  auto& apps = m2::registry();
  const auto it = std::find_if(apps.begin(), apps.end(), [&](const m2::HostAppInfo& a) { return a.name == name; });
  if (it != apps.end()) it->main = main;  // last definition wins (never two in one build)
  else apps.push_back({name, description ? description : "", main});
  std::sort(apps.begin(), apps.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
}
