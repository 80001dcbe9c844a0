// Fixed IP addresses of the simulated hosts: nodeN is 10.0.0.(N+1), named
// "nodeN" (docs/tcpip.md). Host byte order throughout.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace m2 {

constexpr uint32_t kNodeNetwork = 0x0A000000u;  // 10.0.0.0/8

inline uint32_t node_ip(int node) { return kNodeNetwork + static_cast<uint32_t>(node) + 1u; }

// The node an address belongs to, or nothing when it is not a node's address.
inline std::optional<int> ip_node(uint32_t ip, int nodes) {
  if ((ip & 0xFF000000u) != kNodeNetwork) return std::nullopt;
  const uint32_t n = (ip & 0x00FFFFFFu);
  if (n == 0 || n > static_cast<uint32_t>(nodes)) return std::nullopt;
  return static_cast<int>(n - 1);
}

inline std::string node_host_name(int node) { return "node" + std::to_string(node); }

}  // namespace m2
