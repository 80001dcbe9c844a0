// Unit tests for the address-decoding interconnect (models/core/router.*):
// decoding with address translation, latency, address errors, overlap
// detection, DMI translation and clipping, debug transport, memory map and
// DMI invalidation.
//
// Each TEST_CASE runs in its own process (CTest) and elaborates its own model;
// sc_start(SC_ZERO_TIME) completes the binding, then the test body calls the
// sockets directly (no target here ever waits).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "core/memory.h"
#include "core/params.h"
#include "core/router.h"

#include "nb_test_models.h"
#include "test_initiator.h"

using Catch::Matchers::Contains;

namespace {

constexpr uint64_t kBaseA = 0x00000000, kSizeA = 0x10000;  // 64 KB
constexpr uint64_t kBaseB = 0x80000000, kSizeB = 0x4000;   // 16 KB

using Initiator = m2test::TestInitiator;

// A target that can invalidate DMI (to test the router's backward path).
struct DmiTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<DmiTarget> socket{"socket"};
  std::vector<uint8_t> data = std::vector<uint8_t>(0x2000, 0);
  explicit DmiTarget(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_b_transport(this, &DmiTarget::b_transport);
    socket.register_get_direct_mem_ptr(this, &DmiTarget::get_dmi);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time&) { t.set_response_status(tlm::TLM_OK_RESPONSE); }
  bool get_dmi(tlm::tlm_generic_payload&, tlm::tlm_dmi& d) {
    d.set_dmi_ptr(data.data());
    d.set_start_address(0);
    d.set_end_address(data.size() - 1);
    d.allow_read_write();
    return true;
  }
};

struct Bench {
  Initiator init{"init"};
  m2::Router bus{"bus"};
  m2::Memory a{"a", kSizeA};
  m2::Memory b{"b", kSizeB};
  Bench() {
    init.socket.bind(bus.target);
    bus.attach(a.socket, kBaseA, kSizeA, a.name());
    bus.attach(b.socket, kBaseB, kSizeB, b.name());
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
};

}  // namespace

TEST_CASE("router: transactions reach the right target with the address translated", "[model][router]") {
  Bench t;
  uint64_t after = 0;
  uint8_t w1[4] = {0x12, 0x34, 0x56, 0x78};
  REQUIRE(t.init.access(tlm::TLM_WRITE_COMMAND, kBaseA + 0x100, w1, 4) == tlm::TLM_OK_RESPONSE);
  after = t.init.last_address;
  CHECK(after == kBaseA + 0x100);  // restored for the initiator
  uint8_t w2[4] = {0xAA, 0xBB, 0xCC, 0xDD};
  REQUIRE(t.init.access(tlm::TLM_WRITE_COMMAND, kBaseB + 0x100, w2, 4) == tlm::TLM_OK_RESPONSE);
  after = t.init.last_address;
  CHECK(after == kBaseB + 0x100);
  CHECK(std::memcmp(t.a.host() + 0x100, w1, 4) == 0);
  CHECK(std::memcmp(t.b.host() + 0x100, w2, 4) == 0);

  // Last bytes of each window.
  REQUIRE(t.init.write(kBaseA + kSizeA - 1, {0x11}) == tlm::TLM_OK_RESPONSE);
  REQUIRE(t.init.write(kBaseB + kSizeB - 4, {1, 2, 3, 4}) == tlm::TLM_OK_RESPONSE);
  CHECK(t.a.host()[kSizeA - 1] == 0x11);
  CHECK(t.b.host()[kSizeB - 1] == 4);

  // Reads come from the right target.
  t.b.host()[0] = 0x5B;
  t.a.host()[0] = 0x5A;
  std::vector<uint8_t> r(1);
  REQUIRE(t.init.read(kBaseB, r) == tlm::TLM_OK_RESPONSE);
  CHECK(r[0] == 0x5B);
  REQUIRE(t.init.read(kBaseA, r) == tlm::TLM_OK_RESPONSE);
  CHECK(r[0] == 0x5A);
}

TEST_CASE("router: adds latency_ns to every access", "[model][router]") {
  auto& reg = m2::ParamRegistry::instance();
  reg.preset("bus.latency_ns", "35", m2::ValueOrigin{"test"});
  reg.preset("b.read_latency_ns", "10", m2::ValueOrigin{"test"});
  Bench t;
  CHECK(t.bus.latency_ns.get() == 35.0);
  sc_core::sc_time d;
  REQUIRE(t.init.write(kBaseA, {1, 2, 3, 4}, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_core::sc_time(35, sc_core::SC_NS));
  std::vector<uint8_t> r(4);
  REQUIRE(t.init.read(kBaseB, r, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_core::sc_time(45, sc_core::SC_NS));  // bus + target
}

TEST_CASE("router: default latency is 20 ns", "[model][router]") {
  Bench t;
  sc_core::sc_time d;
  std::vector<uint8_t> r(4);
  REQUIRE(t.init.read(kBaseA + 8, r, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_core::sc_time(20, sc_core::SC_NS));
}

TEST_CASE("router: unmapped addresses and straddling accesses are address errors", "[model][router]") {
  Bench t;
  sc_core::sc_time d;
  CHECK(t.init.write(kBaseA + kSizeA, {1}, &d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);  // hole after A
  CHECK(t.init.write(0x40000000, {1}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(t.init.write(kBaseB - 1, {1}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(t.init.write(kBaseB + kSizeB, {1}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(t.init.write(~0ull, {1}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  std::vector<uint8_t> r(4);
  CHECK(t.init.read(0xF0000000, r) == tlm::TLM_ADDRESS_ERROR_RESPONSE);

  // Straddling the end of a window: nothing is written anywhere.
  CHECK(t.init.write(kBaseA + kSizeA - 2, {9, 9, 9, 9}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(t.a.host()[kSizeA - 2] == 0);
  CHECK(t.a.host()[kSizeA - 1] == 0);
  CHECK(t.init.write(kBaseB + kSizeB - 1, {9, 9}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(t.b.host()[kSizeB - 1] == 0);
  CHECK(t.init.read(kBaseB + kSizeB - 3, r) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  // Straddling the start of a window from a hole.
  CHECK(t.init.write(kBaseB - 2, {9, 9, 9, 9}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(t.b.host()[0] == 0);
  CHECK(t.b.host()[1] == 0);
}

TEST_CASE("router: a window smaller than its target limits the accesses", "[model][router]") {
  Initiator init("init");
  m2::Router bus("bus");
  m2::Memory big("big", 0x4000);
  init.socket.bind(bus.target);
  bus.attach(big.socket, 0x10000, 0x2000, "big");  // only the first 8 KB are visible
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  CHECK(init.write(0x10000 + 0x1FFC, {1, 2, 3, 4}) == tlm::TLM_OK_RESPONSE);
  CHECK(init.write(0x10000 + 0x2000, {1}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(init.write(0x10000 + 0x1FFE, {1, 2, 3, 4}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(big.host()[0x2000] == 0);

  // DMI is clipped to the window.
  tlm::tlm_dmi dmi;
  REQUIRE(init.dmi(0x10010, dmi));
  CHECK(dmi.get_start_address() == 0x10000);
  CHECK(dmi.get_end_address() == 0x11FFF);
  CHECK(dmi.get_dmi_ptr() == big.host());

  // Debug transport is clipped to the window, not to the target.
  std::vector<uint8_t> buf(64, 0xAB);
  CHECK(init.dbg(tlm::TLM_WRITE_COMMAND, 0x10000 + 0x1FF0, buf.data(), 64) == 16);
  CHECK(big.host()[0x1FFF] == 0xAB);
  CHECK(big.host()[0x2000] == 0);
}

TEST_CASE("router: overlapping attach is a ConfigError naming both ranges", "[model][router]") {
  m2::Router bus("bus");
  m2::Memory a("a", 0x2000), b("b", 0x2000), c("c", 0x1000), d("d", 0x1000);
  bus.attach(a.socket, 0x1000, 0x2000, "ram_a");
  // Overlapping the end.
  CHECK_THROWS_AS(bus.attach(b.socket, 0x2000, 0x2000, "ram_b"), m2::ConfigError);
  CHECK_THROWS_WITH(bus.attach(b.socket, 0x2000, 0x2000, "ram_b"),
                    Contains("ram_b") && Contains("ram_a") && Contains("overlaps") && Contains("bus"));
  // Overlapping the start, and contained inside.
  CHECK_THROWS_WITH(bus.attach(c.socket, 0x0, 0x1001, "dev_c"), Contains("dev_c") && Contains("ram_a"));
  CHECK_THROWS_WITH(bus.attach(d.socket, 0x1800, 0x100, "dev_d"), Contains("dev_d") && Contains("ram_a"));
  // Adjacent ranges are fine.
  CHECK_NOTHROW(bus.attach(c.socket, 0x0, 0x1000, "dev_c"));
  CHECK_NOTHROW(bus.attach(d.socket, 0x3000, 0x1000, "dev_d"));
  const auto map = bus.memory_map();
  REQUIRE(map.size() == 3);
  // Not elaborated: b's socket was never bound.
}

TEST_CASE("router: DMI is translated to bus addresses and matches b_transport", "[model][router]") {
  Bench t;
  std::mt19937 rng(7);

  for (uint64_t addr : {kBaseB, kBaseB + 0x123, kBaseB + kSizeB - 1}) {
    tlm::tlm_dmi dmi;
    REQUIRE(t.init.dmi(addr, dmi));
    CHECK(dmi.get_start_address() == kBaseB);
    CHECK(dmi.get_end_address() == kBaseB + kSizeB - 1);
    CHECK(dmi.get_dmi_ptr() == t.b.host());
    CHECK(dmi.is_read_write_allowed());
    // Memory latency (0) + router latency.
    CHECK(dmi.get_read_latency() == sc_core::sc_time(20, sc_core::SC_NS));
    CHECK(dmi.get_write_latency() == sc_core::sc_time(20, sc_core::SC_NS));
  }
  tlm::tlm_dmi da;
  REQUIRE(t.init.dmi(kBaseA + 0x40, da));
  CHECK(da.get_start_address() == kBaseA);
  CHECK(da.get_end_address() == kBaseA + kSizeA - 1);
  CHECK(da.get_dmi_ptr() == t.a.host());

  // Bytes written through b_transport are read via the DMI pointer at the
  // bus address, and the other way round.
  tlm::tlm_dmi db;
  REQUIRE(t.init.dmi(kBaseB, db));
  auto at = [&](uint64_t bus_addr) { return db.get_dmi_ptr() + (bus_addr - db.get_start_address()); };
  for (uint64_t off : {uint64_t(0), uint64_t(3), uint64_t(0x1001), kSizeB - 16}) {
    std::vector<uint8_t> w(16);
    for (auto& x : w) x = static_cast<uint8_t>(rng());
    REQUIRE(t.init.write(kBaseB + off, w) == tlm::TLM_OK_RESPONSE);
    CHECK(std::memcmp(at(kBaseB + off), w.data(), 16) == 0);
    for (auto& x : w) x = static_cast<uint8_t>(rng());
    std::memcpy(at(kBaseB + off), w.data(), 16);
    std::vector<uint8_t> r(16);
    REQUIRE(t.init.read(kBaseB + off, r) == tlm::TLM_OK_RESPONSE);
    CHECK(r == w);
  }

  // No DMI where nothing is mapped.
  tlm::tlm_dmi none;
  CHECK_FALSE(t.init.dmi(0x40000000, none));
}

TEST_CASE("router: memory_map lists the ranges with their names", "[model][router]") {
  Bench t;
  const auto map = t.bus.memory_map();
  REQUIRE(map.size() == 2);
  CHECK(map[0].base == kBaseA);
  CHECK(map[0].size == kSizeA);
  CHECK(map[0].name == "a");
  CHECK(map[1].base == kBaseB);
  CHECK(map[1].size == kSizeB);
  CHECK(map[1].name == "b");
}

TEST_CASE("router: debug transport is translated and clipped to the window", "[model][router]") {
  Bench t;
  REQUIRE(t.init.write(kBaseB + 0x200, {1, 2, 3, 4, 5, 6, 7, 8}) == tlm::TLM_OK_RESPONSE);
  std::vector<uint8_t> r(8, 0);
  CHECK(t.init.dbg(tlm::TLM_READ_COMMAND, kBaseB + 0x200, r.data(), 8) == 8);
  CHECK(r == std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8});

  std::vector<uint8_t> w{9, 8, 7, 6};
  CHECK(t.init.dbg(tlm::TLM_WRITE_COMMAND, kBaseA + 0x300, w.data(), 4) == 4);
  CHECK(std::memcmp(t.a.host() + 0x300, w.data(), 4) == 0);

  // Across the end of B: only the part inside B.
  std::vector<uint8_t> big(32, 0xEE);
  CHECK(t.init.dbg(tlm::TLM_WRITE_COMMAND, kBaseB + kSizeB - 8, big.data(), 32) == 8);
  for (uint64_t i = kSizeB - 8; i < kSizeB; ++i) CHECK(t.b.host()[i] == 0xEE);
  std::vector<uint8_t> rb(32, 0);
  CHECK(t.init.dbg(tlm::TLM_READ_COMMAND, kBaseB + kSizeB - 8, rb.data(), 32) == 8);
  for (int i = 0; i < 8; ++i) CHECK(rb[i] == 0xEE);
  for (int i = 8; i < 32; ++i) CHECK(rb[i] == 0);
  // Unmapped: nothing.
  CHECK(t.init.dbg(tlm::TLM_READ_COMMAND, kBaseA + kSizeA, rb.data(), 4) == 0);
}

TEST_CASE("router: DMI invalidation from a target is translated to bus addresses", "[model][router]") {
  Initiator init("init");
  m2::Router bus("bus");
  m2::Memory ram("ram", 0x1000);
  DmiTarget dev("dev");
  init.socket.bind(bus.target);
  bus.attach(ram.socket, 0x0, 0x1000, "ram");
  bus.attach(dev.socket, 0x40000000, 0x2000, "dev");
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  // A sub-range of the target.
  dev.socket->invalidate_direct_mem_ptr(0x100, 0x1FF);
  REQUIRE(init.invalidations.size() == 1);
  CHECK(init.invalidations[0].first == 0x40000100);
  CHECK(init.invalidations[0].second == 0x400001FF);

  // "Everything" (0 .. max, as TLM-2.0 allows): must become the whole window,
  // not wrap around past 2^64.
  init.invalidations.clear();
  dev.socket->invalidate_direct_mem_ptr(0, ~sc_dt::uint64(0));
  REQUIRE(init.invalidations.size() == 1);
  CHECK(init.invalidations[0].first == 0x40000000);
  CHECK(init.invalidations[0].second == 0x40001FFF);
}

TEST_CASE("router: a view maps a second window onto an attached target, timed, without DMI", "[model][router]") {
  Initiator init{"init"};
  m2::Router bus{"bus"};
  m2::Memory mem{"mem", kSizeA, /*read_latency_ns=*/40, /*write_latency_ns=*/20};
  init.socket.bind(bus.target);
  bus.attach(mem.socket, kBaseA, kSizeA, mem.name());
  // The upper half of the memory, seen again at 0x40008000.
  bus.attach_view(0x40008000, kSizeA / 2, "mem (uncached)", kBaseA + kSizeA / 2, false);
  CHECK_THROWS_WITH(bus.attach_view(0x40008000, 0x1000, "again", kBaseA, false), Contains("overlaps"));
  CHECK_THROWS_WITH(bus.attach_view(0x50000000, kSizeA, "too big", kBaseA + 0x10, false),
                    Contains("no single range holds it"));
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  uint8_t w[4] = {1, 2, 3, 4}, r[4] = {};
  sc_core::sc_time d;
  REQUIRE(init.access(tlm::TLM_WRITE_COMMAND, 0x40008010, w, 4, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_core::sc_time(20 + 20, sc_core::SC_NS));  // bus + the memory's write latency
  CHECK(init.last_address == 0x40008010);
  REQUIRE(init.access(tlm::TLM_READ_COMMAND, kBaseA + kSizeA / 2 + 0x10, r, 4, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(std::memcmp(r, w, 4) == 0);  // the same bytes through the direct window
  REQUIRE(init.access(tlm::TLM_READ_COMMAND, 0x40008010, r, 4, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_core::sc_time(20 + 40, sc_core::SC_NS));
  // Past the view's end is an address error, not the memory's next bytes.
  CHECK(init.access(tlm::TLM_READ_COMMAND, 0x40008000 + kSizeA / 2, r, 4, &d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);

  tlm::tlm_dmi dmi;
  CHECK_FALSE(init.dmi(0x40008010, dmi));  // every access through the view is timed
  REQUIRE(init.dmi(kBaseA + 0x10, dmi));   // the direct window still grants DMI
  CHECK(dmi.get_start_address() == kBaseA);
  // The memory map lists both windows; the ISS maps the view as I/O.
  CHECK(bus.memory_map().size() == 2);
  // Debug access through the view reaches the same bytes.
  uint8_t dbg[4] = {};
  CHECK(init.dbg(tlm::TLM_READ_COMMAND, 0x40008010, dbg, 4) == 4);
  CHECK(std::memcmp(dbg, w, 4) == 0);
}

// The router answers nb_transport too (an AT initiator on the NI bus): the
// same decoding, its latency added to BEGIN_REQ's annotation, the target
// sees its own address, the backward calls reach the initiator that sent the
// transaction with its address restored, and nothing mapped completes at once
// with an address error.
TEST_CASE("router: nb_transport is routed both ways with the latency and the address translation", "[model][router]") {
  m2::Router bus("bus");
  m2test::NbMaster a("a"), b("b");
  m2test::NbTarget dev("dev", sc_core::sc_time(5, sc_core::SC_NS));
  m2::Memory mem("mem", 0x1000);  // b_transport only: its socket converts
  a.socket.bind(bus.target);
  b.socket.bind(bus.target);
  bus.attach(dev.socket, 0x4000, 0x1000, "dev");
  bus.attach(mem.socket, 0x8000, 0x1000, "mem");
  const sc_core::sc_time lat(20, sc_core::SC_NS);  // latency_ns's default
  std::vector<uint8_t> da(16, 0xA1), db(16, 0xB2), back(16), none(4);
  tlm::tlm_generic_payload ta, tb, tr, tn;
  tlm::tlm_sync_enum unmapped = tlm::TLM_ACCEPTED;
  a.body = [&](m2test::NbMaster& m) {
    m2test::setup(ta, tlm::TLM_WRITE_COMMAND, 0x4010, da.data(), 16);
    m.begin(ta);
    sc_core::wait(m.responded);
    m2test::setup(tn, tlm::TLM_READ_COMMAND, 0x2000, none.data(), 4);
    unmapped = m.begin(tn);
  };
  b.body = [&](m2test::NbMaster& m) {
    m2test::setup(tb, tlm::TLM_WRITE_COMMAND, 0x8020, db.data(), 16);
    m.begin(tb);
    sc_core::wait(m.responded);
    m2test::setup(tr, tlm::TLM_READ_COMMAND, 0x8020, back.data(), 16);
    m.begin(tr);
    sc_core::wait(m.responded);
  };
  sc_core::sc_start();
  // a: the nb-only target acts after the bus latency, END_REQ 5 ns later,
  // BEGIN_RESP 100 ns after it acted (its default latency).
  REQUIRE(dev.acted.size() == 1);
  CHECK(dev.acted[0] == lat);
  CHECK(a.find("END_REQ", ta)->at == lat + sc_core::sc_time(5, sc_core::SC_NS));
  CHECK(a.find("BEGIN_RESP", ta)->at == lat + sc_core::sc_time(100, sc_core::SC_NS));
  CHECK(std::memcmp(dev.mem.data() + 0x10, da.data(), 16) == 0);
  CHECK(ta.get_address() == 0x4010);           // restored with the response
  CHECK(a.find("BEGIN_RESP", tb) == nullptr);  // b's traffic never reaches a
  // b: the converting memory answers after the latency; the data is there.
  CHECK(b.find("BEGIN_RESP", tb)->at == lat);
  CHECK(b.find("BEGIN_RESP", tr)->at == lat + lat);
  CHECK(back == db);
  CHECK(tr.get_address() == 0x8020);
  // Nothing at 0x2000: completed at once with an address error.
  CHECK(unmapped == tlm::TLM_COMPLETED);
  CHECK(tn.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE);
}
