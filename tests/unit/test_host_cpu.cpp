// Unit tests for the host CPU thread and the host environment
// (models/host/host_cpu.*, host_env.*): applications run natively in a
// SystemC thread and every host-side cost lands in simulated time.
// A Memory stands in for the PCI bus behind the host's programmed I/O.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "core/memory.h"
#include "core/params.h"
#include "core/run_control.h"
#include "host/host_cpu.h"
#include "host/host_env.h"

#include "test_initiator.h"

namespace {

// What the test applications measured, checked after the run.
struct Observed {
  std::vector<double> t;  // time stamps (us)
  std::vector<int> rc;    // return codes
  std::vector<uint32_t> values;
  std::string argv;
} g_seen;

void stamp() { g_seen.t.push_back(m2host_now_us()); }

int app_costs(int argc, char** argv) {
  for (int i = 0; i < argc; ++i) g_seen.argv += std::string(i ? " " : "") + argv[i];
  stamp();                      // 0
  m2host_compute_ns(1500);      // 1.5 us
  stamp();                      // 1
  m2host_compute_cycles(2000);  // 2 us at 1 GHz
  stamp();                      // 2
  static char a[3000], b[3000];
  std::memset(a, 0x5A, sizeof a);
  m2host_memcpy(b, a, sizeof b);  // 40 ns + 3000 B / 300 MB/s = 10.04 us
  g_seen.rc.push_back(std::memcmp(a, b, sizeof a));
  stamp();              // 3
  m2host_pin_pages(2);  // 260 us
  stamp();              // 4
  m2host_syscall();     // 1 us
  stamp();              // 5
  m2host_result("answer", 42);
  return 7;
}
M2HOST_APP(test_costs, app_costs, "host cost annotations")

int app_pci(int, char**) {
  uint64_t bus = 0;
  uint8_t* p = static_cast<uint8_t*>(m2host_phys_alloc(10000, &bus));
  g_seen.rc.push_back(p != nullptr);
  g_seen.values.push_back(static_cast<uint32_t>(bus));
  uint64_t back = 0;
  g_seen.rc.push_back(m2host_bus_address(p + 5, &back));
  g_seen.values.push_back(static_cast<uint32_t>(back));
  int local = 0;
  g_seen.rc.push_back(m2host_bus_address(&local, &back));  // not host physical memory
  // Programmed I/O to the "device" (a Memory): little-endian words, blocks.
  g_seen.rc.push_back(m2host_pci_write32(0x100, 0x11223344));
  uint32_t v = 0;
  g_seen.rc.push_back(m2host_pci_read32(0x100, &v));
  g_seen.values.push_back(v);
  uint8_t block[100], out[100];
  for (int i = 0; i < 100; ++i) block[i] = static_cast<uint8_t>(i * 7 + 1);
  g_seen.rc.push_back(m2host_pci_write(0x203, block, sizeof block));
  g_seen.rc.push_back(m2host_pci_read(0x203, out, sizeof out));
  g_seen.rc.push_back(std::memcmp(block, out, sizeof block));
  g_seen.rc.push_back(m2host_pci_write32(0x10000000, 1));  // outside the device: master abort
  m2host_phys_free(p);
  return 0;
}
M2HOST_APP(test_pci, app_pci, "host programmed I/O")

uint32_t* g_flag = nullptr;

int app_wait(int, char**) {
  uint64_t bus = 0;
  g_flag = static_cast<uint32_t*>(m2host_phys_alloc(4, &bus));
  *g_flag = 0;
  stamp();  // 0: after the allocation's system call
  g_seen.rc.push_back(m2host_poll32(g_flag, 0xFF, 0x2A, -1));
  stamp();  // 1: the poll saw the write at 50 us
  g_seen.rc.push_back(m2host_poll32(g_flag, 0xFF, 0x99, 20));
  stamp();  // 2: timed out
  g_seen.rc.push_back(m2host_wait_interrupt(30));
  stamp();  // 3: timed out
  g_seen.rc.push_back(m2host_wait_interrupt(-1));
  stamp();  // 4: interrupt at 200 us + wake-up
  return 0;
}
M2HOST_APP(test_wait, app_wait, "host polling and interrupts")

// The "rest of the platform" for app_wait: DMA-like writes and an interrupt.
struct Stimulus : sc_core::sc_module {
  SC_HAS_PROCESS(Stimulus);
  Stimulus(sc_core::sc_module_name n, m2::HostCpu& h) : sc_module(n), host(h) { SC_THREAD(run); }
  void run() {
    wait(10, sc_core::SC_US);
    *g_flag = 0x1;  // not yet the value
    host.memory_written();
    wait(40, sc_core::SC_US);
    *g_flag = 0x2A;
    host.memory_written();
    wait(150, sc_core::SC_US);
    host.pci_interrupt(true);
  }
  m2::HostCpu& host;
};

struct Bench {
  m2::RunControl run;
  m2::Memory memory{"host_memory", 64 << 20};
  m2::Memory device{"device", 0x10000};
  m2::HostCpu host;
  m2test::TestInitiator dma{"dma"};  // host memory's PCI side (unused here)
  Bench(const char* app, const char* args = "")
      : host(((m2::ParamRegistry::instance().preset("host0.app", app, {"test"}),
               m2::ParamRegistry::instance().preset("host0.args", args, {"test"})),
              "host0"),
             run, memory, 0, 0, 1) {
    host.pio.bind(device.socket);
    dma.socket.bind(memory.socket);
    tlm::tlm_global_quantum::instance().set(sc_core::sc_time(1, sc_core::SC_US));
  }
};

}  // namespace

TEST_CASE("host CPU charges computation, copies, pinning and system calls", "[model][host]") {
  Bench b("test_costs", "-n  5 x");
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC), sc_core::SC_EXIT_ON_STARVATION);
  REQUIRE(b.run.finished());
  CHECK(b.run.exit_code() == 7);
  CHECK(g_seen.argv == "test_costs -n 5 x");
  REQUIRE(g_seen.t.size() == 6);
  CHECK(g_seen.t[0] == Approx(0.0));
  CHECK(g_seen.t[1] - g_seen.t[0] == Approx(1.5));
  CHECK(g_seen.t[2] - g_seen.t[1] == Approx(2.0));
  CHECK(g_seen.t[3] - g_seen.t[2] == Approx(10.04));
  CHECK(g_seen.rc[0] == 0);  // the copy happened
  CHECK(g_seen.t[4] - g_seen.t[3] == Approx(260.0));
  CHECK(g_seen.t[5] - g_seen.t[4] == Approx(1.0));
  // The exit is stamped at the host's time, after everything it charged.
  CHECK(b.run.last_exit_time().to_seconds() * 1e6 == Approx(g_seen.t[5]));
  REQUIRE(b.run.results().size() == 1);
  CHECK(b.run.results()[0].source == "host0");
  CHECK(b.run.results()[0].key == "answer");
  CHECK(b.run.results()[0].value == 42);
}

TEST_CASE("host physical memory and programmed I/O", "[model][host]") {
  Bench b("test_pci");
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC), sc_core::SC_EXIT_ON_STARVATION);
  REQUIRE(b.run.finished());
  CHECK(b.run.exit_code() == 0);
  REQUIRE(g_seen.rc.size() == 9);
  CHECK(g_seen.rc[0] == 1);
  CHECK(g_seen.values[0] == 0x100000);  // first page above the kernel's first MB
  CHECK(g_seen.rc[1] == 0);
  CHECK(g_seen.values[1] == 0x100005);
  CHECK(g_seen.rc[2] == -1);  // a native stack variable has no bus address
  CHECK(g_seen.rc[3] == 0);
  CHECK(g_seen.rc[4] == 0);
  CHECK(g_seen.values[2] == 0x11223344);
  // PCI is little-endian: the device holds the low byte first.
  const uint8_t* dev = b.device.host();
  CHECK((dev[0x100] == 0x44 && dev[0x101] == 0x33 && dev[0x102] == 0x22 && dev[0x103] == 0x11));
  CHECK(dev[0x203] == 1);
  CHECK(dev[0x203 + 99] == static_cast<uint8_t>(99 * 7 + 1));
  CHECK(g_seen.rc[5] == 0);
  CHECK(g_seen.rc[6] == 0);
  CHECK(g_seen.rc[7] == 0);   // block written and read back intact
  CHECK(g_seen.rc[8] == -1);  // master abort reported, no crash
}

TEST_CASE("host polls a flag written by DMA and waits for the PCI interrupt", "[model][host]") {
  Bench b("test_wait");
  Stimulus stim("stim", b.host);
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_SEC), sc_core::SC_EXIT_ON_STARVATION);
  REQUIRE(b.run.finished());
  REQUIRE(g_seen.t.size() == 5);
  CHECK(g_seen.t[0] == Approx(1.0));  // the allocation's system call
  CHECK(g_seen.rc[0] == 0);
  CHECK(g_seen.t[1] == Approx(50.1));  // seen at 50 us, plus one poll
  CHECK(g_seen.rc[1] == -1);
  CHECK(g_seen.t[2] == Approx(70.2).margin(0.2));  // 20 us timeout
  CHECK(g_seen.rc[2] == -1);
  CHECK(g_seen.t[3] == Approx(101.2).margin(0.2));  // system call + 30 us timeout
  CHECK(g_seen.rc[3] == 0);
  CHECK(g_seen.t[4] == Approx(208.0));  // interrupt at 200 us + 8 us wake-up
}
