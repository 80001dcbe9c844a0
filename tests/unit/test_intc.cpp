// Unit tests for the NI interrupt controller (models/ni/intc.*): RAW follows
// the sources, PENDING latches rising edges and is cleared by writing 1s,
// ENABLE masks, and the output follows (PENDING | RAW) & ENABLE.
//
// NiIntc never waits: the test body calls its socket directly after
// sc_start(SC_ZERO_TIME) has completed the binding.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include <systemc>
#include <tlm>

#include <ip/ni_intc.h>
#include <ip/ni_netbuf.h>
#include <ip/ni_pci.h>

#include "core/memory.h"
#include "core/params.h"
#include "ni/intc.h"
#include "ni/netbuf.h"
#include "ni/pci_interface.h"

#include "test_initiator.h"

namespace {

struct Bench {
  m2::NiIntc intc{"intc"};
  m2test::TestInitiator cpu{"cpu"};
  std::vector<bool> edges;  // every level change of the output
  Bench() {
    cpu.socket.bind(intc.regs);
    intc.irq.connect([this](bool l) { edges.push_back(l); });
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
};

constexpr uint32_t bit(unsigned n) { return 1u << n; }

}  // namespace

TEST_CASE("intc: reset state is quiet", "[model][intc]") {
  Bench b;
  CHECK(b.cpu.read32(INTC_RAW) == 0);
  CHECK(b.cpu.read32(INTC_PENDING) == 0);
  CHECK(b.cpu.read32(INTC_ENABLE) == 0);
  CHECK(b.cpu.read32(INTC_STATUS) == 0);
  CHECK_FALSE(b.intc.irq.level());
}

TEST_CASE("intc: RAW follows the levels, PENDING latches rising edges", "[model][intc]") {
  Bench b;
  b.intc.set_source(NI_IRQ_DMA_DONE, true);
  b.intc.set_source(NI_IRQ_NETBUF_RX(1), true);
  CHECK(b.cpu.read32(INTC_RAW) == (bit(NI_IRQ_DMA_DONE) | bit(NI_IRQ_NETBUF_RX(1))));
  CHECK(b.cpu.read32(INTC_PENDING) == (bit(NI_IRQ_DMA_DONE) | bit(NI_IRQ_NETBUF_RX(1))));
  b.intc.set_source(NI_IRQ_DMA_DONE, false);
  CHECK(b.cpu.read32(INTC_RAW) == bit(NI_IRQ_NETBUF_RX(1)));
  // A pulse that is over stays pending.
  CHECK(b.cpu.read32(INTC_PENDING) == (bit(NI_IRQ_DMA_DONE) | bit(NI_IRQ_NETBUF_RX(1))));
  // Repeating a level is no new edge.
  REQUIRE(b.cpu.write32(INTC_PENDING, bit(NI_IRQ_NETBUF_RX(1))) == tlm::TLM_OK_RESPONSE);
  b.intc.set_source(NI_IRQ_NETBUF_RX(1), true);
  CHECK(b.cpu.read32(INTC_PENDING) == bit(NI_IRQ_DMA_DONE));
  // Highest source number works.
  b.intc.set_source(31, true);
  CHECK(b.cpu.read32(INTC_RAW) == (bit(31) | bit(NI_IRQ_NETBUF_RX(1))));
  CHECK(b.intc.pending() == (bit(31) | bit(NI_IRQ_DMA_DONE)));
  CHECK_THROWS_AS(b.intc.set_source(32, true), std::out_of_range);
}

TEST_CASE("intc: PENDING is write-1-to-clear", "[model][intc]") {
  Bench b;
  for (unsigned n : {NI_IRQ_DMA_ERROR, NI_IRQ_DOORBELL, NI_IRQ_MLCX(0)}) {
    b.intc.set_source(n, true);
    b.intc.set_source(n, false);
  }
  const uint32_t all = bit(NI_IRQ_DMA_ERROR) | bit(NI_IRQ_DOORBELL) | bit(NI_IRQ_MLCX(0));
  REQUIRE(b.cpu.read32(INTC_PENDING) == all);
  REQUIRE(b.cpu.write32(INTC_PENDING, bit(NI_IRQ_DOORBELL)) == tlm::TLM_OK_RESPONSE);
  CHECK(b.cpu.read32(INTC_PENDING) == (all & ~bit(NI_IRQ_DOORBELL)));
  REQUIRE(b.cpu.write32(INTC_PENDING, 0) == tlm::TLM_OK_RESPONSE);  // zeros change nothing
  CHECK(b.cpu.read32(INTC_PENDING) == (all & ~bit(NI_IRQ_DOORBELL)));
  REQUIRE(b.cpu.write32(INTC_PENDING, 0xFFFFFFFFu) == tlm::TLM_OK_RESPONSE);
  CHECK(b.cpu.read32(INTC_PENDING) == 0);
  // RAW is read-only.
  CHECK(b.cpu.write32(INTC_RAW, 1) == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK(b.cpu.write32(INTC_STATUS, 1) == tlm::TLM_GENERIC_ERROR_RESPONSE);
}

TEST_CASE("intc: the output follows (PENDING | RAW) & ENABLE", "[model][intc]") {
  Bench b;
  const unsigned dma = NI_IRQ_DMA_DONE, db = NI_IRQ_DOORBELL;

  // Masked: pending but no output.
  b.intc.set_source(dma, true);
  CHECK_FALSE(b.intc.irq.level());
  CHECK(b.cpu.read32(INTC_STATUS) == 0);

  // Enabling a pending source raises the output.
  REQUIRE(b.cpu.write32(INTC_ENABLE, bit(dma)) == tlm::TLM_OK_RESPONSE);
  CHECK(b.intc.irq.level());
  CHECK(b.cpu.read32(INTC_STATUS) == bit(dma));

  // Clearing PENDING while the level is still high keeps it asserted.
  REQUIRE(b.cpu.write32(INTC_PENDING, bit(dma)) == tlm::TLM_OK_RESPONSE);
  CHECK(b.cpu.read32(INTC_PENDING) == 0);
  CHECK(b.intc.irq.level());
  CHECK(b.cpu.read32(INTC_STATUS) == bit(dma));
  // Only when the device drops it does the output fall.
  b.intc.set_source(dma, false);
  CHECK_FALSE(b.intc.irq.level());

  // A short pulse is latched and holds the output until acknowledged.
  b.intc.set_source(dma, true);
  b.intc.set_source(dma, false);
  CHECK(b.intc.irq.level());
  REQUIRE(b.cpu.write32(INTC_PENDING, bit(dma)) == tlm::TLM_OK_RESPONSE);
  CHECK_FALSE(b.intc.irq.level());

  // Masking hides a pending source; ENABLE_SET / ENABLE_CLR change single bits.
  b.intc.set_source(db, true);
  CHECK_FALSE(b.intc.irq.level());  // doorbell not enabled
  REQUIRE(b.cpu.write32(INTC_ENABLE_SET, bit(db)) == tlm::TLM_OK_RESPONSE);
  CHECK(b.cpu.read32(INTC_ENABLE) == (bit(dma) | bit(db)));
  CHECK(b.intc.irq.level());
  REQUIRE(b.cpu.write32(INTC_ENABLE_CLR, bit(db)) == tlm::TLM_OK_RESPONSE);
  CHECK(b.cpu.read32(INTC_ENABLE) == bit(dma));
  CHECK_FALSE(b.intc.irq.level());
  CHECK(b.cpu.read32(INTC_PENDING) == bit(db));  // still pending, just masked

  // The sink saw each change once.
  CHECK(b.edges == std::vector<bool>{true, false, true, false, true, false});
}

TEST_CASE("intc: write-only and missing registers are bus errors", "[model][intc]") {
  Bench b;
  tlm::tlm_response_status s;
  b.cpu.read32(INTC_ENABLE_SET, true, &s);
  CHECK(s == tlm::TLM_GENERIC_ERROR_RESPONSE);
  b.cpu.read32(0x18, true, &s);
  CHECK(s == tlm::TLM_GENERIC_ERROR_RESPONSE);
}

TEST_CASE("intc: register accesses cost access_ns", "[model][intc]") {
  m2::ParamRegistry::instance().preset("intc.access_ns", "12", {"test"});
  Bench b;
  std::vector<uint8_t> v(4);
  sc_core::sc_time d;
  REQUIRE(b.cpu.read(INTC_RAW, v, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_core::sc_time(12, sc_core::SC_NS));
}

TEST_CASE("intc: device outputs wired as the platform does it reach the CPU line", "[model][intc]") {
  m2::NiIntc intc("intc");
  m2::NetBuf nb("nb");
  m2::NiPciInterface pci("pci");
  m2test::TestInitiator cpu("cpu"), cpu_nb("cpu_nb"), cpu_pci("cpu_pci"), host("host");
  cpu.socket.bind(intc.regs);
  cpu_nb.socket.bind(nb.regs);
  cpu_pci.socket.bind(pci.regs);
  host.socket.bind(pci.bar1);
  // Unused paths of the PCI interface and netbuf, bound to something.
  m2::Memory ni_bus("ni_bus", 4096), pci_bus("pci_bus", 4096);
  m2test::TestInitiator host0("host0"), cpu_data("cpu_data"), cpu_window("cpu_window");
  pci.local.bind(ni_bus.socket);
  pci.pci_master.bind(pci_bus.socket);
  host0.socket.bind(pci.bar0);
  cpu_window.socket.bind(pci.host_window);
  cpu_data.socket.bind(nb.data);
  for (unsigned c = 0; c < 2; ++c) {
    nb.irq_tx[c].connect([&, c](bool l) { intc.set_source(NI_IRQ_NETBUF_TX(c), l); });
    nb.irq_rx[c].connect([&, c](bool l) { intc.set_source(NI_IRQ_NETBUF_RX(c), l); });
  }
  pci.irq_doorbell.connect([&](bool l) { intc.set_source(NI_IRQ_DOORBELL, l); });
  bool cpu_irq = false;
  intc.irq.connect([&](bool l) { cpu_irq = l; });  // stands for cpu.set_irq(0, l)
  sc_core::sc_start(sc_core::SC_ZERO_TIME);

  REQUIRE(cpu.write32(INTC_ENABLE, bit(NI_IRQ_DOORBELL) | bit(NI_IRQ_NETBUF_RX(1))) == tlm::TLM_OK_RESPONSE);
  // The host rings; the NI acknowledges at the device, then in the intc.
  REQUIRE(host.write32(NIPCI_DOORBELL, 1, false) == tlm::TLM_OK_RESPONSE);
  CHECK(cpu_irq);
  CHECK(cpu.read32(INTC_STATUS) == bit(NI_IRQ_DOORBELL));
  REQUIRE(cpu_pci.write32(NIPCI_DOORBELL, 1) == tlm::TLM_OK_RESPONSE);
  CHECK(cpu_irq);  // still pending in the intc
  CHECK(cpu.read32(INTC_RAW) == 0);
  REQUIRE(cpu.write32(INTC_PENDING, bit(NI_IRQ_DOORBELL)) == tlm::TLM_OK_RESPONSE);
  CHECK_FALSE(cpu_irq);

  // Data in netbuf RX1 reaching its threshold.
  REQUIRE(cpu_nb.write32(NETBUF_RX_THRESHOLD(1), 8) == tlm::TLM_OK_RESPONSE);
  nb.rx_push(1, std::vector<uint8_t>(7, 0).data(), 7);
  CHECK_FALSE(cpu_irq);
  nb.rx_push(1, std::vector<uint8_t>(1, 0).data(), 1);
  CHECK(cpu_irq);
  CHECK(cpu.read32(INTC_RAW) == bit(NI_IRQ_NETBUF_RX(1)));
  // A TX threshold fires at once (the channel is empty) but is not enabled.
  REQUIRE(cpu_nb.write32(NETBUF_TX_THRESHOLD(0), 2048) == tlm::TLM_OK_RESPONSE);
  CHECK(cpu.read32(INTC_RAW) == (bit(NI_IRQ_NETBUF_RX(1)) | bit(NI_IRQ_NETBUF_TX(0))));
  CHECK(cpu.read32(INTC_STATUS) == bit(NI_IRQ_NETBUF_RX(1)));
}
