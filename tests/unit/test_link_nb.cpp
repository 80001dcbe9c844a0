// The link's non-blocking LT path (Link::nb_transport_fw, issue 28): the
// frames of state-machine senders get the times b_transport gives a thread
// sender; a continuable frame goes burst by burst as data-path steps; a
// frame that wants a half-duplex medium held open waits for it; other uses
// are refused.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "core/data_path_scheduler.h"
#include "core/params.h"
#include "link/link.h"
#include "link/mlx_frame.h"

using m2::DataPathScheduler;
using m2::Link;
using m2::MlxFrame;
using m2::MlxFrameTransaction;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

sc_time ns(double v) { return sc_time(v, SC_NS); }

// What one side sends: a data frame of `first` packets that the sender
// continues by `more[i]` packets at its i-th burst end, or an info frame.
struct Plan {
  sc_time at;  // when the frame is handed to the link
  bool data = true;
  unsigned first = 4;
  std::vector<unsigned> more;
};

// What one side saw of its frame.
struct Outcome {
  sc_time end;                   // the frame's last bit (BEGIN_RESP, or b_transport's return)
  sc_time wire_start, wire_end;  // as the link set them
  std::vector<sc_time> decided;  // times extend() was asked
};

void fill(MlxFrameTransaction& tr, const Plan& p) {
  MlxFrame& f = tr.frame;
  f.copy_from(MlxFrame{});
  f.kind = p.data ? MlxFrame::Kind::Data : MlxFrame::Kind::Info;
  if (p.data) {
    std::vector<uint8_t> bytes(size_t(p.first) * MLX_PACKET_BYTES, 0x5a);
    f.add_burst(bytes.data(), p.first);
  }
  tr.reset();
}

// Sends a plan's frames with nb_transport_fw from data-path steps.
struct NbSender : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<NbSender> out{"out"};
  std::vector<Plan> plans;
  std::vector<Outcome> outcomes;
  MlxFrameTransaction tr;
  size_t next = 0;
  unsigned burst = 0;

  explicit NbSender(sc_core::sc_module_name n) : sc_module(n) { out.register_nb_transport_bw(this, &NbSender::nb_bw); }
  void start_of_simulation() override {
    if (!plans.empty()) DataPathScheduler::instance().schedule<NbSender, &NbSender::send>(plans[0].at, this);
  }
  void send() {
    const Plan& p = plans[next];
    fill(tr, p);
    burst = 0;
    outcomes.emplace_back();
    if (p.data && !p.more.empty()) tr.frame.extend = [this](MlxFrame& f) { return extend(f); };
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_time d = DataPathScheduler::instance().ahead();
    if (out->nb_transport_fw(tr.payload(), phase, d) == tlm::TLM_COMPLETED) ended(sc_core::sc_time_stamp() + d);
  }
  bool extend(MlxFrame& f) {
    outcomes.back().decided.push_back(DataPathScheduler::instance().now());
    const std::vector<unsigned>& more = plans[next].more;
    if (burst >= more.size() || more[burst] == 0) return false;
    std::vector<uint8_t> bytes(size_t(more[burst]) * MLX_PACKET_BYTES, 0xa5);
    f.add_burst(bytes.data(), more[burst++]);
    return true;
  }
  tlm::tlm_sync_enum nb_bw(tlm::tlm_generic_payload&, tlm::tlm_phase& phase, sc_time& d) {
    CHECK(phase == tlm::BEGIN_RESP);
    ended(sc_core::sc_time_stamp() + d);
    return tlm::TLM_COMPLETED;
  }
  void ended(sc_time end) {
    CHECK(tr.payload().is_response_ok());
    outcomes.back().end = end;
    outcomes.back().wire_start = tr.frame.wire_start;
    outcomes.back().wire_end = tr.frame.wire_end;
    if (++next < plans.size())
      DataPathScheduler::instance().schedule<NbSender, &NbSender::send>(std::max(end, plans[next].at), this);
  }
};

// Sends the same plans with b_transport from a thread, as the AT-style
// engine would in LT.
struct BSender : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<BSender> out{"out"};
  std::vector<Plan> plans;
  std::vector<Outcome> outcomes;
  MlxFrameTransaction tr;
  SC_HAS_PROCESS(BSender);
  explicit BSender(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
  void run() {
    for (const Plan& p : plans) {
      if (p.at > sc_core::sc_time_stamp()) wait(p.at - sc_core::sc_time_stamp());
      fill(tr, p);
      outcomes.emplace_back();
      unsigned burst = 0;
      if (p.data && !p.more.empty())
        tr.frame.extend = [this, &p, &burst](MlxFrame& f) {
          outcomes.back().decided.push_back(sc_core::sc_time_stamp());
          if (burst >= p.more.size() || p.more[burst] == 0) return false;
          std::vector<uint8_t> bytes(size_t(p.more[burst]) * MLX_PACKET_BYTES, 0xa5);
          f.add_burst(bytes.data(), p.more[burst++]);
          return true;
        };
      sc_time d = sc_core::SC_ZERO_TIME;
      out->b_transport(tr.payload(), d);
      outcomes.back().end = sc_core::sc_time_stamp() + d;
      outcomes.back().wire_start = tr.frame.wire_start;
      outcomes.back().wire_end = tr.frame.wire_end;
      wait(d);
    }
  }
};

// The receiving ends: arrival times and packet counts.
struct Receiver : sc_core::sc_module {
  tlm_utils::simple_target_socket<Receiver> in{"in"};
  std::vector<sc_time> arrivals;
  std::vector<unsigned> packets;
  explicit Receiver(sc_core::sc_module_name n) : sc_module(n) { in.register_b_transport(this, &Receiver::take); }
  void take(tlm::tlm_generic_payload& t, sc_time& d) {
    arrivals.push_back(sc_core::sc_time_stamp() + d);
    packets.push_back(m2::mlx_frame(t)->packet_count());
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// A link with an nb sender and a b sender side by side per side, each on a
// link of its own: the same plans on both give comparable outcomes.
struct Pair {
  std::unique_ptr<Link> nb_link, b_link;
  NbSender nb_a{"nb_a"}, nb_b{"nb_b"};
  BSender b_a{"b_a"}, b_b{"b_b"};
  Receiver nb_ra{"nb_ra"}, nb_rb{"nb_rb"}, b_ra{"b_ra"}, b_rb{"b_rb"};
  explicit Pair(const std::string& duplex) {
    DataPathScheduler::instance();  // before the simulation starts (a module)
    m2::ParamRegistry::instance().preset("nb_link.duplex", duplex, m2::ValueOrigin{"test"});
    m2::ParamRegistry::instance().preset("b_link.duplex", duplex, m2::ValueOrigin{"test"});
    nb_link = std::make_unique<Link>("nb_link", m2::TimingStyle::LT);
    b_link = std::make_unique<Link>("b_link", m2::TimingStyle::LT);
    nb_a.out.bind(nb_link->a_in);
    nb_b.out.bind(nb_link->b_in);
    nb_link->a_out.bind(nb_ra.in);
    nb_link->b_out.bind(nb_rb.in);
    b_a.out.bind(b_link->a_in);
    b_b.out.bind(b_link->b_in);
    b_link->a_out.bind(b_ra.in);
    b_link->b_out.bind(b_rb.in);
  }
  void plan(const std::vector<Plan>& a, const std::vector<Plan>& b) {
    nb_a.plans = b_a.plans = a;
    nb_b.plans = b_b.plans = b;
  }
};

void same(const std::vector<Outcome>& nb, const std::vector<Outcome>& b) {
  REQUIRE(nb.size() == b.size());
  for (size_t i = 0; i < nb.size(); ++i) {
    INFO("frame " << i);
    CHECK(nb[i].end == b[i].end);
    CHECK(nb[i].wire_start == b[i].wire_start);
    CHECK(nb[i].wire_end == b[i].wire_end);
    CHECK(nb[i].decided == b[i].decided);
  }
}

}  // namespace

TEST_CASE("link nb path: full duplex, continued and plain frames get b_transport's times", "[model][link]") {
  Pair p("full");
  p.plan({{ns(100), true, 4, {4, 2}}, {ns(100), false}, {ns(2000), true, 16, {}}},
         {{ns(150), true, 2, {16}}, {ns(160), true, 1, {}}});
  sc_core::sc_start(ns(20000));
  same(p.nb_a.outcomes, p.b_a.outcomes);
  same(p.nb_b.outcomes, p.b_b.outcomes);
  // The continued frame: asked at each burst's end, three bursts, ten packets.
  REQUIRE(p.nb_a.outcomes.size() == 3);
  CHECK(p.nb_a.outcomes[0].decided.size() == 3);
  REQUIRE(p.nb_rb.packets.size() == 3);
  CHECK(p.nb_rb.packets == std::vector<unsigned>{10, 0, 16});
  CHECK(p.nb_rb.arrivals == p.b_rb.arrivals);
  CHECK(p.nb_ra.arrivals == p.b_ra.arrivals);
  CHECK(p.nb_ra.packets == p.b_ra.packets);
  // Arrival: the frame's end plus the link's latency.
  CHECK(p.nb_rb.arrivals[0] == p.nb_a.outcomes[0].end + p.nb_link->latency());
  CHECK(p.nb_link->stats(0).frames == 3);
  CHECK(p.nb_link->stats(0).bytes == p.b_link->stats(0).bytes);
  CHECK(p.nb_link->stats(0).busy == p.b_link->stats(0).busy);
}

TEST_CASE("link nb path: half duplex, a frame waits while the other side's frame is continued", "[model][link]") {
  Pair p("half");
  // B asks for the medium while A's frame goes on burst by burst.
  p.plan({{ns(100), true, 4, {8, 8}}}, {{ns(200), true, 2, {}}, {ns(300), false}});
  sc_core::sc_start(ns(20000));
  same(p.nb_a.outcomes, p.b_a.outcomes);
  same(p.nb_b.outcomes, p.b_b.outcomes);
  REQUIRE(p.nb_b.outcomes.size() == 2);
  // B's frame started only after A's: one frame on the medium at a time.
  CHECK(p.nb_b.outcomes[0].wire_start >= p.nb_a.outcomes[0].wire_end);
  CHECK(p.nb_link->stats(1).waiting == p.b_link->stats(1).waiting);
  CHECK(p.nb_link->stats(1).waiting > sc_core::SC_ZERO_TIME);
}

TEST_CASE("link nb path: other phases, and AT, are refused with a warning", "[model][link]") {
  Link lt("lt", m2::TimingStyle::LT), at("at", m2::TimingStyle::AT);
  NbSender s1("s1"), s2("s2"), idle1("idle1"), idle2("idle2");  // the idle ones send nothing
  Receiver r1("r1"), r2("r2"), r3("r3"), r4("r4");
  s1.out.bind(lt.a_in);
  s2.out.bind(at.a_in);
  idle1.out.bind(lt.b_in);
  idle2.out.bind(at.b_in);
  lt.a_out.bind(r1.in);
  lt.b_out.bind(r2.in);
  at.a_out.bind(r3.in);
  at.b_out.bind(r4.in);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  MlxFrameTransaction tr;
  fill(tr, Plan{});
  tlm::tlm_phase end_resp = tlm::END_RESP;
  sc_time d = sc_core::SC_ZERO_TIME;
  CHECK(s1.out->nb_transport_fw(tr.payload(), end_resp, d) == tlm::TLM_COMPLETED);
  CHECK(tr.payload().get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
  tr.reset();
  tlm::tlm_phase begin = tlm::BEGIN_REQ;
  CHECK(s2.out->nb_transport_fw(tr.payload(), begin, d) == tlm::TLM_COMPLETED);
  CHECK(tr.payload().get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK(lt.stats(0).frames == 0);
  CHECK(at.stats(0).frames == 0);
}
