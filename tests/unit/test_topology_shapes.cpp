// Unit tests for the switch-box shapes tree and fat-tree (platform/topology_shapes.*
// through platform/topology.*): switch-box counts, where every node is cabled,
// path lengths, routes that reach every destination going up then down only
// (so the channel dependency graph has no cycle), broadcasts that reach every
// node once, and the errors for what a shape cannot build.
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/params.h"
#include "platform/topology.h"

using Catch::Matchers::Contains;
using m2::Topology;
using m2::TopologySpec;

namespace {

TopologySpec shaped(int nodes, const std::string& shape, int ports = 8) {
  TopologySpec s;
  s.nodes = nodes;
  s.ports_per_sb = ports;
  s.shape = shape;
  s.origin = "test.yaml";
  s.shape_origin = "test.yaml:4";
  return s;
}

// Every node cabled once, no switch-box port used twice.
void check_cabling(const Topology& t) {
  std::set<std::pair<int, int>> ports;
  std::vector<int> node_cables(static_cast<size_t>(t.nodes()), 0);
  for (const m2::Cable& c : t.cables())
    for (const m2::LinkEnd& e : {c.a, c.b}) {
      if (e.is_node()) ++node_cables[static_cast<size_t>(e.node)];
      else CHECK(ports.insert({e.sb, e.port}).second);
    }
  for (int n = 0; n < t.nodes(); ++n) {
    INFO("node" << n);
    CHECK(node_cables[static_cast<size_t>(n)] == 1);
  }
}

// The peer of port `port` of switch box `sb` (a LinkEnd with sb < 0 and node
// < 0 when nothing is cabled there).
m2::LinkEnd peer_of(const Topology& t, int sb, int port) {
  for (const m2::Cable& c : t.cables()) {
    if (!c.a.is_node() && c.a.sb == sb && c.a.port == port) return c.b;
    if (!c.b.is_node() && c.b.sb == sb && c.b.port == port) return c.a;
  }
  return {};
}

// Every (src, dst) route ends at dst's port, and goes up (through the
// switch boxes' up ports) before it goes down, never up again after a down
// hop: up*/down* routes, whose channel dependency graph has no cycle.
// Returns the most switch boxes on one path.
size_t check_routes_up_then_down(const Topology& t) {
  size_t longest = 0;
  for (int src = 0; src < t.nodes(); ++src)
    for (int dst = 0; dst < t.nodes(); ++dst) {
      if (src == dst) continue;
      const std::vector<int> p = t.path(src, dst);
      REQUIRE(!p.empty());
      if (p.front() != t.attachment(src).sb || p.back() != t.attachment(dst).sb ||
          t.routes(p.back()).unicast[static_cast<size_t>(dst)] != t.attachment(dst).port)
        FAIL("node" << src << " -> node" << dst << " does not reach node" << dst);
      bool went_down = false;
      for (size_t i = 0; i + 1 < p.size(); ++i) {
        const int port = t.routes(p[i]).unicast[static_cast<size_t>(dst)];
        const bool up = (t.routes(p[i]).up_ports >> port) & 1u;
        if (up && went_down) FAIL("node" << src << " -> node" << dst << " goes up again at sb" << p[i]);
        went_down = went_down || !up;
      }
      longest = std::max(longest, p.size());
    }
  return longest;
}

// Follows the broadcast masks from `src`'s port: how often each node receives.
std::vector<int> broadcast_deliveries(const Topology& t, int src) {
  std::vector<int> got(static_cast<size_t>(t.nodes()), 0);
  std::deque<m2::LinkEnd> arrivals{t.attachment(src)};  // switch box and input port
  for (int steps = 0; !arrivals.empty() && steps < 100000; ++steps) {
    const m2::LinkEnd in = arrivals.front();
    arrivals.pop_front();
    const uint32_t mask = t.routes(in.sb).broadcast[static_cast<size_t>(in.port)];
    for (int p = 0; p < t.ports_per_sb(); ++p) {
      if (!((mask >> p) & 1u)) continue;
      const m2::LinkEnd peer = peer_of(t, in.sb, p);
      if (peer.is_node()) ++got[static_cast<size_t>(peer.node)];
      else if (peer.sb >= 0) arrivals.push_back(peer);
    }
  }
  REQUIRE(arrivals.empty());  // no broadcast circles forever
  return got;
}

}  // namespace

TEST_CASE("topology shapes: a tree of 8-port switch boxes at 8, 64 and 256 nodes", "[topology]") {
  struct Case {
    int nodes, sbs;
    size_t longest;  // switch boxes on the longest path
  };
  for (const Case c : {Case{8, 1, 1}, Case{64, 13, 5}, Case{256, 44, 5}}) {
    INFO(c.nodes << " nodes");
    const Topology t(shaped(c.nodes, "tree"));
    CHECK(t.shape() == "tree");
    CHECK(t.switch_boxes() == c.sbs);
    check_cabling(t);
    CHECK(check_routes_up_then_down(t) == c.longest);
    if (c.nodes > 8)
      for (int n = 0; n < c.nodes; ++n) {  // node i on leaf i/7, port i%7
        CHECK(t.attachment(n).sb == n / 7);
        CHECK(t.attachment(n).port == n % 7);
      }
    // Only the root (the last switch box) has no up port; the others go up on port 7.
    for (int s = 0; s + 1 < t.switch_boxes(); ++s) CHECK(t.routes(s).up_ports == 1u << 7);
    CHECK(t.routes(t.switch_boxes() - 1).up_ports == 0u);
    CHECK_THAT(t.describe(), Contains("shape tree"));
  }
}

TEST_CASE("topology shapes: the tree's levels group the level below in order", "[topology]") {
  const Topology t(shaped(64, "tree"));  // 10 leaves (sb0..9), 2 middle (sb10, 11), root sb12
  CHECK(peer_of(t, 0, 7).sb == 10);
  CHECK(peer_of(t, 0, 7).port == 0);
  CHECK(peer_of(t, 6, 7).port == 6);
  CHECK(peer_of(t, 7, 7).sb == 11);
  CHECK(peer_of(t, 9, 7).port == 2);
  CHECK(peer_of(t, 10, 7).sb == 12);
  CHECK(peer_of(t, 11, 7).port == 1);
  CHECK(peer_of(t, 12, 2).sb == -1);  // the root takes two boxes, on ports 0 and 1
  // Same leaf: one box; leaves under one middle box: three; else five.
  CHECK(t.path(0, 6).size() == 1);
  CHECK(t.path(0, 48) == std::vector<int>{0, 10, 6});
  CHECK(t.path(0, 63) == std::vector<int>{0, 10, 12, 11, 9});
}

TEST_CASE("topology shapes: a fat tree (4-ary n-tree of 8-port switch boxes) at 8, 64 and 256 nodes", "[topology]") {
  struct Case {
    int nodes, levels, sbs;
  };
  for (const Case c : {Case{8, 2, 8}, Case{64, 3, 48}, Case{256, 4, 256}}) {
    INFO(c.nodes << " nodes");
    const Topology t(shaped(c.nodes, "fat-tree"));
    CHECK(t.shape() == "fat-tree");
    CHECK(t.switch_boxes() == c.sbs);
    check_cabling(t);
    // The farthest pairs cross 2n-1 switch boxes; none crosses more.
    CHECK(check_routes_up_then_down(t) == static_cast<size_t>(2 * c.levels - 1));
    CHECK(t.path(0, c.nodes - 1).size() == static_cast<size_t>(2 * c.levels - 1));
    CHECK(t.path(0, 3).size() == 1);  // the same leaf
    for (int n = 0; n < c.nodes; ++n) {
      CHECK(t.attachment(n).sb == n / 4);
      CHECK(t.attachment(n).port == n % 4);
    }
    const int per_level = c.sbs / c.levels;
    for (int s = 0; s < c.sbs; ++s) CHECK(t.routes(s).up_ports == (s < c.sbs - per_level ? 0xF0u : 0u));
    CHECK_THAT(t.describe(), Contains("shape fat-tree (4-ary " + std::to_string(c.levels) + "-tree)"));
  }
}

TEST_CASE("topology shapes: fat-tree routes go up by the destination node's digits, then down", "[topology]") {
  const Topology t(shaped(256, "fat-tree"));  // <w, l> is sb 64 l + w
  // node201 has digits 1,2,0,3 and is on leaf 50 (digits 2,0,3): up ports
  // 4+1, 4+2, 4+0 to <1,1>, <9,2>, <9,3>, then down by the leaf's digits
  // 3, 0, 2 to <57,2>, <49,1>, <50,0>: at level l, node201 without digit l.
  CHECK(t.path(0, 201) == std::vector<int>{0, 65, 137, 201, 185, 113, 50});
  CHECK(t.routes(0).unicast[201] == 4 + 1);
  CHECK(t.routes(201).unicast[201] == 3);
  // node4 and node5 share leaf 1 but differ in digit 0: up to <0,1> and <1,1>.
  CHECK(t.path(0, 4) == std::vector<int>{0, 64, 1});
  CHECK(t.path(0, 5) == std::vector<int>{0, 65, 1});
  CHECK(t.routes(0).unicast[4] == 4 + 0);
  CHECK(t.routes(64).unicast[4] == 1);
  // Every sender's messages to one destination meet on the same top box.
  for (int src : {0, 17, 100, 150}) CHECK(t.path(src, 201)[3] == 201);
}

TEST_CASE("topology shapes: a fat tree's all-to-all loads its channels evenly, N - k at most", "[topology]") {
  // 4-ary 3-tree: up by the destination node's digits (d-mod-k), a channel
  // between levels l and l+1 carries N - k^(l+1) flows of an all-to-all:
  // down, those of one destination from the senders outside its k^(l+1)
  // subtree; up, those of k^(l+1) senders to the destinations outside it.
  // (Up by the leaf's digits, the busiest channel carried k(N - k) = 240.)
  const int nodes = 64, k = 4, per_level = 16;
  const Topology t(shaped(nodes, "fat-tree"));
  std::map<std::pair<int, int>, int> flows;  // (sb, output port) between switch boxes
  for (int src = 0; src < nodes; ++src)
    for (int dst = 0; dst < nodes; ++dst) {
      if (src == dst) continue;
      const std::vector<int> p = t.path(src, dst);
      for (size_t i = 0; i + 1 < p.size(); ++i) ++flows[{p[i], t.routes(p[i]).unicast[static_cast<size_t>(dst)]}];
    }
  int busiest = 0;
  for (const auto& [channel, count] : flows) {
    const int sb = channel.first, level = sb / per_level;
    const bool up = channel.second >= k;
    const int upper = up ? level + 1 : level;  // the channel joins levels upper-1 and upper
    INFO("sb" << sb << " port " << channel.second);
    CHECK(count == nodes - (upper == 1 ? k : k * k));
    busiest = std::max(busiest, count);
  }
  CHECK(flows.size() == 2u * 2u * 16u * 4u);  // both ways over the 2 x 64 cables between levels
  CHECK(busiest == nodes - k);
}

TEST_CASE("topology shapes: broadcast reaches every other node exactly once", "[topology]") {
  for (const std::string shape : {"tree", "fat-tree"}) {
    INFO(shape);
    const Topology t(shaped(64, shape));
    for (int src : {0, 31, 63}) {
      const std::vector<int> got = broadcast_deliveries(t, src);
      for (int n = 0; n < t.nodes(); ++n) {
        INFO("from node" << src << " to node" << n);
        CHECK(got[static_cast<size_t>(n)] == (n == src ? 0 : 1));
      }
    }
  }
}

TEST_CASE("topology shapes: multicast on a tree reaches the members only", "[topology]") {
  TopologySpec s = shaped(64, "tree");
  s.groups[5] = {0, 63};
  const Topology t(s);
  // From node0 (sb0 port 0): up only; the root sends it on towards sb11 only.
  CHECK(t.routes(0).multicast.at(5)[0] == 1u << 7);
  CHECK(t.routes(12).multicast.at(5)[0] == 1u << 1);
}

TEST_CASE("topology shapes: what a shape cannot build is an error naming the key", "[topology]") {
  CHECK_THROWS_WITH(Topology(shaped(8, "ring")),
                    Contains("test.yaml:4") && Contains("topology.shape must be chain, tree or fat-tree, not 'ring'"));
  CHECK_THROWS_WITH(Topology(shaped(8, "tree", 2)), Contains("test.yaml:4") && Contains("topology.shape: tree") &&
                                                        Contains("at least 3 ports") && Contains("these have 2"));
  CHECK_THROWS_WITH(Topology(shaped(8, "fat-tree", 5)),
                    Contains("topology.shape: fat-tree") && Contains("even number of ports") && Contains("have 5"));
  CHECK_THROWS_WITH(Topology(shaped(8, "fat-tree", 2)), Contains("at least 4") && Contains("have 2"));
  CHECK_THROWS_WITH(Topology(shaped(257, "fat-tree")),
                    Contains("topology.nodes = 257 is more than the 256 nodes") && Contains("MMP_MAX_NODES"));
  CHECK_THROWS_WITH(Topology(shaped(300, "tree")), Contains("topology.nodes = 300"));
  TopologySpec links = shaped(2, "tree");
  links.links = "node0:sb0.0 node1:sb0.1";
  CHECK_THROWS_WITH(Topology(links),
                    Contains("test.yaml:4") && Contains("topology.links") && Contains("cannot be given with it"));
  links.shape = "chain";
  CHECK_THROWS_WITH(Topology(links), Contains("topology.links (explicit cabling) cannot be given together with "
                                              "topology.shape: chain"));
  TopologySpec boxes = shaped(16, "fat-tree");
  boxes.switch_boxes = 3;
  CHECK_THROWS_WITH(Topology(boxes), Contains("topology.switch_boxes = 3 is for a chain"));
  TopologySpec shortest = shaped(16, "tree");
  shortest.routing = "shortest";
  CHECK_THROWS_WITH(Topology(shortest), Contains("topology.routing = shortest") && Contains("expected updown"));
}

TEST_CASE("topology shapes: shape chain is the automatic chain, unchanged", "[topology]") {
  TopologySpec given = shaped(16, "chain"), unset = shaped(16, "");
  const Topology a(given), b(unset);
  CHECK(a.switch_boxes() == 3);
  CHECK(b.shape() == "chain");
  for (int s = 0; s < 3; ++s) {
    CHECK(a.routes(s).unicast == b.routes(s).unicast);
    CHECK(a.routes(s).broadcast == b.routes(s).broadcast);
    CHECK(a.routes(s).up_ports == b.routes(s).up_ports);
  }
  CHECK(a.path(0, 15) == std::vector<int>{0, 1, 2});
}

TEST_CASE("topology shapes: other port counts (a 4-port tree, a 6-port 3-ary fat tree)", "[topology]") {
  const Topology tree(shaped(20, "tree", 4));  // arity 3: 7 leaves, 3 middle, root
  CHECK(tree.switch_boxes() == 11);
  check_cabling(tree);
  check_routes_up_then_down(tree);
  const Topology fat(shaped(20, "fat-tree", 6));  // 3-ary 3-tree: 27 >= 20, 3 levels of 9
  CHECK(fat.switch_boxes() == 27);
  check_cabling(fat);
  CHECK(check_routes_up_then_down(fat) == 5);
}
