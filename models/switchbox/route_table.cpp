#include "switchbox/route_table.h"

#include <cstdio>

#include <ip/sb_routes.h>

#include "core/bytes.h"
#include "core/params.h"

namespace m2 {

namespace {

void put32(std::vector<uint8_t>& img, uint32_t off, uint32_t v) {
  for (unsigned i = 0; i < 4; ++i) img.at(off + i) = static_cast<uint8_t>(v >> (24 - 8 * i));
}

void check_masks(const std::vector<uint32_t>& masks, unsigned ports, const std::string& what) {
  if (masks.size() != ports)
    throw ConfigError(what + ": " + std::to_string(masks.size()) + " masks given, one per input port (" +
                      std::to_string(ports) + ") expected");
  const uint32_t all = ports >= 32 ? ~0u : (1u << ports) - 1;
  for (unsigned in = 0; in < ports; ++in)
    if (masks[in] & ~all)
      throw ConfigError(what + ": mask " + hex(masks[in]) + " for input port " + std::to_string(in) +
                        " names ports beyond " + std::to_string(ports - 1));
}

}  // namespace

std::vector<uint8_t> encode_routes(const SbRoutes& r, unsigned ports, const std::string& owner) {
  if (ports == 0 || ports > SB_MAX_PORTS)
    throw ConfigError(owner + ": routes for " + std::to_string(ports) + " ports (1.." + std::to_string(SB_MAX_PORTS) +
                      ")");
  std::vector<uint8_t> img(SB_ROUTES_SIZE, 0);
  put32(img, SB_ROUTES_MAGIC_OFF, SB_ROUTES_MAGIC);
  put32(img, SB_ROUTES_VERSION_OFF, SB_ROUTES_VERSION);
  put32(img, SB_ROUTES_PORTS_OFF, ports);
  const uint32_t all = (1u << ports) - 1;
  if (r.up_ports & ~all)
    throw ConfigError(owner + ": up-port mask " + hex(r.up_ports) + " names ports beyond " + std::to_string(ports - 1));
  put32(img, SB_ROUTES_UP_PORTS_OFF, r.up_ports);
  if (r.broadcast.empty()) {
    for (unsigned in = 0; in < ports; ++in) put32(img, SB_ROUTES_BCAST_OFF(in), all & ~(1u << in));
  } else {
    check_masks(r.broadcast, ports, owner + ": broadcast routes");
    for (unsigned in = 0; in < ports; ++in) put32(img, SB_ROUTES_BCAST_OFF(in), r.broadcast[in]);
  }
  if (r.multicast.size() > SB_ROUTES_MAX_GROUPS)
    throw ConfigError(owner + ": " + std::to_string(r.multicast.size()) + " multicast groups, at most " +
                      std::to_string(SB_ROUTES_MAX_GROUPS));
  unsigned g = 0;
  for (const auto& [group, masks] : r.multicast) {
    check_masks(masks, ports, owner + ": multicast group " + std::to_string(group));
    put32(img, SB_ROUTES_MCAST_OFF(g) + SB_ROUTES_MCAST_GROUP, group);
    for (unsigned in = 0; in < ports; ++in) put32(img, SB_ROUTES_MCAST_OFF(g) + SB_ROUTES_MCAST_MASK(in), masks[in]);
    ++g;
  }
  put32(img, SB_ROUTES_GROUPS_OFF, g);
  for (const auto& [addr, port] : r.unicast) {
    if (port >= ports)
      throw ConfigError(owner + ": unicast route to node " + hex(addr) + " names port " + std::to_string(port) +
                        " (ports 0.." + std::to_string(ports - 1) + ")");
    img.at(SB_ROUTES_UNICAST_OFF(addr)) = static_cast<uint8_t>(port + 1);
  }
  return img;
}

}  // namespace m2
