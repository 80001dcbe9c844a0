// The cluster's wiring and routes, computed before any model is built: which
// NI is cabled to which switch-box port, which switch-box ports are cabled to
// each other, and for every switch box the output port towards every node
// (unicast), the ports a broadcast leaves on (per input port) and the same
// for multicast groups. The switch boxes form a chain, a tree or a fat tree
// (topology.shape, platform/topology_shapes.h) or follow explicit cabling.
// Routes follow up*/down* on a BFS spanning tree of the switch boxes
// (deadlock-free on any connected graph; on a tree, rooted at its root),
// a fat tree's unicast goes up by the destination's digits and down
// again; a channel-dependency
// check rejects any route set with a cycle, so an impossible or deadlocking
// topology is a clear error before simulation starts.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "platform/link_end.h"
#include "platform/topology_shapes.h"

namespace m2 {

// Routing tables of one switch box.
struct SbRouteTable {
  std::vector<int> unicast;                        // node address -> output port
  std::vector<uint32_t> broadcast;                 // input port -> output port mask
  std::map<int, std::vector<uint32_t>> multicast;  // group -> input port -> output port mask
  uint32_t up_ports = 0;  // ports cabled to a switch box nearer the root (lower BFS level, then index)
};

struct TopologySpec {
  int nodes = 2;
  int switch_boxes = 0;  // 0: as few as the ports allow (a chain of SBs)
  int ports_per_sb = 8;
  // chain | tree | fat-tree (platform/topology_shapes.h); empty: not given
  // (a chain, or the explicit `links`).
  std::string shape;
  std::string shape_origin;  // where `shape` came from (empty: origin)
  // Explicit cabling, "node0:sb0.0 node1:sb0.1 sb0.7:sb1.7" (empty: automatic).
  std::string links;
  std::string routing = "updown";  // updown | shortest (may deadlock: checked)
  // Multicast groups: group id -> member nodes.
  std::map<int, std::vector<int>> groups;
  std::string origin;         // where the spec came from, for error messages
  std::string groups_origin;  // where `groups` came from (empty: origin)
};

class Topology {
 public:
  // Throws ConfigError naming what is wrong: too many nodes for the ports, a
  // port used twice, a node left unconnected or cabled twice, switch boxes not
  // connected to each other, a malformed link, routes that could deadlock.
  explicit Topology(const TopologySpec& spec);

  // The most nodes any shape addresses: the MMP firmware's node table
  // (MMP_MAX_NODES; the MLX header's 16-bit addresses would allow more).
  static constexpr int kMaxNodes = 256;

  int nodes() const { return m_nodes; }
  int switch_boxes() const { return m_sbs; }
  int ports_per_sb() const { return m_ports; }
  const std::string& shape() const { return m_shape; }  // chain | tree | fat-tree | links
  const std::vector<Cable>& cables() const { return m_cables; }
  // The switch-box port a node is cabled to.
  const LinkEnd& attachment(int node) const { return m_attach.at(static_cast<size_t>(node)); }
  const SbRouteTable& routes(int sb) const { return m_routes.at(static_cast<size_t>(sb)); }
  // Switch boxes a message from `src` to `dst` crosses (for tests and reports).
  std::vector<int> path(int src, int dst) const;
  // Human-readable wiring and routes.
  std::string describe() const;

 private:
  void build_automatic();
  void build_shape(const TopologySpec& spec);
  void parse_links(const std::string& text);
  void connect(const LinkEnd& a, const LinkEnd& b);
  void check_connected() const;
  void compute_routes(bool updown);
  void check_deadlock_free() const;
  [[noreturn]] void fail(const std::string& what) const;

  int m_nodes, m_sbs = 0, m_ports;
  std::string m_origin;
  std::string m_shape;
  int m_root = 0;                  // the spanning tree's root switch box
  std::vector<int> m_shape_depth;  // per sb, a shape's levels below its top (empty: BFS depth)
  FatTreeGeometry m_fat_tree;      // k > 0: a fat tree's unicast routes
  std::vector<Cable> m_cables;
  std::vector<LinkEnd> m_attach;                  // per node
  std::vector<std::vector<LinkEnd>> m_port_peer;  // per sb, per port: the other end (or none)
  std::vector<int> m_level;                       // per sb: depth below the root
  std::vector<std::vector<int>> m_next_port;      // per sb, per destination sb: output port
  std::vector<SbRouteTable> m_routes;
  std::map<int, std::vector<int>> m_groups;
};

}  // namespace m2
