// Unit tests for the host PCI bus (models/pci/pci_bus.*): variants, the cost
// of single and burst transfers in clocks counted by hand, bursts split at
// the latency timer, address decoding, data integrity, LT annotation and
// statistics, AT contention and round-robin arbitration, DMI and debug
// transport.
//
// Clock counts with the pci64-66 defaults (arbitration 2, address 1, read
// initial 10, write initial 2, turnaround 1, latency timer 64, 8-byte words):
//   read burst  = 2 + 1 + 10 + 1 + data phases = 14 + phases, at most 53 phases
//   write burst = 2 + 1 +  2 + 1 + data phases =  6 + phases, at most 61 phases
// pci32-33 (read initial 6, 4-byte words): read burst 10 + phases (at most 57).
//
// Each TEST_CASE runs in its own process and elaborates once (hence no
// SECTIONs around sc_start). Tests of LT timing call the bus from the test
// body; tests with waiting (AT) masters run sc_start() with SC_THREADs doing
// the work.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "core/memory.h"
#include "core/params.h"
#include "pci/pci_bus.h"

#include "test_initiator.h"

using Catch::Matchers::Contains;
using m2::TimingStyle;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {

constexpr uint64_t kMemBase = 0x10000000, kMemSize = 0x10000;  // 64 KB
constexpr uint64_t kDevBase = 0xC0000000, kDevSize = 0x1000;

// Clock periods as the bus rounds them (1 ps resolution).
const sc_time k66 = sc_time(1000.0 / 66, SC_NS);
const sc_time k33 = sc_time(1000.0 / 33, SC_NS);
sc_time clk66(uint64_t n) { return k66 * static_cast<double>(n); }
sc_time clk33(uint64_t n) { return k33 * static_cast<double>(n); }

void preset(const std::string& key, const std::string& value) {
  m2::ParamRegistry::instance().preset(key, value, m2::ValueOrigin{"test"});
}

// One master called from the test body, a memory and a small device.
struct Bench {
  m2test::TestInitiator init{"init"};
  m2::PciBus bus;
  m2::Memory mem{"mem", kMemSize};
  m2::Memory dev{"dev", 0x1000};
  explicit Bench(TimingStyle style = TimingStyle::LT) : bus("bus", style) {
    bus.bind_master(init.socket, "cpu");
    bus.attach(mem.socket, kMemBase, kMemSize, "mem");
    bus.attach(dev.socket, kDevBase, kDevSize, "dev");
    sc_core::sc_start(SC_ZERO_TIME);
  }
  sc_time write(uint64_t addr, unsigned len) {
    std::vector<uint8_t> d(len, 0x5A);
    sc_time delay;
    REQUIRE(init.access(tlm::TLM_WRITE_COMMAND, addr, d.data(), len, &delay) == tlm::TLM_OK_RESPONSE);
    return delay;
  }
  sc_time read(uint64_t addr, unsigned len) {
    std::vector<uint8_t> d(len);
    sc_time delay;
    REQUIRE(init.access(tlm::TLM_READ_COMMAND, addr, d.data(), len, &delay) == tlm::TLM_OK_RESPONSE);
    return delay;
  }
};

}  // namespace

TEST_CASE("pci bus: variants set the parameters, explicit keys win", "[model][pci]") {
  SECTION("pci64-66 is the default") {
    m2::PciBus bus("bus", TimingStyle::LT);
    CHECK(bus.variant.get() == "pci64-66");
    CHECK(bus.clock_mhz.get() == 66.0);
    CHECK(bus.width_bits.get() == 64);
    CHECK(bus.arbitration_clocks.get() == 2);
    CHECK(bus.address_clocks.get() == 1);
    CHECK(bus.read_initial_clocks.get() == 10);
    CHECK(bus.write_initial_clocks.get() == 2);
    CHECK(bus.latency_timer_clocks.get() == 64);
    CHECK(bus.turnaround_clocks.get() == 1);
    CHECK(bus.clock_mhz.origin().where == "variant pci64-66");
    CHECK(bus.clock_period() == k66);
  }
  SECTION("pci32-33, with one key overridden") {
    preset("bus.variant", "pci32-33");
    preset("bus.read_initial_clocks", "9");
    m2::PciBus bus("bus", TimingStyle::LT);
    CHECK(bus.clock_mhz.get() == 33.0);
    CHECK(bus.width_bits.get() == 32);
    CHECK(bus.write_initial_clocks.get() == 2);
    CHECK(bus.read_initial_clocks.get() == 9);
    CHECK(bus.read_initial_clocks.origin().where == "test");
  }
  SECTION("bad values are configuration errors") {
    preset("bus.variant", "pci64-133");
    CHECK_THROWS_WITH(m2::PciBus("bus", TimingStyle::LT), Contains("pci64-133") && Contains("pci32-33"));
  }
  SECTION("the width is 32 or 64") {
    preset("bus.width_bits", "48");
    CHECK_THROWS_WITH(m2::PciBus("bus", TimingStyle::LT), Contains("width_bits") && Contains("32 or 64"));
  }
}

TEST_CASE("pci bus: single transfers cost the hand-counted clocks (pci64-66)", "[model][pci]") {
  Bench b;
  const m2::PciBus& bus = b.bus;
  CHECK(bus.transfer_time(true, kMemBase, 4) == clk66(15));  // 2+1+10+1 data+1
  CHECK(bus.transfer_time(false, kMemBase, 4) == clk66(7));  // 2+1+2+1 data+1
  CHECK(bus.transfer_time(false, kMemBase, 8) == clk66(7));  // one 64-bit word
  CHECK(bus.transfer_time(false, kMemBase + 7, 1) == clk66(7));
  CHECK(bus.transfer_time(true, kMemBase + 6, 4) == clk66(16));  // straddles two words
  CHECK(bus.transfer_time(false, kMemBase + 4, 8) == clk66(8));  // partial first and last word
  CHECK(bus.transfer_time(true, kMemBase, 0) == clk66(15));      // still one data phase
  // 4 bytes: 15 clocks = 227 ns for a read, 106 ns for a write.
  CHECK(bus.transfer_time(true, 0, 4).to_seconds() == Approx(227.3e-9).epsilon(1e-3));

  // b_transport adds exactly that (the memory has no latency of its own).
  CHECK(b.read(kMemBase, 4) == clk66(15));
  CHECK(b.write(kMemBase + 0x40, 4) == clk66(7));
  CHECK(b.read(kMemBase + 6, 4) == clk66(16));
  CHECK(b.write(kDevBase, 8) == clk66(7));
}

TEST_CASE("pci bus: single transfers cost the hand-counted clocks (pci32-33)", "[model][pci]") {
  preset("bus.variant", "pci32-33");
  Bench b;
  const m2::PciBus& bus = b.bus;
  CHECK(bus.clock_period() == k33);
  CHECK(bus.transfer_time(true, kMemBase, 4) == clk33(11));  // 2+1+6+1+1
  CHECK(bus.transfer_time(false, kMemBase, 4) == clk33(7));
  CHECK(bus.transfer_time(true, kMemBase, 8) == clk33(12));  // two 32-bit words
  CHECK(bus.transfer_time(true, kMemBase + 2, 4) == clk33(12));
  CHECK(b.read(kMemBase, 4) == clk33(11));
  CHECK(b.write(kMemBase, 4) == clk33(7));
  // 11 clocks at 33 MHz: 333 ns.
  CHECK(bus.transfer_time(true, 0, 4).to_seconds() == Approx(333.3e-9).epsilon(1e-3));
}

TEST_CASE("pci bus: bursts cost the hand-counted clocks (pci64-66)", "[model][pci]") {
  Bench b;
  m2::PciBus::Plan p = b.bus.plan(true, kMemBase, 256);  // 32 phases, one burst
  CHECK(p.data_phases == 32);
  CHECK(p.bursts == 1);
  CHECK(p.clocks == 14 + 32);
  CHECK(b.read(kMemBase, 256) == clk66(46));
  CHECK(b.bus.max_burst_phases(false) == 61);  // 64 - 1 - 2
  CHECK(b.bus.max_burst_phases(true) == 53);   // 64 - 1 - 10
  // 2 KB write: 256 phases = 61+61+61+61+12, 5 bursts of 6 clocks overhead.
  p = b.bus.plan(false, kMemBase, 2048);
  CHECK(p.bursts == 5);
  CHECK(p.clocks == 5 * 6 + 256);
  CHECK(b.write(kMemBase, 2048) == clk66(286));
  // 2 KB read: 53+53+53+53+44, 5 bursts of 14 clocks overhead.
  CHECK(b.read(kMemBase, 2048) == clk66(5 * 14 + 256));
  // 2 KB in 286 clocks: 473 MB/s of the 528 MB/s peak.
  CHECK(2048 / b.bus.transfer_time(false, 0, 2048).to_seconds() == Approx(473e6).epsilon(2e-3));
}

TEST_CASE("pci bus: bursts cost the hand-counted clocks (pci32-33)", "[model][pci]") {
  preset("bus.variant", "pci32-33");
  Bench b;
  // 2 KB write: 512 phases, 61 per burst: 9 bursts.
  CHECK(b.bus.plan(false, kMemBase, 2048).bursts == 9);
  CHECK(b.write(kMemBase, 2048) == clk33(9 * 6 + 512));
  // 2 KB read: 57 per burst: 9 bursts of 10 clocks overhead.
  CHECK(b.read(kMemBase, 2048) == clk33(9 * 10 + 512));
}

TEST_CASE("pci bus: the latency timer splits bursts: one up to the limit, two beyond it", "[model][pci]") {
  preset("bus.latency_timer_clocks", "16");
  Bench b;
  CHECK(b.bus.max_burst_phases(false) == 13);  // 16 - 1 - 2
  CHECK(b.bus.max_burst_phases(true) == 5);    // 16 - 1 - 10
  CHECK(b.bus.plan(false, kMemBase, 13 * 8).bursts == 1);
  CHECK(b.write(kMemBase, 13 * 8) == clk66(6 + 13));
  CHECK(b.bus.plan(false, kMemBase, 14 * 8).bursts == 2);
  CHECK(b.write(kMemBase, 14 * 8) == clk66(2 * 6 + 14));
  // An unaligned start adds a phase and can add a burst: 13 words from +4 touch 14.
  CHECK(b.bus.plan(false, kMemBase + 4, 13 * 8).bursts == 2);
  // 256 bytes: 32 phases = 13 + 13 + 6.
  CHECK(b.write(kMemBase, 256) == clk66(3 * 6 + 32));
}

TEST_CASE("pci bus: a latency timer shorter than the initial latency still moves one phase per burst", "[model][pci]") {
  preset("bus.latency_timer_clocks", "4");
  Bench b;
  CHECK(b.bus.max_burst_phases(true) == 1);
  CHECK(b.read(kMemBase, 32) == clk66(4 * (14 + 1)));
}

TEST_CASE("pci bus: address decoding, translation and errors", "[model][pci]") {
  Bench b;
  // Targets see offsets; the master gets its address back.
  REQUIRE(b.init.write(kMemBase + 0x100, {1, 2, 3, 4}) == tlm::TLM_OK_RESPONSE);
  CHECK(b.init.last_address == kMemBase + 0x100);
  REQUIRE(b.init.write(kDevBase + 0x10, {9}) == tlm::TLM_OK_RESPONSE);
  CHECK(b.mem.host()[0x100] == 1);
  CHECK(b.mem.host()[0x103] == 4);
  CHECK(b.dev.host()[0x10] == 9);

  // Unmapped, straddling: address error, no time, nothing written.
  sc_time d;
  std::vector<uint8_t> r(4);
  CHECK(b.init.read(0x0, r, &d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(d == SC_ZERO_TIME);
  CHECK(b.init.write(kMemBase + kMemSize, {1}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(b.init.write(kMemBase - 2, {7, 7, 7, 7}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(b.mem.host()[0] == 0);
  CHECK(b.init.write(kDevBase + kDevSize - 2, {7, 7, 7, 7}, &d) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(b.dev.host()[kDevSize - 2] == 0);
  CHECK(b.init.last_address == kDevBase + kDevSize - 2);
  CHECK(b.bus.master_stats().at(0).transactions == 2);  // errors are not bus transactions
}

TEST_CASE("pci bus: overlapping ranges are a ConfigError naming both", "[model][pci]") {
  m2::PciBus bus("bus", TimingStyle::LT);
  m2::Memory mem("mem", kMemSize), x("x", 0x1000);
  bus.attach(mem.socket, kMemBase, kMemSize, "mem");
  CHECK_THROWS_WITH(bus.attach(x.socket, kMemBase + kMemSize - 0x10, 0x1000, "late"),
                    Contains("'late'") && Contains("'mem'") && Contains("overlaps") && Contains("bus"));
  CHECK_THROWS_WITH(bus.attach(x.socket, kMemBase - 0x10, 0x11, "early"), Contains("'early'") && Contains("'mem'"));
  CHECK_NOTHROW(bus.attach(x.socket, kMemBase + kMemSize, 0x1000, "next"));
  REQUIRE(bus.address_map().size() == 2);
  CHECK(bus.address_map()[1].name == "next");
  CHECK(bus.address_map()[1].port == 1);
  // Not elaborated: nothing else is bound.
}

TEST_CASE("pci bus: data arrives intact, aligned or not", "[model][pci]") {
  Bench b;
  std::mt19937 rng(11);
  for (uint64_t off : {0ull, 1ull, 3ull, 7ull, 0x1005ull}) {
    for (unsigned len : {1u, 3u, 8u, 13u, 500u, 4097u}) {
      std::vector<uint8_t> w(len);
      for (auto& v : w) v = static_cast<uint8_t>(rng());
      REQUIRE(b.init.write(kMemBase + off, w) == tlm::TLM_OK_RESPONSE);
      CHECK(std::memcmp(b.mem.host() + off, w.data(), len) == 0);
      std::vector<uint8_t> back(len);
      REQUIRE(b.init.read(kMemBase + off, back) == tlm::TLM_OK_RESPONSE);
      CHECK(back == w);
    }
  }
}

TEST_CASE("pci bus: LT adds the target's own latency and keeps statistics per master", "[model][pci]") {
  preset("dev.read_latency_ns", "100");
  Bench b;
  CHECK(b.read(kDevBase, 4) == clk66(15) + sc_time(100, SC_NS));  // wait states of the target
  CHECK(b.write(kMemBase, 64) == clk66(6 + 8));
  // Delay accumulates on the caller's: the bus adds, it never waits.
  sc_time delay(1, sc_core::SC_US);
  std::vector<uint8_t> d(16);
  REQUIRE(b.init.transport(tlm::TLM_WRITE_COMMAND, kMemBase, d.data(), 16, delay) == tlm::TLM_OK_RESPONSE);
  CHECK(delay == sc_time(1, sc_core::SC_US) + clk66(8));
  CHECK(sc_core::sc_time_stamp() == SC_ZERO_TIME);

  REQUIRE(b.bus.master_stats().size() == 1);
  const auto& s = b.bus.master_stats()[0];
  CHECK(s.name == "cpu");
  CHECK(s.transactions == 3);
  CHECK(s.bytes == 4 + 64 + 16);
  CHECK(s.bursts == 3);
  CHECK(s.busy == clk66(15 + 14 + 8) + sc_time(100, SC_NS));
  CHECK(s.waiting == SC_ZERO_TIME);
  CHECK(b.bus.busy_time() == s.busy);
}

namespace {

// Two masters writing then reading back 1 KB each at time 0, on a bus of the
// given style. Completion times are the masters' local times.
struct Contention {
  m2::PciBus bus;
  m2test::ThreadInitiator a, b;
  m2::Memory mem;
  sc_time wrote[2], done[2];
  std::vector<uint8_t> sent[2], got[2];

  Contention(const std::string& prefix, TimingStyle style)
      : bus((prefix + "_bus").c_str(), style),
        a((prefix + "_a").c_str()),
        b((prefix + "_b").c_str()),
        mem((prefix + "_mem").c_str(), kMemSize) {
    bus.bind_master(a.socket, "a");
    bus.bind_master(b.socket, "b");
    bus.attach(mem.socket, kMemBase, kMemSize, "mem");
    for (int i = 0; i < 2; ++i) {
      sent[i].resize(1024);
      for (size_t k = 0; k < 1024; ++k) sent[i][k] = static_cast<uint8_t>(k * 7 + i * 101);
      got[i].resize(1024);
    }
    a.body = [this](m2test::TestInitiator& m) { work(m, 0); };
    b.body = [this](m2test::TestInitiator& m) { work(m, 1); };
  }
  void work(m2test::TestInitiator& m, int i) {
    const uint64_t addr = kMemBase + 0x1000 * i;
    sc_time delay = SC_ZERO_TIME;  // LT: local time offset; AT: waited by the bus
    REQUIRE(m.transport(tlm::TLM_WRITE_COMMAND, addr, sent[i].data(), 1024, delay) == tlm::TLM_OK_RESPONSE);
    wrote[i] = sc_core::sc_time_stamp() + delay;
    REQUIRE(m.transport(tlm::TLM_READ_COMMAND, addr, got[i].data(), 1024, delay) == tlm::TLM_OK_RESPONSE);
    done[i] = sc_core::sc_time_stamp() + delay;
  }
};

}  // namespace

TEST_CASE("pci bus: LT vs AT, two masters contending: same data, AT serialises", "[model][pci]") {
  Contention lt("lt", TimingStyle::LT), at("at", TimingStyle::AT);
  sc_core::sc_start();

  // Same data delivered, both ways.
  for (int i = 0; i < 2; ++i) {
    CHECK(lt.got[i] == lt.sent[i]);
    CHECK(at.got[i] == at.sent[i]);
    CHECK(std::memcmp(lt.mem.host() + 0x1000 * i, at.mem.host() + 0x1000 * i, 1024) == 0);
  }

  // 1 KB write: 128 phases in 3 bursts (61, 61, 6) of 6 clocks overhead each;
  // 1 KB read: 128 phases in 3 bursts (53, 53, 22) of 14 clocks each.
  const uint64_t write = 3 * 6 + 128, read = 3 * 14 + 128;
  // LT: each master as if alone.
  CHECK(lt.wrote[0] == clk66(write));
  CHECK(lt.wrote[1] == clk66(write));
  CHECK(lt.done[0] == clk66(write + read));
  CHECK(lt.done[1] == clk66(write + read));

  // AT: the write bursts alternate a, b, a, b, a, b. A master that waited for
  // the grant arbitrated during the other's burst, so only the very first
  // burst pays the 2 arbitration clocks:
  //   a 67 | b 65 | a 65 | b 65 | a 10 (a done: 272) | b 10 (b done: 282)
  CHECK(at.wrote[0] == clk66(272));
  CHECK(at.wrote[1] == clk66(282));
  CHECK(at.wrote[1] > lt.wrote[1]);
  // Overall completion: serialised, it is the sum of both masters' LT times
  // less the arbitration hidden behind the other master's bursts. Tolerance
  // asserted: at most 2 clocks per burst of the workload (12 bursts).
  const sc_time at_total = std::max(at.done[0], at.done[1]);
  const sc_time lt_sum = lt.done[0] + lt.done[1];
  CHECK(at_total <= lt_sum);
  CHECK(at_total >= lt_sum - clk66(12 * 2));
  CHECK(at_total > std::max(lt.done[0], lt.done[1]));
  // Exactly: the reads alternate too (65, 65, 65, 65, 34, 34 after 282):
  // 610 clocks against 632, 11 of the 12 bursts having hidden arbitration.
  CHECK(at.done[0] == clk66(576));
  CHECK(at_total == clk66(610));
  // The bus was never idle: its busy time is the completion time.
  CHECK(at.bus.busy_time() == at_total);
  CHECK(lt.bus.busy_time() == lt_sum);
  // Statistics: both masters moved 2 KB in 6 bursts; AT shows the waiting.
  for (int i = 0; i < 2; ++i) {
    CHECK(at.bus.master_stats()[i].bytes == 2048);
    CHECK(at.bus.master_stats()[i].bursts == 6);
    CHECK(at.bus.master_stats()[i].waiting > SC_ZERO_TIME);
    CHECK(lt.bus.master_stats()[i].waiting == SC_ZERO_TIME);
  }
  CHECK(at.bus.master_stats()[0].busy + at.bus.master_stats()[1].busy == at_total);
}

TEST_CASE("pci bus: AT arbitration is round-robin between bursts", "[model][pci]") {
  m2::PciBus bus("bus", TimingStyle::AT);
  m2test::ThreadInitiator a("a"), b("b"), c("c");
  m2::Memory mem("mem", kMemSize);
  bus.bind_master(a.socket, "a");  // ports 0, 1, 2
  bus.bind_master(b.socket, "b");
  bus.bind_master(c.socket, "c");
  bus.attach(mem.socket, kMemBase, kMemSize, "mem");
  // 976 bytes: 122 phases, two write bursts of 61. a asks at 0, c at 1 ns,
  // b at 2 ns: first come would serve c before b, round-robin serves b.
  sc_time end[3];
  auto job = [&](int i, sc_time start) {
    return [&, i, start](m2test::TestInitiator& m) {
      std::vector<uint8_t> d(976, static_cast<uint8_t>(i));
      sc_time delay = start;  // waited by the bus before arbitration
      REQUIRE(m.transport(tlm::TLM_WRITE_COMMAND, kMemBase + 0x1000 * i, d.data(), 976, delay) == tlm::TLM_OK_RESPONSE);
      CHECK(delay == SC_ZERO_TIME);
      end[i] = sc_core::sc_time_stamp();
    };
  };
  a.body = job(0, SC_ZERO_TIME);
  b.body = job(1, sc_time(2, SC_NS));
  c.body = job(2, sc_time(1, SC_NS));
  sc_core::sc_start();
  // a 67 | b 65 | c 65 | a 65 (a done) | b 65 (b done) | c 65 (c done)
  CHECK(end[0] == clk66(67 + 65 * 3));
  CHECK(end[1] == clk66(67 + 65 * 4));
  CHECK(end[2] == clk66(67 + 65 * 5));
  CHECK(bus.busy_time() == end[2]);
  CHECK(bus.master_stats()[1].waiting == clk66(67) - sc_time(2, SC_NS) + clk66(130));
  for (int i = 0; i < 3; ++i) CHECK(mem.host()[0x1000 * i + 975] == i);
}

TEST_CASE("pci bus: AT waits for the caller's local time first and holds for the target's latency", "[model][pci]") {
  preset("mem.read_latency_ns", "50");
  m2::PciBus bus("bus", TimingStyle::AT);
  m2test::ThreadInitiator m("m");
  m2::Memory mem("mem", kMemSize);
  bus.bind_master(m.socket, "m");
  bus.attach(mem.socket, kMemBase, kMemSize, "mem");
  sc_time returned_at, delay_after;
  m.body = [&](m2test::TestInitiator& self) {
    std::vector<uint8_t> d(4);
    sc_time delay(100, SC_NS);
    REQUIRE(self.transport(tlm::TLM_READ_COMMAND, kMemBase, d.data(), 4, delay) == tlm::TLM_OK_RESPONSE);
    returned_at = sc_core::sc_time_stamp();
    delay_after = delay;
  };
  sc_core::sc_start();
  CHECK(delay_after == SC_ZERO_TIME);
  CHECK(returned_at == sc_time(100, SC_NS) + clk66(15) + sc_time(50, SC_NS));
  CHECK(bus.busy_time() == clk66(15) + sc_time(50, SC_NS));
}

TEST_CASE("pci bus: LT grants DMI in bus addresses, with a one-phase transaction as latency", "[model][pci]") {
  Bench b;
  tlm::tlm_dmi dmi;
  REQUIRE(b.init.dmi(kMemBase + 0x40, dmi));
  CHECK(dmi.get_start_address() == kMemBase);
  CHECK(dmi.get_end_address() == kMemBase + kMemSize - 1);
  CHECK(dmi.get_dmi_ptr() == b.mem.host());
  CHECK(dmi.get_read_latency() == clk66(15));
  CHECK(dmi.get_write_latency() == clk66(7));
  tlm::tlm_dmi none;
  CHECK_FALSE(b.init.dmi(0x0, none));
}

TEST_CASE("pci bus: AT denies DMI (it would bypass arbitration)", "[model][pci]") {
  Bench b(TimingStyle::AT);
  tlm::tlm_dmi dmi;
  CHECK_FALSE(b.init.dmi(kMemBase + 0x40, dmi));
  CHECK(dmi.get_start_address() == kMemBase);
  CHECK(dmi.get_end_address() == kMemBase + kMemSize - 1);
}

TEST_CASE("pci bus: debug transport is translated and clipped to the window", "[model][pci]") {
  Bench b;
  std::vector<uint8_t> w{1, 2, 3, 4, 5, 6, 7, 8};
  CHECK(b.init.dbg(tlm::TLM_WRITE_COMMAND, kDevBase + kDevSize - 4, w.data(), 8) == 4);
  CHECK(b.dev.host()[kDevSize - 1] == 4);
  std::vector<uint8_t> r(4);
  CHECK(b.init.dbg(tlm::TLM_READ_COMMAND, kDevBase + kDevSize - 4, r.data(), 4) == 4);
  CHECK(r == std::vector<uint8_t>{1, 2, 3, 4});
  CHECK(b.init.dbg(tlm::TLM_READ_COMMAND, 0x0, r.data(), 4) == 0);
  CHECK(b.bus.master_stats()[0].transactions == 0);
}

namespace {

// A target that records the delay each transaction brings with it.
struct DelayProbe : sc_core::sc_module {
  tlm_utils::simple_target_socket<DelayProbe> socket{"socket"};
  std::vector<sc_time> seen;
  explicit DelayProbe(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_b_transport(this, &DelayProbe::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_time& delay) {
    seen.push_back(delay);
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

}  // namespace

TEST_CASE("pci bus: LT tells the target when a write's data is through and when a read starts", "[model][pci]") {
  m2test::TestInitiator init{"init"};
  m2::PciBus bus("bus", TimingStyle::LT);
  DelayProbe probe("probe");
  bus.bind_master(init.socket, "cpu");
  bus.attach(probe.socket, kDevBase, kDevSize, "probe");
  sc_core::sc_start(SC_ZERO_TIME);
  std::vector<uint8_t> d(32);
  sc_time delay(1, sc_core::SC_US);  // the caller's local time
  REQUIRE(init.transport(tlm::TLM_WRITE_COMMAND, kDevBase, d.data(), 32, delay) == tlm::TLM_OK_RESPONSE);
  delay = sc_time(1, sc_core::SC_US);
  REQUIRE(init.transport(tlm::TLM_READ_COMMAND, kDevBase, d.data(), 4, delay) == tlm::TLM_OK_RESPONSE);
  REQUIRE(probe.seen.size() == 2);
  CHECK(probe.seen[0] == sc_time(1, sc_core::SC_US) + clk66(6 + 4));  // 32-byte write: 4 data phases
  CHECK(probe.seen[1] == sc_time(1, sc_core::SC_US));
}

// Every target of the base protocol answers nb_transport as well as
// b_transport: in LT the bus completes a non-blocking master's BEGIN_REQ at
// once (early completion), annotated with the time b_transport charges.
TEST_CASE("pci bus: LT completes an nb_transport master's BEGIN_REQ early with the b_transport time", "[model][pci]") {
  Bench b;
  const sc_time blocking = b.write(kMemBase, 16);
  uint8_t data[16];
  for (unsigned i = 0; i < 16; ++i) data[i] = static_cast<uint8_t>(0x70 + i);
  tlm::tlm_generic_payload t;
  t.set_command(tlm::TLM_WRITE_COMMAND);
  t.set_address(kMemBase + 0x100);
  t.set_data_ptr(data);
  t.set_data_length(16);
  t.set_streaming_width(16);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_time delay = SC_ZERO_TIME;
  CHECK(b.init.socket->nb_transport_fw(t, phase, delay) == tlm::TLM_COMPLETED);
  CHECK(t.get_response_status() == tlm::TLM_OK_RESPONSE);
  CHECK(delay == blocking);
  CHECK(t.get_address() == kMemBase + 0x100);
  CHECK(std::memcmp(b.mem.host() + 0x100, data, 16) == 0);
  CHECK(b.bus.master_stats().at(0).transactions == 2);
  // No target claims the address: completed at once with the error.
  t.set_address(0x90000000);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  phase = tlm::BEGIN_REQ;
  CHECK(b.init.socket->nb_transport_fw(t, phase, delay) == tlm::TLM_COMPLETED);
  CHECK(t.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  // Nothing follows a completed transaction.
  phase = tlm::END_RESP;
  CHECK_THROWS_WITH(b.init.socket->nb_transport_fw(t, phase, delay),
                    Contains("bus: base protocol violated: master cpu sent a phase other than BEGIN_REQ"));
}

namespace {

// A target whose b_transport waits, as an AT target behind the standard's
// b_transport-to-nb_transport conversion does.
struct WaitingTarget : sc_core::sc_module {
  tlm_utils::simple_target_socket<WaitingTarget> socket{"socket"};
  explicit WaitingTarget(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_b_transport(this, &WaitingTarget::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_time&) {
    sc_core::wait(sc_time(10, SC_NS));
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

}  // namespace

TEST_CASE("pci bus: LT refuses, naming it, a target that waits under an nb_transport master", "[model][pci]") {
  m2test::ThreadInitiator init("init");
  m2::PciBus bus("bus", TimingStyle::LT);
  WaitingTarget slow("slow");
  bus.bind_master(init.socket, "dma");
  bus.attach(slow.socket, kDevBase, kDevSize, "slow card");
  std::string error;
  init.body = [&](m2test::ThreadInitiator& m) {
    uint8_t data[4] = {};
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(kDevBase);
    t.set_data_ptr(data);
    t.set_data_length(4);
    t.set_streaming_width(4);
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_time delay = SC_ZERO_TIME;
    try {
      m.socket->nb_transport_fw(t, phase, delay);
    } catch (const std::logic_error& e) {
      error = e.what();
    }
  };
  sc_core::sc_start();
  CHECK_THAT(error, Contains("target slow card waited in b_transport while master dma called nb_transport_fw"));
  CHECK_THAT(error, Contains("nb_transport must not wait"));
}
