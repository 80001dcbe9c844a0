#include "platform/topology.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include "core/params.h"

namespace m2 {

Topology::Topology(const TopologySpec& spec)
    : m_nodes(spec.nodes), m_ports(spec.ports_per_sb), m_origin(spec.origin), m_groups(spec.groups) {
  if (m_nodes < 1) fail("a cluster needs at least one node (topology.nodes = " + std::to_string(m_nodes) + ")");
  if (m_ports < 2 || m_ports > 32) fail("a switch box has 2..32 ports, not " + std::to_string(m_ports));
  if (spec.routing != "updown" && spec.routing != "shortest")
    fail("topology.routing must be updown or shortest, not '" + spec.routing + "'");
  m_sbs = spec.switch_boxes;
  m_shape = spec.shape.empty() ? (spec.links.empty() ? "chain" : "links") : spec.shape;
  if (!spec.shape.empty() && spec.shape != "chain") {
    build_shape(spec);
  } else if (spec.links.empty()) {
    build_automatic();
  } else {
    if (!spec.shape.empty())
      throw ConfigError(
          (spec.shape_origin.empty() ? m_origin : spec.shape_origin) +
          ": impossible topology: topology.links (explicit cabling) cannot be given together with topology.shape: " +
          spec.shape + " (an automatic layout); drop one of them");
    if (m_sbs <= 0) fail("explicit topology.links need topology.switch_boxes > 0");
    m_port_peer.assign(static_cast<size_t>(m_sbs), std::vector<LinkEnd>(static_cast<size_t>(m_ports)));
    m_attach.assign(static_cast<size_t>(m_nodes), LinkEnd{});
    parse_links(spec.links);
  }
  check_connected();
  for (const auto& [group, members] : m_groups)
    for (int n : members)
      if (n < 0 || n >= m_nodes)
        throw ConfigError((spec.groups_origin.empty() ? m_origin : spec.groups_origin) +
                          ": impossible topology: multicast group " + std::to_string(group) + " names node " +
                          std::to_string(n) + " but there are " + std::to_string(m_nodes) + " nodes");
  compute_routes(spec.routing == "updown");
  check_deadlock_free();
}

void Topology::fail(const std::string& what) const {
  throw ConfigError((m_origin.empty() ? std::string() : m_origin + ": ") + "impossible topology: " + what);
}

// A tree or fat tree (platform/topology_shapes.h): checks what the shape
// needs, then cables it. Errors name topology.shape and where it was set.
void Topology::build_shape(const TopologySpec& spec) {
  const std::string& shape = spec.shape;
  auto refuse = [&](const std::string& what) {
    throw ConfigError((spec.shape_origin.empty() ? m_origin : spec.shape_origin) +
                      ": impossible topology: topology.shape: " + shape + ": " + what);
  };
  if (shape != "tree" && shape != "fat-tree")
    throw ConfigError((spec.shape_origin.empty() ? m_origin : spec.shape_origin) +
                      ": impossible topology: topology.shape must be chain, tree or fat-tree, not '" + shape + "'");
  if (!spec.links.empty())
    refuse(
        "the shape cables the switch boxes itself; topology.links (explicit cabling) cannot be given with it "
        "(drop one of them)");
  if (spec.switch_boxes > 0)
    refuse("the shape decides the number of switch boxes from topology.nodes and the ports; topology.switch_boxes = " +
           std::to_string(spec.switch_boxes) + " is for a chain (leave it 0)");
  if (spec.routing != "updown")
    refuse("the shape has its own deadlock-free routes; topology.routing = " + spec.routing +
           " is for a chain or explicit links (expected updown)");
  if (m_nodes > kMaxNodes)
    refuse("topology.nodes = " + std::to_string(m_nodes) + " is more than the " + std::to_string(kMaxNodes) +
           " nodes the network addresses (the MMP firmware's node table, MMP_MAX_NODES)");
  if (shape == "tree" && m_ports < 3)
    refuse("a tree needs switch boxes of at least 3 ports (an up port and two down ports), these have " +
           std::to_string(m_ports) + " (sb*.ports)");
  if (shape == "fat-tree" && (m_ports < 4 || m_ports % 2 != 0))
    refuse(
        "a fat tree needs an even number of ports per switch box, at least 4 (k = ports/2 down, k up), these "
        "have " +
        std::to_string(m_ports) + " (sb*.ports)");
  const ShapeLayout layout = shape == "tree" ? tree_layout(m_nodes, m_ports) : fat_tree_layout(m_nodes, m_ports);
  m_sbs = layout.switch_boxes;
  m_root = layout.root;
  m_shape_depth = layout.depth;
  m_fat_tree = layout.fat_tree;
  m_port_peer.assign(static_cast<size_t>(m_sbs), std::vector<LinkEnd>(static_cast<size_t>(m_ports)));
  m_attach.assign(static_cast<size_t>(m_nodes), LinkEnd{});
  for (const Cable& c : layout.cables) connect(c.a, c.b);
}

// A chain of switch boxes: sb j's last port is cabled to sb j+1's
// second-to-last port; the other ports take nodes, spread evenly.
void Topology::build_automatic() {
  const int chain_cost = 2;  // ports a middle switch box gives to the chain
  // The longest chain built automatically: a message crosses every box of
  // it, so longer chains are for the shapes (and explicit cabling).
  constexpr int kMaxChainBoxes = 64;
  if (m_sbs <= 0) {
    m_sbs = 1;
    while (m_sbs * m_ports - chain_cost * (m_sbs - 1) < m_nodes) {
      if (++m_sbs > kMaxChainBoxes)
        fail(std::to_string(m_nodes) + " nodes on " + std::to_string(m_ports) + "-port switch boxes need more than " +
             std::to_string(kMaxChainBoxes) + " boxes as a chain (a middle box gives " +
             std::to_string(std::max(m_ports - chain_cost, 0)) + " ports to nodes, each end box " +
             std::to_string(m_ports - 1) + "); use topology.shape: tree or fat-tree, or boxes with more ports");
    }
  }
  const int capacity = m_sbs * m_ports - chain_cost * (m_sbs - 1);
  if (m_nodes > capacity)
    fail(std::to_string(m_nodes) + " nodes but " + std::to_string(m_sbs) + " switch box(es) of " +
         std::to_string(m_ports) + " ports offer only " + std::to_string(capacity) + " node ports");
  m_port_peer.assign(static_cast<size_t>(m_sbs), std::vector<LinkEnd>(static_cast<size_t>(m_ports)));
  m_attach.assign(static_cast<size_t>(m_nodes), LinkEnd{});
  for (int j = 0; j + 1 < m_sbs; ++j) connect({-1, j, m_ports - 1}, {-1, j + 1, m_ports - 2});
  int node = 0;
  for (int j = 0; j < m_sbs; ++j) {
    const int left = m_sbs - j;  // switch boxes still to fill, this one included
    int want = (m_nodes - node + left - 1) / left;
    for (int p = 0; p < m_ports && want > 0 && node < m_nodes; ++p) {
      if (m_port_peer[static_cast<size_t>(j)][static_cast<size_t>(p)].sb >= 0 ||
          m_port_peer[static_cast<size_t>(j)][static_cast<size_t>(p)].is_node())
        continue;
      connect({node, -1, -1}, {-1, j, p});
      ++node;
      --want;
    }
  }
  if (node < m_nodes) fail("could not place node" + std::to_string(node) + " on a free switch-box port");
}

void Topology::parse_links(const std::string& text) {
  const std::regex end_re(R"(node(\d+)|sb(\d+)\.(\d+))");
  std::string t = text;
  std::replace(t.begin(), t.end(), ',', ' ');
  std::istringstream in(t);
  for (std::string tok; in >> tok;) {
    const auto colon = tok.find(':');
    if (colon == std::string::npos) fail("link '" + tok + "' is not END:END (e.g. node0:sb0.0 or sb0.7:sb1.7)");
    LinkEnd e[2];
    const std::string parts[2] = {tok.substr(0, colon), tok.substr(colon + 1)};
    for (int i = 0; i < 2; ++i) {
      std::smatch m;
      if (!std::regex_match(parts[i], m, end_re))
        fail("link '" + tok + "': '" + parts[i] + "' is neither nodeN nor sbS.P");
      // Numbers too long for an int are out of range by far (node/sb/port
      // limits are in the hundreds); the checks below then say which.
      auto number = [](const std::ssub_match& digits) {
        return digits.length() > 6 ? 999999 : std::stoi(digits.str());
      };
      if (m[1].matched) {
        e[i].node = number(m[1]);
        if (e[i].node >= m_nodes)
          fail("link '" + tok + "' names node" + m[1].str() + " but there are " + std::to_string(m_nodes) + " nodes");
      } else {
        e[i].sb = number(m[2]);
        e[i].port = number(m[3]);
        if (e[i].sb >= m_sbs)
          fail("link '" + tok + "' names sb" + m[2].str() + " but there are " + std::to_string(m_sbs) +
               " switch boxes");
        if (e[i].port >= m_ports)
          fail("link '" + tok + "' names port " + m[3].str() + " but a switch box has ports 0.." +
               std::to_string(m_ports - 1));
      }
    }
    connect(e[0], e[1]);
  }
}

void Topology::connect(const LinkEnd& a, const LinkEnd& b) {
  if (a.is_node() && b.is_node())
    fail("cable " + a.str() + ":" + b.str() + ": an NI must be cabled to a switch-box port");
  // By index, not over {a, b}: that list holds copies, and the other end
  // must be told apart by position.
  const LinkEnd* ends[2] = {&a, &b};
  for (int i = 0; i < 2; ++i) {
    const LinkEnd& e = *ends[i];
    const LinkEnd& other = *ends[1 - i];
    if (e.is_node()) {
      if (m_attach[static_cast<size_t>(e.node)].sb >= 0)
        fail(e.str() + " is cabled twice (to " + m_attach[static_cast<size_t>(e.node)].str() + " and to " +
             other.str() + ")");
    } else {
      const LinkEnd& peer = m_port_peer[static_cast<size_t>(e.sb)][static_cast<size_t>(e.port)];
      if (peer.sb >= 0 || peer.is_node())
        fail("port " + e.str() + " is used twice (cabled to " + peer.str() + " and to " + other.str() + ")");
    }
  }
  if (!a.is_node() && !b.is_node() && a.sb == b.sb && a.port == b.port)
    fail("cable " + a.str() + ":" + b.str() + " connects a port to itself");
  // The switch box's own switching bus joins its ports; a loop cable would
  // only make a routing cycle inside one box.
  if (!a.is_node() && !b.is_node() && a.sb == b.sb)
    fail("cable " + a.str() + ":" + b.str() +
         " connects two ports of the same switch box (expected a cable to "
         "another switch box or a node)");
  m_port_peer[static_cast<size_t>(a.sb >= 0 ? a.sb : b.sb)][static_cast<size_t>(a.sb >= 0 ? a.port : b.port)] =
      a.sb >= 0 ? b : a;
  if (!a.is_node() && !b.is_node()) m_port_peer[static_cast<size_t>(b.sb)][static_cast<size_t>(b.port)] = a;
  if (a.is_node()) m_attach[static_cast<size_t>(a.node)] = b;
  if (b.is_node()) m_attach[static_cast<size_t>(b.node)] = a;
  m_cables.push_back({a, b});
}

void Topology::check_connected() const {
  for (int n = 0; n < m_nodes; ++n)
    if (m_attach[static_cast<size_t>(n)].sb < 0) fail("node" + std::to_string(n) + " is not cabled to any switch box");
  std::vector<bool> seen(static_cast<size_t>(m_sbs), false);
  std::deque<int> q{0};
  seen[0] = true;
  while (!q.empty()) {
    const int s = q.front();
    q.pop_front();
    for (const LinkEnd& peer : m_port_peer[static_cast<size_t>(s)])
      if (peer.sb >= 0 && !seen[static_cast<size_t>(peer.sb)]) {
        seen[static_cast<size_t>(peer.sb)] = true;
        q.push_back(peer.sb);
      }
  }
  for (int s = 0; s < m_sbs; ++s)
    if (!seen[static_cast<size_t>(s)])
      fail("sb" + std::to_string(s) + " is not connected to sb0 (its nodes could not reach the others)");
}

// updown: routes along a BFS spanning tree of the switch boxes rooted at m_root
// (up to the common ancestor, then down), which never turns from a down link
// back to an up link: deadlock-free on any graph, and destination-based, as
// the switch boxes' tables need. shortest: plain shortest paths (can deadlock
// on cyclic graphs; check_deadlock_free() then says so).
void Topology::compute_routes(bool updown) {
  const size_t S = static_cast<size_t>(m_sbs);
  // Tree edges: BFS from the root (sb0 but in a tree or fat tree), lowest port first.
  m_level.assign(S, -1);
  m_level[static_cast<size_t>(m_root)] = 0;
  std::deque<int> q{m_root};
  std::set<std::pair<int, int>> tree_ports;  // (sb, port) on a tree edge
  while (!q.empty()) {
    const int s = q.front();
    q.pop_front();
    for (int p = 0; p < m_ports; ++p) {
      const LinkEnd& peer = m_port_peer[static_cast<size_t>(s)][static_cast<size_t>(p)];
      if (peer.sb < 0 || m_level[static_cast<size_t>(peer.sb)] >= 0) continue;
      m_level[static_cast<size_t>(peer.sb)] = m_level[static_cast<size_t>(s)] + 1;
      tree_ports.insert({s, p});
      tree_ports.insert({peer.sb, peer.port});
      q.push_back(peer.sb);
    }
  }
  // A fat tree's up ports are those towards its top level, whichever top
  // box the spanning tree starts from.
  if (!m_shape_depth.empty()) m_level = m_shape_depth;
  // Next hop towards each switch box: BFS from the destination over the
  // allowed edges (tree edges for updown, all switch-box cables otherwise).
  m_next_port.assign(S, std::vector<int>(S, -1));
  for (int dst = 0; dst < m_sbs; ++dst) {
    std::vector<int> dist(S, -1);
    dist[static_cast<size_t>(dst)] = 0;
    std::deque<int> bq{dst};
    while (!bq.empty()) {
      const int s = bq.front();
      bq.pop_front();
      for (int p = 0; p < m_ports; ++p) {
        const LinkEnd& peer = m_port_peer[static_cast<size_t>(s)][static_cast<size_t>(p)];
        if (peer.sb < 0 || dist[static_cast<size_t>(peer.sb)] >= 0) continue;
        if (updown && !tree_ports.count({s, p})) continue;
        dist[static_cast<size_t>(peer.sb)] = dist[static_cast<size_t>(s)] + 1;
        m_next_port[static_cast<size_t>(peer.sb)][static_cast<size_t>(dst)] = peer.port;  // peer's port towards s
        bq.push_back(peer.sb);
      }
    }
  }
  // Nodes behind each tree port (for multicast pruning).
  std::function<void(int, int, std::set<int>&)> collect = [&](int s, int from, std::set<int>& out) {
    for (int p = 0; p < m_ports; ++p) {
      const LinkEnd& peer = m_port_peer[static_cast<size_t>(s)][static_cast<size_t>(p)];
      if (peer.is_node()) out.insert(peer.node);
      else if (peer.sb >= 0 && peer.sb != from && tree_ports.count({s, p})) collect(peer.sb, s, out);
    }
  };
  m_routes.assign(S, SbRouteTable{});
  for (int s = 0; s < m_sbs; ++s) {
    SbRouteTable& t = m_routes[static_cast<size_t>(s)];
    t.unicast.assign(static_cast<size_t>(m_nodes), -1);
    for (int n = 0; n < m_nodes; ++n) {
      const LinkEnd& at = m_attach[static_cast<size_t>(n)];
      if (m_fat_tree.k > 0) t.unicast[static_cast<size_t>(n)] = m_fat_tree.next_port(s, n);
      else
        t.unicast[static_cast<size_t>(n)] =
            at.sb == s ? at.port : m_next_port[static_cast<size_t>(s)][static_cast<size_t>(at.sb)];
    }
    // What lies behind each port of s: a node, or the nodes of a tree subtree.
    std::vector<std::set<int>> behind(static_cast<size_t>(m_ports));
    uint32_t fanout = 0;  // ports a broadcast may use
    for (int p = 0; p < m_ports; ++p) {
      const LinkEnd& peer = m_port_peer[static_cast<size_t>(s)][static_cast<size_t>(p)];
      if (peer.is_node()) {
        behind[static_cast<size_t>(p)].insert(peer.node);
        fanout |= 1u << p;
      } else if (peer.sb >= 0 && tree_ports.count({s, p})) {
        collect(peer.sb, s, behind[static_cast<size_t>(p)]);
        fanout |= 1u << p;
      }
    }
    // Up ports: the switch-box reservation stations keep one station for
    // requests going elsewhere (docs/models/switch-controller.md).
    for (int p = 0; p < m_ports; ++p) {
      const LinkEnd& peer = m_port_peer[static_cast<size_t>(s)][static_cast<size_t>(p)];
      if (peer.sb < 0) continue;
      const int lp = m_level[static_cast<size_t>(peer.sb)], ls = m_level[static_cast<size_t>(s)];
      if (lp < ls || (lp == ls && peer.sb < s)) t.up_ports |= 1u << p;
    }
    t.broadcast.assign(static_cast<size_t>(m_ports), 0);
    for (int in = 0; in < m_ports; ++in) t.broadcast[static_cast<size_t>(in)] = fanout & ~(1u << in);
    for (const auto& [group, members] : m_groups) {
      std::vector<uint32_t>& masks = t.multicast[group];
      masks.assign(static_cast<size_t>(m_ports), 0);
      for (int in = 0; in < m_ports; ++in)
        for (int p = 0; p < m_ports; ++p) {
          if (p == in) continue;
          for (int n : members)
            if (behind[static_cast<size_t>(p)].count(n)) {
              masks[static_cast<size_t>(in)] |= 1u << p;
              break;
            }
        }
    }
  }
}

std::vector<int> Topology::path(int src, int dst) const {
  std::vector<int> sbs;
  int s = m_attach.at(static_cast<size_t>(src)).sb;
  for (int hops = 0; hops <= m_sbs; ++hops) {
    sbs.push_back(s);
    const int port = m_routes[static_cast<size_t>(s)].unicast[static_cast<size_t>(dst)];
    if (port < 0) break;
    const LinkEnd& peer = m_port_peer[static_cast<size_t>(s)][static_cast<size_t>(port)];
    if (peer.is_node() || peer.sb < 0) break;
    s = peer.sb;
  }
  return sbs;
}

// Channel dependency graph over directed switch-box-to-switch-box cables: a
// route that holds cable X while it waits for cable Y adds X -> Y. A cycle
// means buffers can fill in a ring and wait on each other forever.
void Topology::check_deadlock_free() const {
  using Hop = std::pair<int, int>;  // (sb, output port) of an inter-switch cable
  std::map<Hop, std::set<Hop>> deps;
  for (int src = 0; src < m_nodes; ++src)
    for (int dst = 0; dst < m_nodes; ++dst) {
      if (src == dst) continue;
      const std::vector<int> sbs = path(src, dst);
      if (m_attach[static_cast<size_t>(dst)].sb != sbs.back())
        fail("no route from node" + std::to_string(src) + " to node" + std::to_string(dst));
      // Inter-switch hops are all but the last (which goes to the node).
      for (size_t i = 0; i + 2 < sbs.size(); ++i) {
        const Hop a{sbs[i], m_routes[static_cast<size_t>(sbs[i])].unicast[static_cast<size_t>(dst)]};
        const Hop b{sbs[i + 1], m_routes[static_cast<size_t>(sbs[i + 1])].unicast[static_cast<size_t>(dst)]};
        deps[a].insert(b);
      }
    }
  // Depth-first search for a cycle.
  std::map<Hop, int> state;  // 0 new, 1 on stack, 2 done
  std::vector<Hop> stack;
  std::function<void(const Hop&)> visit = [&](const Hop& h) {
    state[h] = 1;
    stack.push_back(h);
    for (const Hop& n : deps[h]) {
      if (state[n] == 1) {
        std::string cycle;
        bool on = false;
        for (const Hop& x : stack) {
          if (x == n) on = true;
          if (on) cycle += "sb" + std::to_string(x.first) + ".port" + std::to_string(x.second) + " -> ";
        }
        fail("routes could deadlock: cables wait on each other in a cycle: " + cycle + "sb" + std::to_string(n.first) +
             ".port" + std::to_string(n.second) + " (use topology.routing: updown)");
      }
      if (state[n] == 0) visit(n);
    }
    stack.pop_back();
    state[h] = 2;
  };
  for (const auto& [h, targets] : deps)
    if (state[h] == 0) visit(h);
}

std::string Topology::describe() const {
  std::ostringstream os;
  os << m_nodes << " nodes, " << m_sbs << " switch box(es) of " << m_ports << " ports, shape " << m_shape;
  if (m_fat_tree.k > 0) os << " (" << m_fat_tree.k << "-ary " << m_fat_tree.n << "-tree)";
  if (m_shape == "tree" || m_fat_tree.k > 0) os << ", root sb" << m_root;
  os << "\n";
  for (const Cable& c : m_cables) os << "  cable " << c.a.str() << " - " << c.b.str() << "\n";
  for (int s = 0; s < m_sbs; ++s) {
    os << "  sb" << s << " unicast:";
    for (int n = 0; n < m_nodes; ++n)
      os << " " << n << "->" << m_routes[static_cast<size_t>(s)].unicast[static_cast<size_t>(n)];
    os << "\n";
  }
  return os.str();
}

}  // namespace m2
