// Integration tests of the platform's one GDB connection (models/debug/
// gdb_platform_server.*): m2vp-sim --gdb-all on a free port, every CPU a
// thread, debugged by the real gdb-multiarch or the raw client of gdb_client.h.
#include "gdb_client.h"

using namespace m2it;

namespace {

const std::string kCluster2 = std::string(M2VP_SOURCE_DIR) + "/configs/cluster-2.yaml";

// "firmware exited with code 0 at N ps" of each NI, in order.
std::vector<std::string> exit_times(const std::string& out) {
  std::vector<std::string> t;
  const std::regex re(R"(\[(node\d\.ni\.cpu)\] firmware exited with code 0 at (\d+) ps)");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), re); it != std::sregex_iterator(); ++it)
    t.push_back((*it)[1].str() + "@" + (*it)[2].str());
  return t;
}

}  // namespace

TEST_CASE("gdb: one connection for the whole platform, every CPU a thread, with gdb-multiarch", "[integration][gdb]") {
  Sandbox sb;
  const SimResult ref = sb.run({"run", kCluster2, "--out", (sb.dir() / "ref").string()});
  INFO("---- reference ----\n" << ref.describe());
  REQUIRE(ref.exited(0));
  REQUIRE(exit_times(ref.out).size() == 2);

  const int port = free_port();
  auto sim = sb.start({"run", kCluster2, "--gdb-all", std::to_string(port)});
  // node1's CPU (thread 2) hits the breakpoint: GDB resumes node0's hits of
  // the same address itself (a thread-specific breakpoint), so it only stops
  // if the server names the right thread.
  const SimResult g = run_gdb(sb, port, firmware_elf("net_alltoall"),
                              {"info threads", "break length_of thread 2", "continue", "info threads", "thread 1",
                               "print/x $pc", "thread 2", "print/x $pc", "stepi", "print/x $pc",
                               // Steps of threads stopped inside a device access (the ISS
                               // step is cut short at the next block).
                               "thread 3", "stepi", "thread 1", "stepi", "delete", "continue"});
  const SimResult r = sim.wait(60);
  INFO("---- gdb ----\n" << g.describe() << "\n---- simulator ----\n" << r.describe());
  CHECK(g.exited(0));
  // Before the first instruction every CPU is at its entry, GDB in thread 1.
  CHECK(std::regex_search(g.out, std::regex(R"(\* 1 +Thread 1 "node0\.ni\.cpu" +_start \(\))")));
  CHECK(std::regex_search(g.out, std::regex(R"(\n +2 +Thread 2 "node1\.ni\.cpu" +_start \(\))")));
  CHECK(std::regex_search(g.out, std::regex(R"(\n +3 +Thread 3 "sb0\.cpu" +_start \(\))")));
  CHECK(contains(g.out, "Thread 2 \"node1.ni.cpu\" hit Breakpoint 1"));
  CHECK(std::regex_search(g.out, std::regex(R"(\* 2 +Thread 2 "node1\.ni\.cpu"[^\n]* in length_of )")));
  // node0 polls a device meanwhile: its pc is that load, its registers read-only.
  CHECK(std::regex_search(
      g.out,
      std::regex(
          R"(\n +1 +Thread 1 "node0\.ni\.cpu" \(in a device access; registers read-only\) +0x[0-9a-f]+ in mmio_read32 )")));
  // Registers come from the selected thread's CPU: node1 is at the
  // breakpoint, node0 elsewhere in the same firmware.
  std::smatch pcs;
  REQUIRE(std::regex_search(
      g.out, pcs,
      std::regex(
          R"(Switching to thread 1[^\n]*\n[^$]*\$1 = (0x[0-9a-f]+)\n[^$]*Switching to thread 2[^\n]*\n[^$]*\$2 = (0x[0-9a-f]+)\n)")));
  CHECK(pcs[1].str() != pcs[2].str());
  std::smatch bp;
  REQUIRE(std::regex_search(g.out, bp, std::regex(R"(Breakpoint 1 at (0x[0-9a-f]+): length_of)")));
  CHECK(pcs[2].str() == bp[1].str());
  // stepi in thread 2 ran one instruction of node1.
  std::smatch step;
  REQUIRE(std::regex_search(g.out, step, std::regex(R"(\$3 = (0x[0-9a-f]+)\n)")));
  CHECK(std::stoul(step[1].str(), nullptr, 16) == std::stoul(bp[1].str(), nullptr, 16) + 4);
  CHECK(contains(g.out, "[node0.ni.cpu] node 0: sent 4, received 4 messages"));
  CHECK(contains(g.out, "[Inferior 1 (Remote target) exited normally]"));
  CHECK_FALSE(contains(g.out, "Remote communication error"));

  // Halting, stepping and inspecting changed nothing, to the picosecond.
  REQUIRE(r.exited(0));
  CHECK(contains(r.out, "waiting for GDB on 127.0.0.1:" + std::to_string(port) + " (all 3 CPUs as threads)"));
  CHECK(exit_times(r.out) == exit_times(ref.out));
}

TEST_CASE("gdb: a watchpoint on the platform connection stops the NI that writes, memory per thread",
          "[integration][gdb]") {
  Sandbox sb;
  const SimResult ref = sb.run({"run", kCluster2, "--out", (sb.dir() / "ref").string()});
  REQUIRE(ref.exited(0));
  const int port = free_port();
  auto sim = sb.start({"run", kCluster2, "--gdb-all", std::to_string(port)});
  // next_round[0] counts node 0's messages at a receiver: only node1 writes it.
  const SimResult g = run_gdb(sb, port, firmware_elf("net_alltoall"),
                              {"watch main::next_round[0]", "continue", "print main::next_round[0]", "thread 1",
                               "print main::next_round[0]", "delete", "continue"});
  const SimResult r = sim.wait(60);
  INFO("---- gdb ----\n" << g.describe() << "\n---- simulator ----\n" << r.describe());
  CHECK(g.exited(0));
  CHECK(contains(g.out,
                 "Thread 2 \"node1.ni.cpu\" hit Hardware watchpoint 1: main::next_round[0]\n\nOld value = 0\n"
                 "New value = 1\n"));
  CHECK(contains(g.out, "$1 = 1\n"));
  CHECK(contains(g.out, "$2 = 0\n"));  // node0's SDRAM: its own variable, never written
  CHECK(contains(g.out, "[Inferior 1 (Remote target) exited normally]"));
  REQUIRE(r.exited(0));
  CHECK(exit_times(r.out) == exit_times(ref.out));
}

TEST_CASE("gdb: the platform connection steps one thread while the others run, raw protocol", "[integration][gdb]") {
  Sandbox sb;
  const int port = free_port();
  auto sim = sb.start({"run", kCluster2, "--gdb-all", std::to_string(port)});
  RspClient c;
  REQUIRE(c.connect(port));
  CHECK(c.command("?") == "T05thread:1;");
  CHECK(c.command("qfThreadInfo") == "m1,2,3");
  CHECK(c.command("qsThreadInfo") == "l");
  CHECK(c.command("qC") == "QC1");
  CHECK(c.command("Hg2") == "OK");
  const uint32_t entry = reg32(c.command("g"), 64);
  CHECK(c.command("Hg1") == "OK");
  CHECK(reg32(c.command("g"), 64) == entry);  // both NIs start at _start
  // Thread 2 steps one instruction; thread 1 (halted) and sb0 run meanwhile.
  c.send("vCont;s:2;c");
  CHECK(c.receive() == std::optional<std::string>("T05thread:2;"));
  CHECK(reg32(c.command("g"), 64) == entry + 4);  // GDB's selection follows the stop
  CHECK(c.command("Hg1") == "OK");
  const uint32_t pc1 = reg32(c.command("g"), 64);
  CHECK(pc1 != entry);  // node0 has run
  // The halted CPU's registers may be written.
  CHECK(c.command("Hg2") == "OK");
  const std::string r3 = c.command("p3");
  CHECK(c.command("P3=0000abcd") == "OK");
  CHECK(c.command("p3") == "0000abcd");
  CHECK(c.command("P3=" + r3) == "OK");  // the firmware needs it
  CHECK(c.command("Hg9") == "E06");
  // Continue runs every CPU to the end of the run.
  c.send("vCont;c");
  CHECK(c.receive(30) == std::optional<std::string>("W00"));
  CHECK(sim.wait(30).exited(0));
}

TEST_CASE("gdb: Ctrl-C on the platform connection halts all CPUs, monitor and memory follow the thread",
          "[integration][gdb]") {
  Sandbox sb;
  // Two NIs spinning for ever, and the switch box's router.
  const fs::path cfg = sb.write("spin2.yaml",
                                "platform: cluster\ntopology:\n  nodes: 2\nsim:\n"
                                "  max_time_ms: 100000\nnode*:\n  ni:\n    firmware: spin_forever\n");
  const int port = free_port();
  auto sim = sb.start({"run", cfg.string(), "--gdb-all", std::to_string(port)});
  RspClient c;
  REQUIRE(c.connect(port));
  CHECK(c.command("qfThreadInfo") == "m1,2,3");
  c.send("c");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  c.send_raw("\x03");
  const auto stop = c.receive();
  REQUIRE(stop.has_value());
  CHECK(std::regex_match(*stop, std::regex("T02thread:[123];")));
  // Every CPU stands still while one serves GDB.
  CHECK(c.command("Hg1") == "OK");
  const std::string t1 = c.monitor("time");
  CHECK(c.command("Hg2") == "OK");
  const std::string t2 = c.monitor("time");
  INFO("monitor time: " << t1 << " / " << t2);
  CHECK(contains(t1, "node0.ni.cpu: simulated time "));
  CHECK(contains(t2, "node1.ni.cpu: simulated time "));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(c.monitor("time") == t2);
  CHECK(c.command("Hg1") == "OK");
  CHECK(c.monitor("time") == t1);
  // Each NI's memory is its own: a byte written in node1's SDRAM is not in node0's.
  CHECK(c.command("m100000,1") == "00");
  CHECK(c.command("Hg2") == "OK");
  CHECK(c.command("M100000,1:5a") == "OK");
  CHECK(c.command("m100000,1") == "5a");
  CHECK(c.command("Hg1") == "OK");
  CHECK(c.command("m100000,1") == "00");
  c.send("k");
  const SimResult r = sim.wait(30);
  INFO(r.describe());
  CHECK(r.exited(EXIT_KILLED));
  CHECK(std::regex_search(r.err, std::regex(R"(run killed from GDB on (node[01]\.ni|sb0)\.cpu)")));
}

TEST_CASE("gdb: platform connection errors name the key: port in use, no firmware, also a per-CPU port",
          "[integration][gdb]") {
  Sandbox sb;
  SECTION("a port in use") {
    int port = 0;
    const int fd = listening_socket(port);
    const SimResult r = sb.run({"run", sb.config("hello").string(), "--gdb-all", std::to_string(port)});
    INFO(r.describe());
    CHECK(r.exited(EXIT_CONFIG));
    CHECK(contains(r.err, "error: --gdb-all: key 'sim.gdb_port': cannot listen on 127.0.0.1:" + std::to_string(port) +
                              ": Address already in use"));
    ::close(fd);
  }
  SECTION("no CPU runs firmware") {
    const fs::path cfg = sb.write("nofw.yaml", "platform: single-ni\nsim:\n  gdb_port: 1234\n");
    const SimResult r = sb.run({"run", cfg.string()});
    INFO(r.describe());
    CHECK(r.exited(EXIT_CONFIG));
    CHECK(contains(r.err, cfg.string() + ":3: key 'sim.gdb_port': no CPU of this platform runs firmware to debug"));
  }
  SECTION("a CPU with its own server as well") {
    const SimResult r = sb.run(
        {"run", sb.config("hello").string(), "--gdb-all", std::to_string(free_port()), "--gdb", gdb_set(free_port())});
    INFO(r.describe());
    CHECK(r.exited(EXIT_CONFIG));
    CHECK(contains(r.err,
                   "error: --gdb: key 'ni0.cpu.gdb_port': ni0.cpu is thread 1 of the platform's GDB "
                   "connection (sim.gdb_port): use one or the other"));
  }
  SECTION("a malformed port") {
    const SimResult r = sb.run({"run", sb.config("hello").string(), "--gdb-all", "70000"});
    INFO(r.describe());
    CHECK(r.exited(EXIT_CONFIG));
    CHECK(contains(r.err, "sim.gdb_port"));
  }
}
