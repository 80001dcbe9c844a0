// String-keyed ISS factory, so a config names the core model ("isa").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cpu/iss.h"

namespace m2::iss {

struct CoreConfig {
  std::string name;           // instance name, for messages
  uint64_t timebase_hz = 0;   // architectural timer rate
  uint64_t private_page = 0;  // a 4 KB page the core may keep for itself
};

std::vector<std::string> core_models();
// Throws std::invalid_argument for an unknown model.
std::unique_ptr<Core> make_core(const std::string& model, Environment& env, const CoreConfig& cfg);

}  // namespace m2::iss
