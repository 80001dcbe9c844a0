// The one-node platform: a host (node0.host) with its PCI bus and one NI
// card, no network. For host/NI software bring-up: the host application and
// the NI firmware exchange data over PCI and DMA (the network buffer can be
// looped back with node0.ni.netbuf.loopback).
#pragma once

#include <memory>

#include "platform/platform.h"

namespace m2 {

std::unique_ptr<Platform> build_node_platform(PlatformContext& ctx);

}  // namespace m2
