// Switch-box register contract (ip/sb_regs.h) without firmware: a test
// initiator on the manager's bus plays the firmware. Header buffer contents
// and pop, request checks and refusals, the interrupt line, counters; the
// routing-table image in SDRAM; parameters, variants and configuration
// errors.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include <ip/mlx.h>
#include <ip/sb_memory_map.h>
#include <ip/sb_regs.h>
#include <ip/sb_routes.h>

#include "core/params.h"
#include "core/run_control.h"
#include "switchbox/route_table.h"
#include "switchbox/switch_box.h"

#include "log_capture.h"
#include "test_initiator.h"

using Catch::Matchers::Contains;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

namespace {

std::vector<uint8_t> message(uint16_t dst, uint16_t src, uint8_t type, unsigned len) {
  std::vector<uint8_t> b(MLX_HEADER_BYTES + len);
  const uint32_t w0 = MLX_HDR_WORD0(dst, src), w1 = MLX_HDR_WORD1(type, len);
  for (unsigned i = 0; i < 4; ++i) {
    b[i] = static_cast<uint8_t>(w0 >> (24 - 8 * i));
    b[4 + i] = static_cast<uint8_t>(w1 >> (24 - 8 * i));
  }
  for (unsigned i = 0; i < len; ++i) b[8 + i] = static_cast<uint8_t>(i * 7 + 1);
  return b;
}

constexpr uint64_t R = SB_SWITCH_BASE;

}  // namespace

TEST_CASE("sb registers: header buffer, requests, refusals, interrupt and counters", "[model][sb]") {
  auto& reg = m2::ParamRegistry::instance();
  reg.clear();
  reg.preset("sb0.firmware", "", {"test"});
  reg.preset("sb0.header_buffer_depth", "2", {"test"});
  reg.preset("sb0.request_buffer_depth", "1", {"test"});
  reg.preset("sb0.stations", "1", {"test"});
  m2::RunControl run;
  m2::SwitchBox sb("sb0", run, m2::TimingStyle::LT, "");
  m2test::ThreadInitiator fw("fw");
  fw.socket.bind(sb.bus.target);
  std::vector<bool> irq_levels;
  m2test::LogCapture log("sb_registers");
  fw.body = [&](m2test::ThreadInitiator& cpu) {
    using namespace sc_core;
    CHECK(cpu.read32(R + SB_CONFIG) == (8u | 1u << 8 | SB_CONFIG_OOO));
    CHECK(cpu.read32(R + SB_HDR_DEPTH) == 2);
    CHECK(cpu.read32(R + SB_REQ_DEPTH) == 1);
    CHECK(cpu.read32(R + SB_HDR_COUNT) == 0);
    CHECK(cpu.read32(R + SB_HDR_SOURCE) == 0);
    CHECK(cpu.read32(R + SB_IRQ_STATUS) == SB_IRQ_REQ_SPACE);
    CHECK(!sb.registers().irq.level());
    // Three messages on port 5 channel 1; the header buffer holds two.
    const auto m1 = message(0x102, 0x105, MLX_TYPE_UNICAST, 40);
    const auto m2 = message(0x103, 0x105, MLX_TYPE_UNICAST, 0);
    const auto m3 = message(0x777, 0x105, MLX_TYPE_UNICAST, 3);
    std::vector<uint8_t> all(m1);
    all.insert(all.end(), m2.begin(), m2.end());
    all.insert(all.end(), m3.begin(), m3.end());
    sb.port_buffer(5).rx_push(1, all.data(), static_cast<unsigned>(all.size()));
    wait(1, SC_US);
    CHECK(cpu.read32(R + SB_HDR_COUNT) == 2);
    CHECK(cpu.read32(R + SB_HDR_SOURCE) == (SB_SOURCE_VALID | SB_SOURCE(5, 1)));
    CHECK(cpu.read32(R + SB_HDR_WORD0) == MLX_HDR_WORD0(0x102, 0x105));
    CHECK(cpu.read32(R + SB_HDR_WORD1) == MLX_HDR_WORD1(MLX_TYPE_UNICAST, 40));
    CHECK(cpu.read32(R + SB_CNT_HEADERS) == 2);
    CHECK(cpu.read32(R + SB_IRQ_STATUS) == (SB_IRQ_HEADER | SB_IRQ_REQ_SPACE));
    // The interrupt follows STATUS & ENABLE.
    cpu.write32(R + SB_IRQ_ENABLE, SB_IRQ_HEADER);
    CHECK(sb.registers().irq.level());
    cpu.write32(R + SB_IRQ_ENABLE, 0);
    CHECK(!sb.registers().irq.level());
    CHECK(cpu.write32(R + SB_HDR_POP, 1) == tlm::TLM_OK_RESPONSE);
    wait(1, SC_US);  // the analyzer puts the third header in
    CHECK(cpu.read32(R + SB_HDR_COUNT) == 2);
    CHECK(cpu.read32(R + SB_HDR_WORD0) == MLX_HDR_WORD0(0x103, 0x105));

    // Refusals: wrong size, no message waiting, bad mask, empty mask.
    auto push = [&](uint32_t source, uint32_t dest, uint32_t bytes, uint32_t flags) {
      cpu.write32(R + SB_REQ_SOURCE, source);
      cpu.write32(R + SB_REQ_DEST, dest);
      cpu.write32(R + SB_REQ_BYTES, bytes);
      return cpu.write32(R + SB_REQ_PUSH, flags);
    };
    CHECK(push(SB_SOURCE(5, 1), 1u << 2, 47, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK_THAT(sb.registers().last_error(), Contains("REQ_BYTES 47 but the next message on port 5 ch 1 has 48 bytes"));
    CHECK(push(SB_SOURCE(4, 1), 1u << 2, 48, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK_THAT(sb.registers().last_error(), Contains("no analyzed message waiting on port 4 ch 1"));
    CHECK(push(SB_SOURCE(5, 1), 1u << 8, 48, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK_THAT(sb.registers().last_error(), Contains("names ports beyond 7"));
    CHECK(push(SB_SOURCE(5, 1), 0, 48, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK_THAT(sb.registers().last_error(), Contains("empty destination mask"));
    CHECK(push(SB_SOURCE(9, 0), 1, 48, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK_THAT(sb.registers().last_error(), Contains("source port 9 out of range (8 ports)"));
    CHECK(cpu.read32(R + SB_CNT_REFUSED) == 5);
    CHECK(cpu.read32(R + SB_CNT_REQUESTS) == 0);
    // The first message to port 2, the second to ports 3 and 6; the third
    // discarded. With one station and a one-entry request buffer the third
    // push finds the buffer full until the fetch unit takes the second.
    CHECK(push(SB_SOURCE(5, 1), 1u << 2, 48, 0) == tlm::TLM_OK_RESPONSE);
    CHECK(cpu.read32(R + SB_REQ_FREE) == 0);
    CHECK(push(SB_SOURCE(5, 1), 1u << 3 | 1u << 6, 8, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK_THAT(sb.registers().last_error(), Contains("request buffer full (1 entries)"));
    wait(1, SC_US);
    CHECK(cpu.read32(R + SB_REQ_FREE) == 1);
    CHECK(push(SB_SOURCE(5, 1), 1u << 3 | 1u << 6, 8, 0) == tlm::TLM_OK_RESPONSE);
    wait(1, SC_US);
    CHECK(push(SB_SOURCE(5, 1), 0, 11, SB_REQ_FLAG_DISCARD) == tlm::TLM_OK_RESPONSE);
    wait(2, SC_US);
    CHECK(cpu.read32(R + SB_CNT_REQUESTS) == 3);
    CHECK(cpu.read32(R + SB_CNT_MESSAGES) == 2);
    CHECK(cpu.read32(R + SB_CNT_DISCARDS) == 1);
    CHECK(cpu.read32(R + SB_CNT_BYTES) == 48 + 8 + 11);
    CHECK(sb.port_buffer(5).rx_available(1) == 0);
    std::vector<uint8_t> got(48);
    REQUIRE(sb.port_buffer(2).tx_available(1) == 48);
    sb.port_buffer(2).tx_pop(1, got.data(), 48);
    CHECK(got == m1);
    for (unsigned p : {3u, 6u}) {
      std::vector<uint8_t> g(8);
      REQUIRE(sb.port_buffer(p).tx_available(1) == 8);
      sb.port_buffer(p).tx_pop(1, g.data(), 8);
      CHECK(g == m2);
    }
    // A read-only register refuses writes (register bank).
    CHECK(cpu.write32(R + SB_HDR_COUNT, 1) != tlm::TLM_OK_RESPONSE);
    sc_stop();
  };
  sc_core::sc_start(sc_time(1, sc_core::SC_MS));
  CHECK_THAT(log.text(), Contains("warning: sb0.regs: switching request refused: request buffer full"));
}

// SRC_QUEUED names the source channels with a request in the request buffer,
// SRC_BUSY those with one there or in a station: the routing firmware reserves
// buffer entries by SRC_QUEUED (a channel whose request went into a station
// needs an entry for its next message; the 64-node chain deadlocked when it
// was counted as holding one).
TEST_CASE("sb registers: SRC_QUEUED names the buffer's source channels, SRC_BUSY the stations' too", "[model][sb]") {
  auto& reg = m2::ParamRegistry::instance();
  reg.clear();
  reg.preset("sb0.firmware", "", {"test"});
  reg.preset("sb0.stations", "1", {"test"});
  m2::RunControl run;
  m2::SwitchBox sb("sb0", run, m2::TimingStyle::LT, "");
  m2test::ThreadInitiator fw("fw");
  fw.socket.bind(sb.bus.target);
  fw.body = [&](m2test::ThreadInitiator& cpu) {
    using namespace sc_core;
    auto push = [&](uint32_t source, uint32_t dest, uint32_t bytes) {
      cpu.write32(R + SB_REQ_SOURCE, source);
      cpu.write32(R + SB_REQ_DEST, dest);
      cpu.write32(R + SB_REQ_BYTES, bytes);
      return cpu.write32(R + SB_REQ_PUSH, 0);
    };
    // Port 2's TX channel 1 is full, so the first message to it stays in the
    // station; the second message of the same source channel waits behind it
    // in the buffer.
    const std::vector<uint8_t> filler(sb.port_buffer(2).capacity(), 0);
    sb.port_buffer(2).tx_push(1, filler.data(), static_cast<unsigned>(filler.size()));
    const auto m1 = message(0x102, 0x105, MLX_TYPE_UNICAST, 40);
    const auto m2 = message(0x103, 0x105, MLX_TYPE_UNICAST, 24);
    std::vector<uint8_t> both(m1);
    both.insert(both.end(), m2.begin(), m2.end());
    sb.port_buffer(5).rx_push(1, both.data(), static_cast<unsigned>(both.size()));
    wait(1, SC_US);
    CHECK(cpu.read32(R + SB_SRC_QUEUED) == 0);
    CHECK(cpu.read32(R + SB_SRC_BUSY) == 0);
    cpu.write32(R + SB_HDR_POP, 1);
    REQUIRE(push(SB_SOURCE(5, 1), 1u << 2, 48) == tlm::TLM_OK_RESPONSE);
    CHECK(cpu.read32(R + SB_SRC_QUEUED) == SB_SRC_BIT(5, 1));  // in the buffer until fetched
    wait(1, SC_US);
    CHECK(cpu.read32(R + SB_REQ_FREE) == 16);  // fetched into the station, stalled on room
    CHECK(cpu.read32(R + SB_SRC_QUEUED) == 0);
    CHECK(cpu.read32(R + SB_SRC_BUSY) == SB_SRC_BIT(5, 1));
    cpu.write32(R + SB_HDR_POP, 1);
    REQUIRE(push(SB_SOURCE(5, 1), 1u << 3, 32) == tlm::TLM_OK_RESPONSE);
    wait(1, SC_US);
    CHECK(cpu.read32(R + SB_REQ_FREE) == 15);  // behind its source channel's first request
    CHECK(cpu.read32(R + SB_SRC_QUEUED) == SB_SRC_BIT(5, 1));
    CHECK(cpu.read32(R + SB_SRC_BUSY) == SB_SRC_BIT(5, 1));
    // Room at port 2: both messages go through, the channel holds no request.
    std::vector<uint8_t> drained(filler.size());
    sb.port_buffer(2).tx_pop(1, drained.data(), static_cast<unsigned>(drained.size()));
    wait(2, SC_US);
    CHECK(cpu.read32(R + SB_CNT_MESSAGES) == 2);
    CHECK(cpu.read32(R + SB_SRC_QUEUED) == 0);
    CHECK(cpu.read32(R + SB_SRC_BUSY) == 0);
    sc_stop();
  };
  sc_core::sc_start(sc_time(1, sc_core::SC_MS));
}

TEST_CASE("sb registers: routing tables land in SDRAM in the ip/sb_routes.h layout", "[model][sb]") {
  auto& reg = m2::ParamRegistry::instance();
  reg.clear();
  reg.preset("sb0.firmware", "", {"test"});
  m2::RunControl run;
  m2::SwitchBox sb("sb0", run, m2::TimingStyle::LT, "");
  m2test::TestInitiator dbg("dbg");
  dbg.socket.bind(sb.bus.target);
  m2::SbRoutes r;
  r.unicast[0x0105] = 5;
  r.unicast[0xFFFE] = 0;
  r.broadcast = {0x02, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  r.multicast[0x42] = std::vector<uint32_t>(8, 0x52);
  r.multicast[0x07] = {0, 0x80, 0, 0, 0, 0, 0, 0};
  sb.set_routes(r);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  auto word = [&](uint32_t off) {
    std::vector<uint8_t> b(4);
    dbg.dbg(tlm::TLM_READ_COMMAND, SB_ROUTES_BASE + off, b.data(), 4);
    return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3];
  };
  auto byte = [&](uint32_t off) {
    uint8_t b = 0xEE;
    dbg.dbg(tlm::TLM_READ_COMMAND, SB_ROUTES_BASE + off, &b, 1);
    return b;
  };
  CHECK(word(SB_ROUTES_MAGIC_OFF) == SB_ROUTES_MAGIC);
  CHECK(word(SB_ROUTES_VERSION_OFF) == SB_ROUTES_VERSION);
  CHECK(word(SB_ROUTES_PORTS_OFF) == 8);
  CHECK(word(SB_ROUTES_GROUPS_OFF) == 2);
  CHECK(word(SB_ROUTES_BCAST_OFF(0)) == 0x02);
  CHECK(word(SB_ROUTES_BCAST_OFF(1)) == 0x01);
  CHECK(word(SB_ROUTES_BCAST_OFF(2)) == 0x00);
  // Groups in ascending id order.
  CHECK(word(SB_ROUTES_MCAST_OFF(0) + SB_ROUTES_MCAST_GROUP) == 0x07);
  CHECK(word(SB_ROUTES_MCAST_OFF(0) + SB_ROUTES_MCAST_MASK(1)) == 0x80);
  CHECK(word(SB_ROUTES_MCAST_OFF(1) + SB_ROUTES_MCAST_GROUP) == 0x42);
  CHECK(word(SB_ROUTES_MCAST_OFF(1) + SB_ROUTES_MCAST_MASK(7)) == 0x52);
  CHECK(byte(SB_ROUTES_UNICAST_OFF(0x0105)) == 6);
  CHECK(byte(SB_ROUTES_UNICAST_OFF(0xFFFE)) == 1);
  CHECK(byte(SB_ROUTES_UNICAST_OFF(0x0104)) == 0);
  // Rewritten at once while running.
  r.unicast.erase(0x0105);
  sb.set_routes(r);
  CHECK(byte(SB_ROUTES_UNICAST_OFF(0x0105)) == 0);
  CHECK(sb.routes().unicast.size() == 1);
}

TEST_CASE("sb registers: default routes broadcast to every other port", "[model][sb]") {
  const std::vector<uint8_t> img = m2::encode_routes({}, 4, "sb0");
  REQUIRE(img.size() == SB_ROUTES_SIZE);
  auto word = [&](uint32_t off) {
    return uint32_t(img[off]) << 24 | uint32_t(img[off + 1]) << 16 | uint32_t(img[off + 2]) << 8 | img[off + 3];
  };
  CHECK(word(SB_ROUTES_BCAST_OFF(0)) == 0xE);
  CHECK(word(SB_ROUTES_BCAST_OFF(3)) == 0x7);
  CHECK(word(SB_ROUTES_GROUPS_OFF) == 0);
}

TEST_CASE("sb registers: bad routes are configuration errors naming the entry", "[model][sb]") {
  m2::SbRoutes r;
  r.unicast[0x101] = 8;
  CHECK_THROWS_WITH(m2::encode_routes(r, 8, "sb0"), Contains("sb0: unicast route to node 0x101 names port 8"));
  r.unicast.clear();
  r.broadcast = {1, 2, 3};
  CHECK_THROWS_WITH(m2::encode_routes(r, 8, "sb0"), Contains("broadcast routes: 3 masks given"));
  r.broadcast.clear();
  r.multicast[9] = std::vector<uint32_t>(4, 0x10);
  CHECK_THROWS_WITH(m2::encode_routes(r, 4, "sb0"),
                    Contains("multicast group 9: mask 0x10 for input port 0 names ports beyond 3"));
  r.multicast.clear();
  for (unsigned g = 0; g <= SB_ROUTES_MAX_GROUPS; ++g) r.multicast[g] = std::vector<uint32_t>(4, 1);
  CHECK_THROWS_WITH(m2::encode_routes(r, 4, "sb0"), Contains("129 multicast groups, at most 128"));
}

TEST_CASE("sb registers: variants set the parameters, explicit keys win, bad values are errors", "[model][sb]") {
  auto& reg = m2::ParamRegistry::instance();
  m2::RunControl run;
  SECTION("maestro2 by default") {
    reg.clear();
    reg.preset("a.firmware", "", {"test"});
    m2::SwitchBox sb("a", run, m2::TimingStyle::LT, "");
    CHECK(sb.port_count() == 8);
    CHECK(sb.stations.get() == 8);
    CHECK(sb.mode.get() == "out-of-order");
    CHECK(sb.bus_width_bits.get() == 128);
    CHECK(sb.bus_clock_mhz.get() == 100.0);
    CHECK(sb.sdram.size() == 32u << 20);
    CHECK(std::string(sb.port_buffer(3).name()) == "a.port3.buffer");
    CHECK(sb.controller().stations() == 8);
    CHECK(sb.controller().mode() == m2::SwitchController::Mode::OutOfOrder);
  }
  SECTION("the routing firmware is found by name next to the executable") {
    reg.clear();
    m2::SwitchBox sb("h", run, m2::TimingStyle::LT, "");
    CHECK(sb.firmware.get() == "sb_router");
    REQUIRE(sb.cpu.firmware() != nullptr);
    CHECK_THAT(sb.cpu.firmware()->path(), Contains("sb_router.elf"));
    CHECK(run.participants().empty());  // never exits: not a run participant
  }
  SECTION("maestro1, with an explicit clock") {
    reg.clear();
    reg.preset("b.firmware", "", {"test"});
    reg.preset("b.variant", "maestro1", {"test"});
    reg.preset("b.bus_clock_mhz", "66", {"test"});
    m2::SwitchBox sb("b", run, m2::TimingStyle::LT, "");
    CHECK(sb.port_count() == 4);
    CHECK(sb.stations.get() == 1);
    CHECK(sb.mode.get() == "in-order");
    CHECK(sb.bus_width_bits.get() == 32);
    CHECK(sb.bus_clock_mhz.get() == 66.0);
    CHECK(sb.controller().mode() == m2::SwitchController::Mode::InOrder);
  }
  SECTION("errors") {
    reg.clear();
    reg.preset("c.firmware", "", {"test"});
    reg.preset("c.stations", "3", {"test"});
    CHECK_THROWS_WITH(m2::SwitchBox("c", run, m2::TimingStyle::LT, ""), Contains("c.stations': expected 1, 2, 4 or 8"));
    reg.clear();
    reg.preset("d.firmware", "", {"test"});
    reg.preset("d.burst_bytes", "100", {"test"});
    CHECK_THROWS_WITH(m2::SwitchBox("d", run, m2::TimingStyle::LT, ""), Contains("expected a multiple of 32"));
    reg.clear();
    reg.preset("e.variant", "maestro3", {"test"});
    CHECK_THROWS_WITH(m2::SwitchBox("e", run, m2::TimingStyle::LT, ""), Contains("maestro2") && Contains("ooo4"));
    reg.clear();
    reg.preset("g.firmware", "", {"test"});
    reg.preset("g.port2.buffer.channel_bytes", "16", {"test"});
    CHECK_THROWS_WITH(m2::SwitchBox("g", run, m2::TimingStyle::LT, ""), Contains("must hold a packet (32 bytes)"));
    reg.clear();
    reg.preset("f.firmware", "no_such_firmware", {"test"});
    CHECK_THROWS_WITH(m2::SwitchBox("f", run, m2::TimingStyle::LT, ""), Contains("key 'f.firmware'"));
  }
}
