// Unit tests for the host bridge (models/host/host_bridge.*) on the PCI bus:
// posted write cost vs read cost, reads ordered behind posted writes, a full
// write buffer stalling the CPU, lost posted writes, DMA into host memory,
// and AT contention between the bridge's posted writes and an NI's DMA.
//
// Times with the defaults (pci64-66, c = one 66 MHz clock = 15.152 ns):
// posted write 30 ns; a 4-byte bus write 7c, read 15c (test_pci_bus.cpp);
// the bridge's read latency 60 ns; host memory latency for DMA reads 150 ns.
// Where LT and AT must agree, both are built in one elaboration and run
// side by side by SC_THREADs.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "core/memory.h"
#include "core/params.h"
#include "host/host_bridge.h"
#include "ip/pci_map.h"
#include "pci/pci_bus.h"

#include "test_initiator.h"

using m2::TimingStyle;
using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

namespace {

constexpr uint64_t kHostMemSize = 0x100000;  // 1 MB is enough here
constexpr uint64_t kBar0 = PCI_NI_BAR0(0), kNiMemSize = 0x10000;
constexpr uint64_t kBar1 = PCI_NI_BAR1(0);

const sc_time k66 = sc_time(1000.0 / 66, SC_NS);
sc_time clk(uint64_t n) { return k66 * static_cast<double>(n); }
sc_time ns(double v) { return sc_time(v, SC_NS); }

void preset(const std::string& key, const std::string& value) {
  m2::ParamRegistry::instance().preset(key, value, m2::ValueOrigin{"test"});
}

// A target that logs the writes it receives, in order, with the time each is
// to take effect (its annotation: a write's data phases are through), and
// answers reads from what was written (one 4 KB page, like BAR1).
struct Recorder : sc_core::sc_module {
  struct Write {
    uint64_t offset;
    uint8_t first;
    sc_time at;
  };
  tlm_utils::simple_target_socket<Recorder> socket{"socket"};
  std::vector<Write> writes;
  std::vector<uint8_t> page = std::vector<uint8_t>(PCI_NI_BAR1_SIZE, 0);
  explicit Recorder(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_b_transport(this, &Recorder::b_transport);
  }
  void b_transport(tlm::tlm_generic_payload& t, sc_time& delay) {
    uint8_t* p = page.data() + t.get_address();
    if (t.is_write()) {
      std::memcpy(p, t.get_data_ptr(), t.get_data_length());
      writes.push_back({t.get_address(), t.get_data_ptr()[0], sc_core::sc_time_stamp() + delay});
    } else {
      std::memcpy(t.get_data_ptr(), p, t.get_data_length());
    }
    t.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// One host: CPU thread -> bridge -> PCI bus, host memory behind the bridge,
// an NI stood in for by its SDRAM (BAR0), a register page (BAR1) and a DMA
// master. Module names start with `prefix` so that two hosts can coexist.
struct Host {
  m2test::ThreadInitiator cpu, ni;
  m2::HostBridge bridge;
  m2::PciBus bus;
  m2::Memory host_mem, ni_mem;
  Recorder regs;

  Host(const std::string& prefix, TimingStyle style)
      : cpu((prefix + "_cpu").c_str()),
        ni((prefix + "_ni").c_str()),
        bridge((prefix + "_bridge").c_str(), style),
        bus((prefix + "_pci").c_str(), style),
        host_mem((prefix + "_host_mem").c_str(), kHostMemSize),
        ni_mem((prefix + "_ni_sdram").c_str(), kNiMemSize),
        regs((prefix + "_ni_regs").c_str()) {
    cpu.socket.bind(bridge.cpu_side);
    bus.bind_master(bridge.pci_master, "host");
    bus.bind_master(ni.socket, "ni0");
    bus.attach(bridge.pci_target, PCI_HOST_MEMORY_BASE, kHostMemSize, "host_memory");
    bus.attach(ni_mem.socket, kBar0, kNiMemSize, "ni0_bar0");
    bus.attach(regs.socket, kBar1, PCI_NI_BAR1_SIZE, "ni0_bar1");
    bridge.memory_side.bind(host_mem.socket);
  }
};

tlm::tlm_response_status write32(m2test::TestInitiator& m, uint64_t addr, uint32_t v, sc_time& delay) {
  uint8_t d[4];
  std::memcpy(d, &v, 4);
  return m.transport(tlm::TLM_WRITE_COMMAND, addr, d, 4, delay);
}

uint32_t read32(m2test::TestInitiator& m, uint64_t addr, sc_time& delay) {
  uint8_t d[4] = {};
  REQUIRE(m.transport(tlm::TLM_READ_COMMAND, addr, d, 4, delay) == tlm::TLM_OK_RESPONSE);
  uint32_t v;
  std::memcpy(&v, d, 4);
  return v;
}

}  // namespace

TEST_CASE("host bridge: a posted write costs posted_write_ns, a read the whole round trip (>3x)", "[model][host]") {
  Host h("h", TimingStyle::LT);
  sc_core::sc_start(SC_ZERO_TIME);
  CHECK(h.bridge.posted_write_ns.get() == 30.0);
  CHECK(h.bridge.read_latency_ns.get() == 60.0);

  sc_time write_cost;
  REQUIRE(h.cpu.write(kBar0 + 0x10, {1, 2, 3, 4}, &write_cost) == tlm::TLM_OK_RESPONSE);
  CHECK(write_cost == ns(30));
  CHECK(h.ni_mem.host()[0x13] == 4);  // LT: the data is there at once

  // Long after the write went through: no drain, just the round trip.
  sc_time delay(1, sc_core::SC_US);
  CHECK(read32(h.cpu, kBar0 + 0x10, delay) == 0x04030201u);
  const sc_time read_cost = delay - sc_time(1, sc_core::SC_US);
  CHECK(read_cost == ns(60) + clk(15));  // 287 ns
  CHECK(read_cost > 3 * write_cost);
  CHECK(read_cost.to_seconds() / write_cost.to_seconds() == Approx(9.58).epsilon(0.01));

  CHECK(h.bridge.stats().cpu_reads == 1);
  CHECK(h.bridge.stats().cpu_writes == 1);
  CHECK(h.bridge.stats().drain_time == SC_ZERO_TIME);
  CHECK(h.bus.master_stats()[0].name == "host");
  CHECK(h.bus.master_stats()[0].transactions == 2);
}

TEST_CASE("host bridge: on pci32-33 a 4-byte read costs 60 ns + 11 clocks at 33 MHz", "[model][host]") {
  preset("h_pci.variant", "pci32-33");
  Host h("h", TimingStyle::LT);
  sc_core::sc_start(SC_ZERO_TIME);
  sc_time delay;
  CHECK(read32(h.cpu, kBar0, delay) == 0);
  CHECK(delay == ns(60) + sc_time(1000.0 / 33, SC_NS) * 11.0);  // 393 ns
  sc_time w;
  REQUIRE(h.cpu.write(kBar0, {1}, &w) == tlm::TLM_OK_RESPONSE);
  CHECK(delay > 3 * w);
}

TEST_CASE("host bridge: a read waits for the posted writes before it, in LT and AT alike", "[model][host]") {
  Host lt("lt", TimingStyle::LT), at("at", TimingStyle::AT);
  struct Result {
    sc_time posted, read_done;
    uint32_t value = 0;
  } res[2];
  auto program = [](Result& r) {
    return [&r](m2test::TestInitiator& cpu) {
      sc_time delay = SC_ZERO_TIME;
      REQUIRE(write32(cpu, kBar0 + 0x100, 0xA5A5F00Du, delay) == tlm::TLM_OK_RESPONSE);
      r.posted = sc_core::sc_time_stamp() + delay;
      r.value = read32(cpu, kBar0 + 0x100, delay);
      r.read_done = sc_core::sc_time_stamp() + delay;
    };
  };
  lt.cpu.body = program(res[0]);
  at.cpu.body = program(res[1]);
  sc_core::sc_start();

  for (int i = 0; i < 2; ++i) {
    INFO((i ? "AT" : "LT"));
    CHECK(res[i].posted == ns(30));
    // The write enters the buffer at 30 ns and holds the bus for 7c; the read
    // starts after it (15c) and the bridge adds 60 ns.
    CHECK(res[i].read_done == ns(30) + clk(7) + clk(15) + ns(60));
    CHECK(res[i].value == 0xA5A5F00Du);  // the read saw the write
  }
  CHECK(lt.bridge.stats().drain_time == clk(7));
  CHECK(at.bridge.stats().drain_time == clk(7));
}

TEST_CASE("host bridge: posted writes reach their target in order", "[model][host]") {
  Host lt("lt", TimingStyle::LT), at("at", TimingStyle::AT);
  auto program = [](m2test::TestInitiator& cpu) {
    sc_time delay = SC_ZERO_TIME;
    for (uint32_t i = 0; i < 6; ++i)
      REQUIRE(write32(cpu, kBar1 + 4 * ((i * 5) % 6), 10 + i, delay) == tlm::TLM_OK_RESPONSE);
    CHECK(read32(cpu, kBar1 + 4 * 5, delay) == 10 + 1);  // 1*5 % 6 == 5
  };
  lt.cpu.body = program;
  at.cpu.body = program;
  sc_core::sc_start();
  for (Host* h : {&lt, &at}) {
    REQUIRE(h->regs.writes.size() == 6);
    for (uint32_t i = 0; i < 6; ++i) {
      CHECK(h->regs.writes[i].offset == 4 * ((i * 5) % 6));
      CHECK(h->regs.writes[i].first == 10 + i);
    }
  }
  // AT: each write is on the bus after the previous one finished.
  for (size_t i = 1; i < at.regs.writes.size(); ++i) CHECK(at.regs.writes[i].at > at.regs.writes[i - 1].at);
}

TEST_CASE("host bridge: a full write buffer stalls the CPU, in LT and AT alike", "[model][host]") {
  preset("lt_bridge.write_buffer_depth", "2");
  preset("at_bridge.write_buffer_depth", "2");
  Host lt("lt", TimingStyle::LT), at("at", TimingStyle::AT);
  struct Result {
    std::vector<sc_time> after_write;
    sc_time read_done;
  } res[2];
  auto program = [](Result& r) {
    return [&r](m2test::TestInitiator& cpu) {
      sc_time delay = SC_ZERO_TIME;
      for (uint32_t i = 0; i < 10; ++i) {
        REQUIRE(write32(cpu, kBar0 + 0x1000 + 4 * i, i, delay) == tlm::TLM_OK_RESPONSE);
        r.after_write.push_back(sc_core::sc_time_stamp() + delay);
      }
      CHECK(read32(cpu, kBar0 + 0x1000 + 4 * 9, delay) == 9);
      r.read_done = sc_core::sc_time_stamp() + delay;
    };
  };
  lt.cpu.body = program(res[0]);
  at.cpu.body = program(res[1]);
  sc_core::sc_start();

  for (int i = 0; i < 2; ++i) {
    INFO((i ? "AT" : "LT"));
    const auto& t = res[i].after_write;
    REQUIRE(t.size() == 10);
    // Two writes fit: 30 ns each. The bus then takes 7c per write (they
    // follow each other: each one enters when the oldest of two leaves), so
    // the CPU gets write k back when write k-2 is through: 30 ns + (k-2)*7c.
    CHECK(t[0] == ns(30));
    CHECK(t[1] == ns(60));
    for (int k = 3; k <= 10; ++k) CHECK(t[k - 1] == ns(30) + clk(7 * (k - 2)));
    // The read waits for all ten writes (30 ns + 70c), then 15c + 60 ns.
    CHECK(res[i].read_done == ns(30) + clk(70) + clk(15) + ns(60));
  }
  for (const Host* h : {&lt, &at}) {
    const auto& s = h->bridge.stats();
    CHECK(s.write_stalls == 8);
    // Write 3 waited 7c - 60 ns, writes 4..10 each 7c - 30 ns.
    CHECK(s.stall_time == clk(56) - ns(270));
    CHECK(s.drain_time == clk(14));  // read issued at 30 ns + 56c, last write done at 30 ns + 70c
  }
}

TEST_CASE("host bridge: posted writes to nowhere are lost and counted, reads fail", "[model][host]") {
  Host lt("lt", TimingStyle::LT), at("at", TimingStyle::AT);
  tlm::tlm_response_status wr[2], rd[2];
  auto program = [](tlm::tlm_response_status& w, tlm::tlm_response_status& r) {
    return [&w, &r](m2test::TestInitiator& cpu) {
      sc_time delay = SC_ZERO_TIME;
      w = write32(cpu, 0x80000000, 1, delay);  // between host memory and the NI's BARs
      uint8_t d[4];
      r = cpu.transport(tlm::TLM_READ_COMMAND, 0x80000000, d, 4, delay);
    };
  };
  lt.cpu.body = program(wr[0], rd[0]);
  at.cpu.body = program(wr[1], rd[1]);
  sc_core::sc_start();
  for (int i = 0; i < 2; ++i) {
    CHECK(wr[i] == tlm::TLM_OK_RESPONSE);  // posted: the CPU never hears
    CHECK(rd[i] == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  }
  CHECK(lt.bridge.stats().posted_write_errors == 1);
  CHECK(at.bridge.stats().posted_write_errors == 1);
}

TEST_CASE(
    "host bridge: DMA from the PCI side reaches host memory, reads pay memory_latency_ns and a new stream "
    "read_retry_ns",
    "[model][host]") {
  Host h("h", TimingStyle::LT);
  sc_core::sc_start(SC_ZERO_TIME);
  CHECK(h.bridge.memory_latency_ns.get() == 150.0);

  std::vector<uint8_t> data(256);
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i ^ 0x3C);
  sc_time d;
  REQUIRE(h.ni.write(PCI_HOST_MEMORY_BASE + 0x2000, data, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(std::memcmp(h.host_mem.host() + 0x2000, data.data(), data.size()) == 0);
  CHECK(d == clk(6 + 32));  // writes are posted into memory: bus time only
  std::vector<uint8_t> back(256);
  REQUIRE(h.ni.read(PCI_HOST_MEMORY_BASE + 0x2000, back, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(back == data);
  // The first read of a stream is a delayed transaction.
  CHECK(h.bridge.read_retry_ns.get() == 300.0);
  CHECK(d == clk(14 + 32) + ns(150) + ns(300));
  // A read continuing where the last one ended finds its lines prefetched.
  std::vector<uint8_t> next(64);
  REQUIRE(h.ni.read(PCI_HOST_MEMORY_BASE + 0x2100, next, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == clk(14 + 8) + ns(150));
  // Going back is a new stream again.
  REQUIRE(h.ni.read(PCI_HOST_MEMORY_BASE + 0x2000, next, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == clk(14 + 8) + ns(150) + ns(300));
  CHECK(h.bridge.stats().dma_read_retries == 2);

  const auto& s = h.bridge.stats();
  CHECK(s.dma_writes == 1);
  CHECK(s.dma_reads == 3);
  CHECK(s.dma_bytes == 640);
  CHECK(h.bus.master_stats()[1].name == "ni0");
  CHECK(h.bus.master_stats()[1].bytes == 640);
  CHECK(h.bus.master_stats()[0].bytes == 0);

  // DMI to host memory through the bus (LT): pointer and latencies.
  tlm::tlm_dmi dmi;
  REQUIRE(h.ni.dmi(PCI_HOST_MEMORY_BASE + 0x40, dmi));
  CHECK(dmi.get_dmi_ptr() == h.host_mem.host());
  CHECK(dmi.get_end_address() == kHostMemSize - 1);
  CHECK(dmi.get_read_latency() == clk(15) + ns(150));
  CHECK(dmi.get_write_latency() == clk(7));
  // Debug access from the CPU side reaches the NI.
  uint8_t buf[4] = {};
  CHECK(h.cpu.dbg(tlm::TLM_READ_COMMAND, PCI_HOST_MEMORY_BASE + 0x2001, buf, 4) == 4);
  CHECK(buf[0] == data[1]);
  CHECK(h.cpu.dbg(tlm::TLM_WRITE_COMMAND, kBar0 + 8, buf, 4) == 4);
  CHECK(h.ni_mem.host()[8] == data[1]);
  // The CPU side grants no DMI: every access is timed.
  tlm::tlm_dmi none;
  CHECK_FALSE(h.cpu.dmi(kBar0, none));
}

TEST_CASE("host bridge: AT: posted writes and an NI's DMA share the bus round-robin", "[model][host]") {
  Host h("h", TimingStyle::AT);
  sc_time cpu_done, dma_done;
  h.cpu.body = [&](m2test::TestInitiator& cpu) {
    sc_time delay = SC_ZERO_TIME;
    for (uint32_t i = 0; i < 4; ++i) REQUIRE(write32(cpu, kBar1 + 4 * i, 0x70 + i, delay) == tlm::TLM_OK_RESPONSE);
    cpu_done = sc_core::sc_time_stamp() + delay;
  };
  std::vector<uint8_t> payload(2048, 0xD7);
  h.ni.body = [&](m2test::TestInitiator& ni) {
    sc_time delay = SC_ZERO_TIME;
    REQUIRE(ni.transport(tlm::TLM_WRITE_COMMAND, PCI_HOST_MEMORY_BASE + 0x8000, payload.data(), 2048, delay) ==
            tlm::TLM_OK_RESPONSE);
    dma_done = sc_core::sc_time_stamp();
  };
  sc_core::sc_start();
  // The CPU's four writes fit the buffer: 4 x 30 ns, whatever the bus does.
  CHECK(cpu_done == ns(120));
  // The DMA (2 KB: bursts of 61, 61, 61, 61, 12 phases) alternates with the
  // bridge's writes, which arbitrate while the NI holds the bus (5c each):
  //   ni 67 | w 5 | ni 65 | w 5 | ni 65 | w 5 | ni 65 | w 5 | ni 16 = 298c
  CHECK(dma_done == clk(298));
  CHECK(dma_done > h.bus.transfer_time(false, 0, 2048));  // 286c alone
  REQUIRE(h.regs.writes.size() == 4);
  // The first write got the bus after the NI's first burst and takes effect
  // when its 5 clocks are through.
  CHECK(h.regs.writes[0].at == clk(67 + 5));
  CHECK(h.regs.writes[3].at == clk(67 + 5 + 65 + 5 + 65 + 5 + 65 + 5));
  CHECK(h.host_mem.host()[0x8000 + 2047] == 0xD7);
  CHECK(h.bus.busy_time() == clk(298));
}
