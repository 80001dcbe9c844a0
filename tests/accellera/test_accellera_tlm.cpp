// The Accellera TLM-2.0 examples' own initiators and targets (Debian's
// libsystemc-doc, built from where the package installs them; see
// tests/CMakeLists.txt) through the project's base-protocol checker
// (core/tlm_protocol_checker.h): their traffic generator behind their AT
// initiator (select_initiator) against their 4-, 2- and 1-phase AT targets,
// and behind their LT initiator against their LT target.
//
// Each run must show no protocol finding, all 64 transactions answered OK,
// every byte read back equal to the byte last written there (a scoreboard on
// the checker's responses, stricter than the traffic generator's own check)
// and the traffic generator's own report of completion without errors.
// Their reports (many INFO lines per transaction) are captured, not printed.
//
// Each TEST_CASE runs in its own process and elaborates once.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "at_target_1_phase.h"
#include "at_target_2_phase.h"
#include "at_target_4_phase.h"
#include "lt_initiator.h"
#include "lt_target.h"
#include "reporting.h"
#include "select_initiator.h"
#include "traffic_generator.h"

#include <tlm_utils/simple_initiator_socket.h>

#include "core/tlm_protocol_checker.h"

#include "accellera_reports.h"

using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

using m2acc::capture_report;
using m2acc::count_reports;
using m2acc::errors_and_fatals;
using m2acc::g_reports;
using m2acc::Scoreboard;

// Their traffic generator writes 16 words from each base address and reads them
// back; both bases lie inside their targets' 4 KB memories (no bus in between to
// strip the high address bits as their SimpleBus does).
constexpr sc_dt::uint64 kBase1 = 0x100, kBase2 = 0x800;
constexpr unsigned kActiveTransactions = 2;
constexpr std::size_t kTransactions = 2 * (16 + 16);

struct Harness {
  typedef tlm::tlm_generic_payload* gp_ptr;
  sc_core::sc_fifo<gp_ptr> requests{"requests"}, responses{"responses"};
  traffic_generator generator{"generator", 101, kBase1, kBase2, kActiveTransactions};
  m2::ProtocolChecker<> checker{"checker"};
  std::vector<m2::ProtocolFinding> findings;
  Scoreboard scoreboard;

  Harness() {
    g_reports.clear();
    sc_core::sc_report_handler::set_handler(capture_report);
    REPORT_ENABLE_ALL_REPORTING();
    generator.request_out_port(requests);
    generator.response_in_port(responses);
    checker.rules().set_sink([this](const m2::ProtocolFinding& f) { findings.push_back(f); });
    checker.rules().set_response_observer([this](const tlm::tlm_generic_payload& gp) { scoreboard.observe(gp); });
  }

  template <typename Initiator>
  void wire(Initiator& initiator) {
    initiator.request_in_port(requests);
    initiator.response_out_port(responses);
    initiator.initiator_socket.bind(checker.target_socket);
  }

  void run_and_check() {
    sc_core::sc_start();
    std::string found;
    for (const m2::ProtocolFinding& f : findings) found += f.message + "\n";
    INFO("protocol findings:\n" << found);
    INFO("their errors:\n" << errors_and_fatals());
    CHECK(findings.empty());
    CHECK(errors_and_fatals().empty());
    // The traffic generator ran to its end (its last report) ...
    CHECK(count_reports("traffic_generator.cpp", "Traffic Generator Complete") == 1);
    // ... and every transaction crossed the checker and was answered OK.
    CHECK(checker.rules().responses() == kTransactions);
    CHECK(checker.rules().transactions_in_flight() == 0);
    CHECK(scoreboard.not_ok == 0);
    CHECK(scoreboard.writes == kTransactions / 2);
    CHECK(scoreboard.reads == kTransactions / 2);
    INFO(scoreboard.first_mismatch);
    CHECK(scoreboard.bytes_checked == kTransactions / 2 * traffic_generator::m_txn_data_size);
    CHECK(scoreboard.mismatches == 0);
    CHECK(count_reports("traffic_generator.cpp", "ERROR") == 0);
  }
};

const sc_time kAccept(10, SC_NS), kRead(50, SC_NS), kWrite(30, SC_NS);

}  // namespace

TEST_CASE("their select_initiator against at_target_4_phase through the checker", "[accellera]") {
  Harness h;
  select_initiator initiator("initiator", 101, sc_time(7, SC_NS));
  at_target_4_phase target("target", 201, "memory_socket", 4 * 1024, 4, kAccept, kRead, kWrite);
  h.wire(initiator);
  h.checker.initiator_socket.bind(target.m_memory_socket);
  h.run_and_check();
}

TEST_CASE("their select_initiator against at_target_2_phase through the checker", "[accellera]") {
  Harness h;
  select_initiator initiator("initiator", 101, sc_time(7, SC_NS));
  at_target_2_phase target("target", 201, "memory_socket", 4 * 1024, 4, kAccept, kRead, kWrite);
  h.wire(initiator);
  h.checker.initiator_socket.bind(target.m_memory_socket);
  h.run_and_check();
}

TEST_CASE("their select_initiator against at_target_1_phase through the checker", "[accellera]") {
  Harness h;
  select_initiator initiator("initiator", 101, sc_time(7, SC_NS));
  at_target_1_phase target("target", 201, "memory_socket", 4 * 1024, 4, kAccept, kRead, kWrite);
  h.wire(initiator);
  h.checker.initiator_socket.bind(target.m_memory_socket);
  h.run_and_check();
}

TEST_CASE("their lt_initiator against lt_target through the checker", "[accellera]") {
  Harness h;
  lt_initiator initiator("initiator", 101);
  lt_target target("target", 201, "memory_socket", 4 * 1024, 4, kAccept, kRead, kWrite);
  h.wire(initiator);
  h.checker.initiator_socket.bind(target.m_memory_socket);
  h.run_and_check();
}

// LT and AT mixed, as the standard asks every target and initiator to allow:
// their LT initiator's b_transport into their 4-phase AT target, and their AT
// initiator into their LT target (whose simple_target_socket turns
// nb_transport into b_transport).
TEST_CASE("their lt_initiator against at_target_4_phase through the checker", "[accellera]") {
  Harness h;
  lt_initiator initiator("initiator", 101);
  at_target_4_phase target("target", 201, "memory_socket", 4 * 1024, 4, kAccept, kRead, kWrite);
  h.wire(initiator);
  h.checker.initiator_socket.bind(target.m_memory_socket);
  h.run_and_check();
}

TEST_CASE("their select_initiator against lt_target through the checker", "[accellera]") {
  Harness h;
  select_initiator initiator("initiator", 101, sc_time(7, SC_NS));
  lt_target target("target", 201, "memory_socket", 4 * 1024, 4, kAccept, kRead, kWrite);
  h.wire(initiator);
  h.checker.initiator_socket.bind(target.m_memory_socket);
  h.run_and_check();
}

// A finding of theirs: their memory (common/src/memory.cpp, behind every one of
// their targets) sets TLM_BYTE_ENABLE_ERROR_RESPONSE for a transaction with byte
// enables, then overwrites it with its address check's TLM_OK_RESPONSE and
// copies every byte. A read with byte enables therefore comes back OK with its
// disabled bytes overwritten: the target's side breaks "byte enables" (a target
// either honours byte enables or answers TLM_BYTE_ENABLE_ERROR_RESPONSE).
namespace {

struct ByteEnableProbe : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<ByteEnableProbe> socket{"socket"};
  unsigned char written[4] = {0x11, 0x22, 0x33, 0x44};
  unsigned char read_back[4] = {0xEE, 0xEE, 0xEE, 0xEE};
  unsigned char enables[4] = {TLM_BYTE_ENABLED, TLM_BYTE_DISABLED, TLM_BYTE_ENABLED, TLM_BYTE_DISABLED};
  tlm::tlm_response_status read_status = tlm::TLM_INCOMPLETE_RESPONSE;

  SC_HAS_PROCESS(ByteEnableProbe);
  explicit ByteEnableProbe(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
  void run() {
    tlm::tlm_generic_payload gp;
    sc_time delay = sc_core::SC_ZERO_TIME;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(0x40);
    gp.set_data_ptr(written);
    gp.set_data_length(4);
    gp.set_streaming_width(4);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(gp, delay);
    gp.set_command(tlm::TLM_READ_COMMAND);
    gp.set_data_ptr(read_back);
    gp.set_byte_enable_ptr(enables);
    gp.set_byte_enable_length(4);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(gp, delay);
    read_status = gp.get_response_status();
  }
};

}  // namespace

TEST_CASE("their memory ignores byte enables and answers OK (a finding against their target)", "[accellera]") {
  g_reports.clear();
  sc_core::sc_report_handler::set_handler(capture_report);
  REPORT_DISABLE_ALL_REPORTING();
  ByteEnableProbe probe("probe");
  m2::ProtocolChecker<> checker("checker");
  lt_target target("target", 201, "memory_socket", 4 * 1024, 4, kAccept, kRead, kWrite);
  std::vector<m2::ProtocolFinding> findings;
  checker.rules().set_sink([&](const m2::ProtocolFinding& f) { findings.push_back(f); });
  probe.socket.bind(checker.target_socket);
  checker.initiator_socket.bind(target.m_memory_socket);
  sc_core::sc_start();
  CHECK(probe.read_status == tlm::TLM_OK_RESPONSE);  // not TLM_BYTE_ENABLE_ERROR_RESPONSE
  CHECK(probe.read_back[1] == 0x22);                 // a disabled byte, overwritten
  CHECK(probe.read_back[0] == 0x11);
  REQUIRE(findings.size() == 1);
  INFO(findings[0].message);
  CHECK(findings[0].rule == m2::kRuleByteEnables);
  CHECK_THAT(findings[0].message, Catch::Matchers::Contains("byte 1 of the data array changed from 0xee to 0x22"));
  CHECK(checker.rules().responses() == 2);
}
