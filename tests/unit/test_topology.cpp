// Unit tests for the topology builder (platform/topology.*): automatic and
// explicit cabling, unicast/broadcast/multicast tables, and every kind of
// impossible topology reported before simulation.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "core/params.h"
#include "platform/topology.h"

using Catch::Matchers::Contains;
using m2::Topology;
using m2::TopologySpec;

namespace {

TopologySpec spec(int nodes, int sbs = 0, const std::string& links = "", const std::string& routing = "updown") {
  TopologySpec s;
  s.nodes = nodes;
  s.switch_boxes = sbs;
  s.links = links;
  s.routing = routing;
  s.origin = "test.yaml";
  return s;
}

// Every ordered pair has a route that ends at the destination's switch box,
// and following the tables from the last switch box reaches the node itself.
void check_all_routes(const Topology& t) {
  for (int src = 0; src < t.nodes(); ++src)
    for (int dst = 0; dst < t.nodes(); ++dst) {
      if (src == dst) continue;
      const std::vector<int> p = t.path(src, dst);
      INFO("node" << src << " -> node" << dst);
      REQUIRE(!p.empty());
      CHECK(p.front() == t.attachment(src).sb);
      CHECK(p.back() == t.attachment(dst).sb);
      CHECK(t.routes(p.back()).unicast[static_cast<size_t>(dst)] == t.attachment(dst).port);
    }
}

}  // namespace

TEST_CASE("topology: two nodes on one switch box", "[topology]") {
  const Topology t(spec(2));
  CHECK(t.switch_boxes() == 1);
  CHECK(t.attachment(0).sb == 0);
  CHECK(t.attachment(0).port == 0);
  CHECK(t.attachment(1).port == 1);
  CHECK(t.routes(0).unicast == std::vector<int>{0, 1});
  CHECK(t.routes(0).broadcast[0] == 0x2u);  // from node0's port: to port 1 only
  CHECK(t.routes(0).broadcast[1] == 0x1u);
  check_all_routes(t);
}

TEST_CASE("topology: up to 8 nodes share one switch box, more cascade switch boxes", "[topology]") {
  CHECK(Topology(spec(8)).switch_boxes() == 1);
  const Topology t9(spec(9));
  CHECK(t9.switch_boxes() == 2);  // 2 x 8 ports - 2 for the cable between them = 14 node ports
  const Topology t16(spec(16));
  CHECK(t16.switch_boxes() == 3);  // 24 - 4 = 20 >= 16
  check_all_routes(t9);
  check_all_routes(t16);
  // No port is used twice and every node is cabled once.
  std::set<std::pair<int, int>> used;
  for (const m2::Cable& c : t16.cables())
    for (const m2::LinkEnd& e : {c.a, c.b})
      if (!e.is_node()) CHECK(used.insert({e.sb, e.port}).second);
  CHECK(t16.cables().size() == 16 + 2);
  // The ends of the chain are two switch-box hops apart.
  CHECK(t16.path(0, 15) == std::vector<int>{0, 1, 2});
  CHECK(t16.path(15, 0) == std::vector<int>{2, 1, 0});
}

TEST_CASE("topology: broadcast reaches every other node once, along the tree", "[topology]") {
  const Topology t(spec(9));
  // From node0's port on sb0: all of sb0's other node ports and the cable to sb1.
  const uint32_t from0 = t.routes(0).broadcast[static_cast<size_t>(t.attachment(0).port)];
  int reached = 0;
  for (int p = 0; p < 8; ++p)
    if (from0 & (1u << p)) ++reached;
  CHECK((from0 & (1u << 7)) != 0);  // sb0.7 is the cable to sb1
  CHECK((from0 & 1u) == 0);         // never back where it came from
  // sb1, entered on its cable port 6, forwards to its nodes only.
  const uint32_t at_sb1 = t.routes(1).broadcast[6];
  CHECK((at_sb1 & (1u << 6)) == 0);
  int nodes_sb1 = 0, nodes_sb0 = 0;
  for (int n = 0; n < 9; ++n) (t.attachment(n).sb == 1 ? nodes_sb1 : nodes_sb0)++;
  int sb1_ports = 0;
  for (int p = 0; p < 8; ++p)
    if (at_sb1 & (1u << p)) ++sb1_ports;
  CHECK(sb1_ports == nodes_sb1);
  CHECK(reached == nodes_sb0 - 1 + 1);
}

TEST_CASE("topology: multicast groups prune ports without members", "[topology]") {
  TopologySpec s = spec(9);
  s.groups[3] = {0, 2};  // both on sb0
  s.groups[4] = {1, 8};  // node8 is on sb1
  const Topology t(s);
  const auto& g3 = t.routes(0).multicast.at(3);
  CHECK(g3[1] == ((1u << t.attachment(0).port) | (1u << t.attachment(2).port)));  // from node1
  CHECK(g3[0] == (1u << t.attachment(2).port));                                   // from node0 itself
  const auto& g4 = t.routes(0).multicast.at(4);
  CHECK(g4[0] == ((1u << t.attachment(1).port) | (1u << 7)));  // node1 and the cable towards node8
  CHECK(t.routes(1).multicast.at(3)[6] == 0u);                 // sb1 has no member of group 3
}

TEST_CASE("topology: explicit cabling", "[topology]") {
  const Topology t(spec(3, 2, "node0:sb0.2 node1:sb1.0, node2:sb1.5 sb0.7:sb1.7"));
  CHECK(t.attachment(0).port == 2);
  CHECK(t.attachment(2).sb == 1);
  CHECK(t.routes(0).unicast == std::vector<int>{2, 7, 7});
  CHECK(t.routes(1).unicast == std::vector<int>{7, 0, 5});
  check_all_routes(t);
}

TEST_CASE("topology: impossible topologies are clear errors", "[topology]") {
  CHECK_THROWS_WITH(
      Topology(spec(9, 1)),
      Contains("test.yaml") && Contains("9 nodes but 1 switch box(es) of 8 ports offer only 8 node ports"));
  CHECK_THROWS_WITH(Topology(spec(2, 1, "node0:sb0.1 node1:sb0.1")), Contains("port sb0.1 is used twice"));
  CHECK_THROWS_WITH(Topology(spec(3, 1, "node0:sb0.0 node1:sb0.1")), Contains("node2 is not cabled"));
  CHECK_THROWS_WITH(Topology(spec(2, 1, "node0:sb0.0 node0:sb0.1 node1:sb0.2")), Contains("node0 is cabled twice"));
  CHECK_THROWS_WITH(Topology(spec(2, 2, "node0:sb0.0 node1:sb1.0")), Contains("sb1 is not connected to sb0"));
  CHECK_THROWS_WITH(Topology(spec(2, 1, "node0-sb0.0")), Contains("is not END:END"));
  CHECK_THROWS_WITH(Topology(spec(2, 1, "node0:sb0.9 node1:sb0.0")), Contains("ports 0..7"));
  CHECK_THROWS_WITH(Topology(spec(2, 1, "node0:node1")), Contains("must be cabled to a switch-box port"));
  CHECK_THROWS_WITH(Topology(spec(2, 1, "node0:sb3.0")), Contains("there are 1 switch boxes"));
  TopologySpec g = spec(2);
  g.groups[1] = {0, 5};
  CHECK_THROWS_WITH(Topology(g), Contains("multicast group 1 names node 5"));
}

TEST_CASE("topology: shortest-path routes on a ring of switch boxes deadlock, up/down routes do not", "[topology]") {
  // Five switch boxes in a ring, one node each.
  const std::string ring =
      "node0:sb0.0 node1:sb1.0 node2:sb2.0 node3:sb3.0 node4:sb4.0 "
      "sb0.1:sb1.2 sb1.1:sb2.2 sb2.1:sb3.2 sb3.1:sb4.2 sb4.1:sb0.2";
  CHECK_THROWS_WITH(Topology(spec(5, 5, ring, "shortest")), Contains("routes could deadlock") && Contains("cycle"));
  const Topology t(spec(5, 5, ring, "updown"));
  check_all_routes(t);
}
