// Unit tests for the network buffer (models/ni/netbuf.*): FIFO order through
// the data windows and the C++ API, status registers and counters, overflow
// and underflow refused with a logged reason, threshold interrupts, flush,
// access time, loopback, configuration errors.
//
// The netbuf sits on a Router standing in for the NI bus, at its real
// addresses. Tests without waiting call the sockets from the test body after
// sc_start(SC_ZERO_TIME); the loopback and event tests run in a TestThread.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>

#include <systemc>
#include <tlm>

#include <ip/ni_netbuf.h>

#include "core/log.h"
#include "core/params.h"
#include "core/router.h"
#include "ni/netbuf.h"

#include "log_capture.h"
#include "test_initiator.h"
#include "test_thread.h"

using Catch::Matchers::Contains;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

constexpr uint64_t TX0 = NI_NETBUF_TX_WINDOW(0), TX1 = NI_NETBUF_TX_WINDOW(1);
constexpr uint64_t RX0 = NI_NETBUF_RX_WINDOW(0), RX1 = NI_NETBUF_RX_WINDOW(1);
constexpr uint64_t REGS = NI_NETBUF_BASE;

std::vector<uint8_t> random_bytes(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

struct Bench {
  m2::Router bus{"bus"};
  m2::NetBuf nb{"nb"};
  m2test::TestInitiator cpu{"cpu"};
  explicit Bench(bool start = true) {
    cpu.socket.bind(bus.target);
    bus.attach(nb.data, NI_NETBUF_DATA_BASE, NI_NETBUF_DATA_SIZE, "netbuf data");
    bus.attach(nb.regs, NI_NETBUF_BASE, NI_DEVICE_SIZE, "netbuf regs");
    if (start) sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
  uint32_t reg(uint32_t off) { return cpu.read32(REGS + off); }
};

using m2test::LogCapture;

}  // namespace

TEST_CASE("netbuf: status registers after reset", "[model][netbuf]") {
  Bench b;
  CHECK(b.reg(NETBUF_CHANNEL_BYTES) == 2048);
  CHECK(b.reg(NETBUF_IRQ_LEVELS) == 0);
  for (unsigned c = 0; c < 2; ++c) {
    CHECK(b.reg(NETBUF_TX_FREE(c)) == 2048);
    CHECK(b.reg(NETBUF_TX_USED(c)) == 0);
    CHECK(b.reg(NETBUF_TX_THRESHOLD(c)) == 0);
    CHECK(b.reg(NETBUF_TX_BYTES_IN(c)) == 0);
    CHECK(b.reg(NETBUF_TX_BYTES_OUT(c)) == 0);
    CHECK(b.reg(NETBUF_RX_AVAIL(c)) == 0);
    CHECK(b.reg(NETBUF_RX_FREE(c)) == 2048);
    CHECK(b.reg(NETBUF_RX_THRESHOLD(c)) == 0);
    CHECK(b.reg(NETBUF_RX_BYTES_IN(c)) == 0);
    CHECK(b.reg(NETBUF_RX_BYTES_OUT(c)) == 0);
    CHECK_FALSE(b.nb.irq_tx[c].level());
    CHECK_FALSE(b.nb.irq_rx[c].level());
  }
  // Status registers are read-only.
  CHECK(b.cpu.write32(REGS + NETBUF_TX_FREE(0), 5) == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK(b.cpu.write32(REGS + NETBUF_CHANNEL_BYTES, 5) == tlm::TLM_GENERIC_ERROR_RESPONSE);
}

TEST_CASE("netbuf: TX window writes push in order, whatever the address and length", "[model][netbuf]") {
  Bench b;
  std::mt19937 rng(7);
  std::vector<uint8_t> sent0, sent1;
  // Bursts of odd lengths anywhere in the window (the address inside the
  // window does not matter, only the order).
  const unsigned lens[] = {1, 3, 31, 33, 100, 8, 256, 4, 600};
  const uint64_t offs[] = {0, 0x7FFD, 1, 0xFF00, 0x1234, 0xFFF8, 0x100, 0x3, 0x8000};
  for (unsigned i = 0; i < 9; ++i) {
    const auto d = random_bytes(rng, lens[i]);
    REQUIRE(b.cpu.write(TX0 + offs[i], d) == tlm::TLM_OK_RESPONSE);
    sent0.insert(sent0.end(), d.begin(), d.end());
    const auto e = random_bytes(rng, lens[8 - i] / 2 + 1);
    REQUIRE(b.cpu.write(TX1 + offs[8 - i], e) == tlm::TLM_OK_RESPONSE);
    sent1.insert(sent1.end(), e.begin(), e.end());
  }
  CHECK(b.reg(NETBUF_TX_USED(0)) == sent0.size());
  CHECK(b.reg(NETBUF_TX_FREE(0)) == 2048 - sent0.size());
  CHECK(b.reg(NETBUF_TX_USED(1)) == sent1.size());
  CHECK(b.nb.tx_available(0) == sent0.size());
  CHECK(b.nb.tx_free(1) == 2048 - sent1.size());
  CHECK(b.reg(NETBUF_TX_BYTES_IN(0)) == sent0.size());
  // RX is untouched.
  CHECK(b.reg(NETBUF_RX_AVAIL(0)) == 0);

  // The link side pops them in order, in other chunk sizes.
  std::vector<uint8_t> got0(sent0.size()), got1(sent1.size());
  b.nb.tx_pop(0, got0.data(), 5);
  b.nb.tx_pop(0, got0.data() + 5, static_cast<unsigned>(sent0.size() - 5));
  b.nb.tx_pop(1, got1.data(), static_cast<unsigned>(sent1.size()));
  CHECK(got0 == sent0);
  CHECK(got1 == sent1);
  CHECK(b.reg(NETBUF_TX_USED(0)) == 0);
  CHECK(b.reg(NETBUF_TX_BYTES_OUT(0)) == sent0.size());
  CHECK(b.reg(NETBUF_TX_BYTES_OUT(1)) == sent1.size());
  CHECK(b.nb.tx_bytes_in(1) == sent1.size());
}

TEST_CASE("netbuf: RX window reads pop in order, whatever the address and length", "[model][netbuf]") {
  Bench b;
  std::mt19937 rng(8);
  const auto d0 = random_bytes(rng, 2048);  // a full channel
  const auto d1 = random_bytes(rng, 77);
  b.nb.rx_push(0, d0.data(), 1000);
  b.nb.rx_push(0, d0.data() + 1000, 1048);
  b.nb.rx_push(1, d1.data(), 77);
  CHECK(b.reg(NETBUF_RX_AVAIL(0)) == 2048);
  CHECK(b.reg(NETBUF_RX_FREE(0)) == 0);
  CHECK(b.reg(NETBUF_RX_AVAIL(1)) == 77);
  CHECK(b.reg(NETBUF_RX_BYTES_IN(0)) == 2048);

  std::vector<uint8_t> got;
  const unsigned lens[] = {1, 3, 31, 33, 1000, 4, 976};  // sums to 2048
  uint64_t off = 0xFFFF;
  for (unsigned n : lens) {
    std::vector<uint8_t> r(n);
    off = (off + 0x1111) % (NI_NETBUF_WINDOW_SIZE - n);
    REQUIRE(b.cpu.read(RX0 + off, r) == tlm::TLM_OK_RESPONSE);
    got.insert(got.end(), r.begin(), r.end());
  }
  CHECK(got == d0);
  CHECK(b.reg(NETBUF_RX_AVAIL(0)) == 0);
  CHECK(b.reg(NETBUF_RX_FREE(0)) == 2048);
  CHECK(b.reg(NETBUF_RX_BYTES_OUT(0)) == 2048);
  std::vector<uint8_t> r1(77);
  REQUIRE(b.cpu.read(RX1 + NI_NETBUF_WINDOW_SIZE - 77, r1) == tlm::TLM_OK_RESPONSE);
  CHECK(r1 == d1);
}

TEST_CASE("netbuf: a channel wraps around many times without losing order", "[model][netbuf]") {
  Bench b;
  std::mt19937 rng(9);
  std::vector<uint8_t> sent, got;
  std::uniform_int_distribution<unsigned> len(1, 700);
  for (int i = 0; i < 400; ++i) {
    const unsigned n = std::min(len(rng), b.nb.tx_free(1));
    if (n) {
      const auto d = random_bytes(rng, n);
      REQUIRE(b.cpu.write(TX1 + (rng() % 0x100), d) == tlm::TLM_OK_RESPONSE);
      sent.insert(sent.end(), d.begin(), d.end());
    }
    const unsigned m = std::min(len(rng), b.nb.tx_available(1));
    std::vector<uint8_t> r(m);
    b.nb.tx_pop(1, r.data(), m);
    got.insert(got.end(), r.begin(), r.end());
  }
  std::vector<uint8_t> rest(b.nb.tx_available(1));
  b.nb.tx_pop(1, rest.data(), static_cast<unsigned>(rest.size()));
  got.insert(got.end(), rest.begin(), rest.end());
  REQUIRE(sent.size() > 20 * 2048);
  CHECK(got == sent);
  // Counters are modulo 2^32 in the registers, exact in the API.
  CHECK(b.nb.tx_bytes_in(1) == sent.size());
  CHECK(b.reg(NETBUF_TX_BYTES_OUT(1)) == static_cast<uint32_t>(sent.size()));
}

TEST_CASE("netbuf: a write larger than the free space is refused and logged", "[model][netbuf]") {
  LogCapture log("test_netbuf_overflow");
  Bench b;
  REQUIRE(b.cpu.write(TX1, std::vector<uint8_t>(2000, 0xAA)) == tlm::TLM_OK_RESPONSE);
  CHECK(b.cpu.write(TX1 + 8, std::vector<uint8_t>(64, 0xBB)) == tlm::TLM_GENERIC_ERROR_RESPONSE);
  // Nothing of the refused write went in.
  CHECK(b.reg(NETBUF_TX_USED(1)) == 2000);
  CHECK(b.reg(NETBUF_TX_BYTES_IN(1)) == 2000);
  const std::string e = b.nb.last_error();
  CHECK_THAT(e, Contains("nb") && Contains("TX channel 1") && Contains("overflow") && Contains("64 bytes asked") &&
                    Contains("48 bytes free"));
  CHECK_THAT(log.text(), Contains("warning: " + e));
  // What fits still goes in, to the last byte.
  CHECK(b.cpu.write(TX1, std::vector<uint8_t>(48, 0xCC)) == tlm::TLM_OK_RESPONSE);
  CHECK(b.reg(NETBUF_TX_FREE(1)) == 0);
  CHECK(b.cpu.write(TX1, {1}) == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK_THAT(b.nb.last_error(), Contains("1 bytes asked") && Contains("0 bytes free"));
  // The other channel is not affected.
  CHECK(b.cpu.write(TX0, std::vector<uint8_t>(2048, 1)) == tlm::TLM_OK_RESPONSE);
}

TEST_CASE("netbuf: a read larger than the data available is refused and logged", "[model][netbuf]") {
  LogCapture log("test_netbuf_underflow");
  Bench b;
  const std::vector<uint8_t> d{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  b.nb.rx_push(0, d.data(), 10);
  std::vector<uint8_t> r(16, 0xEE);
  CHECK(b.cpu.read(RX0, r) == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK(r == std::vector<uint8_t>(16, 0xEE));  // no data delivered
  CHECK(b.reg(NETBUF_RX_AVAIL(0)) == 10);
  const std::string e = b.nb.last_error();
  CHECK_THAT(e, Contains("RX channel 0") && Contains("underflow") && Contains("16 bytes asked") &&
                    Contains("10 bytes available"));
  CHECK_THAT(log.text(), Contains("warning: " + e));
  r.resize(10);
  CHECK(b.cpu.read(RX0, r) == tlm::TLM_OK_RESPONSE);
  CHECK(r == d);
  std::vector<uint8_t> one(1);
  CHECK(b.cpu.read(RX1, one) == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK_THAT(b.nb.last_error(), Contains("RX channel 1") && Contains("0 bytes available"));
}

TEST_CASE("netbuf: wrong direction, outside the windows and byte enables are refused", "[model][netbuf]") {
  Bench b;
  b.nb.tx_push(0, std::vector<uint8_t>(8, 1).data(), 8);
  b.nb.rx_push(0, std::vector<uint8_t>(8, 2).data(), 8);
  std::vector<uint8_t> r(4);
  CHECK(b.cpu.read(TX0, r) == tlm::TLM_COMMAND_ERROR_RESPONSE);
  CHECK_THAT(b.nb.last_error(), Contains("TX channel 0 window is write-only"));
  CHECK(b.cpu.write(RX0, {1, 2}) == tlm::TLM_COMMAND_ERROR_RESPONSE);
  CHECK_THAT(b.nb.last_error(), Contains("RX channel 0 window is read-only"));
  // An access running from one window into the next.
  CHECK(b.cpu.write(TX0 + NI_NETBUF_WINDOW_SIZE - 2, {1, 2, 3, 4}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK_THAT(b.nb.last_error(), Contains("not inside one channel window"));
  // Between the TX and RX windows: no channel.
  CHECK(b.cpu.write(NI_NETBUF_TX_WINDOW(2), {1}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  uint8_t be[2] = {0xFF, 0};
  uint8_t d[2] = {0, 0};
  CHECK(b.cpu.access(tlm::TLM_WRITE_COMMAND, TX1, d, 2, nullptr, be, 2) == tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  // None of that moved data.
  CHECK(b.nb.tx_available(0) == 8);
  CHECK(b.nb.rx_available(0) == 8);
  CHECK(b.nb.tx_available(1) == 0);
}

TEST_CASE("netbuf: threshold interrupts follow free space and data", "[model][netbuf]") {
  Bench b;
  std::vector<bool> tx0, rx1;
  b.nb.irq_tx[0].connect([&](bool l) { tx0.push_back(l); });
  b.nb.irq_rx[1].connect([&](bool l) { rx1.push_back(l); });

  // TX: high while free >= threshold.
  REQUIRE(b.cpu.write32(REGS + NETBUF_TX_THRESHOLD(0), 1024) == tlm::TLM_OK_RESPONSE);
  CHECK(b.reg(NETBUF_TX_THRESHOLD(0)) == 1024);
  CHECK(b.nb.irq_tx[0].level());  // 2048 free
  REQUIRE(b.cpu.write(TX0, std::vector<uint8_t>(1024, 0)) == tlm::TLM_OK_RESPONSE);
  CHECK(b.nb.irq_tx[0].level());  // exactly 1024 free
  REQUIRE(b.cpu.write(TX0, {0}) == tlm::TLM_OK_RESPONSE);
  CHECK_FALSE(b.nb.irq_tx[0].level());
  CHECK(b.reg(NETBUF_IRQ_LEVELS) == 0);
  uint8_t x;
  b.nb.tx_pop(0, &x, 1);
  CHECK(b.nb.irq_tx[0].level());
  CHECK(b.reg(NETBUF_IRQ_LEVELS) == NETBUF_CH_TX(0));

  // RX: high while available >= threshold.
  REQUIRE(b.cpu.write32(REGS + NETBUF_RX_THRESHOLD(1), 32) == tlm::TLM_OK_RESPONSE);
  CHECK_FALSE(b.nb.irq_rx[1].level());
  b.nb.rx_push(1, std::vector<uint8_t>(31, 0).data(), 31);
  CHECK_FALSE(b.nb.irq_rx[1].level());
  b.nb.rx_push(1, &x, 1);
  CHECK(b.nb.irq_rx[1].level());
  CHECK(b.reg(NETBUF_IRQ_LEVELS) == (NETBUF_CH_TX(0) | NETBUF_CH_RX(1)));
  std::vector<uint8_t> r(2);
  REQUIRE(b.cpu.read(RX1, r) == tlm::TLM_OK_RESPONSE);
  CHECK_FALSE(b.nb.irq_rx[1].level());

  // Threshold 0 switches the output off.
  REQUIRE(b.cpu.write32(REGS + NETBUF_TX_THRESHOLD(0), 0) == tlm::TLM_OK_RESPONSE);
  CHECK_FALSE(b.nb.irq_tx[0].level());
  // A threshold above the capacity never fires.
  REQUIRE(b.cpu.write32(REGS + NETBUF_TX_THRESHOLD(1), 4096) == tlm::TLM_OK_RESPONSE);
  CHECK_FALSE(b.nb.irq_tx[1].level());
  // Other outputs never moved.
  CHECK_FALSE(b.nb.irq_rx[0].level());

  CHECK(tx0 == std::vector<bool>{true, false, true, false});
  CHECK(rx1 == std::vector<bool>{true, false});
}

TEST_CASE("netbuf: FLUSH empties the channels named, counters stay", "[model][netbuf]") {
  Bench b;
  REQUIRE(b.cpu.write(TX0, std::vector<uint8_t>(100, 1)) == tlm::TLM_OK_RESPONSE);
  REQUIRE(b.cpu.write(TX1, std::vector<uint8_t>(200, 2)) == tlm::TLM_OK_RESPONSE);
  b.nb.rx_push(1, std::vector<uint8_t>(300, 3).data(), 300);
  REQUIRE(b.cpu.write32(REGS + NETBUF_FLUSH, NETBUF_CH_TX(0) | NETBUF_CH_RX(1)) == tlm::TLM_OK_RESPONSE);
  CHECK(b.reg(NETBUF_TX_USED(0)) == 0);
  CHECK(b.reg(NETBUF_TX_USED(1)) == 200);
  CHECK(b.reg(NETBUF_RX_AVAIL(1)) == 0);
  CHECK(b.reg(NETBUF_TX_BYTES_IN(0)) == 100);
  CHECK(b.reg(NETBUF_TX_BYTES_OUT(0)) == 0);
  CHECK(b.reg(NETBUF_RX_BYTES_IN(1)) == 300);
  // The channel works normally afterwards.
  REQUIRE(b.cpu.write(TX0, {9, 8, 7}) == tlm::TLM_OK_RESPONSE);
  uint8_t out[3];
  b.nb.tx_pop(0, out, 3);
  CHECK(out[0] == 9);
  CHECK(out[2] == 7);
  std::vector<uint8_t> r(4);
  CHECK(b.cpu.read(REGS + NETBUF_FLUSH, r) == tlm::TLM_GENERIC_ERROR_RESPONSE);  // write-only
}

TEST_CASE("netbuf: window accesses cost the FIFO memory's access time", "[model][netbuf]") {
  Bench b;
  const sc_time bus(20, SC_NS);  // the router's default latency
  sc_time d;
  // Defaults: 100 MHz, 16 bytes per clock, 1 cycle per access.
  REQUIRE(b.cpu.write(TX0, std::vector<uint8_t>(256, 0), &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == bus + sc_time(170, SC_NS));  // (1 + 16) x 10 ns
  REQUIRE(b.cpu.write(TX0, {1}, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == bus + sc_time(20, SC_NS));  // (1 + 1) x 10 ns
  std::vector<uint8_t> r(17);
  b.nb.rx_push(0, std::vector<uint8_t>(17, 0).data(), 17);
  REQUIRE(b.cpu.read(RX0, r, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == bus + sc_time(30, SC_NS));  // (1 + 2) x 10 ns
  CHECK(b.nb.access_time(64) == sc_time(50, SC_NS));
  // Register accesses cost access_ns (0 by default).
  REQUIRE(b.cpu.read(REGS + NETBUF_TX_FREE(0), r = std::vector<uint8_t>(4), &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == bus);
}

TEST_CASE("netbuf: access time follows clock, width and access cycles", "[model][netbuf]") {
  auto& reg = m2::ParamRegistry::instance();
  reg.preset("nb.clock_mhz", "50", {"test"});
  reg.preset("nb.width_bytes", "4", {"test"});
  reg.preset("nb.access_cycles", "1", {"test"});
  reg.preset("nb.access_ns", "7", {"test"});
  Bench b;
  CHECK(b.nb.access_time(256) == sc_time(20 * 65, SC_NS));
  CHECK(b.nb.access_time(5) == sc_time(20 * 3, SC_NS));
  sc_time d;
  std::vector<uint8_t> r(4);
  REQUIRE(b.cpu.read(REGS + NETBUF_TX_FREE(0), r, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_time(27, SC_NS));
}

TEST_CASE("netbuf: sizes are parameters, a bad combination is a configuration error", "[model][netbuf]") {
  auto& reg = m2::ParamRegistry::instance();
  SECTION("smaller channels") {
    reg.preset("nb.channel_bytes", "512", {"test"});
    m2::NetBuf nb("nb");
    CHECK(nb.capacity() == 512);
    CHECK(nb.tx_free(1) == 512);
    CHECK(nb.rx_free(0) == 512);
  }
  SECTION("channels larger than the memory") {
    reg.preset("nb.channel_bytes", "4096", {"test"});
    try {
      m2::NetBuf nb("nb");
      FAIL("no ConfigError");
    } catch (const m2::ConfigError& e) {
      CHECK_THAT(e.what(), Contains("nb") && Contains("channel_bytes = 4096") && Contains("16384") &&
                               Contains("total_bytes = 8192"));
    }
  }
  SECTION("a bigger memory makes them fit") {
    reg.preset("nb.channel_bytes", "4096", {"test"});
    reg.preset("nb.total_bytes", "16384", {"test"});
    m2::NetBuf nb("nb");
    CHECK(nb.capacity() == 4096);
  }
}

TEST_CASE("netbuf: C++ API misuse is a model bug and throws", "[model][netbuf]") {
  Bench b;
  uint8_t buf[4096] = {};
  CHECK_THROWS_AS(b.nb.tx_pop(0, buf, 1), std::logic_error);
  b.nb.rx_push(1, buf, 2048);
  CHECK_THROWS_AS(b.nb.rx_push(1, buf, 1), std::logic_error);
  CHECK(b.nb.rx_available(1) == 2048);  // unchanged by the failed push
  CHECK_THROWS_AS(b.nb.tx_free(2), std::out_of_range);
  CHECK_THROWS_AS(b.nb.rx_push(2, buf, 1), std::out_of_range);
}

TEST_CASE("netbuf: debug reads peek at a channel without popping", "[model][netbuf]") {
  Bench b;
  const std::vector<uint8_t> d{5, 6, 7, 8, 9};
  b.nb.rx_push(1, d.data(), 5);
  uint8_t r[8] = {};
  CHECK(b.cpu.dbg(tlm::TLM_READ_COMMAND, RX1 + 0x40, r, 8) == 5);
  CHECK(std::vector<uint8_t>(r, r + 5) == d);
  CHECK(b.nb.rx_available(1) == 5);
  CHECK(b.cpu.dbg(tlm::TLM_WRITE_COMMAND, TX0, r, 4) == 0);
  CHECK(b.nb.tx_available(0) == 0);
}

TEST_CASE("netbuf: rx_peek reads at an offset without popping, across the wrap", "[model][netbuf]") {
  Bench b;
  std::vector<uint8_t> d(2048);
  for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<uint8_t>(i * 3);
  b.nb.rx_push(0, d.data(), 2000);
  uint8_t junk[2000];
  b.nb.rx_pop(0, junk, 1990);  // the ring's head is now near its end
  b.nb.rx_push(0, d.data(), 100);
  uint8_t r[8] = {};
  b.nb.rx_peek(0, 10, r, 8);  // bytes 0..7 of the second push, past the wrap
  CHECK(std::vector<uint8_t>(r, r + 8) == std::vector<uint8_t>(d.begin(), d.begin() + 8));
  b.nb.rx_peek(0, 6, r, 8);  // straddles the two pushes
  CHECK(std::vector<uint8_t>(r, r + 4) == std::vector<uint8_t>(d.begin() + 1996, d.begin() + 2000));
  CHECK(b.nb.rx_available(0) == 110);
  CHECK(b.nb.rx_bytes_out(0) == 1990);
  CHECK_THROWS_AS(b.nb.rx_peek(0, 105, r, 8), std::logic_error);
}

TEST_CASE("netbuf: events tell a waiting link side about data and space", "[model][netbuf]") {
  Bench b(false);
  std::vector<uint8_t> got;
  sc_time data_seen, space_seen;
  // A link stub: waits for TX data, takes it 100 ns later.
  m2test::TestThread link("link", [&] {
    while (b.nb.tx_available(1) < 4) sc_core::wait(b.nb.tx_data_event(1));
    data_seen = sc_core::sc_time_stamp();
    sc_core::wait(100, SC_NS);
    got.resize(4);
    b.nb.tx_pop(1, got.data(), 4);
  });
  // The host side: fills TX1 at 50 ns, then waits for the space to come back.
  m2test::TestThread host("host", [&] {
    sc_core::wait(50, SC_NS);
    CHECK(b.cpu.write(TX1, std::vector<uint8_t>(2048, 0x5A)) == tlm::TLM_OK_RESPONSE);
    while (b.nb.tx_free(1) == 0) sc_core::wait(b.nb.tx_space_event(1));
    space_seen = sc_core::sc_time_stamp();
  });
  sc_core::sc_start();
  CHECK(link.finished);
  CHECK(host.finished);
  CHECK(data_seen == sc_time(50, SC_NS));
  CHECK(space_seen == sc_time(150, SC_NS));
  CHECK(got == std::vector<uint8_t>(4, 0x5A));
}

TEST_CASE("netbuf: loopback moves TX data into the same RX channel at the link rate", "[model][netbuf]") {
  m2::ParamRegistry::instance().preset("nb.loopback", "true", {"test"});
  Bench b(false);
  std::mt19937 rng(11);
  const auto a = random_bytes(rng, 3000), c = random_bytes(rng, 100);
  std::vector<uint8_t> got0, got1;
  m2test::TestThread host("host", [&] {
    // 3000 bytes into TX0 (more than a channel), 100 into TX1.
    REQUIRE(b.cpu.write(TX0, std::vector<uint8_t>(a.begin(), a.begin() + 2048)) == tlm::TLM_OK_RESPONSE);
    REQUIRE(b.cpu.write(TX1, c) == tlm::TLM_OK_RESPONSE);
    // 400 MB/s: 2.5 ns a byte, 32-byte packets, the channels taking turns.
    sc_core::wait(2148 * 2.5 + 1, SC_NS);
    CHECK(b.nb.rx_available(0) == 2048);
    CHECK(b.nb.rx_available(1) == 100);
    CHECK(b.nb.tx_available(0) == 0);
    // RX0 is full: the rest waits in TX0 until the host reads.
    REQUIRE(b.cpu.write(TX0, std::vector<uint8_t>(a.begin() + 2048, a.end())) == tlm::TLM_OK_RESPONSE);
    sc_core::wait(1000, SC_NS);
    CHECK(b.nb.tx_available(0) == 952);
    CHECK(b.nb.rx_available(0) == 2048);
    std::vector<uint8_t> r(2048);
    REQUIRE(b.cpu.read(RX0, r) == tlm::TLM_OK_RESPONSE);
    got0 = r;
    r.resize(100);
    REQUIRE(b.cpu.read(RX1, r) == tlm::TLM_OK_RESPONSE);
    got1 = r;
    sc_core::wait(952 * 2.5 + 1, SC_NS);
    r.resize(952);
    REQUIRE(b.cpu.read(RX0, r) == tlm::TLM_OK_RESPONSE);
    got0.insert(got0.end(), r.begin(), r.end());
  });
  sc_core::sc_start();
  CHECK(host.finished);
  CHECK(got0 == a);
  CHECK(got1 == c);
  CHECK(b.nb.tx_bytes_out(0) == 3000);
  CHECK(b.nb.rx_bytes_in(0) == 3000);
}

TEST_CASE("netbuf: loopback at rate 0 moves data at once", "[model][netbuf]") {
  m2::ParamRegistry::instance().preset("nb.loopback", "on", {"test"});
  m2::ParamRegistry::instance().preset("nb.loopback_mbyte_per_s", "0", {"test"});
  Bench b(false);
  m2test::TestThread host("host", [&] {
    REQUIRE(b.cpu.write(TX1, {1, 2, 3}) == tlm::TLM_OK_RESPONSE);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    CHECK(b.nb.rx_available(1) == 3);
    CHECK(sc_core::sc_time_stamp() == sc_core::SC_ZERO_TIME);
  });
  sc_core::sc_start();
  CHECK(host.finished);
}

TEST_CASE("netbuf: without loopback TX data stays put", "[model][netbuf]") {
  Bench b(false);
  m2test::TestThread host("host", [&] {
    REQUIRE(b.cpu.write(TX0, {1, 2, 3}) == tlm::TLM_OK_RESPONSE);
    sc_core::wait(10, sc_core::SC_US);
    CHECK(b.nb.rx_available(0) == 0);
    CHECK(b.nb.tx_available(0) == 3);
  });
  sc_core::sc_start();
  CHECK(host.finished);
}
