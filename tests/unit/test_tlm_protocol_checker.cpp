// Unit tests for the base-protocol checker (core/tlm_protocol_checker.h,
// core/tlm_protocol_rules.*): a correct AT initiator/target pair, pipelined,
// in the 4-phase, 2-phase (TLM_UPDATED with END_REQ), early-completion
// (TLM_COMPLETED, TLM_UPDATED with BEGIN_RESP) and blocking styles passes
// with no finding and every byte checked; then each rule is broken once by a
// deliberately wrong initiator or target and caught by name.
//
// Each TEST_CASE runs in its own process and elaborates once. The rule tests
// call through the checker from the test body after sc_start(SC_ZERO_TIME)
// (the sockets are bound by then); the correct pair runs in SC_THREADs.
#include <catch2/catch.hpp>

#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "core/tlm_protocol_checker.h"

using Catch::Matchers::Contains;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {

// Payloads with a memory manager: free() returns them to the pool.
class PayloadPool : public tlm::tlm_mm_interface {
 public:
  static constexpr unsigned kLength = 8;
  tlm::tlm_generic_payload* get() {
    if (m_free.empty()) {
      m_all.push_back(std::make_unique<tlm::tlm_generic_payload>(this));
      m_buffers.push_back(std::make_unique<unsigned char[]>(kLength));
      m_all.back()->set_data_ptr(m_buffers.back().get());
      m_free.push_back(m_all.back().get());
    }
    tlm::tlm_generic_payload* gp = m_free.back();
    m_free.pop_back();
    return gp;
  }
  void free(tlm::tlm_generic_payload* gp) override {
    unsigned char* data = gp->get_data_ptr();
    gp->reset();
    gp->set_data_ptr(data);
    m_free.push_back(gp);
  }
  std::size_t in_use() const { return m_all.size() - m_free.size(); }

 private:
  std::vector<std::unique_ptr<tlm::tlm_generic_payload>> m_all;
  std::vector<std::unique_ptr<unsigned char[]>> m_buffers;
  std::vector<tlm::tlm_generic_payload*> m_free;
};

// How the correct target answers BEGIN_REQ.
enum class TargetStyle {
  FourPhase,        // TLM_ACCEPTED, END_REQ and BEGIN_RESP later on the backward path
  UpdatedEndReq,    // TLM_UPDATED with END_REQ, BEGIN_RESP later
  Completed,        // TLM_COMPLETED: the whole transaction in the call
  UpdatedBeginResp  // TLM_UPDATED with BEGIN_RESP, the initiator sends END_RESP
};
// How the correct initiator answers BEGIN_RESP.
enum class InitiatorStyle { AcceptThenEndResp, UpdatedEndResp, Completed };

// A correct AT target: a 256-byte memory; requests are accepted after 10 ns,
// answered 30 ns after that, one response phase at a time.
struct GoodTarget : sc_core::sc_module, tlm::tlm_fw_transport_if<> {
  tlm::tlm_target_socket<> socket{"socket"};
  TargetStyle style;
  unsigned char mem[256] = {};
  std::deque<tlm::tlm_generic_payload*> accepted, answering;
  sc_core::sc_event accepted_ev, answering_ev, end_resp_ev;
  bool waiting_end_resp = false;

  SC_HAS_PROCESS(GoodTarget);
  GoodTarget(sc_core::sc_module_name n, TargetStyle s) : sc_module(n), style(s) {
    socket.bind(*this);
    SC_THREAD(request_thread);
    SC_THREAD(response_thread);
  }
  void execute(tlm::tlm_generic_payload& gp) {
    const uint64_t a = gp.get_address();
    if (a + gp.get_data_length() > sizeof mem) {
      gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return;
    }
    if (gp.is_write()) std::memcpy(mem + a, gp.get_data_ptr(), gp.get_data_length());
    else std::memcpy(gp.get_data_ptr(), mem + a, gp.get_data_length());
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_time& delay) override {
    if (phase == tlm::END_RESP) {
      waiting_end_resp = false;
      end_resp_ev.notify(delay);
      return tlm::TLM_COMPLETED;
    }
    if (phase != tlm::BEGIN_REQ) return tlm::TLM_ACCEPTED;
    switch (style) {
      case TargetStyle::Completed:
        execute(gp);
        delay += sc_time(40, SC_NS);
        return tlm::TLM_COMPLETED;
      case TargetStyle::UpdatedBeginResp:
        execute(gp);
        phase = tlm::BEGIN_RESP;
        delay += sc_time(40, SC_NS);
        return tlm::TLM_UPDATED;
      case TargetStyle::UpdatedEndReq:
        gp.acquire();
        answering.push_back(&gp);
        answering_ev.notify(delay + sc_time(30, SC_NS));
        phase = tlm::END_REQ;
        delay += sc_time(10, SC_NS);
        return tlm::TLM_UPDATED;
      case TargetStyle::FourPhase:
        break;
    }
    gp.acquire();
    accepted.push_back(&gp);
    accepted_ev.notify(delay);
    return tlm::TLM_ACCEPTED;
  }
  void request_thread() {
    for (;;) {
      while (accepted.empty()) wait(accepted_ev);
      wait(10, SC_NS);
      tlm::tlm_generic_payload* gp = accepted.front();
      accepted.pop_front();
      tlm::tlm_phase phase = tlm::END_REQ;
      sc_time delay = SC_ZERO_TIME;
      socket->nb_transport_bw(*gp, phase, delay);
      answering.push_back(gp);
      answering_ev.notify(30, SC_NS);
    }
  }
  void response_thread() {
    for (;;) {
      while (answering.empty()) wait(answering_ev);
      wait(30, SC_NS);
      tlm::tlm_generic_payload* gp = answering.front();
      answering.pop_front();
      execute(*gp);
      tlm::tlm_phase phase = tlm::BEGIN_RESP;
      sc_time delay = SC_ZERO_TIME;
      waiting_end_resp = true;
      const tlm::tlm_sync_enum s = socket->nb_transport_bw(*gp, phase, delay);
      if (s == tlm::TLM_ACCEPTED) {
        while (waiting_end_resp) wait(end_resp_ev);
      } else {
        waiting_end_resp = false;
        wait(delay);
      }
      gp->release();
    }
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) override {
    execute(gp);
    delay += sc_time(40, SC_NS);
  }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned int transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
};

// A correct AT initiator: writes 16 addresses then reads them back with up to
// 4 transactions in flight, waiting for END_REQ (or BEGIN_RESP) before the next
// BEGIN_REQ; checks every byte read. With `blocking` it uses b_transport.
struct GoodInitiator : sc_core::sc_module, tlm::tlm_bw_transport_if<> {
  tlm::tlm_initiator_socket<> socket{"socket"};
  InitiatorStyle style;
  bool blocking;
  PayloadPool pool;
  tlm::tlm_generic_payload* in_request = nullptr;
  sc_core::sc_event end_req_ev, done_ev, end_resp_ev;
  std::deque<tlm::tlm_generic_payload*> to_end;
  unsigned outstanding = 0, bytes_checked = 0, errors = 0;
  bool finished = false;

  SC_HAS_PROCESS(GoodInitiator);
  GoodInitiator(sc_core::sc_module_name n, InitiatorStyle s, bool b) : sc_module(n), style(s), blocking(b) {
    socket.bind(*this);
    SC_THREAD(run);
    SC_THREAD(end_resp_thread);
  }
  static unsigned char pattern(uint64_t address, unsigned i) { return static_cast<unsigned char>(address * 7 + i + 1); }
  void responded(tlm::tlm_generic_payload& gp) {
    if (!gp.is_response_ok()) ++errors;
    if (gp.is_read())
      for (unsigned i = 0; i < gp.get_data_length(); ++i) {
        if (gp.get_data_ptr()[i] != pattern(gp.get_address(), i)) ++errors;
        ++bytes_checked;
      }
    --outstanding;
    done_ev.notify();
    gp.release();
  }
  void run() {
    for (int pass = 0; pass < 2; ++pass) {
      for (uint64_t a = 0; a < 16 * PayloadPool::kLength; a += PayloadPool::kLength) {
        while (in_request != nullptr || outstanding >= 4) wait(end_req_ev | done_ev);
        tlm::tlm_generic_payload* gp = pool.get();
        gp->acquire();
        gp->set_command(pass == 0 ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
        gp->set_address(a);
        gp->set_data_length(PayloadPool::kLength);
        gp->set_streaming_width(PayloadPool::kLength);
        gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        for (unsigned i = 0; i < PayloadPool::kLength; ++i) gp->get_data_ptr()[i] = pass == 0 ? pattern(a, i) : 0;
        ++outstanding;
        sc_time delay = SC_ZERO_TIME;
        if (blocking) {
          socket->b_transport(*gp, delay);
          wait(delay);
          responded(*gp);
          continue;
        }
        tlm::tlm_phase phase = tlm::BEGIN_REQ;
        in_request = gp;
        const tlm::tlm_sync_enum s = socket->nb_transport_fw(*gp, phase, delay);
        if (s == tlm::TLM_COMPLETED) {
          in_request = nullptr;
          wait(delay);
          responded(*gp);
        } else if (s == tlm::TLM_UPDATED && phase == tlm::END_REQ) {
          in_request = nullptr;
          wait(delay);
        } else if (s == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP) {
          in_request = nullptr;
          wait(delay);
          phase = tlm::END_RESP;
          delay = SC_ZERO_TIME;
          socket->nb_transport_fw(*gp, phase, delay);
          responded(*gp);
        }
      }
      while (outstanding > 0) wait(done_ev);
    }
    finished = true;
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_time& delay) override {
    if (in_request == &gp) {
      in_request = nullptr;
      end_req_ev.notify();
    }
    if (phase != tlm::BEGIN_RESP) return tlm::TLM_ACCEPTED;
    switch (style) {
      case InitiatorStyle::Completed:
        responded(gp);
        return tlm::TLM_COMPLETED;
      case InitiatorStyle::UpdatedEndResp:
        phase = tlm::END_RESP;
        delay += sc_time(5, SC_NS);
        responded(gp);
        return tlm::TLM_UPDATED;
      case InitiatorStyle::AcceptThenEndResp:
        break;
    }
    to_end.push_back(&gp);
    end_resp_ev.notify(5, SC_NS);
    return tlm::TLM_ACCEPTED;
  }
  void end_resp_thread() {
    for (;;) {
      while (to_end.empty()) wait(end_resp_ev);
      tlm::tlm_generic_payload* gp = to_end.front();
      to_end.pop_front();
      tlm::tlm_phase phase = tlm::END_RESP;
      sc_time delay = SC_ZERO_TIME;
      socket->nb_transport_fw(*gp, phase, delay);
      responded(*gp);
    }
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
};

// Findings collected instead of SC_REPORT_ERROR.
struct Collected {
  std::vector<m2::ProtocolFinding> findings;
  void attach(m2::ProtocolChecker<>& checker) {
    checker.rules().set_sink([this](const m2::ProtocolFinding& f) { findings.push_back(f); });
  }
};

void run_good_pair(TargetStyle ts, InitiatorStyle is, bool blocking) {
  GoodInitiator init("init", is, blocking);
  m2::ProtocolChecker<> checker("checker");
  GoodTarget target("target", ts);
  init.socket.bind(checker.target_socket);
  checker.initiator_socket.bind(target.socket);
  Collected c;
  c.attach(checker);
  sc_core::sc_start();
  INFO((c.findings.empty() ? std::string() : c.findings.front().message));
  CHECK(c.findings.empty());
  CHECK(checker.finding_count() == 0);
  CHECK(init.finished);
  CHECK(init.errors == 0);
  CHECK(init.bytes_checked == 16 * PayloadPool::kLength);
  CHECK(checker.rules().responses() == 32);
  CHECK(checker.rules().transactions_in_flight() == 0);
  CHECK(init.pool.in_use() == 0);
}

}  // namespace

TEST_CASE("protocol checker: a 4-phase pipelined AT pair has no finding", "[tlm_checker]") {
  run_good_pair(TargetStyle::FourPhase, InitiatorStyle::AcceptThenEndResp, false);
}

TEST_CASE("protocol checker: END_REQ by TLM_UPDATED and END_RESP by TLM_UPDATED have no finding", "[tlm_checker]") {
  run_good_pair(TargetStyle::UpdatedEndReq, InitiatorStyle::UpdatedEndResp, false);
}

TEST_CASE("protocol checker: the initiator completing at BEGIN_RESP has no finding", "[tlm_checker]") {
  run_good_pair(TargetStyle::FourPhase, InitiatorStyle::Completed, false);
}

TEST_CASE("protocol checker: the target completing at BEGIN_REQ has no finding", "[tlm_checker]") {
  run_good_pair(TargetStyle::Completed, InitiatorStyle::AcceptThenEndResp, false);
}

TEST_CASE("protocol checker: TLM_UPDATED with BEGIN_RESP then END_RESP has no finding", "[tlm_checker]") {
  run_good_pair(TargetStyle::UpdatedBeginResp, InitiatorStyle::AcceptThenEndResp, false);
}

TEST_CASE("protocol checker: b_transport has no finding", "[tlm_checker]") {
  run_good_pair(TargetStyle::FourPhase, InitiatorStyle::AcceptThenEndResp, true);
}

// ---------------------------------------------------------------------------
// Each rule broken once. A stub initiator and target around the checker; the
// test body plays the wrong side's calls.
namespace {

struct StubTarget : sc_core::sc_module, tlm::tlm_fw_transport_if<> {
  tlm::tlm_target_socket<> socket{"socket"};
  std::function<tlm::tlm_sync_enum(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_time&)> fw =
      [](tlm::tlm_generic_payload&, tlm::tlm_phase& phase, sc_time&) {
        return phase == tlm::END_RESP ? tlm::TLM_COMPLETED : tlm::TLM_ACCEPTED;
      };
  std::function<void(tlm::tlm_generic_payload&)> blocking = [](tlm::tlm_generic_payload& gp) {
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  };
  std::function<bool(tlm::tlm_generic_payload&, tlm::tlm_dmi&)> dmi = [](tlm::tlm_generic_payload&, tlm::tlm_dmi&) {
    return false;
  };
  std::function<unsigned(tlm::tlm_generic_payload&)> dbg = [](tlm::tlm_generic_payload& gp) {
    return gp.get_data_length();
  };
  explicit StubTarget(sc_core::sc_module_name n) : sc_module(n) { socket.bind(*this); }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& p, sc_time& d) override {
    return fw(gp, p, d);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_time&) override { blocking(gp); }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& gp, tlm::tlm_dmi& d) override { return dmi(gp, d); }
  unsigned int transport_dbg(tlm::tlm_generic_payload& gp) override { return dbg(gp); }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase phase) {
    sc_time d = SC_ZERO_TIME;
    return socket->nb_transport_bw(gp, phase, d);
  }
};

struct StubInitiator : sc_core::sc_module, tlm::tlm_bw_transport_if<> {
  tlm::tlm_initiator_socket<> socket{"socket"};
  std::function<tlm::tlm_sync_enum(tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_time&)> bw_reply =
      [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_time&) { return tlm::TLM_ACCEPTED; };
  std::vector<std::pair<uint64_t, uint64_t>> invalidations;
  explicit StubInitiator(sc_core::sc_module_name n) : sc_module(n) { socket.bind(*this); }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& p, sc_time& d) override {
    return bw_reply(gp, p, d);
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64 s, sc_dt::uint64 e) override { invalidations.emplace_back(s, e); }
  tlm::tlm_sync_enum fw(tlm::tlm_generic_payload& gp, tlm::tlm_phase phase) {
    sc_time d = SC_ZERO_TIME;
    return socket->nb_transport_fw(gp, phase, d);
  }
};

// A well-formed request without a memory manager.
struct Txn {
  unsigned char data[4] = {1, 2, 3, 4};
  tlm::tlm_generic_payload gp;
  explicit Txn(uint64_t address, tlm::tlm_command command = tlm::TLM_WRITE_COMMAND) {
    gp.set_command(command);
    gp.set_address(address);
    gp.set_data_ptr(data);
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }
};

struct Bench {
  StubInitiator init{"init"};
  m2::ProtocolChecker<> checker{"checker"};
  StubTarget target{"target"};
  Collected c;
  Bench() {
    init.socket.bind(checker.target_socket);
    checker.initiator_socket.bind(target.socket);
    c.attach(checker);
  }
  void start() { sc_core::sc_start(SC_ZERO_TIME); }
  // Exactly one finding, of `rule`, whose message names it.
  void expect_one(const char* rule) {
    REQUIRE(c.findings.size() == 1);
    INFO(c.findings[0].message);
    CHECK(c.findings[0].rule == rule);
    CHECK_THAT(c.findings[0].message, Contains(std::string(": ") + rule + ": "));
    CHECK_THAT(c.findings[0].message, Contains("checker"));
    CHECK_THAT(c.findings[0].message, Contains("IEEE 1666-2011"));
    CHECK(checker.finding_count() == 1);
  }
};

}  // namespace

TEST_CASE("protocol checker: phase order, END_RESP before any response", "[tlm_checker]") {
  Bench b;
  // The target only accepts (completing it would be a second finding: no response status).
  b.target.fw = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_time&) { return tlm::TLM_ACCEPTED; };
  b.start();
  Txn t(0x10);
  REQUIRE(b.init.fw(t.gp, tlm::BEGIN_REQ) == tlm::TLM_ACCEPTED);
  CHECK(b.c.findings.empty());
  b.init.fw(t.gp, tlm::END_RESP);
  b.expect_one(m2::kRulePhaseOrder);
  CHECK_THAT(b.c.findings[0].message, Contains("END_RESP"));
  CHECK_THAT(b.c.findings[0].message, Contains("in its request phase"));
}

TEST_CASE("protocol checker: phase order, a target sending BEGIN_REQ", "[tlm_checker]") {
  Bench b;
  b.start();
  Txn t(0x10);
  b.target.bw(t.gp, tlm::BEGIN_REQ);
  b.expect_one(m2::kRulePhaseOrder);
  CHECK_THAT(b.c.findings[0].message, Contains("sent by the target"));
}

TEST_CASE("protocol checker: nb_transport return, TLM_ACCEPTED with the phase changed", "[tlm_checker]") {
  Bench b;
  b.target.fw = [](tlm::tlm_generic_payload&, tlm::tlm_phase& phase, sc_time&) {
    phase = tlm::END_REQ;
    return tlm::TLM_ACCEPTED;
  };
  b.start();
  Txn t(0x10);
  b.init.fw(t.gp, tlm::BEGIN_REQ);
  b.expect_one(m2::kRuleNbReturn);
  CHECK_THAT(b.c.findings[0].message, Contains("TLM_ACCEPTED"));
}

TEST_CASE("protocol checker: request exclusion, a second BEGIN_REQ before END_REQ", "[tlm_checker]") {
  Bench b;
  b.start();
  Txn t1(0x10), t2(0x20);
  b.init.fw(t1.gp, tlm::BEGIN_REQ);
  b.init.fw(t2.gp, tlm::BEGIN_REQ);
  b.expect_one(m2::kRuleRequestExclusion);
  CHECK_THAT(b.c.findings[0].message, Contains("0x20"));
  // After END_REQ of both, a third request is fine.
  b.target.bw(t1.gp, tlm::END_REQ);
  b.target.bw(t2.gp, tlm::END_REQ);
  Txn t3(0x30);
  b.init.fw(t3.gp, tlm::BEGIN_REQ);
  CHECK(b.c.findings.size() == 1);
}

TEST_CASE("protocol checker: response exclusion, a second BEGIN_RESP before END_RESP", "[tlm_checker]") {
  Bench b;
  b.start();
  Txn t1(0x10), t2(0x20);
  b.init.fw(t1.gp, tlm::BEGIN_REQ);
  b.target.bw(t1.gp, tlm::END_REQ);
  b.init.fw(t2.gp, tlm::BEGIN_REQ);
  b.target.bw(t2.gp, tlm::END_REQ);
  t1.gp.set_response_status(tlm::TLM_OK_RESPONSE);
  t2.gp.set_response_status(tlm::TLM_OK_RESPONSE);
  b.target.bw(t1.gp, tlm::BEGIN_RESP);
  CHECK(b.c.findings.empty());
  b.target.bw(t2.gp, tlm::BEGIN_RESP);
  b.expect_one(m2::kRuleResponseExclusion);
}

TEST_CASE("protocol checker: response before request, BEGIN_RESP for an unknown transaction", "[tlm_checker]") {
  Bench b;
  b.start();
  Txn t(0x10);
  t.gp.set_response_status(tlm::TLM_OK_RESPONSE);
  b.target.bw(t.gp, tlm::BEGIN_RESP);
  b.expect_one(m2::kRuleResponseBeforeRequest);
}

TEST_CASE("protocol checker: response status, BEGIN_RESP with TLM_INCOMPLETE_RESPONSE", "[tlm_checker]") {
  Bench b;
  b.start();
  Txn t(0x10);
  b.init.fw(t.gp, tlm::BEGIN_REQ);
  b.target.bw(t.gp, tlm::BEGIN_RESP);  // END_REQ implied: allowed, but the status is not set
  b.expect_one(m2::kRuleResponseStatus);
  CHECK_THAT(b.c.findings[0].message, Contains("TLM_INCOMPLETE_RESPONSE"));
}

TEST_CASE("protocol checker: response status, b_transport returning TLM_INCOMPLETE_RESPONSE", "[tlm_checker]") {
  Bench b;
  b.target.blocking = [](tlm::tlm_generic_payload&) {};
  b.start();
  Txn t(0x10);
  sc_time d = SC_ZERO_TIME;
  b.init.socket->b_transport(t.gp, d);
  b.expect_one(m2::kRuleResponseStatus);
  CHECK_THAT(b.c.findings[0].message, Contains("b_transport"));
}

TEST_CASE("protocol checker: response status, early TLM_COMPLETED without a status", "[tlm_checker]") {
  Bench b;
  b.target.fw = [](tlm::tlm_generic_payload&, tlm::tlm_phase&, sc_time&) { return tlm::TLM_COMPLETED; };
  b.start();
  Txn t(0x10);
  b.init.fw(t.gp, tlm::BEGIN_REQ);
  b.expect_one(m2::kRuleResponseStatus);
  CHECK_THAT(b.c.findings[0].message, Contains("TLM_COMPLETED"));
}

TEST_CASE("protocol checker: request attributes, a request with data length 0", "[tlm_checker]") {
  Bench b;
  b.start();
  Txn t(0x10);
  t.gp.set_data_length(0);
  b.init.fw(t.gp, tlm::BEGIN_REQ);
  b.expect_one(m2::kRuleRequestAttributes);
  CHECK_THAT(b.c.findings[0].message, Contains("data length of 0"));
}

TEST_CASE("protocol checker: request attributes, a request already answered OK", "[tlm_checker]") {
  Bench b;
  b.start();
  Txn t(0x10);
  t.gp.set_response_status(tlm::TLM_OK_RESPONSE);
  sc_time d = SC_ZERO_TIME;
  b.init.socket->b_transport(t.gp, d);
  b.expect_one(m2::kRuleRequestAttributes);
  CHECK_THAT(b.c.findings[0].message, Contains("TLM_OK_RESPONSE"));
}

TEST_CASE("protocol checker: read-only attributes, a target shortening the data length", "[tlm_checker]") {
  Bench b;
  b.target.blocking = [](tlm::tlm_generic_payload& gp) {
    gp.set_data_length(2);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  };
  b.start();
  Txn t(0x10, tlm::TLM_READ_COMMAND);
  sc_time d = SC_ZERO_TIME;
  b.init.socket->b_transport(t.gp, d);
  b.expect_one(m2::kRuleReadOnlyAttributes);
  CHECK_THAT(b.c.findings[0].message, Contains("data length"));
}

TEST_CASE("protocol checker: write data, a target changing a write's data array", "[tlm_checker]") {
  Bench b;
  b.start();
  Txn t(0x10, tlm::TLM_WRITE_COMMAND);
  b.init.fw(t.gp, tlm::BEGIN_REQ);
  t.data[2] = 0xEE;  // the target scribbles on it
  t.gp.set_response_status(tlm::TLM_OK_RESPONSE);
  b.target.bw(t.gp, tlm::BEGIN_RESP);
  b.expect_one(m2::kRuleWriteData);
  CHECK_THAT(b.c.findings[0].message, Contains("byte 2"));
}

TEST_CASE("protocol checker: byte enables, a read writing a disabled byte", "[tlm_checker]") {
  Bench b;
  b.target.blocking = [](tlm::tlm_generic_payload& gp) {
    std::memset(gp.get_data_ptr(), 0x5A, gp.get_data_length());  // all 4 bytes, enables or not
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  };
  b.start();
  Txn t(0x10, tlm::TLM_READ_COMMAND);
  unsigned char be[2] = {TLM_BYTE_ENABLED, TLM_BYTE_DISABLED};  // bytes 1 and 3 disabled
  t.gp.set_byte_enable_ptr(be);
  t.gp.set_byte_enable_length(2);
  sc_time d = SC_ZERO_TIME;
  b.init.socket->b_transport(t.gp, d);
  b.expect_one(m2::kRuleByteEnables);
  CHECK_THAT(b.c.findings[0].message, Contains("byte 1"));
}

TEST_CASE("protocol checker: byte enables honoured by a read has no finding", "[tlm_checker]") {
  Bench b;
  b.target.blocking = [](tlm::tlm_generic_payload& gp) {
    for (unsigned i = 0; i < gp.get_data_length(); i += 2) gp.get_data_ptr()[i] = 0x5A;
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  };
  b.start();
  Txn t(0x10, tlm::TLM_READ_COMMAND);
  unsigned char be[2] = {TLM_BYTE_ENABLED, TLM_BYTE_DISABLED};
  t.gp.set_byte_enable_ptr(be);
  t.gp.set_byte_enable_length(2);
  sc_time d = SC_ZERO_TIME;
  b.init.socket->b_transport(t.gp, d);
  CHECK(b.c.findings.empty());
  CHECK(t.data[0] == 0x5A);
  CHECK(t.data[1] == 2);
}

TEST_CASE("protocol checker: transaction reuse, BEGIN_REQ again while in flight", "[tlm_checker]") {
  Bench b;
  b.start();
  Txn t(0x10);
  b.init.fw(t.gp, tlm::BEGIN_REQ);
  b.target.bw(t.gp, tlm::END_REQ);  // request phase over: no request exclusion
  b.init.fw(t.gp, tlm::BEGIN_REQ);
  b.expect_one(m2::kRuleTransactionReuse);
}

TEST_CASE("protocol checker: reference count, a managed transaction sent without acquire", "[tlm_checker]") {
  Bench b;
  b.start();
  PayloadPool pool;
  tlm::tlm_generic_payload* gp = pool.get();
  gp->set_command(tlm::TLM_READ_COMMAND);
  gp->set_address(0x10);
  gp->set_data_length(4);
  gp->set_streaming_width(4);
  gp->set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  b.init.fw(*gp, tlm::BEGIN_REQ);
  b.expect_one(m2::kRuleReferenceCount);
  CHECK_THAT(b.c.findings[0].message, Contains("acquire"));
}

TEST_CASE("protocol checker: b_transport in flight, on a transaction in its nb phases", "[tlm_checker]") {
  Bench b;
  b.start();
  Txn t(0x10);
  b.init.fw(t.gp, tlm::BEGIN_REQ);
  b.target.bw(t.gp, tlm::END_REQ);
  sc_time d = SC_ZERO_TIME;
  b.init.socket->b_transport(t.gp, d);
  b.expect_one(m2::kRuleBlockingInFlight);
}

TEST_CASE("protocol checker: DMI grant, a region without the address asked for", "[tlm_checker]") {
  Bench b;
  static unsigned char backing[0x100];
  b.target.dmi = [](tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
    dmi.set_dmi_ptr(backing);
    dmi.set_start_address(0x1000);
    dmi.set_end_address(0x10FF);
    dmi.allow_read_write();
    return true;
  };
  b.start();
  Txn t(0x10, tlm::TLM_READ_COMMAND);
  tlm::tlm_dmi dmi;
  CHECK(b.init.socket->get_direct_mem_ptr(t.gp, dmi));
  b.expect_one(m2::kRuleDmiGrant);
  CHECK(b.checker.rules().dmi_regions().empty());
}

TEST_CASE("protocol checker: DMI invalidation is forwarded and drops the regions it covers", "[tlm_checker]") {
  Bench b;
  static unsigned char backing[0x100];
  b.target.dmi = [](tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi) {
    const uint64_t base = gp.get_address() & ~uint64_t{0xFF};
    dmi.set_dmi_ptr(backing);
    dmi.set_start_address(base);
    dmi.set_end_address(base + 0xFF);
    dmi.allow_read_write();
    return true;
  };
  b.start();
  Txn t1(0x110, tlm::TLM_READ_COMMAND), t2(0x310, tlm::TLM_READ_COMMAND);
  tlm::tlm_dmi d1, d2;
  REQUIRE(b.init.socket->get_direct_mem_ptr(t1.gp, d1));
  REQUIRE(b.init.socket->get_direct_mem_ptr(t2.gp, d2));
  REQUIRE(b.checker.rules().dmi_regions().size() == 2);
  b.target.socket->invalidate_direct_mem_ptr(0x180, 0x1FF);
  REQUIRE(b.init.invalidations.size() == 1);
  CHECK(b.init.invalidations[0] == std::make_pair(uint64_t{0x180}, uint64_t{0x1FF}));
  REQUIRE(b.checker.rules().dmi_regions().size() == 1);
  CHECK(b.checker.rules().dmi_regions()[0].start == 0x300);
  CHECK(b.c.findings.empty());
  // A range upside down is a finding, and still forwarded.
  b.target.socket->invalidate_direct_mem_ptr(0x400, 0x300);
  b.expect_one(m2::kRuleDmiInvalidation);
  CHECK(b.init.invalidations.size() == 2);
}

TEST_CASE("protocol checker: debug transport, more bytes than the data length", "[tlm_checker]") {
  Bench b;
  b.target.dbg = [](tlm::tlm_generic_payload& gp) { return gp.get_data_length() + 4; };
  b.start();
  Txn t(0x10, tlm::TLM_READ_COMMAND);
  CHECK(b.init.socket->transport_dbg(t.gp) == 8);
  b.expect_one(m2::kRuleDebugTransport);
}

DECLARE_EXTENDED_PHASE(CHECKER_TEST_RETRY);

TEST_CASE("protocol checker: an ignorable phase passes without a finding or a change of state", "[tlm_checker]") {
  Bench b;
  b.start();
  Txn t(0x10);
  b.init.fw(t.gp, tlm::BEGIN_REQ);
  b.target.bw(t.gp, CHECKER_TEST_RETRY);  // e.g. a bus's retry, as an extension phase
  b.init.fw(t.gp, CHECKER_TEST_RETRY);
  CHECK(b.c.findings.empty());
  b.target.bw(t.gp, tlm::END_REQ);  // still in its request phase: END_REQ is in order
  CHECK(b.c.findings.empty());
  CHECK(b.checker.rules().transactions_in_flight() == 1);
}

TEST_CASE("protocol checker: by default a finding is an SC_REPORT_ERROR of type m2/tlm_protocol", "[tlm_checker]") {
  StubInitiator init("init");
  m2::ProtocolChecker<> checker("checker");
  StubTarget target("target");
  init.socket.bind(checker.target_socket);
  checker.initiator_socket.bind(target.socket);
  sc_core::sc_start(SC_ZERO_TIME);
  Txn t1(0x10), t2(0x20);
  init.fw(t1.gp, tlm::BEGIN_REQ);
  sc_core::sc_report_handler::set_actions(m2::kProtocolMsgType, sc_core::SC_ERROR, sc_core::SC_THROW);
  try {
    init.fw(t2.gp, tlm::BEGIN_REQ);
    FAIL("no report");
  } catch (const sc_core::sc_report& r) {
    CHECK(std::string(r.get_msg_type()) == m2::kProtocolMsgType);
    CHECK(r.get_severity() == sc_core::SC_ERROR);
    CHECK_THAT(r.get_msg(), Contains("request exclusion"));
  }
  CHECK(checker.finding_count() == 1);
}

// ---------------------------------------------------------------------------
// The checker between a multi-passthrough initiator socket (as the platform's
// buses have) and two kinds of target socket: a simple_target_socket that
// answers only b_transport (its own nb-to-b adapter runs the 4 phases) and a
// multi_passthrough_target_socket. Both backward paths reach the right port,
// and an invalidation reaches the initiator with its port number.
namespace {

struct MultiInitiator : sc_core::sc_module {
  tlm_utils::multi_passthrough_initiator_socket<MultiInitiator> socket{"socket"};
  std::vector<int> invalidated_ports;
  sc_core::sc_event response_ev;
  tlm::tlm_generic_payload* responded = nullptr;
  unsigned ok_reads = 0;

  SC_HAS_PROCESS(MultiInitiator);
  explicit MultiInitiator(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_nb_transport_bw(this, &MultiInitiator::nb_transport_bw);
    socket.register_invalidate_direct_mem_ptr(this, &MultiInitiator::invalidate);
    SC_THREAD(run);
  }
  tlm::tlm_sync_enum nb_transport_bw(int, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_time&) {
    if (phase == tlm::BEGIN_RESP) {
      responded = &gp;
      response_ev.notify();
    }
    return tlm::TLM_ACCEPTED;
  }
  void invalidate(int port, sc_dt::uint64, sc_dt::uint64) { invalidated_ports.push_back(port); }
  // One 4-phase transaction on `port`, waiting for the response if it is not immediate.
  void transact(int port, tlm::tlm_command command, uint64_t address, unsigned char* data) {
    tlm::tlm_generic_payload gp;
    gp.set_command(command);
    gp.set_address(address);
    gp.set_data_ptr(data);
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_time delay = SC_ZERO_TIME;
    responded = nullptr;
    tlm::tlm_sync_enum s = socket[port]->nb_transport_fw(gp, phase, delay);
    if (s == tlm::TLM_COMPLETED) return;
    if (s == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP) responded = &gp;
    while (responded != &gp) wait(response_ev);
    phase = tlm::END_RESP;
    delay = SC_ZERO_TIME;
    socket[port]->nb_transport_fw(gp, phase, delay);
    if (command == tlm::TLM_READ_COMMAND && gp.is_response_ok()) ++ok_reads;
  }
  void run() {
    for (int port = 0; port < 2; ++port) {
      unsigned char out[4] = {static_cast<unsigned char>(0xA0 + port), 0xB1, 0xC2, 0xD3}, in[4] = {};
      transact(port, tlm::TLM_WRITE_COMMAND, 0x20, out);
      transact(port, tlm::TLM_READ_COMMAND, 0x20, in);
      if (std::memcmp(in, out, 4) != 0) ok_reads = 1000;  // a wrong byte: fails the count below
    }
  }
};

// A 16-byte memory answering b_transport (and, on the multi socket, nb_transport
// through TLM_COMPLETED).
struct SmallMemory {
  unsigned char bytes[16] = {};
  void access(tlm::tlm_generic_payload& gp) {
    unsigned char* m = bytes + (gp.get_address() & 0xF);
    if (gp.is_write()) std::memcpy(m, gp.get_data_ptr(), 4);
    else std::memcpy(gp.get_data_ptr(), m, 4);
    gp.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

struct SimpleSocketTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<SimpleSocketTarget> socket{"socket"};
  SmallMemory mem;
  explicit SimpleSocketTarget(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_b_transport(this, &SimpleSocketTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& gp, sc_time& delay) {
    mem.access(gp);
    delay += sc_time(20, SC_NS);
  }
};

struct MultiSocketTarget : sc_core::sc_module {
  tlm_utils::multi_passthrough_target_socket<MultiSocketTarget> socket{"socket"};
  SmallMemory mem;
  explicit MultiSocketTarget(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_nb_transport_fw(this, &MultiSocketTarget::nb_transport_fw);
  }
  tlm::tlm_sync_enum nb_transport_fw(int, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_time& delay) {
    if (phase != tlm::BEGIN_REQ) return tlm::TLM_COMPLETED;
    mem.access(gp);
    phase = tlm::BEGIN_RESP;
    delay += sc_time(20, SC_NS);
    return tlm::TLM_UPDATED;
  }
};

}  // namespace

TEST_CASE("protocol checker: between a multi-passthrough initiator socket and simple and multi target sockets",
          "[tlm_checker]") {
  MultiInitiator init("init");
  m2::ProtocolChecker<> check0("check0"), check1("check1");
  SimpleSocketTarget simple("simple");
  MultiSocketTarget multi("multi");
  init.socket.bind(check0.target_socket);  // port 0
  check0.initiator_socket.bind(simple.socket);
  init.socket.bind(check1.target_socket);  // port 1
  check1.initiator_socket.bind(multi.socket);
  Collected c0, c1;
  c0.attach(check0);
  c1.attach(check1);
  sc_core::sc_start();
  CHECK(c0.findings.empty());
  CHECK(c1.findings.empty());
  CHECK(init.ok_reads == 2);
  CHECK(simple.mem.bytes[0] == 0xA0);
  CHECK(multi.mem.bytes[0] == 0xA1);
  CHECK(check0.rules().responses() == 2);
  CHECK(check1.rules().responses() == 2);
  multi.socket[0]->invalidate_direct_mem_ptr(0, 0xF);
  REQUIRE(init.invalidated_ports.size() == 1);
  CHECK(init.invalidated_ports[0] == 1);
}
