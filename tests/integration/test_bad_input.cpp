// Regression tests for the inputs that crashed, hung or were misread when
// the simulator was probed as a new user and as an attacker would (issue 14):
// every one must end at once with exit code 64 (configuration error) and a
// message naming the file or option, the key and what was expected.
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <regex>
#include <sstream>
#include <string>

#include "run_sim.h"

using namespace m2it;

namespace {

constexpr int EXIT_CONFIG = 64, EXIT_FAULT = 65;
const std::string kCluster4 = std::string(M2VP_SOURCE_DIR) + "/configs/cluster-4.yaml";

// Runs `args`, expecting a configuration error whose text contains every
// piece of `expected`; a short timeout: none of these may hang.
SimResult expect_config_error(Sandbox& sb, const std::vector<std::string>& args,
                              const std::vector<std::string>& expected) {
  SimResult r = sb.run(args, true, 20);
  INFO(r.describe());
  CHECK(r.exited(EXIT_CONFIG));
  CHECK_FALSE(contains(r.err, "internal error"));
  for (const std::string& e : expected) CHECK(contains(r.err, e));
  return r;
}

}  // namespace

TEST_CASE("bad input: a YAML alias that contains itself is an error, for run and params", "[integration][bad-input]") {
  Sandbox sb;
  const std::string cfg = sb.write("alias.yaml", "platform: cluster\ntopology: &t {nodes: 4, self: *t}\n").string();
  for (const char* cmd : {"run", "params"})
    expect_config_error(
        sb, {cmd, cfg},
        {cfg + ":2: key 'topology.self.self", "nests deeper than 32 levels", "alias that contains itself"});
}

TEST_CASE("bad input: nesting beyond the YAML reader and keys over 1024 characters say so",
          "[integration][bad-input]") {
  Sandbox sb;
  const std::string deep = sb.write("deep.yaml", "a: " + std::string(600, '[') + std::string(600, ']') + "\n").string();
  expect_config_error(sb, {"run", deep}, {deep + ":1:", "nested 500 deep, more than the YAML reader allows"});
  const std::string long_key = sb.write("long.yaml", std::string(1100, 'k') + ": 1\n").string();
  expect_config_error(sb, {"run", long_key}, {long_key + ":1:", "a key longer than 1024 characters"});
}

TEST_CASE("bad input: named pipes and devices as config or firmware are refused at once", "[integration][bad-input]") {
  Sandbox sb;
  const fs::path fifo = sb.dir() / "pipe.yaml";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  expect_config_error(sb, {"run", fifo.string()},
                      {fifo.string() + ": cannot open config file: it is a named pipe, expected a regular file"});
  const std::string fw_pipe = sb.config(fifo.string(), "", "fw-pipe.yaml").string();
  expect_config_error(sb, {"run", fw_pipe},
                      {fw_pipe + ":3: key 'ni0.firmware'", "cannot open firmware ELF: it is a named pipe"});
  const std::string zero = sb.config("/dev/zero", "", "zero.yaml").string();
  const SimResult r = expect_config_error(
      sb, {"run", zero}, {"/dev/zero: cannot open firmware ELF: it is a character device, expected a regular file"});
  CHECK(r.wall_seconds < 10 * kWallScale);
}

TEST_CASE("bad input: an empty or comments-only config says it is empty", "[integration][bad-input]") {
  Sandbox sb;
  for (const std::string& text : {std::string(), std::string("# nothing but a comment\n")}) {
    const std::string cfg = sb.write("empty.yaml", text).string();
    expect_config_error(sb, {"run", cfg}, {cfg + ": the config is empty", "expected at least 'platform:'"});
  }
}

TEST_CASE("bad input: lists where one value belongs", "[integration][bad-input]") {
  Sandbox sb;
  const std::string a = sb.write("a.yaml", "platform: [cluster]\n").string();
  expect_config_error(sb, {"run", a}, {a + ":1: key 'platform': expected one enum value, got a list [cluster]"});
  const std::string b = sb.config("exit_code", "sim:\n  max_time_ms: [1]\n", "b.yaml").string();
  expect_config_error(sb, {"run", b}, {b + ":5: key 'sim.max_time_ms': expected one double value, got a list [1]"});
}

TEST_CASE("bad input: a tie-order perturbation period too short to advance time", "[integration][bad-input]") {
  Sandbox sb;
  const std::string cfg = sb.config("exit_code").string();
  for (const char* period : {"0.0001", "5"}) {
    INFO(period);
    expect_config_error(sb, {"run", cfg, "--set", std::string("sim.perturb_ns=") + period},
                        {"--set: key 'sim.perturb_ns' =", "expected 0 (none) or at least 10 ns"});
  }
  expect_config_error(sb, {"run", cfg, "--set", "sim.perturb_ns=-1"}, {"sim.perturb_ns"});
}

TEST_CASE("bad input: a trace window that starts after it ends", "[integration][bad-input]") {
  Sandbox sb;
  const std::string cfg = sb.config("exit_code").string();
  expect_config_error(sb, {"run", cfg, "--set", "sim.trace_from_us=50", "--set", "sim.trace_to_us=10"},
                      {"--set: key 'sim.trace_from_us' = 50 us is not before sim.trace_to_us = 10 us"});
}

TEST_CASE("bad input: topology.links errors name the real problem and where the value came from",
          "[integration][bad-input]") {
  Sandbox sb;
  const std::vector<std::string> base{"run", kCluster4, "--set", "topology.switch_boxes=1", "--set"};
  auto links = [&](const std::string& l) {
    std::vector<std::string> a = base;
    a.push_back("topology.links=" + l);
    return a;
  };
  // A number too large for an int: a clear range error, not an internal error (exit 70).
  expect_config_error(
      sb, links("node99999999999:sb0.0 node1:sb0.1 node2:sb0.2 node3:sb0.3"),
      {"--set: impossible topology: link 'node99999999999:sb0.0' names node99999999999 but there are 4 nodes"});
  expect_config_error(sb, links("node0:sb0.0 node0:sb0.1 node1:sb0.2 node2:sb0.3 node3:sb0.4"),
                      {"--set: impossible topology: node0 is cabled twice (to sb0.0 and to sb0.1)"});
  expect_config_error(sb, links("node0:sb0.0 node1:sb0.0 node2:sb0.2 node3:sb0.3"),
                      {"--set: impossible topology: port sb0.0 is used twice (cabled to node0 and to node1)"});
  expect_config_error(sb, links("node0:sb0.0 node1:sb0.1 node2:sb0.2 node3:sb0.3 sb0.4:sb0.5"),
                      {"cable sb0.4:sb0.5 connects two ports of the same switch box"});
  // From the file, the error names the file's line of topology.links.
  const std::string file = sb.write("links.yaml",
                                    "platform: cluster\ntopology:\n  nodes: 2\n  switch_boxes: 1\n"
                                    "  links: node0:sb0.0 node0:sb0.1\n")
                               .string();
  expect_config_error(sb, {"run", file}, {file + ":5: impossible topology: node0 is cabled twice"});
}

TEST_CASE("bad input: switch boxes of different sizes in one cluster", "[integration][bad-input]") {
  // Once an internal error (exit 70) from a port the smaller box lacks.
  Sandbox sb;
  expect_config_error(
      sb, {"run", kCluster4, "--set", "topology.switch_boxes=2", "--set", "sb1.ports=4"},
      {"every switch box of a cluster needs the same number of ports: sb0.ports = 8 (variant maestro2), "
       "sb1.ports = 4 (--set)"});
  expect_config_error(sb, {"run", kCluster4, "--set", "topology.switch_boxes=2", "--set", "sb1.variant=maestro1"},
                      {"sb1.ports = 4 (variant maestro1)"});
}

TEST_CASE("bad input: malformed topology.groups", "[integration][bad-input]") {
  Sandbox sb;
  const std::vector<std::pair<std::string, std::string>> cases{
      {"1=", "'1=' has no member nodes"},
      {"1=0,0,0", "'1=0,0,0' names node 0 twice"},
      {"1=0,1x", "'1=0,1x' has '1x' where a node number belongs"},
      {"1=0;1=2", "'1=2' gives group 1 a second time"},
      {"99999999999=0", "has no group number before '='"},
  };
  for (const auto& [value, why] : cases)
    expect_config_error(sb, {"run", kCluster4, "--set", "topology.groups=" + value},
                        {"--set: key 'topology.groups': ", why, "(expected GROUP=NODE,NODE,..., e.g. '1=0,2,3')"});
}

TEST_CASE("bad input: an application size that does not fit is refused, not wrapped", "[integration][bad-input]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", std::string(M2VP_SOURCE_DIR) + "/configs/mmp-pingpong.yaml", "--set",
                              "node*.host.args=--sizes 99999999999999999999"},
                             true, 60);
  INFO(r.describe());
  CHECK(r.exited(2));
  CHECK(contains(r.file("run.log"), "mmp_pingpong: bad arguments (expected --sizes 1,64,2k,... each at most 1024M"));
}

TEST_CASE("bad input: a stack overflow is named in the fault report", "[integration][bad-input]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", sb.config("fault_stack_overflow").string()}, true, 60);
  INFO(r.describe());
  CHECK(r.exited(EXIT_FAULT));
  CHECK(contains(r.err, "error: firmware fault on ni0.cpu: "));
  CHECK(std::regex_search(
      r.err,
      std::regex(
          R"(\n  stack:     the stack pointer 0x[0-9a-f]+ is below __stack_limit 0x03ff0000: the stack has probably overflowed)")));
}

TEST_CASE("bad input: --quiet still tells a failed run and that the CPU waits for GDB", "[integration][bad-input]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", sb.config("exit_code").string(), "--quiet"});
  INFO(r.describe());
  CHECK(r.exited(3));
  CHECK_FALSE(contains(r.out, "exiting with 3"));  // firmware output stays quiet
  CHECK(contains(r.err, "firmware exited with a non-zero code (exit code 3)"));

  // Waiting for GDB is announced even with --quiet; a second client is refused
  // while one is attached.
  const int port = 40000 + ::getpid() % 20000;
  auto sim = sb.start({"run", sb.config("exit_code").string(), "--quiet", "--gdb", "ni0.cpu=" + std::to_string(port)});
  auto try_connect = [&](double timeout_s) {
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
      const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(static_cast<uint16_t>(port));
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
      ::close(fd);
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > timeout_s * kWallScale)
        return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  };
  const int first = try_connect(20);
  REQUIRE(first >= 0);
  // The server accepts the first client and closes its port: wait for that.
  int second = -1;
  for (int i = 0; i < 100; ++i) {
    second = try_connect(0);
    if (second < 0) break;
    ::close(second);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  CHECK(second < 0);  // refused at once, not left waiting
  const std::string detach = "$D#44";
  REQUIRE(::send(first, detach.data(), detach.size(), MSG_NOSIGNAL) == ssize_t(detach.size()));
  char buf[64];
  while (::recv(first, buf, sizeof buf, 0) > 0) {
  }
  ::close(first);
  const SimResult g = sim.wait(30);
  INFO(g.describe());
  CHECK(g.exited(3));
  CHECK(contains(g.err, "ni0.cpu: waiting for GDB on 127.0.0.1:" + std::to_string(port)));
  CHECK(contains(g.err, "firmware exited with a non-zero code (exit code 3)"));
}

TEST_CASE("bad input: names of the earlier flat scheme are errors that give the hierarchical name",
          "[integration][bad-input][names]") {
  Sandbox sb;
  const std::string cfg = sb.write("old.yaml",
                                   "platform: cluster\ntopology: {nodes: 4}\n"
                                   "sb0_port1_mlx.variant: plain\n")
                              .string();
  expect_config_error(sb, {"run", cfg},
                      {"old.yaml:3: key 'sb0_port1_mlx.variant' is an old name: it is now 'sb0.port1.mlx.variant'"});
  expect_config_error(sb, {"run", kCluster4, "--set", "link_node2.variant=ieee1394"},
                      {"--set: key 'link_node2.variant' is an old name: it is now 'node2.link.variant'"});
  expect_config_error(sb, {"run", kCluster4, "--set", "sim.vcd=sb0.bus_busy"},
                      {"'sb0.bus_busy' is an old name: it is now 'sb0.switching_bus.busy'"});
}

TEST_CASE("bad input: the _mbps parameters in megabytes are errors giving their _mbyte_per_s name",
          "[integration][bad-input][names]") {
  Sandbox sb;
  expect_config_error(
      sb, {"run", kCluster4, "--set", "node*.ni.dma.rate_mbps=800"},
      {"--set: key 'node*.ni.dma.rate_mbps' is an old name: it is now 'node*.ni.dma.rate_mbyte_per_s'"});
  expect_config_error(sb, {"run", kCluster4, "--set", "node0.ni.netbuf.loopback_mbps=0"},
                      {"--set: key 'node0.ni.netbuf.loopback_mbps' is an old name: it is now "
                       "'node0.ni.netbuf.loopback_mbyte_per_s'"});
}

TEST_CASE("bad input: a value with a unit of the wrong dimension names the key, the value and the unit",
          "[integration][bad-input][units]") {
  Sandbox sb;
  expect_config_error(
      sb, {"run", kCluster4, "--set", "node0.link.cable_m=20ns"},
      {"--set: key 'node0.link.cable_m': expected a number (double, m) in 0..10000, got '20ns': ns is a "
       "time, not a length like m"});
  // With the right dimension the value is taken (and converted): the run starts.
  const SimResult ok = sb.run(
      {"params", kCluster4, "--set", "node0.link.cable_m=250cm", "--set", "node*.ni.dma.rate_mbyte_per_s=3.2Gb/s"},
      false, 20);
  INFO(ok.describe());
  CHECK(ok.exited(0));
  // The listing's value column: the second word of the parameter's line.
  auto value_of = [&ok](const std::string& name) {
    std::istringstream lines(ok.out);
    std::string line, first, value;
    while (std::getline(lines, line)) {
      std::istringstream words(line);
      if (words >> first >> value && first == name) return value;
    }
    return std::string("(not listed)");
  };
  CHECK(value_of("node0.link.cable_m") == "2.5");
  CHECK(value_of("node1.link.cable_m") == "5");
  CHECK(value_of("node3.ni.dma.rate_mbyte_per_s") == "400");
}

TEST_CASE("bad input: the mistakes a new user makes get the help they need", "[integration][bad-input]") {
  Sandbox sb;
  // A value where a group of parameters belongs: not "unknown key".
  const std::string group = sb.write("group.yaml", "platform: cluster\ntopology: 2\n").string();
  expect_config_error(sb, {"run", group},
                      {group + ":2: key 'topology' is a group of parameters (topology.", "expected a mapping under it",
                       "not the value '2'"});
  // A tab in the indentation: yaml-cpp only says "illegal map value".
  const std::string tab = sb.write("tab.yaml", "platform: cluster\ntopology:\n\tnodes: 2\n").string();
  expect_config_error(sb, {"run", tab}, {tab + ":3:", "line 3 is indented with a tab: YAML indents with spaces only"});
  // A pattern with a misspelt leaf: the same pattern with the right one.
  expect_config_error(sb, {"run", kCluster4, "--set", "node*.pci.varient=pci32-33"},
                      {"key 'node*.pci.varient' matches no parameter (did you mean 'node*.pci.variant'?)"});
  // A misspelt firmware name: the nearest one and what there is.
  const SimResult fw =
      expect_config_error(sb, {"run", sb.config("helo").string()},
                          {"helo.elf: cannot open firmware ELF", "did you mean 'hello'?", "firmware in "});
  CHECK(contains(fw.err, "mmp, "));
  // A firmware path on the command line is relative to the config's folder: said.
  expect_config_error(sb, {"run", sb.config("hello").string(), "--set", "ni0.firmware=firmware/hello.elf"},
                      {"a firmware path is relative to the config file's folder"});
  // The one-NI platform's names on a cluster: the NI there is node<N>.ni.
  expect_config_error(sb, {"run", kCluster4, "--gdb", "ni0.cpu=1"},
                      {"unknown key 'ni0.cpu.gdb_port' (did you mean 'node0.ni.cpu.gdb_port'?)"});
  // A misspelt switch-box parameter: its nearest name, not an old signal name.
  expect_config_error(sb, {"run", kCluster4, "--set", "sb0.stations_count=4"},
                      {"unknown key 'sb0.stations_count' (did you mean 'sb0.stations'?)"});
}

TEST_CASE("bad input: trace settings that can record nothing are warned about, the run goes on",
          "[integration][bad-input]") {
  Sandbox sb;
  const SimResult none = sb.run({"run", sb.config("hello").string(), "--quiet", "--trace", "nothing*"});
  INFO(none.describe());
  CHECK(none.exited(0));
  CHECK(contains(none.err, "warning: sim.trace = 'nothing*' matches no binding of this platform"));
  const SimResult late =
      sb.run({"run", sb.config("hello").string(), "--quiet", "--trace", "*", "--set", "sim.trace_from_us=1e9"});
  INFO(late.describe());
  CHECK(late.exited(0));
  CHECK(contains(late.err, "warning: sim.trace_from_us = 1000000000 us is after the end of the run ("));
  CHECK(contains(late.err, "the trace files are empty"));
  // A window inside the run: no such warning.
  const SimResult inside =
      sb.run({"run", sb.config("hello").string(), "--quiet", "--trace", "*", "--set", "sim.trace_from_us=1"});
  CHECK(inside.exited(0));
  CHECK_FALSE(contains(inside.err, "after the end of the run"));
}

TEST_CASE("bad input: a failed --quiet run shows the failed program's last lines", "[integration][bad-input]") {
  Sandbox sb;
  const std::string cfg = std::string(M2VP_SOURCE_DIR) + "/configs/mmp-pingpong.yaml";
  const SimResult r = sb.run({"run", cfg, "--quiet", "--set", "node*.host.args=--iters 0"});
  INFO(r.describe());
  CHECK(r.exited(2));
  CHECK_FALSE(contains(r.out, "bad arguments"));  // quiet: not on stdout
  CHECK(std::regex_search(r.err, std::regex(R"(last output lines of node[01]\.host \(--quiet)")));
  CHECK(contains(r.err, ".host] mmp_pingpong: bad arguments (expected"));
  // A run that ends well shows none of it.
  const SimResult ok = sb.run({"run", cfg, "--quiet", "--set", "node*.host.args=--sizes 1 --iters 1"});
  CHECK(ok.exited(0));
  CHECK_FALSE(contains(ok.err + ok.out, "last output lines"));
}

// On 16 nodes the other NIs' and hosts' lines come after the failed
// program's reason, and identical lines fold off the console: the summary
// still shows that program's own last lines, its reason first.
TEST_CASE("bad input: a failed --quiet run of 16 nodes shows the failed program's own reason",
          "[integration][bad-input]") {
  Sandbox sb;
  const std::string cfg = std::string(M2VP_SOURCE_DIR) + "/configs/scale-16.yaml";
  const SimResult r = sb.run({"run", cfg, "--quiet", "--set", "node*.host.args=--sizes 16 --msgs 18"});
  INFO(r.describe());
  CHECK(r.exited(2));
  const std::smatch m = [&] {
    std::smatch x;
    std::regex_search(r.err, x, std::regex(R"(last output lines of (node\d+\.host) \(--quiet)"));
    return x;
  }();
  REQUIRE(m.size() == 2);
  CHECK(contains(r.err, "[" + m[1].str() + "] scale: --msgs: at least 1 and at most 255 / (nodes - 1)"));
  CHECK(contains(r.err, "[" + m[1].str() + "] program exited with code 2"));
}

TEST_CASE("bad input: network firmware on the one-node platform faults naming the missing link controller",
          "[integration][bad-input]") {
  Sandbox sb;
  const SimResult r =
      sb.run({"run", std::string(M2VP_SOURCE_DIR) + "/configs/node-selftest.yaml", "--set", "node0.ni.firmware=mmp"});
  INFO(r.describe());
  CHECK(r.exited(EXIT_FAULT));
  CHECK(contains(r.err, "  address:   0xf0006070\n  device:    the MLC-X link controller's registers"));
  CHECK(contains(r.err, "this NI has no link controller on this platform"));
}
