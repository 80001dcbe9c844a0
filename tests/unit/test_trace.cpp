// Unit tests for trace taps (models/trace/*): pattern matching, a tap that
// forwards unchanged and records what crossed it, DMI refused, time window.
#include <catch2/catch.hpp>

#include <cstring>

#include <systemc>
#include <tlm>

#include "core/memory.h"
#include "core/params.h"
#include "trace/trace_recorder.h"
#include "trace/trace_tap.h"

#include "test_initiator.h"

using m2::trace_pattern_matches;

TEST_CASE("trace patterns: wildcards, whole names and everything below a name", "[trace]") {
  CHECK(trace_pattern_matches("node*.pci", "node0.pci"));
  CHECK(trace_pattern_matches("node*.pci", "node12.pci.ni"));
  CHECK(trace_pattern_matches("node0.ni.dma", "node0.ni.dma"));
  CHECK_FALSE(trace_pattern_matches("node0.ni.dma", "node0.ni.dmax"));
  CHECK_FALSE(trace_pattern_matches("node*.pci", "node0.pcix"));
  CHECK_FALSE(trace_pattern_matches("node1.*", "node0.pci"));
  CHECK(trace_pattern_matches("*", "sb0.port3"));
  CHECK(trace_pattern_matches("sb0.port3", "sb0.port3.mlx"));
}

TEST_CASE("trace tap forwards unchanged, records each transaction, passes DMI through", "[trace]") {
  m2::TraceRecorder& rec = m2::TraceRecorder::instance();
  rec.clear();
  rec.configure("top.*", 0, UINT64_MAX);
  m2test::TestInitiator cpu("cpu");
  m2::Memory mem("mem", 0x1000);
  std::vector<std::unique_ptr<m2::TraceTap>> taps;
  m2::bind_traced(cpu.socket, "top.mem", taps, [&](auto& s) { s.bind(mem.socket); });
  REQUIRE(taps.size() == 1);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  uint8_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8}, back[8] = {};
  sc_core::sc_time d(5, sc_core::SC_NS);
  CHECK(cpu.transport(tlm::TLM_WRITE_COMMAND, 0x40, data, 8, d) == tlm::TLM_OK_RESPONSE);
  sc_core::sc_time d2 = sc_core::SC_ZERO_TIME;
  CHECK(cpu.transport(tlm::TLM_READ_COMMAND, 0x40, back, 8, d2) == tlm::TLM_OK_RESPONSE);
  CHECK(std::memcmp(data, back, 8) == 0);
  sc_core::sc_time d3 = sc_core::SC_ZERO_TIME;
  CHECK(cpu.transport(tlm::TLM_READ_COMMAND, 0x2000, back, 4, d3) != tlm::TLM_OK_RESPONSE);

  REQUIRE(rec.records().size() == 3);
  const m2::TraceRecord& w = rec.records()[0];
  CHECK(rec.bindings()[w.binding] == "top.mem");
  CHECK(w.command == 'W');
  CHECK(w.address == 0x40);
  CHECK(w.bytes == 8);
  CHECK(w.start_ps == 5000);
  CHECK(w.end_ps == (d).value());  // the memory's latency, as the initiator saw it
  CHECK(w.ok);
  CHECK(rec.records()[1].command == 'R');
  CHECK_FALSE(rec.records()[2].ok);

  // DMI passes through (an ISS needs it to fetch code), and is not recorded.
  tlm::tlm_generic_payload t;
  tlm::tlm_dmi dmi;
  t.set_address(0);
  t.set_command(tlm::TLM_READ_COMMAND);
  CHECK(cpu.socket->get_direct_mem_ptr(t, dmi));
  CHECK(dmi.get_dmi_ptr() == mem.host());
  CHECK(rec.records().size() == 3);
}

TEST_CASE("untraced bindings get no tap, records outside the window are dropped", "[trace]") {
  m2::TraceRecorder& rec = m2::TraceRecorder::instance();
  rec.clear();
  rec.configure("other.*", 0, UINT64_MAX);
  m2test::TestInitiator cpu("cpu");
  m2::Memory mem("mem", 0x1000);
  std::vector<std::unique_ptr<m2::TraceTap>> taps;
  m2::bind_traced(cpu.socket, "top.mem", taps, [&](auto& s) { s.bind(mem.socket); });
  CHECK(taps.empty());
  rec.configure("top.*", 1000, 2000);
  const unsigned b = rec.add_binding("top.x");
  rec.record({b, 0, 900, 'R', 0, 4, true});      // before
  rec.record({b, 900, 1100, 'R', 0, 4, true});   // overlaps the start
  rec.record({b, 2100, 2200, 'R', 0, 4, true});  // after
  CHECK(rec.records().size() == 1);
}
