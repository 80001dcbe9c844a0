// Factory for the PowerPC 603e core backed by Unicorn. This header does not
// expose Unicorn: callers see only the ISS hook (models/cpu/iss.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "cpu/iss.h"

namespace m2::iss {

struct Ppc603eConfig {
  std::string name;                    // for messages ("ni0.cpu")
  uint64_t timebase_hz = 25'000'000;   // timebase/decrementer tick rate
  uint64_t private_page = 0xFFFFE000;  // 4 KB the core keeps for its own stubs
};

std::unique_ptr<Core> make_unicorn_ppc603e(Environment& env, const Ppc603eConfig& cfg);

}  // namespace m2::iss
