#include "platform/cluster_platform.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <sstream>

#include <ip/ni_memory_map.h>

#include "core/log.h"
#include "core/module_scope.h"
#include "core/state_views.h"
#include "link/link.h"
#include "ni/mlx_engine.h"
#include "platform/host_node.h"
#include "platform/host_deadlock_check.h"
#include "platform/network_watchdog.h"
#include "platform/report.h"
#include "platform/topology.h"
#include "switchbox/switch_box.h"
#include "trace/message_ledger.h"
#include "trace/trace_tap.h"

namespace m2 {
namespace {

// The topology.* keys.
struct TopologySettings {
  Param<uint64_t> nodes{"topology", "nodes", 2, "nodes", "hosts with an NI each", Range<uint64_t>{1, 256}};
  Param<uint64_t> switch_boxes{"topology",
                               "switch_boxes",
                               0,
                               "boxes",
                               "switch boxes (0: as few as the ports allow, cascaded in a chain)",
                               Range<uint64_t>{0, 64}};
  Param<std::string> shape{"topology",
                           "shape",
                           "chain",
                           "switch-box layout: chain (cascaded), tree (P-1 children per box) or fat-tree "
                           "(k-ary n-tree, k = P/2); P = ports per switch box",
                           {"chain", "tree", "fat-tree"}};
  Param<std::string> links{"topology", "links", "", "",
                           "explicit cabling, e.g. 'node0:sb0.0 node1:sb0.1 sb0.7:sb1.7' (empty: automatic)"};
  Param<std::string> routing{"topology",
                             "routing",
                             "updown",
                             "routes: updown (spanning tree, deadlock-free) or shortest (checked for deadlock)",
                             {"updown", "shortest"}};
  Param<std::string> groups{"topology", "groups", "", "",
                            "multicast groups, e.g. '1=0,2,3; 2=1,4' (group id = member nodes)"};
};

// A small non-negative decimal number ("0".."999999"), or -1.
int parse_small_number(const std::string& text) {
  const size_t a = text.find_first_not_of(" \t"), b = text.find_last_not_of(" \t");
  if (a == std::string::npos) return -1;
  const std::string t = text.substr(a, b - a + 1);
  if (t.size() > 6 || t.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(t);
}

std::map<int, std::vector<int>> parse_groups(const Param<std::string>& p) {
  std::map<int, std::vector<int>> groups;
  std::string text = p.get();
  for (char& c : text)
    if (c == ';') c = '\n';
  std::istringstream in(text);
  for (std::string item; std::getline(in, item);) {
    if (item.find_first_not_of(" \t") == std::string::npos) continue;
    auto bad = [&](const std::string& why) {
      return ConfigError(p.origin().where + ": key '" + p.name() + "': '" + item + "' " + why +
                         " (expected GROUP=NODE,NODE,..., e.g. '1=0,2,3')");
    };
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw bad("has no '='");
    const int id = parse_small_number(item.substr(0, eq));
    if (id < 0) throw bad("has no group number before '='");
    if (groups.count(id)) throw bad("gives group " + std::to_string(id) + " a second time");
    std::vector<int>& members = groups[id];
    std::istringstream ms(item.substr(eq + 1));
    for (std::string m; std::getline(ms, m, ',');) {
      const int node = parse_small_number(m);
      if (node < 0) throw bad("has '" + m + "' where a node number belongs");
      if (std::find(members.begin(), members.end(), node) != members.end())
        throw bad("names node " + std::to_string(node) + " twice");
      members.push_back(node);
    }
    if (members.empty()) throw bad("has no member nodes");
  }
  return groups;
}

class ClusterPlatform : public Platform {
 public:
  explicit ClusterPlatform(PlatformContext& ctx) {
    TopologySpec spec;
    spec.nodes = static_cast<int>(m_settings.nodes.get());
    spec.switch_boxes = static_cast<int>(m_settings.switch_boxes.get());
    spec.links = m_settings.links.get();
    // Only a shape that was set conflicts with explicit links.
    const ValueOrigin& shape_from = m_settings.shape.origin();
    if (shape_from.where != "default") {
      spec.shape = m_settings.shape.get();
      spec.shape_origin = shape_from.where;
    }
    spec.routing = m_settings.routing.get();
    spec.groups = parse_groups(m_settings.groups);
    // Explicit cabling without a count: as many switch boxes as the cables name.
    if (!spec.links.empty() && spec.switch_boxes == 0) spec.switch_boxes = switch_boxes_named(spec.links);
    // Errors of explicit cabling come from topology.links (maybe a --set),
    // the others from the node count.
    const ValueOrigin& from = spec.links.empty() ? m_settings.nodes.origin() : m_settings.links.origin();
    spec.origin = from.where == "default" ? "topology" : from.where;
    spec.groups_origin = m_settings.groups.origin().where + ": key '" + m_settings.groups.name() + "'";
    // The switch boxes' port count comes from their variant: build them first.
    const int sbs_guess = spec.switch_boxes > 0 ? spec.switch_boxes : 1;
    for (int s = 0; s < sbs_guess; ++s) add_switch_box(ctx, s);
    spec.ports_per_sb = static_cast<int>(m_sbs[0]->port_count());
    m_topology = std::make_unique<Topology>(spec);
    for (int s = sbs_guess; s < m_topology->switch_boxes(); ++s) add_switch_box(ctx, s);
    check_same_port_count();
    for (int n = 0; n < m_topology->nodes(); ++n)
      m_nodes.push_back(std::make_unique<HostNode>(("node" + std::to_string(n)).c_str(), ctx.run, ctx.timing, n,
                                                   m_topology->nodes(), ctx.config_dir, /*with_link=*/true));
    check_same_eager_limit();
    // One Link per cable, named under what it connects: node3.link (a node
    // has one cable), sb0.port7.link (a cable between switch boxes, under
    // its side A). Each switch-box end gets its port's MLX engine.
    for (const Cable& c : m_topology->cables()) {
      const LinkEnd& owner = c.a.is_node() ? c.a : c.b.is_node() ? c.b : c.a;
      {
        ModuleScope scope(owner.is_node()
                              ? static_cast<sc_core::sc_module&>(*m_nodes[static_cast<size_t>(owner.node)])
                              : m_sbs[static_cast<size_t>(owner.sb)]->port(static_cast<unsigned>(owner.port)));
        m_links.push_back(std::make_unique<Link>("link", ctx.timing));
      }
      Link& link = *m_links.back();
      m_senders.push_back({connect(link.a_in, link.a_out, c.a, ctx), &link, 0});
      m_senders.push_back({connect(link.b_in, link.b_out, c.b, ctx), &link, 1});
    }
    for (int s = 0; s < m_topology->switch_boxes(); ++s) m_sbs[static_cast<size_t>(s)]->set_routes(routes_of(s));
    warn_short_ack_timeouts();
    m_host_check = std::make_unique<HostDeadlockCheck>(
        "watchdog", hosts(), [this] { return progress(); }, [this] { return format_cpu_states(processors()); });
    m_watchdog = std::make_unique<NetworkWatchdog>(
        "watchdog", ctx.run,
        NetworkWatchdog::Probes{[this] { return progress(); }, [this] { return pending(); },
                                [this] { return network_state(); }, [this] { return resend_livelock(); },
                                [this](const sc_core::sc_time& interval) { return m_host_check->look(interval); },
                                [this] { return m_host_check->hosts_working(); }});
  }

  std::vector<Processor*> processors() override {
    std::vector<Processor*> p;
    for (auto& n : m_nodes) p.push_back(&n->ni.cpu);
    for (auto& s : m_sbs) p.push_back(&s->cpu);
    return p;
  }
  std::vector<TextOutput*> consoles() override {
    std::vector<TextOutput*> c;
    for (auto& n : m_nodes) {
      c.push_back(&n->ni.console);
      c.push_back(&n->host.console);
    }
    for (auto& s : m_sbs) c.push_back(&s->console);
    return c;
  }
  // The topology (its cabling and routes) counts the same ports on every
  // switch box: boxes of different sizes in one cluster are refused here,
  // naming each box's `ports` and where it was set.
  void check_same_port_count() const {
    const SwitchBox& first = *m_sbs.front();
    for (const auto& sb : m_sbs) {
      if (sb->port_count() == first.port_count()) continue;
      throw ConfigError("every switch box of a cluster needs the same number of ports: " + first.ports.name() + " = " +
                        first.ports.value_string() + " (" + first.ports.origin().where + "), " + sb->ports.name() +
                        " = " + sb->ports.value_string() + " (" + sb->ports.origin().where + ")");
    }
  }
  // An ack comes back at the earliest after the frame's way to the peer and
  // the ack's way back, and after the peer's own frame in progress (up to
  // max_frame_packets): a timeout shorter than that resends frames whose
  // acks are merely on their way (a long cable). Said before the run.
  void warn_short_ack_timeouts() const {
    for (const Sender& s : m_senders) {
      const MlxEngine& e = *s.engine;
      const uint64_t frame_bytes = e.max_frame_packets.get() * 32 + e.header_bytes.get() + e.checksum_bytes.get() +
                                   e.continue_bytes.get() * (e.max_frame_packets.get() / e.burst_packets.get());
      const sc_core::sc_time round_trip =
          2 * s.link->latency() + s.link->wire_time(frame_bytes) + s.link->wire_time(e.header_bytes.get());
      const sc_core::sc_time timeout(e.ack_timeout_ns.get(), sc_core::SC_NS);
      if (timeout > round_trip) continue;
      Log::instance().warning(e.ack_timeout_ns.name() + " = " + e.ack_timeout_ns.value_string() + " ns (" +
                              e.ack_timeout_ns.origin().where + ") is not longer than an ack's round trip on " +
                              s.link->name() + " (" + round_trip.to_string() + " with " + s.link->cable_m.name() +
                              " = " + s.link->cable_m.value_string() +
                              " m and a full frame of the peer's first): "
                              "frames will be resent while their acks are on the way; raise it");
    }
  }
  // The MPI library sizes its control messages by the eager limit: hosts
  // that disagree cannot talk (found before the run, not in the middle of it).
  void check_same_eager_limit() const {
    const Param<uint64_t>& first = m_nodes.front()->mpi.eager_limit;
    for (const auto& node : m_nodes) {
      const Param<uint64_t>& p = node->mpi.eager_limit;
      if (p.get() != first.get())
        throw ConfigError(
            "node*.host.mpi.eager_limit must be the same on every host (the MPI library's control "
            "messages are sized by it): " +
            first.name() + " = " + first.value_string() + " B (" + first.origin().where + "), " + p.name() + " = " +
            p.value_string() + " B (" + p.origin().where + ")");
    }
  }

  // 1 + the highest sbN in a topology.links text (0 when it names none: the
  // topology then says what is wrong with the cabling).
  static int switch_boxes_named(const std::string& links) {
    int most = 0;
    static const std::regex sb(R"(sb(\d{1,4})\.)");
    for (auto it = std::sregex_iterator(links.begin(), links.end(), sb); it != std::sregex_iterator(); ++it)
      most = std::max(most, std::stoi((*it)[1]) + 1);
    return most;
  }

  std::string network_description() const override { return m_topology ? m_topology->describe() : ""; }

  std::vector<std::string> end_of_run_warnings() override {
    std::vector<std::string> w;
    for (auto& l : m_links)
      for (unsigned d = 0; d < 2; ++d) {
        const std::vector<uint64_t> missed = l->damage_missed(d);
        if (missed.empty()) continue;
        std::string list;
        for (uint64_t n : missed) list += (list.empty() ? "" : ", ") + std::to_string(n);
        w.push_back(std::string(l->name()) + (d == 0 ? ".damage_frames_ab" : ".damage_frames_ba") + ": frame(s) " +
                    list + " damaged nothing: info frames (no data) or past the last of the " +
                    std::to_string(l->stats(d).frames) + " frames (frame numbers count every frame, info frames too)");
      }
    return w;
  }

  std::vector<HostCpu*> hosts() override {
    std::vector<HostCpu*> h;
    for (auto& n : m_nodes) h.push_back(&n->host);
    return h;
  }
  void add_signals(SignalProbes& out) override {
    for (auto& n : m_nodes) {
      add_ni_signals(n->ni, out);
      add_pci_signals(n->pci, out);
    }
    for (auto& s : m_sbs) add_switch_box_signals(*s, out);
    for (auto& e : m_engines) add_mlx_signals(*e, out);
    for (auto& l : m_links) add_link_signals(*l, out);
  }
  std::vector<std::string> statistics_models() override {
    std::vector<std::string> m;
    for (auto& n : m_nodes)
      for (const std::string& model : n->statistics_models()) m.push_back(model);
    for (auto& l : m_links) m.push_back(l->name());
    for (auto& sb : m_sbs) m.push_back(sb->name());
    for (auto& n : m_nodes) m.push_back(n->ni.mlcx->name());
    for (auto& e : m_engines) m.push_back(e->name());
    return m;
  }

 private:
  struct Sender;  // every MLX engine with its link (below)

  void add_switch_box(PlatformContext& ctx, int s) {
    m_sbs.push_back(
        std::make_unique<SwitchBox>(("sb" + std::to_string(s)).c_str(), ctx.run, ctx.timing, ctx.config_dir));
    MessageLedger& ledger = MessageLedger::instance();
    if (ledger.enabled())
      m_sbs.back()->set_message_probe(ledger.probe(MessageLedger::SiteKind::SwitchBox, static_cast<unsigned>(s)));
  }

  // Binds one end of a link: an NI's MLC-X, or a new engine on a switch-box port.
  template <typename In, typename Out>
  MlxEngine* connect(In& link_in, Out& link_out, const LinkEnd& end, PlatformContext& ctx) {
    MlxEngine* e = nullptr;
    std::string binding;  // for trace patterns: node3.ni.mlcx.link, sb0.port3.mlx.link
    if (end.is_node()) {
      e = m_nodes[static_cast<size_t>(end.node)]->ni.mlcx.get();
      binding = std::string(e->name()) + ".link";
    } else {
      SwitchBox& sb = *m_sbs[static_cast<size_t>(end.sb)];
      ModuleScope scope(sb.port(static_cast<unsigned>(end.port)));  // sb0.port3.mlx
      m_engines.push_back(
          std::make_unique<MlxEngine>("mlx", sb.port_buffer(static_cast<unsigned>(end.port)), ctx.timing));
      e = m_engines.back().get();
      binding = std::string(e->name()) + ".link";
      MessageLedger& ledger = MessageLedger::instance();
      if (ledger.enabled())
        e->set_message_probe(ledger.probe(MessageLedger::SiteKind::SwitchBox, static_cast<unsigned>(end.sb)));
    }
    bind_traced(e->link_out, binding, m_taps, [&link_in](auto& s) { s.bind(link_in); });
    link_out.bind(e->link_in);
    return e;
  }

  SbRoutes routes_of(int s) const {
    const SbRouteTable& t = m_topology->routes(s);
    SbRoutes r;
    for (size_t n = 0; n < t.unicast.size(); ++n)
      r.unicast[static_cast<uint16_t>(n)] = static_cast<unsigned>(t.unicast[n]);
    r.broadcast = t.broadcast;
    r.up_ports = t.up_ports;
    for (const auto& [g, masks] : t.multicast) r.multicast[static_cast<uint16_t>(g)] = masks;
    return r;
  }

  // Payload bytes moved anywhere (credit requests and other info frames
  // keep flowing in a stalled network, so wire bytes would not do).
  uint64_t progress() const {
    auto moved = [](const MlxEngine& e) {
      uint64_t b = 0;
      for (unsigned ch = 0; ch < NI_NETBUF_CHANNELS; ++ch)
        b += e.channel_stats(ch).payload_bytes_sent + e.channel_stats(ch).payload_bytes_received;
      return b;
    };
    uint64_t bytes = 0;
    for (auto& n : m_nodes) bytes += moved(*n->ni.mlcx);
    for (auto& e : m_engines) bytes += moved(*e);
    for (auto& s : m_sbs) bytes += s->controller().stats().bytes_out;
    return bytes + recovering_resends();
  }
  // Resends of frames that will get through count as progress: a burst of
  // link errors (listed ones still ahead on that link, or a bit error rate
  // the frame passes with a fair chance) is recovered from by resending, and
  // the watchdogs must wait for it rather than call it a stall. Nothing
  // counts while one sender is hopeless (a frame that practically cannot
  // pass, or a streak 50 times longer than its chance makes likely): that
  // is a livelock, which resend_livelock() names.
  uint64_t recovering_resends() const {
    uint64_t n = 0;
    for (const Sender& s : m_senders) {
      const MlxEngine::ResendStreak st = s.engine->longest_resend_streak();
      if (hopeless(s, st)) return 0;
      n += st.repeats;
    }
    return n;
  }
  // A sender whose resends are no recovery (see recovering_resends): the one
  // rule behind both what counts as progress and which senders a livelock
  // report names, whatever the cable (node to switch box, switch box to
  // switch box). A count of resends would not do: in a stall that stops
  // every sender at once (the cable between two switch boxes carries all
  // the traffic) a frame is resent only about patience x interval / ack
  // timeout times (5 x 1 ms / 100 us: some 47) before the watchdog ends it.
  bool hopeless(const Sender& s, const MlxEngine::ResendStreak& st) const {
    if (st.repeats == 0 || s.link->corruption_listed_ahead(s.dir)) return false;
    const double p = s.link->intact_chance(st.wire_bytes);
    return p < 1e-3 || double(st.repeats) >= 50.0 / p;
  }

  bool pending() const {
    auto busy = [](const NetBuf& b) {
      for (unsigned ch = 0; ch < NI_NETBUF_CHANNELS; ++ch)
        if (b.tx_available(ch) || b.rx_available(ch)) return true;
      return false;
    };
    for (auto& n : m_nodes)
      if (busy(n->ni.netbuf)) return true;
    for (auto& s : m_sbs)
      for (unsigned p = 0; p < s->port_count(); ++p)
        if (busy(s->port_buffer(p))) return true;
    // A data frame waiting for its ack holds bytes that left the buffers: the
    // last frame of a message, resent in vain, is a livelock, not idle hosts.
    for (const Sender& s : m_senders)
      for (unsigned ch = 0; ch < MlxEngine::kChannels; ++ch)
        if (s.engine->awaiting_ack(ch)) return true;
    return false;
  }
  // Frames resent again and again without one arriving intact: at a high
  // bit error rate a full-size frame may practically never pass, which is a
  // livelock (wire busy, nothing delivered), not a deadlock. Names each such
  // sender (hopeless ones, and any resent 100 times or more) with its link,
  // frame size, resends so far and the chance that one sending of the frame
  // arrives without a bit error.
  std::string resend_livelock() const {
    constexpr uint64_t kManyResends = 100;
    std::string r;
    for (const Sender& s : m_senders) {
      const MlxEngine* engine = s.engine;
      const Link* link = s.link;
      const MlxEngine::ResendStreak st = engine->longest_resend_streak();
      if (st.repeats < kManyResends && !hopeless(s, st)) continue;
      const double ber = link->bit_error_rate.get();
      const double p_intact = link->intact_chance(st.wire_bytes);
      std::ostringstream o;
      o << "  " << engine->name() << " on " << link->name() << " (bit error rate " << ber << "): data frame seq "
        << st.seq << " on channel " << st.channel << ", " << st.wire_bytes << " bytes on the wire, resent "
        << st.repeats << " times; one sending arrives intact with probability " << p_intact;
      if (p_intact > 0) o << " (1 in " << std::llround(1.0 / p_intact) << ")";
      if (p_intact < 1e-3)
        o << ": a frame of this size practically cannot pass this link (lower the bit error rate or the frame size)";
      else o << ": it may still pass after more sendings (watchdog.patience waits longer)";
      o << "\n";
      r += o.str();
    }
    return r;
  }

  // What the link controllers and the switch boxes declare of their state (core/state_views.h).
  std::string network_state() const {
    std::string r;
    for (auto& n : m_nodes) r += "  " + describe_declared_state(n->ni.mlcx->name()) + "\n";
    for (auto& e : m_engines) r += "  " + describe_declared_state(e->name()) + "\n";
    for (auto& s : m_sbs) r += describe_declared_state(s->name());
    return r;
  }

  TopologySettings m_settings;
  std::unique_ptr<Topology> m_topology;
  std::vector<std::unique_ptr<SwitchBox>> m_sbs;
  std::vector<std::unique_ptr<HostNode>> m_nodes;
  std::vector<std::unique_ptr<Link>> m_links;
  std::vector<std::unique_ptr<MlxEngine>> m_engines;
  struct Sender {
    MlxEngine* engine;
    Link* link;    // the link it sends on
    unsigned dir;  // in direction 0 (ab) or 1 (ba)
  };
  std::vector<Sender> m_senders;  // every MLX engine
  std::unique_ptr<NetworkWatchdog> m_watchdog;
  std::unique_ptr<HostDeadlockCheck> m_host_check;
  std::vector<std::unique_ptr<TraceTap>> m_taps;  // on traced links only
};

}  // namespace

std::unique_ptr<Platform> build_cluster_platform(PlatformContext& ctx) {
  return std::make_unique<ClusterPlatform>(ctx);
}

}  // namespace m2
