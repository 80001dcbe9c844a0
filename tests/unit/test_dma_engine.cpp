// Unit tests for the DMA engine (models/ni/dma_engine.*): transfers of odd
// sizes and alignments in every direction checked byte for byte, the shape of
// host-side transactions (lines, 4 KB pages), the cost formula, the descriptor
// queue, DONE_COUNT and the done interrupt, netbuf flow control, and the
// error path.
//
// The bench is an NI bus (Router) with SDRAM (Memory), the network buffer and
// the DMA engine at their real addresses; a recording probe in the host
// window, backed by a Memory, stands in for the PCI interface, the PCI bus
// and host memory. A link stub drains the TX channels and feeds the RX
// channels through the netbuf's C++ API. The test body runs in a TestThread
// and programs the engine through its registers, as firmware would.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <ip/ni_dma.h>
#include <ip/ni_memory_map.h>
#include <ip/ni_netbuf.h>

#include "core/log.h"
#include "core/memory.h"
#include "core/params.h"
#include "core/router.h"
#include "ni/dma_engine.h"
#include "ni/netbuf.h"

#include "log_capture.h"
#include "test_initiator.h"
#include "test_thread.h"

using Catch::Matchers::Contains;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

constexpr uint64_t kSdramSize = 1 << 20, kHostSize = 1 << 20;
constexpr uint64_t HOST = NI_HOST_WINDOW_BASE;

// Records every transaction into the host window, then forwards it.
struct Probe : sc_core::sc_module {
  struct Rec {
    bool write;
    uint64_t addr;  // PCI address (offset in the window)
    unsigned len;
  };
  tlm_utils::simple_target_socket<Probe> target{"target"};
  tlm_utils::simple_initiator_socket<Probe> init{"init"};
  std::vector<Rec> log;
  explicit Probe(sc_core::sc_module_name n) : sc_module(n) { target.register_b_transport(this, &Probe::b_transport); }
  void b_transport(tlm::tlm_generic_payload& t, sc_time& d) {
    log.push_back({t.is_write(), t.get_address(), t.get_data_length()});
    init->b_transport(t, d);
  }
};

using m2test::LogCapture;

struct Bench {
  m2::Router bus{"bus"};
  m2::Memory sdram{"sdram", kSdramSize};
  m2::Memory host_mem{"host_mem", kHostSize};
  Probe probe{"probe"};
  m2::NetBuf nb{"nb"};
  m2::DmaEngine dma{"dma"};
  m2test::TestInitiator cpu{"cpu"};

  // Link stub state: what left each TX channel, what waits to enter each RX
  // channel, and how long the link takes per chunk (0: at once).
  std::array<std::vector<uint8_t>, 2> tx_got;
  std::array<std::deque<uint8_t>, 2> rx_feed;
  // The link threads' buffers: members, since the threads never return and
  // LeakSanitizer does not scan their coroutine stacks (docs/sanitizers.md).
  std::array<std::vector<uint8_t>, 2> drain_buf, feed_buf;
  sc_core::sc_event feed_event;
  sc_time link_pace = sc_core::SC_ZERO_TIME;
  unsigned link_chunk = 4096;
  std::vector<std::unique_ptr<m2test::TestThread>> link;

  Bench() {
    cpu.socket.bind(bus.target);
    dma.master.bind(bus.target);
    bus.attach(sdram.socket, NI_SDRAM_BASE, kSdramSize, "sdram");
    bus.attach(nb.data, NI_NETBUF_DATA_BASE, NI_NETBUF_DATA_SIZE, "netbuf data");
    bus.attach(nb.regs, NI_NETBUF_BASE, NI_DEVICE_SIZE, "netbuf regs");
    bus.attach(dma.regs, NI_DMA_BASE, NI_DEVICE_SIZE, "dma regs");
    bus.attach(probe.target, HOST, kHostSize, "host window");
    probe.init.bind(host_mem.socket);
    dma.connect_netbuf(&nb);
    for (unsigned c = 0; c < 2; ++c) {
      link.emplace_back(new m2test::TestThread(("drain" + std::to_string(c)).c_str(), [this, c] { drain(c); }));
      link.emplace_back(new m2test::TestThread(("feed" + std::to_string(c)).c_str(), [this, c] { feed(c); }));
    }
  }
  void drain(unsigned c) {
    std::vector<uint8_t>& buf = drain_buf[c];
    buf.resize(4096);
    for (;;) {
      while (nb.tx_available(c) == 0) sc_core::wait(nb.tx_data_event(c));
      if (link_pace != sc_core::SC_ZERO_TIME) sc_core::wait(link_pace);
      const unsigned n = std::min(nb.tx_available(c), link_chunk);
      nb.tx_pop(c, buf.data(), n);
      tx_got[c].insert(tx_got[c].end(), buf.begin(), buf.begin() + n);
    }
  }
  void feed(unsigned c) {
    std::vector<uint8_t>& buf = feed_buf[c];
    for (;;) {
      while (rx_feed[c].empty() || nb.rx_free(c) == 0) sc_core::wait(feed_event | nb.rx_space_event(c));
      if (link_pace != sc_core::SC_ZERO_TIME) sc_core::wait(link_pace);
      const unsigned n = std::min<unsigned>({static_cast<unsigned>(rx_feed[c].size()), nb.rx_free(c), link_chunk});
      buf.assign(rx_feed[c].begin(), rx_feed[c].begin() + n);
      rx_feed[c].erase(rx_feed[c].begin(), rx_feed[c].begin() + n);
      nb.rx_push(c, buf.data(), n);
    }
  }
  void link_send(unsigned c, const std::vector<uint8_t>& d) {
    rx_feed[c].insert(rx_feed[c].end(), d.begin(), d.end());
    feed_event.notify(sc_core::SC_ZERO_TIME);
  }

  void reg_write(uint32_t off, uint32_t v) { REQUIRE(cpu.write32(NI_DMA_BASE + off, v) == tlm::TLM_OK_RESPONSE); }
  uint32_t reg(uint32_t off) { return cpu.read32(NI_DMA_BASE + off); }
  tlm::tlm_response_status start(uint64_t src, uint64_t dst, uint32_t len, uint32_t ctrl = DMA_CTRL_START) {
    reg_write(DMA_SRC, static_cast<uint32_t>(src));
    reg_write(DMA_DST, static_cast<uint32_t>(dst));
    reg_write(DMA_LEN, len);
    return cpu.write32(NI_DMA_BASE + DMA_CTRL, ctrl);
  }
  // Waits until the engine is idle or stopped by an error.
  void wait_idle() {
    while ((dma.status() & DMA_STATUS_BUSY) && !(dma.status() & DMA_STATUS_ERROR)) sc_core::wait(dma.done_event());
  }
  // Runs one descriptor to its end; false on an error.
  bool run(uint64_t src, uint64_t dst, uint32_t len) {
    REQUIRE(start(src, dst, len) == tlm::TLM_OK_RESPONSE);
    wait_idle();
    return !(dma.status() & DMA_STATUS_ERROR);
  }
};

std::vector<uint8_t> random_bytes(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}

// Runs `body` in a thread until the simulation has nothing left to do.
void simulate(std::function<void()> body) {
  m2test::TestThread t("test", std::move(body));
  sc_core::sc_start();
  CHECK(t.finished);
}

// ---------------------------------------------------------------- the matrix

enum class End { Host, Sdram, NetTx, NetRx };

const char* to_string(End e) {
  switch (e) {
    case End::Host:
      return "host";
    case End::Sdram:
      return "sdram";
    case End::NetTx:
      return "netbuf TX";
    case End::NetRx:
      return "netbuf RX";
  }
  return "?";
}

// Every host transaction of one transfer [addr, addr + len): in order,
// contiguous, never across a 4 KB page, whole 32-byte lines or a partial
// piece inside one line.
void check_host_shape(const std::vector<Probe::Rec>& log, size_t first, uint64_t addr, uint64_t len, bool write) {
  uint64_t at = addr;
  for (size_t i = first; i < log.size(); ++i) {
    const Probe::Rec& r = log[i];
    INFO("host transaction " << i - first << " at 0x" << std::hex << r.addr << std::dec << " len " << r.len);
    CHECK(r.write == write);
    CHECK(r.addr == at);
    CHECK(r.addr % 4096 + r.len <= 4096);
    const bool whole_lines = r.addr % 32 == 0 && r.len % 32 == 0;
    const bool inside_a_line = r.len < 32 && r.addr % 32 + r.len <= 32;
    CHECK((whole_lines || inside_a_line));
    CHECK(r.len <= 256);
    at += r.len;
  }
  CHECK(at == addr + len);
}

// Moves data of many sizes and alignments from `src` to `dst` and checks
// every byte, the bytes around the destination, and the host transactions.
void transfer_matrix(End src, End dst) {
  m2::ParamRegistry::instance().clear();
  Bench b;
  std::mt19937 rng(1000 + 10 * static_cast<int>(src) + static_cast<int>(dst));
  int transfers = 0;
  simulate([&] {
    for (uint32_t len : {1u, 3u, 31u, 33u, 4095u, 4097u}) {
      for (unsigned placement = 0; placement < 2; ++placement) {
        for (unsigned mis = 0; mis < 32; ++mis) {
          if (len > 33 && mis % 5 != 0 && mis != 31 && mis != 1) continue;  // fewer big ones
          INFO(to_string(src) << " -> " << to_string(dst) << ", " << len << " bytes, misaligned by " << mis
                              << (placement ? ", near a page end" : ""));
          const unsigned ch = transfers % 2;
          // Host buffers start at a page + mis, or 40 bytes before a page
          // end + mis (so most transfers cross it). Source and destination
          // use different pages when both are in the host.
          const uint64_t page = placement ? 0x13000 - 40 : 0x10000;
          const uint64_t host_src = page + mis, host_dst = 0x40000 + (page - 0x10000) + (mis * 7) % 32;
          const uint64_t sdram_src = 0x20000 + (mis * 5) % 64, sdram_dst = 0x60000 + (mis * 3) % 64;
          const auto data = random_bytes(rng, len);

          uint64_t s = 0, d = 0;
          switch (src) {
            case End::Host:
              std::memcpy(b.host_mem.host() + host_src, data.data(), len), s = HOST + host_src;
              break;
            case End::Sdram:
              std::memcpy(b.sdram.host() + sdram_src, data.data(), len), s = sdram_src;
              break;
            case End::NetRx:
              b.link_send(ch, data), s = NI_NETBUF_RX_WINDOW(ch) + 0x10;
              break;
            case End::NetTx:
              FAIL("not a source");
          }
          uint8_t* dp = nullptr;
          switch (dst) {
            case End::Host:
              dp = b.host_mem.host() + host_dst, d = HOST + host_dst;
              break;
            case End::Sdram:
              dp = b.sdram.host() + sdram_dst, d = sdram_dst;
              break;
            case End::NetTx:
              b.tx_got[ch].clear(), d = NI_NETBUF_TX_WINDOW(ch) + 0x20;
              break;
            case End::NetRx:
              FAIL("not a destination");
          }
          if (dp) std::memset(dp - 64, 0xA5, len + 128);

          const size_t first = b.probe.log.size();
          REQUIRE(b.run(s, d, len));
          ++transfers;
          if (dp) {
            CHECK(std::memcmp(dp, data.data(), len) == 0);
            CHECK(std::vector<uint8_t>(dp - 64, dp) == std::vector<uint8_t>(64, 0xA5));
            CHECK(std::vector<uint8_t>(dp + len, dp + len + 64) == std::vector<uint8_t>(64, 0xA5));
          } else {
            sc_core::wait(10, SC_NS);  // the link stub takes the last bytes
            CHECK(b.tx_got[ch] == data);
          }
          // The host side's transactions; with both ends in the host the
          // reads and writes interleave, so split them first.
          if (src == End::Host && dst == End::Host) {
            std::vector<Probe::Rec> reads, writes;
            for (size_t i = first; i < b.probe.log.size(); ++i)
              (b.probe.log[i].write ? writes : reads).push_back(b.probe.log[i]);
            check_host_shape(reads, 0, host_src, len, false);
            check_host_shape(writes, 0, host_dst, len, true);
          } else if (src == End::Host) {
            check_host_shape(b.probe.log, first, host_src, len, false);
          } else if (dst == End::Host) {
            check_host_shape(b.probe.log, first, host_dst, len, true);
          } else {
            CHECK(b.probe.log.size() == first);
          }
          CHECK(b.nb.tx_available(0) + b.nb.tx_available(1) + b.nb.rx_available(0) + b.nb.rx_available(1) == 0);
        }
      }
    }
  });
  CHECK(transfers == 292);
  CHECK(b.dma.done_count() == static_cast<uint32_t>(transfers));
  CHECK(b.dma.stats().errors == 0);
}

}  // namespace

TEST_CASE("dma: host memory -> SDRAM, odd sizes and alignments, byte for byte", "[model][dma]") {
  transfer_matrix(End::Host, End::Sdram);
}
TEST_CASE("dma: SDRAM -> host memory, odd sizes and alignments, byte for byte", "[model][dma]") {
  transfer_matrix(End::Sdram, End::Host);
}
TEST_CASE("dma: host memory -> netbuf TX, odd sizes and alignments, byte for byte", "[model][dma]") {
  transfer_matrix(End::Host, End::NetTx);
}
TEST_CASE("dma: netbuf RX -> host memory, odd sizes and alignments, byte for byte", "[model][dma]") {
  transfer_matrix(End::NetRx, End::Host);
}
TEST_CASE("dma: SDRAM -> netbuf TX, odd sizes and alignments, byte for byte", "[model][dma]") {
  transfer_matrix(End::Sdram, End::NetTx);
}
TEST_CASE("dma: netbuf RX -> SDRAM, odd sizes and alignments, byte for byte", "[model][dma]") {
  transfer_matrix(End::NetRx, End::Sdram);
}
TEST_CASE("dma: host memory -> host memory, byte for byte", "[model][dma]") { transfer_matrix(End::Host, End::Host); }
TEST_CASE("dma: SDRAM -> SDRAM, byte for byte", "[model][dma]") { transfer_matrix(End::Sdram, End::Sdram); }
TEST_CASE("dma: netbuf RX -> netbuf TX, byte for byte", "[model][dma]") { transfer_matrix(End::NetRx, End::NetTx); }

// ---------------------------------------------------------------- costs

TEST_CASE("dma: host transactions are split at line and page boundaries", "[model][dma]") {
  Bench b;
  simulate([&] {
    REQUIRE(b.run(HOST + 0x1001, 0x8000, 4096));
    // Head to the first line, whole-line bursts up to the page end, the
    // rest of the page's last burst, a 1-byte tail in the next page.
    std::vector<std::pair<uint64_t, unsigned>> want{{0x1001, 31}};
    for (uint64_t a = 0x1020; a < 0x1F20; a += 256) want.push_back({a, 256});
    want.push_back({0x1F20, 224});
    want.push_back({0x2000, 1});
    REQUIRE(b.probe.log.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      CHECK(b.probe.log[i].addr == want[i].first);
      CHECK(b.probe.log[i].len == want[i].second);
      CHECK_FALSE(b.probe.log[i].write);
    }
    CHECK(b.dma.stats().partial_transactions == 2);
    CHECK(b.dma.stats().read_transactions == want.size());
    CHECK(b.dma.stats().write_transactions == 16);  // SDRAM side: 16 bursts of 256

    // A short transfer inside one line: a single partial transaction.
    b.probe.log.clear();
    REQUIRE(b.run(0x8000, HOST + 0x3005, 3));
    REQUIRE(b.probe.log.size() == 1);
    CHECK(b.probe.log[0].addr == 0x3005);
    CHECK(b.probe.log[0].len == 3);
    CHECK(b.probe.log[0].write);
    CHECK(b.dma.stats().partial_transactions == 3);

    // Aligned start, 33 bytes: one line, then a 1-byte tail.
    b.probe.log.clear();
    REQUIRE(b.run(0x8000, HOST + 0x3020, 33));
    REQUIRE(b.probe.log.size() == 2);
    CHECK(b.probe.log[0].len == 32);
    CHECK(b.probe.log[1].addr == 0x3040);
    CHECK(b.probe.log[1].len == 1);
  });
}

TEST_CASE("dma: misaligned and page-crossing host transfers cost what the formula says", "[model][dma]") {
  auto& reg = m2::ParamRegistry::instance();
  reg.preset("host_mem.read_latency_ns", "50", {"test"});
  reg.preset("host_mem.write_latency_ns", "70", {"test"});
  Bench b;
  // One transaction: overhead + bytes / rate + what the target returns (NI bus
  // + host memory here; the PCI bus on the platform) + the penalty if partial.
  const double overhead = b.dma.burst_overhead_ns, ns_per_byte = 1000.0 / b.dma.rate_mbyte_per_s.get();
  const double bus = b.bus.latency_ns, penalty = b.dma.misalign_penalty_ns;
  const double rd = overhead + bus + 50, wr = overhead + bus + 70;  // fixed part per read / write
  simulate([&] {
    auto read_cost = [&](uint64_t src, uint32_t len) {
      const sc_time before = b.dma.stats().read_busy;
      REQUIRE(b.run(HOST + src, 0x8000, len));
      return (b.dma.stats().read_busy - before).to_seconds() * 1e9;
    };
    auto write_cost = [&](uint64_t dst, uint32_t len) {
      const sc_time before = b.dma.stats().write_busy;
      REQUIRE(b.run(0x8000, HOST + dst, len));
      return (b.dma.stats().write_busy - before).to_seconds() * 1e9;
    };
    // Aligned 4 KB: 16 bursts of 256 bytes.
    const double aligned = read_cost(0x1000, 4096);
    CHECK(aligned == Approx(16 * rd + 4096 * ns_per_byte));
    // Misaligned by 1: 18 transactions (head, tail) and two penalties.
    const double mis1 = read_cost(0x1001, 4096);
    CHECK(mis1 == Approx(18 * rd + 4096 * ns_per_byte + 2 * penalty));
    CHECK(mis1 - aligned == Approx(2 * rd + 2 * penalty));
    // Misaligned by 31, and 4 KB + 1 starting aligned (one tail only).
    CHECK(read_cost(0x101F, 4096) - aligned == Approx(2 * rd + 2 * penalty));
    CHECK(read_cost(0x1000, 4097) - aligned == Approx(rd + ns_per_byte + penalty));
    // Line-aligned but crossing a page: one more transaction, no penalty.
    const double in_page = read_cost(0x1000, 512), across = read_cost(0x1F80, 512);
    CHECK(in_page == Approx(2 * rd + 512 * ns_per_byte));
    CHECK(across - in_page == Approx(rd));
    // Writes to the host follow the same rules.
    const double w_aligned = write_cost(0x5000, 2048), w_mis = write_cost(0x5003, 2048);
    CHECK(w_aligned == Approx(8 * wr + 2048 * ns_per_byte));
    CHECK(w_mis - w_aligned == Approx(2 * wr + 2 * penalty));

    // The engine really waits: a descriptor takes at least its setup plus
    // its slower side, at most setup plus both sides.
    const m2::DmaEngine::Stats s0 = b.dma.stats();
    REQUIRE(b.run(HOST + 0x2007, 0x9000, 3000));
    const m2::DmaEngine::Stats& s1 = b.dma.stats();
    const sc_time elapsed = s1.last_end - s1.last_start, setup(b.dma.setup_ns, SC_NS);
    const sc_time r = s1.read_busy - s0.read_busy, w = s1.write_busy - s0.write_busy;
    CHECK(elapsed >= setup + std::max(r, w));
    CHECK(elapsed <= setup + r + w);
  });
}

TEST_CASE("dma: reads and writes overlap through the two-burst buffer", "[model][dma]") {
  Bench b;
  simulate([&] {
    const sc_time t0 = sc_core::sc_time_stamp();
    REQUIRE(b.run(0x1000, 0x8000, 1024));
    // SDRAM both ways (no memory latency in this bench), 4 bursts: each read
    // and each write costs overhead + 256 / rate + bus (defaults 10 + 160 + 20
    // = 190 ns); the writes follow the reads one burst behind, so the
    // descriptor takes setup + 5 bursts.
    const double burst = b.dma.burst_overhead_ns + 256 * 1000.0 / b.dma.rate_mbyte_per_s.get() + b.bus.latency_ns;
    CHECK(b.dma.stats().last_start == t0);
    CHECK(b.dma.stats().last_end - b.dma.stats().last_start == sc_time(b.dma.setup_ns + 5 * burst, SC_NS));
    CHECK(b.dma.stats().read_busy == sc_time(4 * burst, SC_NS));
    CHECK(b.dma.stats().write_busy == sc_time(4 * burst, SC_NS));
  });
}

TEST_CASE("dma: cost parameters change the time", "[model][dma]") {
  auto& reg = m2::ParamRegistry::instance();
  reg.preset("dma.setup_ns", "1000", {"test"});
  reg.preset("dma.burst_overhead_ns", "0", {"test"});
  reg.preset("dma.rate_mbyte_per_s", "100", {"test"});
  reg.preset("dma.burst_bytes", "64", {"test"});
  reg.preset("bus.latency_ns", "0", {"test"});
  Bench b;
  simulate([&] {
    REQUIRE(b.run(0x1000, 0x8000, 640));
    // 10 bursts of 64 bytes at 10 ns a byte: 640 ns each side, overlapped.
    CHECK(b.dma.stats().read_transactions == 10);
    CHECK(b.dma.stats().last_end - b.dma.stats().last_start == sc_time(1000 + 11 * 640, SC_NS));
  });
}

// ---------------------------------------------------------------- queue

TEST_CASE("dma: descriptors queue up, DONE_COUNT counts, a full queue refuses START", "[model][dma]") {
  LogCapture log("test_dma_queue");
  Bench b;
  std::vector<std::pair<bool, sc_time>> done_edges;
  b.dma.irq_done.connect([&](bool l) { done_edges.push_back({l, sc_core::sc_time_stamp()}); });
  simulate([&] {
    CHECK(b.reg(DMA_CONFIG) == (4u | 256u << 16));
    CHECK(b.reg(DMA_STATUS) == 4u << 8);  // idle, 4 free slots
    for (uint32_t i = 0; i < 256; ++i) b.sdram.host()[0x1000 + i] = static_cast<uint8_t>(i);
    // Four descriptors before the engine gets to run: the queue is full.
    for (uint32_t i = 0; i < 4; ++i)
      REQUIRE(b.start(0x1000 + 64 * i, 0x8000 + 64 * i, 64, DMA_CTRL_START | (i == 3 ? DMA_CTRL_IRQ : 0)) ==
              tlm::TLM_OK_RESPONSE);
    CHECK(b.reg(DMA_SRC) == 0x10C0);
    CHECK(b.reg(DMA_DST) == 0x80C0);
    CHECK(b.reg(DMA_LEN) == 64);
    CHECK(b.reg(DMA_STATUS) == DMA_STATUS_BUSY);  // no free slot
    CHECK(b.start(0x2000, 0x9000, 64) == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK_THAT(log.text(), Contains("dma: CTRL START refused: the queue is full (4 descriptors)") &&
                               Contains("src=0x00002000 dst=0x00009000 len=64"));
    // The engine takes the first one: a slot frees up.
    sc_core::wait(1, SC_NS);
    CHECK(DMA_STATUS_FREE(b.reg(DMA_STATUS)) == 1);
    CHECK(b.reg(DMA_DONE_COUNT) == 0);
    b.wait_idle();
    CHECK(b.reg(DMA_DONE_COUNT) == 4);
    CHECK(b.reg(DMA_STATUS) == (DMA_STATUS_DONE | 4u << 8));
    CHECK(std::memcmp(b.sdram.host() + 0x8000, b.sdram.host() + 0x1000, 256) == 0);
    CHECK(b.sdram.host()[0x9000] == 0);  // the refused one never ran
    // Only the last descriptor asked for an interrupt.
    REQUIRE(done_edges.size() == 1);
    CHECK(done_edges[0].first);
    CHECK(done_edges[0].second == b.dma.stats().last_end);
    // Write 1 to DONE to acknowledge.
    b.reg_write(DMA_STATUS, DMA_STATUS_DONE);
    CHECK_FALSE(b.dma.irq_done.level());
    CHECK(b.reg(DMA_STATUS) == 4u << 8);

    // FLUSH drops what is still queued, not the active descriptor.
    for (uint32_t i = 0; i < 3; ++i) REQUIRE(b.start(0x1000, 0xA000 + 0x100 * i, 256) == tlm::TLM_OK_RESPONSE);
    sc_core::wait(1, SC_NS);  // the first one is active
    b.reg_write(DMA_CTRL, DMA_CTRL_FLUSH);
    CHECK(DMA_STATUS_FREE(b.reg(DMA_STATUS)) == 4);
    CHECK(b.reg(DMA_STATUS) & DMA_STATUS_BUSY);
    b.wait_idle();
    CHECK(b.reg(DMA_DONE_COUNT) == 5);
    CHECK(b.sdram.host()[0xA0FF] == 255);
    CHECK(b.sdram.host()[0xA1FF] == 0);
    // CTRL is write-only, DONE_COUNT read-only.
    tlm::tlm_response_status st;
    b.cpu.read32(NI_DMA_BASE + DMA_CTRL, true, &st);
    CHECK(st == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(b.cpu.write32(NI_DMA_BASE + DMA_DONE_COUNT, 0) == tlm::TLM_GENERIC_ERROR_RESPONSE);
  });
  CHECK(b.dma.stats().descriptors == 5);
  CHECK(b.dma.stats().bytes == 4 * 64 + 256);
}

TEST_CASE("dma: queue depth is a parameter", "[model][dma]") {
  m2::ParamRegistry::instance().preset("dma.queue_depth", "1", {"test"});
  Bench b;
  simulate([&] {
    CHECK(b.reg(DMA_CONFIG) == (1u | 256u << 16));
    REQUIRE(b.start(0x1000, 0x8000, 64) == tlm::TLM_OK_RESPONSE);
    CHECK(b.start(0x1000, 0x8000, 64) == tlm::TLM_GENERIC_ERROR_RESPONSE);
    sc_core::wait(1, SC_NS);
    CHECK(b.start(0x1000, 0x8000, 64) == tlm::TLM_OK_RESPONSE);  // first one active, one slot
    b.wait_idle();
    CHECK(b.reg(DMA_DONE_COUNT) == 2);
  });
}

// ---------------------------------------------------------------- errors

TEST_CASE("dma: an unmapped source stops the engine with a logged error", "[model][dma]") {
  LogCapture log("test_dma_read_error");
  Bench b;
  std::vector<bool> err_edges;
  b.dma.irq_error.connect([&](bool l) { err_edges.push_back(l); });
  simulate([&] {
    b.sdram.host()[0x1000] = 0x42;
    REQUIRE(b.start(0x50000000, 0x8000, 512) == tlm::TLM_OK_RESPONSE);  // nothing mapped there
    REQUIRE(b.start(0x1000, 0x9000, 16, DMA_CTRL_START | DMA_CTRL_IRQ) == tlm::TLM_OK_RESPONSE);
    b.wait_idle();
    const uint32_t st = b.reg(DMA_STATUS);
    CHECK(st & DMA_STATUS_ERROR);
    CHECK(st & DMA_STATUS_BUSY);  // the second descriptor waits
    CHECK(b.reg(DMA_ERR_ADDR) == 0x50000000u);
    CHECK(b.reg(DMA_ERR_CAUSE) == DMA_ERR_READ);
    CHECK(b.reg(DMA_DONE_COUNT) == 0);
    CHECK(b.dma.irq_error.level());
    CHECK_THAT(log.text(), Contains("warning: dma: read of 256 bytes at 0x50000000 failed") &&
                               Contains("src=0x50000000 dst=0x00008000 len=512") && Contains("STATUS.ERROR"));
    sc_core::wait(10, sc_core::SC_US);
    CHECK(b.sdram.host()[0x9000] == 0);  // still held
    // Clearing the error lets the queue run on.
    b.reg_write(DMA_STATUS, DMA_STATUS_ERROR);
    CHECK_FALSE(b.dma.irq_error.level());
    b.wait_idle();
    CHECK(b.reg(DMA_DONE_COUNT) == 1);
    CHECK(b.sdram.host()[0x9000] == 0x42);
    CHECK(b.reg(DMA_ERR_CAUSE) == DMA_ERR_READ);  // the last error's cause stays readable
    CHECK(b.reg(DMA_STATUS) == (DMA_STATUS_DONE | 4u << 8));
  });
  CHECK(err_edges == std::vector<bool>{true, false});
  CHECK(b.dma.stats().errors == 1);
}

TEST_CASE("dma: a destination that runs off the map fails at the first bad burst", "[model][dma]") {
  LogCapture log("test_dma_write_error");
  Bench b;
  simulate([&] {
    std::memset(b.sdram.host() + 0x1000, 0x33, 1024);
    // SDRAM ends at 1 MB: the third 256-byte burst crosses the end.
    const uint64_t dst = kSdramSize - 600;
    CHECK_FALSE(b.run(0x1000, dst, 1024));
    CHECK(b.reg(DMA_ERR_CAUSE) == DMA_ERR_WRITE);
    CHECK(b.reg(DMA_ERR_ADDR) == dst + 512);
    CHECK_THAT(log.text(), Contains("dma: write of 256 bytes at 0x000fffa8 failed (TLM_ADDRESS_ERROR_RESPONSE)"));
    // What went before is there; the engine is idle, not stuck.
    CHECK(b.sdram.host()[dst + 511] == 0x33);
    CHECK_FALSE(b.reg(DMA_STATUS) & DMA_STATUS_BUSY);
    // Host window past host memory: the error comes back through the window.
    b.reg_write(DMA_STATUS, DMA_STATUS_ERROR);
    CHECK_FALSE(b.run(0x1000, HOST + kHostSize - 32, 64));
    CHECK(b.reg(DMA_ERR_ADDR) == HOST + kHostSize);
    CHECK(b.reg(DMA_ERR_CAUSE) == DMA_ERR_WRITE);
  });
  CHECK(b.dma.stats().errors == 2);
  CHECK(b.dma.stats().descriptors == 0);
}

TEST_CASE("dma: LEN 0 is refused with the error interrupt", "[model][dma]") {
  LogCapture log("test_dma_len0");
  Bench b;
  simulate([&] {
    REQUIRE(b.start(0x1234, 0x8000, 0) == tlm::TLM_OK_RESPONSE);
    CHECK(b.reg(DMA_STATUS) == (DMA_STATUS_ERROR | 4u << 8));  // not queued
    CHECK(b.reg(DMA_ERR_CAUSE) == DMA_ERR_LEN);
    CHECK(b.reg(DMA_ERR_ADDR) == 0x1234);
    CHECK(b.dma.irq_error.level());
    CHECK_THAT(log.text(), Contains("dma: descriptor src=0x00001234 dst=0x00008000 len=0 refused: LEN is 0"));
    b.reg_write(DMA_STATUS, DMA_STATUS_ERROR);
    CHECK(b.run(0x1234, 0x8000, 1));
  });
}

TEST_CASE("dma: a netbuf window used the wrong way round is a bus error", "[model][dma]") {
  LogCapture log("test_dma_wrong_way");
  Bench b;
  simulate([&] {
    CHECK_FALSE(b.run(0x1000, NI_NETBUF_RX_WINDOW(1), 64));  // RX windows are read-only
    CHECK(b.reg(DMA_ERR_CAUSE) == DMA_ERR_WRITE);
    CHECK(b.reg(DMA_ERR_ADDR) == NI_NETBUF_RX_WINDOW(1));
    CHECK_THAT(log.text(), Contains("RX channel 1 window is read-only"));
    b.reg_write(DMA_STATUS, DMA_STATUS_ERROR);
    // Reading a TX window: refused by the netbuf too (no flow-control wait).
    CHECK_FALSE(b.run(NI_NETBUF_TX_WINDOW(0), 0x8000, 64));
    CHECK(b.reg(DMA_ERR_CAUSE) == DMA_ERR_READ);
  });
}

TEST_CASE("dma: a write error ends the descriptor while the reader waits for netbuf data", "[model][dma]") {
  LogCapture log("test_dma_abort_reader");
  Bench b;
  std::mt19937 rng(12);
  const auto data = random_bytes(rng, 300);
  simulate([&] {
    b.link_send(0, data);
    // The reader gets one burst, then waits for 256 more bytes that never
    // come; the writer's first burst fails.
    CHECK_FALSE(b.run(NI_NETBUF_RX_WINDOW(0), 0x50000000, 1000));
    CHECK(b.reg(DMA_ERR_CAUSE) == DMA_ERR_WRITE);
    CHECK(b.reg(DMA_ERR_ADDR) == 0x50000000u);
    CHECK_FALSE(b.reg(DMA_STATUS) & DMA_STATUS_BUSY);
    // The engine is not stuck: the rest of the channel can be moved.
    b.reg_write(DMA_STATUS, DMA_STATUS_ERROR);
    CHECK(b.nb.rx_available(0) == 44);
    REQUIRE(b.run(NI_NETBUF_RX_WINDOW(0), 0x3000, 44));
    CHECK(std::memcmp(b.sdram.host() + 0x3000, data.data() + 256, 44) == 0);
  });
  CHECK(b.dma.stats().errors == 1);
  CHECK(b.dma.stats().descriptors == 1);
}

TEST_CASE("dma: a read error ends the descriptor while the writer waits for netbuf room", "[model][dma]") {
  LogCapture log("test_dma_abort_writer");
  Bench b;
  b.link_pace = sc_time(1, sc_core::SC_MS);  // the link hardly drains
  b.link_chunk = 64;
  simulate([&] {
    REQUIRE(b.cpu.write(NI_NETBUF_TX_WINDOW(1), std::vector<uint8_t>(2048, 1)) == tlm::TLM_OK_RESPONSE);
    // SDRAM ends 300 bytes after the source: the second read fails while the
    // writer, holding the first burst, waits for room in the full channel.
    const uint64_t src = kSdramSize - 300;
    const sc_time t0 = sc_core::sc_time_stamp();
    CHECK_FALSE(b.run(src, NI_NETBUF_TX_WINDOW(1), 1024));
    CHECK(sc_core::sc_time_stamp() - t0 < sc_time(10, sc_core::SC_US));  // did not wait for the link
    CHECK(b.reg(DMA_ERR_CAUSE) == DMA_ERR_READ);
    CHECK(b.reg(DMA_ERR_ADDR) == src + 256);
    CHECK(b.dma.stats().write_transactions == 0);
    CHECK_FALSE(b.reg(DMA_STATUS) & DMA_STATUS_BUSY);
    CHECK(b.nb.tx_available(1) == 2048);  // nothing of the failed descriptor went in
  });
  CHECK(b.nb.last_error().empty());
}

// ---------------------------------------------------------------- flow control

TEST_CASE("dma: into a netbuf TX channel the engine waits for room, never overflows", "[model][dma]") {
  LogCapture log("test_dma_tx_flow");
  Bench b;
  b.link_pace = sc_time(1, sc_core::SC_US);  // a slow link: 64 bytes a microsecond
  b.link_chunk = 64;
  std::mt19937 rng(5);
  const auto data = random_bytes(rng, 8192);
  std::memcpy(b.host_mem.host() + 0x4000, data.data(), data.size());
  simulate([&] {
    REQUIRE(b.run(HOST + 0x4000, NI_NETBUF_TX_WINDOW(1), 8192));
    // It cannot finish before the link has taken all but what fits in the
    // channel: (8192 - 2048) / 64 microseconds.
    CHECK(b.dma.stats().last_end >= sc_time(96, sc_core::SC_US));
    sc_core::wait(40, sc_core::SC_US);
    CHECK(b.tx_got[1] == data);
  });
  CHECK(b.dma.stats().errors == 0);
  CHECK(b.nb.last_error().empty());
  CHECK(log.text().find("overflow") == std::string::npos);
}

TEST_CASE("dma: from a netbuf RX channel the engine waits for data, never underflows", "[model][dma]") {
  Bench b;
  b.link_pace = sc_time(500, SC_NS);
  b.link_chunk = 100;
  std::mt19937 rng(6);
  const auto data = random_bytes(rng, 5000);
  simulate([&] {
    REQUIRE(b.start(NI_NETBUF_RX_WINDOW(0), 0x10000, 5000, DMA_CTRL_START | DMA_CTRL_IRQ) == tlm::TLM_OK_RESPONSE);
    sc_core::wait(3, sc_core::SC_US);
    CHECK(b.reg(DMA_STATUS) & DMA_STATUS_BUSY);  // nothing to read yet
    CHECK(b.dma.stats().read_transactions == 0);
    b.link_send(0, data);
    b.wait_idle();
    // 50 chunks of 100 bytes, one every 500 ns.
    CHECK(b.dma.stats().last_end >= sc_time(3000 + 50 * 500, SC_NS));
    CHECK(std::memcmp(b.sdram.host() + 0x10000, data.data(), data.size()) == 0);
    CHECK(b.dma.irq_done.level());
  });
  CHECK(b.dma.stats().errors == 0);
  CHECK(b.nb.last_error().empty());
}

// ---------------------------------------------------------------- configuration

TEST_CASE("dma: inconsistent parameters are configuration errors", "[model][dma]") {
  auto& reg = m2::ParamRegistry::instance();
  SECTION("burst not a multiple of the host line") {
    reg.preset("dma.burst_bytes", "100", {"test"});
    CHECK_THROWS_WITH(m2::DmaEngine("dma"),
                      Contains("dma: burst_bytes (100) must be a multiple of host_align_bytes (32)"));
  }
  SECTION("line not a power of two") {
    reg.preset("dma.host_align_bytes", "24", {"test"});
    reg.preset("dma.burst_bytes", "240", {"test"});
    CHECK_THROWS_WITH(m2::DmaEngine("dma"), Contains("powers of two"));
  }
  SECTION("page smaller than a line") {
    reg.preset("dma.host_page_bytes", "16", {"test"});
    CHECK_THROWS_WITH(m2::DmaEngine("dma"), Contains("host_page_bytes (16) must not be smaller"));
  }
  SECTION("burst larger than a netbuf channel") {
    reg.preset("dma.burst_bytes", "1024", {"test"});
    reg.preset("nb.channel_bytes", "512", {"test"});
    m2::NetBuf nb("nb");
    m2::DmaEngine dma("dma");
    CHECK_THROWS_WITH(dma.connect_netbuf(&nb), Contains("burst_bytes (1024) exceeds the netbuf channel (512 bytes)"));
  }
}
