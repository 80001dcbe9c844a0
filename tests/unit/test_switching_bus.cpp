// The switch box's switching bus (models/switchbox/switching_bus.*): the
// time formula against hand computation, LT masters overlapping, AT masters
// serialised round-robin, statistics; the base protocol's phases as an nb
// master sees them, b_transport masters in AT and LT.
#include <catch2/catch.hpp>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "core/params.h"
#include "core/protocol_checking.h"
#include "switchbox/switching_bus.h"
#include "switchbox/switching_bus_master.h"

#include "test_initiator.h"
#include "test_thread.h"

using Catch::Matchers::Contains;
using m2::SwitchingBus;
using m2::TimingStyle;
using sc_core::SC_NS;
using sc_core::sc_time;

TEST_CASE("sb switching bus: transfer time = setup + ceil(bytes / width) clocks", "[model][sb]") {
  SwitchingBus b("bus", TimingStyle::LT, 128, 100.0, 2);  // 16 bytes per 10 ns clock
  CHECK(b.width_bytes() == 16);
  CHECK(b.clock_period() == sc_time(10, SC_NS));
  CHECK(b.cycles(0) == 2);
  CHECK(b.cycles(1) == 3);
  CHECK(b.cycles(16) == 3);
  CHECK(b.cycles(17) == 4);
  CHECK(b.cycles(32) == 4);
  CHECK(b.cycles(256) == 18);
  CHECK(b.transfer_time(8) == sc_time(30, SC_NS));
  CHECK(b.transfer_time(208) == sc_time(150, SC_NS));
  CHECK(b.transfer_time(256) == sc_time(180, SC_NS));

  SwitchingBus m1("m1", TimingStyle::LT, 32, 50.0, 2);  // maestro1: 4 bytes per 20 ns clock
  CHECK(m1.cycles(256) == 66);
  CHECK(m1.transfer_time(256) == sc_time(1320, SC_NS));

  SwitchingBus odd("odd", TimingStyle::LT, 64, 66.0, 0);  // one rounding per transfer
  CHECK(odd.transfer_time(8 * 66) == sc_time(1000, SC_NS));

  CHECK_THROWS_WITH(SwitchingBus("bad", TimingStyle::LT, 12, 100.0, 2), Contains("whole number of bytes"));
}

namespace {

// Two masters (as the switch box's: SwitchingBusMaster, the four phases in
// AT) each making `n` transfers of `bytes` from time 0; returns when each
// finished.
struct Contention {
  SwitchingBus bus;
  m2::SwitchingBusMaster a, b;
  std::vector<uint8_t> data;
  sc_time a_done, b_done;
  std::vector<std::string> order;
  m2test::TestThread ta, tb;
  Contention(const std::string& name, TimingStyle style, unsigned n, uint64_t bytes)
      : bus(name.c_str(), style, 128, 100.0, 2),
        a((name + "_master_a").c_str(), bus, "a"),
        b((name + "_master_b").c_str(), bus, "b"),
        data(bytes),
        ta((name + "_a").c_str(),
           [this, n, bytes] {
             for (unsigned i = 0; i < n; ++i) {
               a.transfer(1, data.data(), static_cast<uint32_t>(bytes));
               order.push_back("a");
             }
             a_done = sc_core::sc_time_stamp();
           }),
        tb((name + "_b").c_str(), [this, n, bytes] {
          for (unsigned i = 0; i < n; ++i) {
            b.transfer(2, data.data(), static_cast<uint32_t>(bytes));
            order.push_back("b");
          }
          b_done = sc_core::sc_time_stamp();
        }) {}
};

}  // namespace

TEST_CASE("sb switching bus: LT masters overlap, AT masters alternate", "[model][sb]") {
  Contention lt("lt", TimingStyle::LT, 3, 256), at("at", TimingStyle::AT, 3, 256);
  sc_core::sc_start();
  const sc_time one(180, SC_NS);
  // LT: each as if alone.
  CHECK(lt.a_done == one * 3.0);
  CHECK(lt.b_done == one * 3.0);
  // AT: serialised, round-robin after each transfer: a b a b a b.
  CHECK(at.order == std::vector<std::string>{"a", "b", "a", "b", "a", "b"});
  CHECK(at.a_done == one * 5.0);
  CHECK(at.b_done == one * 6.0);
  // Statistics.
  for (const auto* c : {&lt, &at}) {
    const auto& s = c->bus.master_stats();
    REQUIRE(s.size() == 2);
    CHECK(s[0].name == "a");
    CHECK(s[0].transfers == 3);
    CHECK(s[0].bytes == 768);
    CHECK(s[0].busy == one * 3.0);
    CHECK(c->bus.busy_time() == one * 6.0);
  }
  CHECK(lt.bus.master_stats()[1].waiting == sc_core::SC_ZERO_TIME);
  CHECK(at.bus.master_stats()[0].waiting == one * 2.0);  // before its 2nd and 3rd transfers
  CHECK(at.bus.master_stats()[1].waiting == one * 3.0);  // before each of its transfers
  CHECK(at.bus.describe() == "idle");
  CHECK(lt.bus.describe() == "LT (no arbitration)");
}

namespace {

using tlm::tlm_generic_payload;
using tlm::tlm_phase;
using tlm::tlm_sync_enum;

// A base-protocol master of the test's own on the switching bus: its thread
// sends the script's writes (each at its time, with its annotation, after the
// previous one's END_REQ) and it records every phase the bus sends back as
// "<master> <label> <phase> @<time>", the time including the annotation.
struct NbMaster : sc_core::sc_module {
  struct Step {
    sc_time at;  // when the thread sends BEGIN_REQ
    uint32_t bytes;
    sc_time annotation;  // BEGIN_REQ's delay
  };
  tlm_utils::simple_initiator_socket<NbMaster> socket{"socket"};
  std::vector<std::string>& log;
  std::vector<Step> script;
  bool accept_responses = false;       // answer BEGIN_RESP TLM_ACCEPTED (END_RESP sent by the test)
  std::vector<tlm_sync_enum> answers;  // the bus's answers to BEGIN_REQ
  std::deque<tlm_generic_payload> payloads;
  std::vector<uint8_t> data = std::vector<uint8_t>(4096);
  sc_core::sc_event end_req;

  SC_HAS_PROCESS(NbMaster);
  NbMaster(sc_core::sc_module_name n, std::vector<std::string>& l, std::vector<Step> s)
      : sc_module(n), log(l), script(std::move(s)) {
    socket.register_nb_transport_bw(this, &NbMaster::nb_transport_bw);
    SC_THREAD(run);
  }
  std::string label(const tlm_generic_payload& t) const {
    for (size_t i = 0; i < payloads.size(); ++i)
      if (&payloads[i] == &t) return "#" + std::to_string(i + 1);
    return "?";
  }
  tlm_sync_enum nb_transport_bw(tlm_generic_payload& t, tlm_phase& phase, sc_time& delay) {
    const bool req = phase == tlm::END_REQ;
    log.push_back(std::string(basename()) + " " + label(t) + " " + (req ? "END_REQ" : "BEGIN_RESP") + " @" +
                  (sc_core::sc_time_stamp() + delay).to_string());
    if (req) {
      end_req.notify();
      return tlm::TLM_ACCEPTED;
    }
    CHECK(t.get_response_status() == tlm::TLM_OK_RESPONSE);  // set before the response
    return accept_responses ? tlm::TLM_ACCEPTED : tlm::TLM_COMPLETED;
  }
  // BEGIN_REQ for a new write; `annotation` in and out.
  tlm_sync_enum send(uint32_t bytes, sc_time& annotation) {
    tlm_generic_payload& t = payloads.emplace_back();
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(1);
    t.set_data_ptr(data.data());
    t.set_data_length(bytes);
    t.set_streaming_width(bytes);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    tlm_phase phase = tlm::BEGIN_REQ;
    return socket->nb_transport_fw(t, phase, annotation);
  }
  void run() {
    for (const Step& s : script) {
      if (s.at > sc_core::sc_time_stamp()) wait(s.at - sc_core::sc_time_stamp());
      const size_t seen = log.size();
      sc_time annotation = s.annotation;
      answers.push_back(send(s.bytes, annotation));
      // Request exclusion: the next BEGIN_REQ after this one's END_REQ.
      bool granted = false;
      for (size_t i = seen; i < log.size(); ++i) granted = granted || log[i].find(" END_REQ") != std::string::npos;
      if (!granted) wait(end_req);
    }
  }
  // END_RESP for request `n` (from 1), from a thread.
  tlm_sync_enum end_response(size_t n) {
    tlm_phase phase = tlm::END_RESP;
    sc_time d = sc_core::SC_ZERO_TIME;
    return socket->nb_transport_fw(payloads.at(n - 1), phase, d);
  }
};

const sc_time kZero = sc_core::SC_ZERO_TIME;

}  // namespace

TEST_CASE("sb switching bus AT: an nb master sees END_REQ at the grant and BEGIN_RESP after the transfer clocks",
          "[model][sb]") {
  // 16 bytes per 10 ns clock, 2 setup clocks: 256 bytes 180 ns, 8 bytes 30 ns.
  SwitchingBus bus("bus", TimingStyle::AT, 128, 100.0, 2);
  std::vector<std::string> log;
  NbMaster x("x", log, {{kZero, 256, kZero}});
  NbMaster y("y", log, {{kZero, 8, sc_time(50, SC_NS)}});  // asks at 50 ns (annotated)
  bus.bind_master(x.socket, "x");
  bus.bind_master(y.socket, "y");
  std::string at_100;
  m2test::TestThread probe("probe", [&] {
    sc_core::wait(100, SC_NS);
    at_100 = bus.describe();
  });
  sc_core::sc_start();
  CHECK(log == std::vector<std::string>{"x #1 END_REQ @0 s", "x #1 BEGIN_RESP @180 ns", "y #1 END_REQ @180 ns",
                                        "y #1 BEGIN_RESP @210 ns"});
  CHECK(x.answers == std::vector<tlm_sync_enum>{tlm::TLM_ACCEPTED});
  CHECK(y.answers == std::vector<tlm_sync_enum>{tlm::TLM_ACCEPTED});
  CHECK(at_100 == "held by x; waiting: y");
  const auto& s = bus.master_stats();
  REQUIRE(s.size() == 2);
  CHECK(s[0].waiting == kZero);
  CHECK(s[1].waiting == sc_time(130, SC_NS));  // from its annotated time, 50 ns, to the grant
  CHECK(s[0].busy == sc_time(180, SC_NS));
  CHECK(s[1].bytes == 8);
  CHECK(bus.busy_time() == sc_time(210, SC_NS));
  CHECK(bus.describe() == "idle");
}

TEST_CASE("sb switching bus AT: the grant goes round-robin by port, not in order of asking", "[model][sb]") {
  SwitchingBus bus("bus", TimingStyle::AT, 128, 100.0, 2);
  std::vector<std::string> log;
  // m0 holds the bus 0..180 ns; m2 asks before m1; later m1 asks before m0.
  NbMaster m0("m0", log, {{kZero, 256, kZero}, {sc_time(220, SC_NS), 8, kZero}});
  NbMaster m1("m1", log, {{sc_time(20, SC_NS), 8, kZero}, {sc_time(215, SC_NS), 8, kZero}});
  NbMaster m2("m2", log, {{sc_time(10, SC_NS), 8, kZero}});
  bus.bind_master(m0.socket, "m0");
  bus.bind_master(m1.socket, "m1");
  bus.bind_master(m2.socket, "m2");
  sc_core::sc_start();
  CHECK(log == std::vector<std::string>{
                   "m0 #1 END_REQ @0 s",
                   "m0 #1 BEGIN_RESP @180 ns",
                   "m1 #1 END_REQ @180 ns",  // the port after m0's, though m2 asked first
                   "m1 #1 BEGIN_RESP @210 ns",
                   "m2 #1 END_REQ @210 ns",
                   "m2 #1 BEGIN_RESP @240 ns",
                   "m0 #2 END_REQ @240 ns",  // after port 2 comes port 0, though m1 asked first
                   "m0 #2 BEGIN_RESP @270 ns",
                   "m1 #2 END_REQ @270 ns",
                   "m1 #2 BEGIN_RESP @300 ns",
               });
}

TEST_CASE("sb switching bus AT: a b_transport master waits for the same arbitration", "[model][sb]") {
  SwitchingBus bus("bus", TimingStyle::AT, 128, 100.0, 2);
  std::vector<std::string> log;
  NbMaster x("x", log, {{kZero, 256, kZero}});
  m2test::TestInitiator b("b");
  bus.bind_master(x.socket, "x");
  bus.bind_master(b.socket, "b");
  std::vector<uint8_t> data(8);
  sc_time returned, left, returned_idle, left_idle, returned_read;
  tlm::tlm_response_status status = tlm::TLM_INCOMPLETE_RESPONSE, read_status = tlm::TLM_INCOMPLETE_RESPONSE;
  m2test::TestThread t("t", [&] {
    sc_core::wait(10, SC_NS);
    sc_time d = kZero;
    status = b.transport(tlm::TLM_WRITE_COMMAND, 2, data.data(), 8, d);  // x holds the bus until 180 ns
    returned = sc_core::sc_time_stamp();
    left = d;
    sc_core::wait(sc_time(300, SC_NS) - returned);
    d = sc_time(20, SC_NS);  // local time: it asks at 320 ns
    b.transport(tlm::TLM_WRITE_COMMAND, 2, data.data(), 8, d);
    returned_idle = sc_core::sc_time_stamp();
    left_idle = d;
    read_status = b.read(0, data);  // the bus has nothing to read: refused at once
    returned_read = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  CHECK(status == tlm::TLM_OK_RESPONSE);
  CHECK(returned == sc_time(210, SC_NS));  // granted at 180, 30 ns transfer
  CHECK(left == kZero);                    // the caller's time is SystemC time
  CHECK(returned_idle == sc_time(350, SC_NS));
  CHECK(left_idle == kZero);
  CHECK(read_status == tlm::TLM_COMMAND_ERROR_RESPONSE);
  CHECK(returned_read == returned_idle);
  CHECK(log == std::vector<std::string>{"x #1 END_REQ @0 s", "x #1 BEGIN_RESP @180 ns"});
  const auto& s = bus.master_stats();
  CHECK(s[1].transfers == 2);
  CHECK(s[1].waiting == sc_time(170, SC_NS));
}

TEST_CASE("sb switching bus AT: a port's responses one at a time, the next after END_RESP", "[model][sb]") {
  SwitchingBus bus("bus", TimingStyle::AT, 128, 100.0, 2);
  std::vector<std::string> log;
  NbMaster x("x", log, {{kZero, 8, kZero}, {kZero, 8, kZero}});  // the second asks after the first's END_REQ
  x.accept_responses = true;
  bus.bind_master(x.socket, "x");
  std::vector<tlm_sync_enum> ends;
  m2test::TestThread t("t", [&] {
    sc_core::wait(100, SC_NS);
    ends.push_back(x.end_response(1));
    sc_core::wait(10, SC_NS);
    ends.push_back(x.end_response(2));
  });
  sc_core::sc_start();
  CHECK(log == std::vector<std::string>{"x #1 END_REQ @0 s", "x #1 BEGIN_RESP @30 ns", "x #2 END_REQ @30 ns",
                                        "x #2 BEGIN_RESP @100 ns"});  // its transfer ended at 60 ns
  CHECK(ends == std::vector<tlm_sync_enum>{tlm::TLM_COMPLETED, tlm::TLM_COMPLETED});
  CHECK(bus.busy_time() == sc_time(60, SC_NS));
}

TEST_CASE("sb switching bus AT: base protocol violations are named", "[model][sb]") {
  SwitchingBus bus("bus", TimingStyle::AT, 128, 100.0, 2);
  std::vector<std::string> log;
  NbMaster x("x", log, {{kZero, 256, kZero}});
  NbMaster y("y", log, {});
  bus.bind_master(x.socket, "x");
  bus.bind_master(y.socket, "y");
  m2test::TestThread t("t", [&] {
    sc_core::wait(10, SC_NS);  // x holds the bus
    sc_time d = kZero;
    y.send(8, d);  // waits for the grant
    CHECK_THROWS_WITH(y.send(8, d), Contains("BEGIN_REQ from master y while its previous request awaits END_REQ"));
    CHECK_THROWS_WITH(y.end_response(1),
                      Contains("END_RESP from master y for a transaction not in its response phase"));
    tlm_phase phase = tlm::BEGIN_RESP;
    CHECK_THROWS_WITH(y.socket->nb_transport_fw(y.payloads.at(0), phase, d),
                      Contains("BEGIN_RESP from master y on the forward path"));
  });
  sc_core::sc_start();
  CHECK(log.size() == 4);  // y's first request still went through
}

TEST_CASE("sb switching bus LT: b_transport adds the transfer time and nothing waits, nb completes at once",
          "[model][sb]") {
  SwitchingBus bus("bus", TimingStyle::LT, 128, 100.0, 2);
  m2test::TestInitiator l1("l1"), l2("l2");
  std::vector<std::string> log;
  NbMaster x("x", log, {});
  bus.bind_master(l1.socket, "l1");
  bus.bind_master(l2.socket, "l2");
  bus.bind_master(x.socket, "x");
  std::vector<uint8_t> data(256);
  sc_time d1, d2, dx, after_calls;
  uint64_t counted_at_once = 99, counted_after = 0;
  tlm_sync_enum nb = tlm::TLM_ACCEPTED;
  m2test::TestThread t("t", [&] {
    d1 = kZero;
    l1.transport(tlm::TLM_WRITE_COMMAND, 1, data.data(), 256, d1);
    d2 = sc_time(5, SC_NS);  // local time ahead
    l2.transport(tlm::TLM_WRITE_COMMAND, 1, data.data(), 256, d2);
    sc_time first = sc_time(7, SC_NS);
    x.send(8, first);
    dx = sc_time(7, SC_NS);
    nb = x.send(8, dx);
    after_calls = sc_core::sc_time_stamp();
    counted_at_once = bus.master_stats()[0].transfers;  // a transfer counts once its time is over
    sc_core::wait(200, SC_NS);
    counted_after = bus.master_stats()[0].transfers + bus.master_stats()[1].transfers;
  });
  sc_core::sc_start();
  CHECK(after_calls == kZero);  // no call waited
  CHECK(d1 == sc_time(180, SC_NS));
  CHECK(d2 == sc_time(185, SC_NS));
  CHECK(nb == tlm::TLM_COMPLETED);
  CHECK(dx == sc_time(37, SC_NS));
  CHECK(log.empty());  // no backward call in LT
  CHECK(counted_at_once == 0);
  CHECK(counted_after == 2);
  CHECK(bus.master_stats()[2].transfers == 2);
  CHECK(bus.busy_time() == sc_time(420, SC_NS));
  CHECK(bus.describe() == "LT (no arbitration)");
}

// sim.check_protocol: each master's binding gets a checker named after it;
// contended AT traffic through them has no finding and the same timing.
TEST_CASE("sb switching bus AT: with protocol checking every master's binding is checked, timing unchanged",
          "[model][sb]") {
  m2::ProtocolChecking::set(true);
  Contention at("at", TimingStyle::AT, 3, 256);
  m2::ProtocolChecking::set(false);
  REQUIRE(at.bus.checkers().size() == 2);
  CHECK(std::string(at.bus.checkers()[0]->name()) == "at.check_a");
  std::vector<std::string> findings;
  for (const auto& c : at.bus.checkers())
    c->rules().set_sink([&](const m2::ProtocolFinding& f) { findings.push_back(f.rule + ": " + f.message); });
  sc_core::sc_start();
  CHECK(findings.empty());
  CHECK(at.bus.checkers()[0]->rules().responses() == 3);
  CHECK(at.order == std::vector<std::string>{"a", "b", "a", "b", "a", "b"});
  CHECK(at.b_done == sc_time(180, SC_NS) * 6.0);
}
