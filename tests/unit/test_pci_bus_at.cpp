// The PCI bus in AT as the TLM-2.0 base protocol (models/pci/pci_bus_at.cpp):
// the phases a master sees and when, pipelined requests and response
// exclusion, targets that answer only nb_transport or only b_transport,
// memory-managed payloads and their reference counts, and the errors a
// master that breaks the protocol gets.
//
// Clocks (pci64-66 defaults): write burst = 2 arbitration + 1 address +
// 2 initial + 1 turnaround + data phases; read burst = 2 + 1 + 10 + 1 + data
// phases; the arbitration is hidden for a master that waited.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_initiator_socket.h>

#include "core/memory.h"
#include "core/nb_caller.h"
#include "core/protocol_checking.h"
#include "pci/pci_bus.h"

#include "nb_test_models.h"

using Catch::Matchers::Contains;
using m2::TimingStyle;
using m2test::CountingMm;
using m2test::NbMaster;
using m2test::NbTarget;
using m2test::setup;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {

constexpr uint64_t kMemBase = 0x10000000, kMemSize = 0x10000;
constexpr uint64_t kDevBase = 0xC0000000, kDevSize = 0x1000;

const sc_time k66 = sc_time(1000.0 / 66, SC_NS);
sc_time clk(uint64_t n) { return k66 * static_cast<double>(n); }

// One nb master, host-like memory (b_transport only: the simple socket
// converts) and an nb-only device.
struct Bench {
  m2::PciBus bus{"bus", TimingStyle::AT};
  NbMaster master{"master"};
  m2::Memory mem{"mem", kMemSize};
  NbTarget dev{"dev", clk(1)};
  Bench() {
    bus.bind_master(master.socket, "m");
    bus.attach(mem.socket, kMemBase, kMemSize, "mem");
    bus.attach(dev.socket, kDevBase, kDevSize, "dev");
  }
};

}  // namespace

TEST_CASE("pci bus AT: END_REQ is the grant after the arbitration, BEGIN_RESP the end of the last burst",
          "[model][pci][at]") {
  Bench b;
  std::vector<uint8_t> data(1024), back(1024);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i * 13 + 5);
  tlm::tlm_generic_payload w, r;
  tlm::tlm_sync_enum first = tlm::TLM_COMPLETED;
  b.master.body = [&](NbMaster& m) {
    setup(w, tlm::TLM_WRITE_COMMAND, kMemBase + 0x100, data.data(), 1024);
    first = m.begin(w);
    sc_core::wait(m.responded);
    setup(r, tlm::TLM_READ_COMMAND, kMemBase + 0x100, back.data(), 1024);
    m.begin(r, clk(10));  // annotated: the request reaches the bus 10 clocks later
    sc_core::wait(m.responded);
  };
  sc_core::sc_start();
  CHECK(first == tlm::TLM_ACCEPTED);
  REQUIRE(b.master.seen.size() == 4);
  // 1 KB write: 128 data phases in bursts of 61, 61, 6; the first burst pays
  // the idle bus's 2 arbitration clocks, the later ones find the bus free
  // again and pay them too (nobody else held it).
  CHECK(b.master.find("END_REQ", w)->at == clk(2));
  CHECK(b.master.find("BEGIN_RESP", w)->at == b.bus.transfer_time(false, 0x100, 1024));
  CHECK(w.get_response_status() == tlm::TLM_OK_RESPONSE);
  CHECK(w.get_address() == kMemBase + 0x100);  // restored
  // The read's request waits its 10 clocks of annotation, then the same.
  const sc_time read_start = b.master.find("BEGIN_RESP", w)->at + clk(10);
  CHECK(b.master.find("END_REQ", r)->at == read_start + clk(2));
  CHECK(b.master.find("BEGIN_RESP", r)->at == read_start + b.bus.transfer_time(true, 0x100, 1024));
  CHECK(back == data);
  CHECK(b.bus.master_stats()[0].transactions == 2);
  CHECK(b.bus.master_stats()[0].bursts == 6);
}

TEST_CASE("pci bus AT: pipelined requests of one master: a response waits for the previous END_RESP",
          "[model][pci][at]") {
  Bench b;
  b.master.hold_response = clk(40);  // the master takes its time with each response
  std::vector<uint8_t> a(64, 0xA5), got(64);
  tlm::tlm_generic_payload t1, t2;
  b.master.body = [&](NbMaster& m) {
    setup(t1, tlm::TLM_WRITE_COMMAND, kMemBase, a.data(), 64);
    REQUIRE(m.begin(t1) == tlm::TLM_ACCEPTED);
    sc_core::wait(m.end_req);  // request exclusion: the next BEGIN_REQ after END_REQ
    setup(t2, tlm::TLM_READ_COMMAND, kMemBase, got.data(), 64);
    REQUIRE(m.begin(t2) == tlm::TLM_ACCEPTED);
  };
  sc_core::sc_start();
  // t1: 2 + 4 + 8 = 14 clocks. t2 asked while t1 held the bus: its
  // arbitration is hidden, 12 + 8 = 20 clocks from 14.
  CHECK(b.master.find("END_REQ", t1)->at == clk(2));
  CHECK(b.master.find("BEGIN_RESP", t1)->at == clk(14));
  CHECK(b.master.find("END_REQ", t2)->at == clk(14));
  // t2's data phases end at 34, but t1's response phase lasts until its
  // END_RESP at 14 + 40: response exclusion holds t2's BEGIN_RESP until then.
  CHECK(b.master.find("END_RESP", t1)->at == clk(14) + clk(40));
  CHECK(b.master.find("BEGIN_RESP", t2)->at == clk(14) + clk(40));
  CHECK(b.master.find("END_RESP", t2) != nullptr);
  CHECK(got == a);
}

TEST_CASE("pci bus AT: a target answering only nb_transport acts at the annotated time and its latency holds the bus",
          "[model][pci][at]") {
  Bench b;
  std::vector<uint8_t> data(64, 0x3C), back(64);
  tlm::tlm_generic_payload w, r;
  b.master.body = [&](NbMaster& m) {
    setup(w, tlm::TLM_WRITE_COMMAND, kDevBase + 0x40, data.data(), 64);
    m.begin(w);
    sc_core::wait(m.responded);
    setup(r, tlm::TLM_READ_COMMAND, kDevBase + 0x40, back.data(), 64);
    m.begin(r);
    sc_core::wait(m.responded);
  };
  sc_core::sc_start();
  REQUIRE(b.dev.acted.size() == 2);
  // The write acts when its data phases are through (4 + 8 clocks after the
  // grant); its response comes 100 ns later: wait states.
  CHECK(b.dev.acted[0] == clk(2) + clk(12));
  const sc_time w_end = clk(2) + clk(12) + sc_time(100, SC_NS);
  CHECK(b.master.find("BEGIN_RESP", w)->at == w_end);
  // The read acts at its grant (the bus was free again: 2 arbitration
  // clocks); its 12 + 8 clocks run with the target's 100 ns on top.
  CHECK(b.dev.acted[1] == w_end + clk(2));
  CHECK(b.master.find("BEGIN_RESP", r)->at == w_end + clk(2) + clk(20) + sc_time(100, SC_NS));
  CHECK(back == data);
  CHECK(b.bus.busy_time() == b.master.find("BEGIN_RESP", r)->at);
}

TEST_CASE("pci bus AT: the bus holds a memory-managed payload by its reference count until the response is taken",
          "[model][pci][at]") {
  Bench b;
  CountingMm mm;
  std::vector<uint8_t> data(32, 0x11);
  tlm::tlm_generic_payload t(&mm);
  int count_in_flight = -1, count_at_response = -1;
  b.master.body = [&](NbMaster& m) {
    setup(t, tlm::TLM_WRITE_COMMAND, kMemBase, data.data(), 32);
    t.acquire();  // the master's own reference
    m.begin(t);
    sc_core::wait(m.end_req);
    count_in_flight = t.get_ref_count();
    sc_core::wait(m.responded);
    sc_core::wait(SC_ZERO_TIME);  // the bus has finished with it
    count_at_response = t.get_ref_count();
    t.release();
  };
  sc_core::sc_start();
  CHECK(count_in_flight == 2);    // the master's and the bus's
  CHECK(count_at_response == 1);  // the bus released its own
  CHECK(mm.freed == 1);           // and the master's release freed it, once
}

TEST_CASE("pci bus AT: an unclaimed address completes at once, a master that breaks the protocol is named",
          "[model][pci][at]") {
  Bench b;
  std::vector<uint8_t> data(8, 0);
  tlm::tlm_generic_payload lost, t;
  tlm::tlm_sync_enum lost_sync = tlm::TLM_ACCEPTED;
  std::string reuse_error, phase_error;
  b.master.body = [&](NbMaster& m) {
    setup(lost, tlm::TLM_READ_COMMAND, 0x80000000, data.data(), 8);
    lost_sync = m.begin(lost);
    setup(t, tlm::TLM_READ_COMMAND, kMemBase, data.data(), 8);
    m.begin(t);
    try {
      m.begin(t);  // the same object again while in flight
    } catch (const std::logic_error& e) {
      reuse_error = e.what();
    }
    try {
      tlm::tlm_phase wrong = tlm::END_REQ;
      sc_time d = SC_ZERO_TIME;
      m.socket->nb_transport_fw(t, wrong, d);
    } catch (const std::logic_error& e) {
      phase_error = e.what();
    }
    sc_core::wait(m.responded);
  };
  sc_core::sc_start();
  CHECK(lost_sync == tlm::TLM_COMPLETED);
  CHECK(lost.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(b.master.find("END_REQ", lost) == nullptr);
  CHECK_THAT(reuse_error, Contains("bus: base protocol violated") && Contains("still in flight"));
  CHECK_THAT(phase_error, Contains("END_REQ from master m") && Contains("BEGIN_REQ and END_RESP only"));
  CHECK(t.get_response_status() == tlm::TLM_OK_RESPONSE);
}

// sim.check_protocol (core/protocol_checking.h): the bus puts a checker on
// every binding, masters' and targets', named after it; a correct run has no
// finding, a master that sends a payload again while it is in flight is
// caught by the checker on its binding, before the bus sees it.
TEST_CASE("pci bus AT: with protocol checking every binding gets a checker that judges its traffic",
          "[model][pci][at]") {
  m2::ProtocolChecking::set(true);
  Bench b;
  m2::ProtocolChecking::set(false);
  REQUIRE(b.bus.checkers().size() == 3);  // the master, mem, dev
  CHECK(std::string(b.bus.checkers()[0]->name()) == "bus.check_m");
  CHECK(std::string(b.bus.checkers()[1]->name()) == "bus.check_mem");
  std::vector<std::string> findings;
  for (const auto& c : b.bus.checkers())
    c->rules().set_sink([&](const m2::ProtocolFinding& f) { findings.push_back(f.rule + ": " + f.message); });
  std::vector<uint8_t> data(256, 0x5A), back(256), dev_back(16);
  tlm::tlm_generic_payload w, r, d;
  b.master.body = [&](NbMaster& m) {
    setup(w, tlm::TLM_WRITE_COMMAND, kMemBase, data.data(), 256);
    m.begin(w);
    sc_core::wait(m.responded);
    setup(r, tlm::TLM_READ_COMMAND, kMemBase, back.data(), 256);
    m.begin(r);
    sc_core::wait(m.end_req);
    setup(d, tlm::TLM_READ_COMMAND, kDevBase, dev_back.data(), 16);  // pipelined behind r
    m.begin(d);
    sc_core::wait(m.responded);
    sc_core::wait(m.responded);
    setup(d, tlm::TLM_READ_COMMAND, kDevBase, dev_back.data(), 16);
    m.begin(d);  // the same object again, its first use completed: a new transaction
    sc_core::wait(m.responded);
  };
  sc_core::sc_start();
  CHECK(findings.empty());
  CHECK(back == data);
  CHECK(b.bus.checkers()[0]->rules().responses() == 4);  // every response the master got was checked
}

TEST_CASE("pci bus AT: the checker on a master's binding names a payload sent again while in flight",
          "[model][pci][at]") {
  m2::ProtocolChecking::set(true);
  Bench b;
  m2::ProtocolChecking::set(false);
  std::vector<std::string> rules;
  b.bus.checkers()[0]->rules().set_sink([&](const m2::ProtocolFinding& f) { rules.push_back(f.rule); });
  std::vector<uint8_t> data(8, 1);
  tlm::tlm_generic_payload t;
  std::string bus_error;
  b.master.body = [&](NbMaster& m) {
    setup(t, tlm::TLM_WRITE_COMMAND, kMemBase, data.data(), 8);
    m.begin(t);
    sc_core::wait(m.end_req);
    try {
      m.begin(t);
    } catch (const std::logic_error& e) {
      bus_error = e.what();
    }
    sc_core::wait(m.responded);
  };
  sc_core::sc_start();
  REQUIRE_FALSE(rules.empty());
  CHECK(rules[0] == m2::kRuleTransactionReuse);
  CHECK_THAT(bus_error, Contains("still in flight"));  // and the bus refuses it as well
}

TEST_CASE("pci bus AT: a second BEGIN_REQ of a port before the first one's END_REQ is named", "[model][pci][at]") {
  Bench b;
  std::vector<uint8_t> data(8, 2);
  tlm::tlm_generic_payload t1, t2;
  std::string error;
  b.master.body = [&](NbMaster& m) {
    setup(t1, tlm::TLM_WRITE_COMMAND, kMemBase, data.data(), 8);
    m.begin(t1);
    setup(t2, tlm::TLM_WRITE_COMMAND, kMemBase + 8, data.data(), 8);
    try {
      m.begin(t2);  // no END_REQ for t1 yet
    } catch (const std::logic_error& e) {
      error = e.what();
    }
    sc_core::wait(m.responded);
  };
  sc_core::sc_start();
  CHECK_THAT(error, Contains("request exclusion") && Contains("master m"));
  CHECK(t1.get_response_status() == tlm::TLM_OK_RESPONSE);
}

namespace {

// A sequential master (core/nb_caller.h) with a payload of its own, without a
// memory manager.
struct CallerMaster : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<CallerMaster> socket{"socket"};
  m2::NbCaller caller{"caller"};
  std::vector<uint8_t> data = std::vector<uint8_t>(16, 0x77);
  bool mm_after = true;
  SC_HAS_PROCESS(CallerMaster);
  explicit CallerMaster(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_nb_transport_bw(this, &CallerMaster::bw);
    SC_THREAD(run);
  }
  tlm::tlm_sync_enum bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& p, sc_time& d) {
    return caller.nb_transport_bw(t, p, d);
  }
  void run() {
    tlm::tlm_generic_payload t;
    setup(t, tlm::TLM_WRITE_COMMAND, kDevBase, data.data(), 16);
    sc_time d = SC_ZERO_TIME;
    caller.transport(*socket.operator->(), t, d);
    mm_after = t.has_mm();
  }
};

}  // namespace

TEST_CASE("nb caller: a payload without a memory manager gets one for the call and is given back without",
          "[model][pci][at]") {
  m2::PciBus bus{"bus", TimingStyle::AT};
  CallerMaster m("m");
  NbTarget dev("dev", clk(1));
  bus.bind_master(m.socket, "m");
  bus.attach(dev.socket, kDevBase, kDevSize, "dev");
  sc_core::sc_start();
  REQUIRE(dev.ref_counts.size() == 1);
  CHECK(dev.ref_counts[0] == 2);  // the caller's reference and the bus's, while in flight (IEEE 1666-2011 14.5)
  CHECK_FALSE(m.mm_after);
  CHECK(std::memcmp(dev.mem.data(), m.data.data(), 16) == 0);
}
