// The one-NI platform: a single NI (ni0) running firmware on its own, for
// bring-up, firmware development and ISS benchmarks.
#pragma once

#include <memory>

#include "platform/platform.h"

namespace m2 {

std::unique_ptr<Platform> build_single_ni_platform(PlatformContext& ctx);

}  // namespace m2
