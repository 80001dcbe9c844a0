// Clusters of 2-16+ nodes: hosts with their NIs, switch boxes and the links
// between them, built from the topology (topology.* keys) with the routes
// the topology builder computes handed to each switch box's firmware, and a
// watchdog that reports a stalled network.
#pragma once

#include <memory>

#include "platform/platform.h"

namespace m2 {

std::unique_ptr<Platform> build_cluster_platform(PlatformContext& ctx);

}  // namespace m2
