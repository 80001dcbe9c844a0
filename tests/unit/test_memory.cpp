// Unit tests for the RAM target (models/core/memory.*): b_transport, DMI and
// debug transport must all see the same bytes; latencies come from the
// parameters; bad accesses get the TLM error responses.
//
// Each TEST_CASE runs in its own process (CTest), so each one elaborates its
// own small model: a test initiator bound to the memory, then
// sc_start(SC_ZERO_TIME) to complete the binding, then direct calls from the
// test body (Memory never waits, so no SystemC process is needed).
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "core/memory.h"
#include "core/params.h"

#include "test_initiator.h"

using Catch::Matchers::Contains;

namespace {

constexpr uint64_t kSize = 64 * 1024;

using Initiator = m2test::TestInitiator;

std::vector<uint8_t> random_bytes(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

struct Bench {
  m2::Memory mem{"mem", kSize};
  Initiator init{"init"};
  Bench() {
    init.socket.bind(mem.socket);
    sc_core::sc_start(sc_core::SC_ZERO_TIME);  // completes the binding
  }
};

}  // namespace

TEST_CASE("memory: b_transport writes are seen through DMI and vice versa", "[model][memory]") {
  Bench b;
  tlm::tlm_dmi dmi;
  REQUIRE(b.init.dmi(0, dmi));
  uint8_t* const p = dmi.get_dmi_ptr();
  REQUIRE(p != nullptr);
  REQUIRE(dmi.get_start_address() == 0);

  std::mt19937 rng(1234);
  struct Case {
    uint64_t addr;
    size_t len;
  };
  const Case cases[] = {{0, 1},       {0, 4},      {1, 3},         {3, 8},         {7, 13},        {4093, 7},
                        {4096, 4096}, {5001, 257}, {kSize - 1, 1}, {kSize - 4, 4}, {kSize - 3, 3}, {kSize - 100, 100},
                        {12345, 1}};
  for (const Case& c : cases) {
    INFO("addr " << c.addr << " len " << c.len);
    // b_transport write -> DMI read
    const auto w = random_bytes(rng, c.len);
    REQUIRE(b.init.write(c.addr, w) == tlm::TLM_OK_RESPONSE);
    CHECK(std::memcmp(p + c.addr, w.data(), c.len) == 0);
    CHECK(std::memcmp(b.mem.host() + c.addr, w.data(), c.len) == 0);
    // DMI write -> b_transport read
    const auto w2 = random_bytes(rng, c.len);
    std::memcpy(p + c.addr, w2.data(), c.len);
    std::vector<uint8_t> r(c.len, 0xEE);
    REQUIRE(b.init.read(c.addr, r) == tlm::TLM_OK_RESPONSE);
    CHECK(r == w2);
  }
  // The last byte of the memory is reachable both ways.
  std::vector<uint8_t> last{0x5A};
  REQUIRE(b.init.write(kSize - 1, last) == tlm::TLM_OK_RESPONSE);
  CHECK(p[kSize - 1] == 0x5A);
  p[kSize - 1] = 0xA5;
  REQUIRE(b.init.read(kSize - 1, last) == tlm::TLM_OK_RESPONSE);
  CHECK(last[0] == 0xA5);
}

TEST_CASE("memory: a successful b_transport grants DMI and answers OK", "[model][memory]") {
  Bench b;
  uint8_t d[4] = {1, 2, 3, 4};
  tlm::tlm_generic_payload t;
  t.set_command(tlm::TLM_WRITE_COMMAND);
  t.set_address(16);
  t.set_data_ptr(d);
  t.set_data_length(4);
  t.set_streaming_width(4);
  t.set_byte_enable_ptr(nullptr);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  b.init.socket->b_transport(t, delay);
  CHECK(t.is_response_ok());
  CHECK(t.is_dmi_allowed());
  CHECK(t.get_address() == 16);
}

TEST_CASE("memory: latencies added to the delay equal the parameters", "[model][memory]") {
  auto& reg = m2::ParamRegistry::instance();
  reg.preset("mem.read_latency_ns", "30", m2::ValueOrigin{"test"});
  reg.preset("mem.write_latency_ns", "12.5", m2::ValueOrigin{"test"});
  Bench b;
  CHECK(b.mem.read_latency_ns.get() == 30.0);
  CHECK(b.mem.write_latency_ns.get() == 12.5);
  CHECK_NOTHROW(reg.check_all_presets_used());

  sc_core::sc_time d;
  std::vector<uint8_t> v(8, 0x11);
  REQUIRE(b.init.write(0x100, v, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_core::sc_time(12.5, sc_core::SC_NS));
  REQUIRE(b.init.read(0x100, v, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_core::sc_time(30, sc_core::SC_NS));

  // The delay is accumulated (added), not overwritten.
  tlm::tlm_generic_payload t;
  uint8_t x[4];
  t.set_command(tlm::TLM_READ_COMMAND);
  t.set_address(0);
  t.set_data_ptr(x);
  t.set_data_length(4);
  t.set_streaming_width(4);
  t.set_byte_enable_ptr(nullptr);
  sc_core::sc_time delay(100, sc_core::SC_NS);
  b.init.socket->b_transport(t, delay);
  CHECK(delay == sc_core::sc_time(130, sc_core::SC_NS));

  // DMI reports the same latencies.
  tlm::tlm_dmi dmi;
  REQUIRE(b.init.dmi(0, dmi));
  CHECK(dmi.get_read_latency() == sc_core::sc_time(30, sc_core::SC_NS));
  CHECK(dmi.get_write_latency() == sc_core::sc_time(12.5, sc_core::SC_NS));
}

TEST_CASE("memory: default latencies are zero", "[model][memory]") {
  Bench b;
  sc_core::sc_time d(1, sc_core::SC_NS);
  std::vector<uint8_t> v(4, 0);
  REQUIRE(b.init.read(0, v, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_core::SC_ZERO_TIME);
  REQUIRE(b.init.write(0, v, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_core::SC_ZERO_TIME);
}

TEST_CASE("memory: out-of-range access is an address error and writes nothing", "[model][memory]") {
  Bench b;
  uint8_t* const h = b.mem.host();
  std::memset(h + kSize - 8, 0x77, 8);

  // Straddling the end.
  std::vector<uint8_t> w(8, 0x99);
  sc_core::sc_time d;
  CHECK(b.init.write(kSize - 4, w, &d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(d == sc_core::SC_ZERO_TIME);
  for (uint64_t a = kSize - 8; a < kSize; ++a) CHECK(h[a] == 0x77);
  std::vector<uint8_t> r(8, 0);
  CHECK(b.init.read(kSize - 4, r) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(r == std::vector<uint8_t>(8, 0));

  // Entirely beyond the end, and at the first address past it.
  std::vector<uint8_t> one{0x42};
  CHECK(b.init.write(kSize, one) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(b.init.read(kSize, one) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(b.init.write(kSize + 4096, one) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  // Huge address: no wrap-around into the memory.
  CHECK(b.init.write(~0ull - 1, w) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(b.init.write(~0ull, one) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  for (uint64_t a = 0; a < 16; ++a) CHECK(h[a] == 0);
}

TEST_CASE("memory: byte enables and streaming are refused", "[model][memory]") {
  Bench b;
  uint8_t data[4] = {1, 2, 3, 4};
  uint8_t be[4] = {0xFF, 0x00, 0xFF, 0x00};
  CHECK(b.init.access(tlm::TLM_WRITE_COMMAND, 0x40, data, 4, nullptr, be, 4) == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  for (int i = 0; i < 4; ++i) CHECK(b.mem.host()[0x40 + i] == 0);
  CHECK(b.init.access(tlm::TLM_READ_COMMAND, 0x40, data, 4, nullptr, be, 4) == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  // A streaming width below the data length is not supported either.
  CHECK(b.init.access(tlm::TLM_WRITE_COMMAND, 0x40, data, 4, nullptr, nullptr, 0, 2) ==
        tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  for (int i = 0; i < 4; ++i) CHECK(b.mem.host()[0x40 + i] == 0);
}

TEST_CASE("memory: TLM_IGNORE_COMMAND touches nothing", "[model][memory]") {
  Bench b;
  uint8_t data[4] = {1, 2, 3, 4};
  const auto st = b.init.access(tlm::TLM_IGNORE_COMMAND, 0x80, data, 4);
  CHECK(st == tlm::TLM_OK_RESPONSE);
  for (int i = 0; i < 4; ++i) CHECK(b.mem.host()[0x80 + i] == 0);
  CHECK(data[0] == 1);
  CHECK(data[3] == 4);
}

TEST_CASE("memory: DMI covers the whole range with read and write", "[model][memory]") {
  Bench b;
  for (uint64_t addr : {uint64_t(0), uint64_t(0x1234), kSize - 1}) {
    tlm::tlm_dmi dmi;
    REQUIRE(b.init.dmi(addr, dmi));
    CHECK(dmi.get_dmi_ptr() == b.mem.host());
    CHECK(dmi.get_start_address() == 0);
    CHECK(dmi.get_end_address() == kSize - 1);
    CHECK(dmi.is_read_write_allowed());
    CHECK(dmi.is_read_allowed());
    CHECK(dmi.is_write_allowed());
  }
  CHECK(b.mem.size() == kSize);
}

TEST_CASE("memory: debug transport reads what b_transport wrote and clips at the end", "[model][memory]") {
  Bench b;
  std::mt19937 rng(99);
  const auto w = random_bytes(rng, 300);
  REQUIRE(b.init.write(1001, w) == tlm::TLM_OK_RESPONSE);
  std::vector<uint8_t> r(300, 0);
  CHECK(b.init.dbg(tlm::TLM_READ_COMMAND, 1001, r.data(), 300) == 300);
  CHECK(r == w);

  // Debug write, then b_transport read.
  const auto w2 = random_bytes(rng, 64);
  std::vector<uint8_t> copy = w2;
  CHECK(b.init.dbg(tlm::TLM_WRITE_COMMAND, 0x2000, copy.data(), 64) == 64);
  std::vector<uint8_t> r2(64, 0);
  REQUIRE(b.init.read(0x2000, r2) == tlm::TLM_OK_RESPONSE);
  CHECK(r2 == w2);

  // Clipped at the end: only the bytes inside the memory are transferred.
  std::memset(b.mem.host() + kSize - 10, 0xC3, 10);
  std::vector<uint8_t> tail(32, 0);
  CHECK(b.init.dbg(tlm::TLM_READ_COMMAND, kSize - 10, tail.data(), 32) == 10);
  for (int i = 0; i < 10; ++i) CHECK(tail[i] == 0xC3);
  for (int i = 10; i < 32; ++i) CHECK(tail[i] == 0);
  std::vector<uint8_t> wtail(32, 0x3C);
  CHECK(b.init.dbg(tlm::TLM_WRITE_COMMAND, kSize - 5, wtail.data(), 32) == 5);
  for (int i = 0; i < 5; ++i) CHECK(b.mem.host()[kSize - 5 + i] == 0x3C);
  // Beyond the end: nothing.
  CHECK(b.init.dbg(tlm::TLM_READ_COMMAND, kSize, tail.data(), 4) == 0);
  CHECK(b.init.dbg(tlm::TLM_WRITE_COMMAND, kSize + 100, wtail.data(), 4) == 0);
}

TEST_CASE("memory: size not a multiple of 4096 is a ConfigError", "[model][memory]") {
  CHECK_THROWS_AS(m2::Memory("mem_bad", 4097), m2::ConfigError);
  m2::ParamRegistry::instance().clear();
  CHECK_THROWS_WITH(m2::Memory("mem_bad2", 6000),
                    Contains("mem_bad2.size_bytes") && Contains("multiple of 4096") && Contains("6000"));
}

TEST_CASE("memory: size preset from the registry", "[model][memory]") {
  m2::ParamRegistry::instance().preset("mem.size_bytes", "8192", m2::ValueOrigin{"test"});
  m2::Memory mem("mem", kSize);
  CHECK(mem.size() == 8192);
  m2::ParamRegistry::instance().clear();
  m2::ParamRegistry::instance().preset("mem2.size_bytes", "12288", m2::ValueOrigin{"test"});
  m2::Memory mem2("mem2", kSize);
  CHECK(mem2.size() == 12288);
  m2::ParamRegistry::instance().preset("mem3.size_bytes", "12289", m2::ValueOrigin{"test"});
  CHECK_THROWS_AS(m2::Memory("mem3", kSize), m2::ConfigError);
}

// Pages of [p, p + bytes) the kernel has mapped (mincore).
static size_t resident_pages(const uint8_t* p, size_t bytes) {
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> v((bytes + page - 1) / page);
  REQUIRE(::mincore(const_cast<uint8_t*>(p), bytes, v.data()) == 0);
  size_t n = 0;
  for (unsigned char c : v) n += c & 1;
  return n;
}

TEST_CASE("memory: storage is lazy: only written pages become resident, untouched ones read as zero",
          "[model][memory]") {
  // 16 nodes have 16 x (512 MB host + 64 MB NI SDRAM) + 3 x 32 MB of switch-box
  // SDRAM: 9.3 GB that must not be resident (the 1 GB target of bench/speed.cpp).
  m2::ParamRegistry::instance().clear();
  constexpr uint64_t kBig = 256ull << 20;
  m2::Memory mem("mem", kBig);
  Initiator init("init");
  init.socket.bind(mem.socket);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  CHECK(resident_pages(mem.host(), kBig) == 0);

  const uint64_t spots[] = {0x1000, 100ull << 20, kBig - 4};
  for (uint64_t a : spots) {
    std::vector<uint8_t> w{1, 2, 3, 4};
    REQUIRE(init.write(a, w) == tlm::TLM_OK_RESPONSE);
  }
  // One page each (a 2 MB huge page each where transparent huge pages are always on).
  const size_t resident = resident_pages(mem.host(), kBig);
  CHECK(resident >= 3);
  CHECK(resident <= 3 * 512);

  // Untouched memory reads as zero, through b_transport and DMI alike.
  std::vector<uint8_t> r(64, 0xEE);
  REQUIRE(init.read(200ull << 20, r) == tlm::TLM_OK_RESPONSE);
  CHECK(r == std::vector<uint8_t>(64, 0));
  tlm::tlm_dmi dmi;
  REQUIRE(init.dmi(0, dmi));
  CHECK(dmi.get_dmi_ptr()[150ull << 20] == 0);
  CHECK(dmi.get_dmi_ptr()[0x1000 + 2] == 3);
}
