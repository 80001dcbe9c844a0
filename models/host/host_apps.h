// Registry of host applications by name (sw/apps register theirs with the
// M2HOST_APP macro of host_env.h); a config picks one per host (hostN.app).
#pragma once

#include <string>
#include <vector>

#include "host/host_env.h"

namespace m2 {

struct HostAppInfo {
  std::string name, description;
  m2host_app_main main = nullptr;
};

const std::vector<HostAppInfo>& host_apps();
const HostAppInfo* find_host_app(const std::string& name);

}  // namespace m2
