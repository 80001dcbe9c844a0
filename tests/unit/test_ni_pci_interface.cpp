// Unit tests for the NI's PCI interface (models/ni/pci_interface.*): BAR0
// forwarding into NI SDRAM, host-window forwarding onto PCI, both keeping the
// caller's data and delay, restoring the address and passing errors back; the
// register page seen big-endian by the NI and little-endian by the host;
// doorbell and INTA.
//
// A Router with a Memory stands in for the NI bus and SDRAM, a plain Memory
// for the PCI bus and host memory; the test body calls the sockets directly
// (nothing here waits).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include <systemc>
#include <tlm>

#include <ip/ni_memory_map.h>
#include <ip/ni_pci.h>
#include <ip/pci_map.h>

#include "core/memory.h"
#include "core/params.h"
#include "core/router.h"
#include "ni/pci_interface.h"

#include "test_initiator.h"

using Catch::Matchers::Contains;
using sc_core::SC_NS;
using sc_core::sc_time;

namespace {

constexpr uint64_t kSdramSize = 1 << 20, kHostSize = 1 << 20;

struct Bench {
  m2::Router bus{"bus"};
  m2::Memory sdram{"sdram", kSdramSize};
  m2::Memory host_mem{"host_mem", kHostSize};
  m2::NiPciInterface pci{"pci"};
  m2test::TestInitiator cpu{"cpu"};      // the NI's PowerPC
  m2test::TestInitiator host0{"host0"};  // the host through BAR0
  m2test::TestInitiator host1{"host1"};  // the host through BAR1
  std::vector<bool> doorbell_edges, inta_edges;
  Bench() {
    cpu.socket.bind(bus.target);
    pci.local.bind(bus.target);
    bus.attach(sdram.socket, NI_SDRAM_BASE, kSdramSize, "sdram");
    bus.attach(pci.host_window, NI_HOST_WINDOW_BASE, NI_HOST_WINDOW_SIZE, "host window");
    bus.attach(pci.regs, NI_PCIIF_BASE, NI_DEVICE_SIZE, "pci regs");
    pci.pci_master.bind(host_mem.socket);
    host0.socket.bind(pci.bar0);
    host1.socket.bind(pci.bar1);
    pci.irq_doorbell.connect([this](bool l) { doorbell_edges.push_back(l); });
    pci.inta.connect([this](bool l) { inta_edges.push_back(l); });
    sc_core::sc_start(sc_core::SC_ZERO_TIME);
  }
};

// One b_transport with a caller's delay already running, as an initiator
// with temporal decoupling would send it.
struct Call {
  tlm::tlm_generic_payload t;
  sc_time delay;
  Call(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len, sc_time start) : delay(start) {
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(len);
    t.set_streaming_width(len);
    t.set_byte_enable_ptr(nullptr);
    t.set_dmi_allowed(false);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }
  template <typename Socket>
  Call& through(Socket& s) {
    s->b_transport(t, delay);
    return *this;
  }
};

}  // namespace

TEST_CASE("pci interface: BAR0 reaches NI SDRAM, keeping data, delay and address", "[model][pci_interface]") {
  auto& reg = m2::ParamRegistry::instance();
  reg.preset("sdram.write_latency_ns", "11", {"test"});
  reg.preset("sdram.read_latency_ns", "13", {"test"});
  Bench b;
  uint8_t w[6] = {1, 2, 3, 4, 5, 6};
  Call cw(tlm::TLM_WRITE_COMMAND, 0x1233, w, 6, sc_time(100, SC_NS));
  cw.through(b.host0.socket);
  CHECK(cw.t.get_response_status() == tlm::TLM_OK_RESPONSE);
  CHECK(cw.t.get_address() == 0x1233);  // restored
  CHECK(cw.t.get_data_ptr() == w);
  CHECK(cw.t.get_data_length() == 6);
  CHECK(cw.delay == sc_time(100 + 20 + 11, SC_NS));  // caller + NI bus + SDRAM
  CHECK_FALSE(cw.t.is_dmi_allowed());                // no DMI through PCI
  CHECK(std::memcmp(b.sdram.host() + 0x1233, w, 6) == 0);

  // The NI's own view of the same bytes, and the host reading them back.
  std::vector<uint8_t> r(6);
  REQUIRE(b.cpu.read(NI_SDRAM_BASE + 0x1233, r) == tlm::TLM_OK_RESPONSE);
  CHECK(r == std::vector<uint8_t>(w, w + 6));
  b.sdram.host()[kSdramSize - 1] = 0x77;
  uint8_t last = 0;
  Call cr(tlm::TLM_READ_COMMAND, kSdramSize - 1, &last, 1, sc_time(5, SC_NS));
  cr.through(b.host0.socket);
  CHECK(cr.t.get_response_status() == tlm::TLM_OK_RESPONSE);
  CHECK(last == 0x77);
  CHECK(cr.delay == sc_time(5 + 20 + 13, SC_NS));
}

TEST_CASE("pci interface: BAR0 passes errors back and stays inside its 64 MB", "[model][pci_interface]") {
  Bench b;
  // Inside BAR0 but past this NI bus's SDRAM: the NI bus's answer.
  uint8_t d[4] = {};
  CHECK(b.host0.access(tlm::TLM_READ_COMMAND, kSdramSize, d, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(b.host0.last_address == kSdramSize);
  // Past BAR0: refused without reaching the NI bus (which maps other things
  // there).
  CHECK(b.host0.access(tlm::TLM_WRITE_COMMAND, PCI_NI_BAR0_SIZE, d, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(b.host0.access(tlm::TLM_WRITE_COMMAND, PCI_NI_BAR0_SIZE - 2, d, 4) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  // Debug access works through BAR0 (loaders, debuggers).
  uint8_t x[3] = {9, 8, 7};
  CHECK(b.host0.dbg(tlm::TLM_WRITE_COMMAND, 0x40, x, 3) == 3);
  CHECK(b.sdram.host()[0x42] == 7);
}

TEST_CASE("pci interface: the host window reaches PCI address = offset", "[model][pci_interface]") {
  auto& reg = m2::ParamRegistry::instance();
  reg.preset("host_mem.write_latency_ns", "40", {"test"});
  reg.preset("pci.master_latency_ns", "15", {"test"});
  Bench b;
  std::vector<uint8_t> w{0xDE, 0xAD, 0xBE, 0xEF, 0x01};
  uint8_t* p = w.data();
  Call cw(tlm::TLM_WRITE_COMMAND, NI_HOST_WINDOW_BASE + 0x4321, p, 5, sc_time(7, SC_NS));
  cw.through(b.cpu.socket);
  CHECK(cw.t.get_response_status() == tlm::TLM_OK_RESPONSE);
  CHECK(cw.t.get_address() == NI_HOST_WINDOW_BASE + 0x4321);
  CHECK(cw.t.get_data_ptr() == p);
  CHECK(cw.delay == sc_time(7 + 20 + 15 + 40, SC_NS));  // caller + NI bus + interface + host memory
  CHECK_FALSE(cw.t.is_dmi_allowed());
  CHECK(std::memcmp(b.host_mem.host() + 0x4321, w.data(), 5) == 0);

  b.host_mem.host()[0] = 0x42;
  std::vector<uint8_t> r(1);
  REQUIRE(b.cpu.read(NI_HOST_WINDOW_BASE, r) == tlm::TLM_OK_RESPONSE);
  CHECK(r[0] == 0x42);
  CHECK(b.cpu.last_address == NI_HOST_WINDOW_BASE);

  // The far side's error comes back as it was.
  CHECK(b.cpu.write(NI_HOST_WINDOW_BASE + kHostSize - 2, {1, 2, 3, 4}) == tlm::TLM_ADDRESS_ERROR_RESPONSE);
  CHECK(b.cpu.last_address == NI_HOST_WINDOW_BASE + kHostSize - 2);
  uint8_t be[2] = {0xFF, 0};
  uint8_t d[2] = {};
  CHECK(b.cpu.access(tlm::TLM_WRITE_COMMAND, NI_HOST_WINDOW_BASE, d, 2, nullptr, be, 2) ==
        tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
  // No DMI into host memory from the NI.
  tlm::tlm_dmi dmi;
  CHECK_FALSE(b.cpu.dmi(NI_HOST_WINDOW_BASE, dmi));
  // Debug access goes through.
  uint8_t x[2] = {};
  CHECK(b.cpu.dbg(tlm::TLM_READ_COMMAND, NI_HOST_WINDOW_BASE + 0x4321, x, 2) == 2);
  CHECK(x[1] == 0xAD);
}

TEST_CASE("pci interface: BAR0 and BAR1 add target_latency_ns, NI registers access_ns", "[model][pci_interface]") {
  auto& reg = m2::ParamRegistry::instance();
  reg.preset("pci.target_latency_ns", "60", {"test"});
  reg.preset("pci.access_ns", "9", {"test"});
  Bench b;
  sc_time d;
  std::vector<uint8_t> r(4);
  REQUIRE(b.host0.read(0, r, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_time(60 + 20, SC_NS));
  REQUIRE(b.host1.read(NIPCI_ID, r, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_time(60, SC_NS));
  REQUIRE(b.cpu.read(NI_PCIIF_BASE + NIPCI_ID, r, &d) == tlm::TLM_OK_RESPONSE);
  CHECK(d == sc_time(20 + 9, SC_NS));
}

TEST_CASE("pci interface: one register page, big-endian for the NI, little-endian for the host",
          "[model][pci_interface]") {
  Bench b;
  std::vector<uint8_t> r(4);
  REQUIRE(b.cpu.read(NI_PCIIF_BASE + NIPCI_ID, r) == tlm::TLM_OK_RESPONSE);
  CHECK(r == std::vector<uint8_t>{0x4D, 0x32, 0x00, 0x01});
  REQUIRE(b.host1.read(NIPCI_ID, r) == tlm::TLM_OK_RESPONSE);
  CHECK(r == std::vector<uint8_t>{0x01, 0x00, 0x32, 0x4D});
  CHECK(b.host1.read32(NIPCI_ID, false) == NIPCI_ID_VALUE);

  // Mailboxes: what one side writes the other reads, as the same value.
  REQUIRE(b.cpu.write32(NI_PCIIF_BASE + NIPCI_MAILBOX(0), 0x11223344) == tlm::TLM_OK_RESPONSE);
  CHECK(b.host1.read32(NIPCI_MAILBOX(0), false) == 0x11223344u);
  REQUIRE(b.host1.write32(NIPCI_MAILBOX(7), 0xCAFEBABE, false) == tlm::TLM_OK_RESPONSE);
  CHECK(b.cpu.read32(NI_PCIIF_BASE + NIPCI_MAILBOX(7)) == 0xCAFEBABEu);
  CHECK(b.pci.mailbox(7) == 0xCAFEBABEu);
  CHECK(b.pci.mailbox(1) == 0);

  // Register rules on both sides.
  CHECK(b.host1.write32(NIPCI_ID, 0, false) == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK(b.cpu.write32(NI_PCIIF_BASE + NIPCI_MAILBOX(8), 0) == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK(b.host1.write(NIPCI_MAILBOX(1), {1}) == tlm::TLM_GENERIC_ERROR_RESPONSE);
}

TEST_CASE("pci interface: the host rings the doorbell, the NI acknowledges", "[model][pci_interface]") {
  Bench b;
  const uint64_t ni_db = NI_PCIIF_BASE + NIPCI_DOORBELL;
  REQUIRE(b.host1.write32(NIPCI_DOORBELL, 0x5, false) == tlm::TLM_OK_RESPONSE);
  CHECK(b.pci.irq_doorbell.level());
  CHECK(b.cpu.read32(ni_db) == 0x5);
  REQUIRE(b.host1.write32(NIPCI_DOORBELL, 0x80000002, false) == tlm::TLM_OK_RESPONSE);  // ORed in
  CHECK(b.cpu.read32(ni_db) == 0x80000007u);
  CHECK(b.host1.read32(NIPCI_DOORBELL, false) == 0x80000007u);
  // The NI clears by writing 1s.
  REQUIRE(b.cpu.write32(ni_db, 0x1) == tlm::TLM_OK_RESPONSE);
  CHECK(b.cpu.read32(ni_db) == 0x80000006u);
  CHECK(b.pci.irq_doorbell.level());
  REQUIRE(b.cpu.write32(ni_db, 0x80000006) == tlm::TLM_OK_RESPONSE);
  CHECK(b.cpu.read32(ni_db) == 0);
  CHECK_FALSE(b.pci.irq_doorbell.level());
  // A host write of 0 rings nothing.
  REQUIRE(b.host1.write32(NIPCI_DOORBELL, 0, false) == tlm::TLM_OK_RESPONSE);
  CHECK_FALSE(b.pci.irq_doorbell.level());
  CHECK(b.doorbell_edges == std::vector<bool>{true, false});
  CHECK(b.inta_edges.empty());
}

TEST_CASE("pci interface: the NI raises INTA through HOST_IRQ, the host acknowledges", "[model][pci_interface]") {
  Bench b;
  const uint64_t ni_hi = NI_PCIIF_BASE + NIPCI_HOST_IRQ;
  REQUIRE(b.cpu.write32(ni_hi, 0x1) == tlm::TLM_OK_RESPONSE);
  CHECK(b.pci.inta.level());
  REQUIRE(b.cpu.write32(ni_hi, 0x4) == tlm::TLM_OK_RESPONSE);  // ORed in
  CHECK(b.host1.read32(NIPCI_HOST_IRQ, false) == 0x5);
  CHECK(b.cpu.read32(ni_hi) == 0x5);
  REQUIRE(b.host1.write32(NIPCI_HOST_IRQ, 0x1, false) == tlm::TLM_OK_RESPONSE);  // write-1-clears
  CHECK(b.pci.host_irq() == 0x4);
  CHECK(b.pci.inta.level());
  REQUIRE(b.host1.write32(NIPCI_HOST_IRQ, 0x4, false) == tlm::TLM_OK_RESPONSE);
  CHECK_FALSE(b.pci.inta.level());
  CHECK(b.inta_edges == std::vector<bool>{true, false});
  CHECK(b.doorbell_edges.empty());
}

TEST_CASE("pci interface: a host write annotated with a delay rings the doorbell at that time, not before",
          "[model][pci_interface]") {
  Bench b;
  uint8_t ring[4] = {0x1, 0, 0, 0};  // little-endian 1
  Call(tlm::TLM_WRITE_COMMAND, NIPCI_DOORBELL, ring, 4, sc_time(200, SC_NS)).through(b.host1.socket);
  CHECK_FALSE(b.pci.irq_doorbell.level());  // still on the bus
  sc_core::sc_start(sc_time(199, SC_NS));
  CHECK_FALSE(b.pci.irq_doorbell.level());
  sc_core::sc_start(sc_time(2, SC_NS));  // past 200 ns (activity at the end time itself does not run)
  CHECK(b.pci.irq_doorbell.level());
  CHECK(b.pci.doorbell() == 0x1);

  // A host read of the page comes after the writes before it on the bus: it
  // sees them, and they take effect then.
  uint8_t mbox[4] = {0x78, 0x56, 0x34, 0x12};
  Call(tlm::TLM_WRITE_COMMAND, NIPCI_MAILBOX(0), mbox, 4, sc_time(500, SC_NS)).through(b.host1.socket);
  CHECK(b.pci.mailbox(0) == 0);
  uint8_t got[4] = {};
  Call(tlm::TLM_READ_COMMAND, NIPCI_MAILBOX(0), got, 4, sc_time(600, SC_NS)).through(b.host1.socket);
  CHECK(b.pci.mailbox(0) == 0x12345678u);
  CHECK(std::memcmp(got, mbox, 4) == 0);
  CHECK(b.doorbell_edges == std::vector<bool>{true});
}
