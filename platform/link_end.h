// The ends of a cable in the cluster's wiring: a node's NI or one port of a
// switch box (platform/topology.*, platform/topology_shapes.*).
#pragma once

#include <string>

namespace m2 {

// One end of a cable: a node's NI (sb < 0) or port `port` of switch box `sb`.
struct LinkEnd {
  int node = -1;  // >= 0 for an NI
  int sb = -1;    // >= 0 for a switch box
  int port = -1;
  bool is_node() const { return node >= 0; }
  std::string str() const {  // "node3", "sb1.7"
    return is_node() ? "node" + std::to_string(node) : "sb" + std::to_string(sb) + "." + std::to_string(port);
  }
};

struct Cable {
  LinkEnd a, b;
};

}  // namespace m2
