// A switch box's routes as the platform's topology gives them, and their
// image in the manager's SDRAM (ip/sb_routes.h) that the routing firmware
// reads.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace m2 {

struct SbRoutes {
  // Node address -> output port.
  std::map<uint16_t, unsigned> unicast;
  // Broadcast: per input port (index) the output port mask. Empty: every port
  // but the input one. Otherwise one entry per port (a spanning tree in
  // cascaded switch boxes).
  std::vector<uint32_t> broadcast;
  // Multicast group id (the header's destination) -> per input port the
  // output port mask, one entry per port.
  std::map<uint16_t, std::vector<uint32_t>> multicast;
  // Ports cabled towards the root of the up*/down* tree (bit p = port p).
  uint32_t up_ports = 0;
};

// The SB_ROUTES_SIZE-byte table image for a switch box with `ports` ports.
// Throws ConfigError naming `owner` and the bad entry (port or mask out of
// range, wrong number of per-input masks, too many groups).
std::vector<uint8_t> encode_routes(const SbRoutes& routes, unsigned ports, const std::string& owner);

}  // namespace m2
