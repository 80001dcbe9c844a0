// Tests of the socket layer of outside programs (sw/host/exec/shim/sockets.c,
// host_names.c, sw/host/exec/socket_calls.cpp; docs/tcpip.md, "Sockets of
// outside programs"): the C program sock_probe, plain POSIX sockets, runs
// unmodified on two simulated hosts through the preloaded libm2vp_exec.so,
// exactly as Debian's NPtcp does. The hosts' TCP sockets are a TEST DOUBLE
// (loopback_sockets_double.h), not the platform's stack: what is tested is
// that every call reaches the host's sockets and comes back as Linux says.
#include <catch2/catch.hpp>

#include <signal.h>
#include <unistd.h>
#include <stdlib.h>

#include <fstream>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "core/memory.h"
#include "core/params.h"
#include "core/run_control.h"
#include "host/host_cpu.h"
#include "log_capture.h"
#include "loopback_sockets_double.h"
#include "temp_dir.h"
#include "test_initiator.h"

namespace {

// A node with only its host ("node0.host", as in the platform), its memory
// and a memory standing for the PCI bus behind the host's programmed I/O.
struct HostOnlyNode : sc_core::sc_module {
  m2::Memory mem{"mem", 128 << 20}, dev{"dev", 0x1000};
  m2test::TestInitiator dma{"dma"};  // the host memory's PCI side (unused here)
  m2::HostCpu host;
  HostOnlyNode(sc_core::sc_module_name name, m2::RunControl& run, int id)
      : sc_module(name), host("host", run, mem, 0, id, 2) {
    host.pio.bind(dev.socket);
    dma.socket.bind(mem.socket);
  }
};

// Two hosts, node0 and node1, each running sock_probe (node0 "server CASE",
// node1 "client CASE"), joined by the loopback double unless `tcpip` is false.
struct TwoHosts {
  TempDir out{"m2vp-sockets"};
  m2test::LogCapture log{"exec-sockets"};
  m2::RunControl run;
  m2test::LoopbackNetwork net;
  m2test::LoopbackSocketsDouble sockets0{net, 0}, sockets1{net, 1};
  std::unique_ptr<HostOnlyNode> node0, node1;
  m2::HostCpu *host0 = nullptr, *host1 = nullptr;

  explicit TwoHosts(const std::string& test, bool tcpip = true)
      : TwoHosts(M2VP_SOCK_PROBE, "server " + test, "client " + test, tcpip) {}

  // Any program: node0 runs `program args0`, node1 `program args1`.
  TwoHosts(const std::string& program, const std::string& args0, const std::string& args1, bool tcpip = true) {
    ::setenv("M2VP_LIB_DIR", M2VP_TEST_LIB_DIR, 1);
    auto& reg = m2::ParamRegistry::instance();
    reg.preset("node0.host.exec", program, {"test"});
    reg.preset("node0.host.args", args0, {"test"});
    reg.preset("node1.host.exec", program, {"test"});
    reg.preset("node1.host.args", args1, {"test"});
    m2::HostCpu::set_output_dir(out.path.string());
    node0 = std::make_unique<HostOnlyNode>("node0", run, 0);
    node1 = std::make_unique<HostOnlyNode>("node1", run, 1);
    host0 = &node0->host;
    host1 = &node1->host;
    host0->configure_program("");
    host1->configure_program("");
    if (tcpip) {
      host0->set_sockets(&sockets0);
      host1->set_sockets(&sockets1);
    }
    tlm::tlm_global_quantum::instance().set(sc_core::sc_time(1, sc_core::SC_US));
  }

  void simulate() { sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_SEC), sc_core::SC_EXIT_ON_STARVATION); }

  bool said(const m2::HostCpu& h, const std::string& line) const {
    for (const std::string& l : h.console.lines())
      if (l.find(line) != std::string::npos) return true;
    return false;
  }
  std::string output(const m2::HostCpu& h) const {
    std::string s;
    for (const std::string& l : h.console.lines()) s += l;
    return s;
  }
  // The programs' pids, after the platform is gone (as at the simulator's
  // end: each host's program is stopped with it).
  std::vector<int> end_programs() {
    const std::vector<int> pids{pid(0), pid(1)};
    host0 = host1 = nullptr;
    node0.reset();
    node1.reset();
    return pids;
  }
  int pid(int node) const {
    std::ifstream f(out.path / ("node" + std::to_string(node)) / "pid");
    int p = -1;
    f >> p;
    return p;
  }
  // Whether process `p` still runs (a zombie does not count: its parent, this
  // test, reaped it or it is gone).
  static bool running(int p) {
    if (p <= 0) return false;
    std::ifstream f("/proc/" + std::to_string(p) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t paren = stat.rfind(')');
    return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
  }
};

}  // namespace

TEST_CASE("sockets of outside programs: connect, accept, data both ways, names, options, readiness",
          "[exec][sockets]") {
  TwoHosts t("transfer");
  t.simulate();
  INFO("node0: " << t.output(*t.host0) << "\nnode1: " << t.output(*t.host1) << "\nlog: " << t.log.text());
  REQUIRE(t.run.finished());
  CHECK(t.run.exit_code() == 0);
  CHECK(t.said(*t.host0, "ok transfer"));
  CHECK(t.said(*t.host1, "ok transfer"));
  // 200000 bytes each way at 10 us per send of the double: time passed.
  CHECK(t.run.last_exit_time() > sc_core::sc_time(1, sc_core::SC_MS));
  for (int p : t.end_programs()) CHECK_FALSE(TwoHosts::running(p));
}

TEST_CASE("sockets of outside programs: ECONNREFUSED, EADDRINUSE, one port on two hosts", "[exec][sockets]") {
  TwoHosts t("errors");
  t.simulate();
  INFO("node0: " << t.output(*t.host0) << "\nnode1: " << t.output(*t.host1) << "\nlog: " << t.log.text());
  REQUIRE(t.run.finished());
  CHECK(t.run.exit_code() == 0);
  CHECK(t.said(*t.host0, "ok errors"));
  CHECK(t.said(*t.host1, "ok errors"));
  for (int p : t.end_programs()) CHECK_FALSE(TwoHosts::running(p));
}

TEST_CASE("sockets of outside programs: a program that exits leaves its peer end of file", "[exec][sockets]") {
  TwoHosts t("eof");
  t.simulate();
  INFO("node0: " << t.output(*t.host0) << "\nnode1: " << t.output(*t.host1) << "\nlog: " << t.log.text());
  REQUIRE(t.run.finished());
  CHECK(t.run.exit_code() == 0);
  CHECK(t.said(*t.host0, "ok eof"));
  CHECK(t.sockets1.closes == 1);  // the simulator closed what the client left open
  for (int p : t.end_programs()) CHECK_FALSE(TwoHosts::running(p));
}

TEST_CASE("sockets of outside programs: data left unread resets the peer (ECONNRESET)", "[exec][sockets]") {
  TwoHosts t("reset");
  t.simulate();
  INFO("node0: " << t.output(*t.host0) << "\nnode1: " << t.output(*t.host1) << "\nlog: " << t.log.text());
  REQUIRE(t.run.finished());
  CHECK(t.run.exit_code() == 0);
  CHECK(t.said(*t.host1, "ok reset"));
  CHECK(t.sockets0.closes == 2);  // the listener and the accepted socket
  for (int p : t.end_programs()) CHECK_FALSE(TwoHosts::running(p));
}

TEST_CASE("sockets of outside programs: a program killed mid-transfer is reported, its sockets closed",
          "[exec][sockets]") {
  TwoHosts t("killed");
  t.simulate();
  const std::string log = t.log.text();
  INFO("node0: " << t.output(*t.host0) << "\nnode1: " << t.output(*t.host1) << "\nlog: " << log);
  REQUIRE(t.run.finished());
  CHECK(t.run.exit_code() != 0);
  CHECK(log.find("node1.host: program sock_probe (") != std::string::npos);
  CHECK(log.find("was killed by signal 9 (Killed) (the 1 socket(s) it left open were closed)") != std::string::npos);
  CHECK(t.sockets1.closes == 1);
  for (int p : t.end_programs()) CHECK_FALSE(TwoHosts::running(p));
}

TEST_CASE("sockets of outside programs: an unsupported call ends the run naming it", "[exec][sockets]") {
  TwoHosts t("unsupported");
  t.simulate();
  const std::string log = t.log.text();
  INFO("log: " << log);
  REQUIRE(t.run.finished());
  CHECK(t.run.exit_code() != 0);
  CHECK(log.find("node1.host: program sock_probe (") != std::string::npos);
  CHECK(log.find("called socket(AF_INET, type 2) (only SOCK_STREAM: TCP), which the platform's socket layer does "
                 "not support") != std::string::npos);
  CHECK_FALSE(t.said(*t.host1, "a UDP socket ends the run"));
  for (int p : t.end_programs()) CHECK_FALSE(TwoHosts::running(p));
}

TEST_CASE("sockets of outside programs: a host without TCP/IP says so", "[exec][sockets]") {
  TwoHosts t("transfer", false);
  t.simulate();
  const std::string log = t.log.text();
  INFO("log: " << log);
  REQUIRE(t.run.finished());
  CHECK(t.run.exit_code() != 0);
  CHECK(log.find("this host has no TCP/IP: set node*.ni.firmware: eth") != std::string::npos);
  for (int p : t.end_programs()) CHECK_FALSE(TwoHosts::running(p));
}

TEST_CASE("sockets of outside programs: Debian's NPtcp runs unmodified through the layer", "[exec][sockets]") {
  // The program the layer is for (./m2vp installs netpipe-tcp), over the test
  // double: node1 receives (listens), node0 transmits (-h node1) and writes
  // np.out. Its figures are the double's, not a prediction: only that it runs
  // and measures in simulated time is checked here.
  REQUIRE(::access("/usr/bin/NPtcp", X_OK) == 0);
  // Both ends step through the same sizes (-p, -u); the transmitter tells the
  // receiver the repetitions.
  TwoHosts t("/usr/bin/NPtcp", "-h node1 -n 2 -p 0 -u 1024 -o np.out", "-p 0 -u 1024");
  t.simulate();
  INFO("node0: " << t.host0->state() << "\nnode1: " << t.host1->state());
  INFO("node0: " << t.output(*t.host0) << "\nnode1: " << t.output(*t.host1) << "\nlog: " << t.log.text());
  REQUIRE(t.run.finished());
  CHECK(t.run.exit_code() == 0);
  std::ifstream np(t.out.path / "node0" / "np.out");
  long long bytes = 0, last = 0;
  double mbps = 0, seconds = 0;
  size_t lines = 0;
  while (np >> bytes >> mbps >> seconds) {
    ++lines;
    last = bytes;
    // The double's fixed 10 us per crossing: a one-way time of at least that.
    CHECK(seconds >= 10e-6);
  }
  CHECK(lines >= 10);
  CHECK(last == 1024);
  for (int p : t.end_programs()) CHECK_FALSE(TwoHosts::running(p));
}
