// Integration tests of the GDB server (models/debug/gdb_server.*): m2vp-sim
// runs with --gdb on a free port while the real gdb-multiarch (batch mode)
// or the small raw-protocol client of gdb_client.h debugs the firmware.
#include "gdb_client.h"

using namespace m2it;

static int firmware_source_line(const std::string& file, const std::string& marker);

// ---------------------------------------------------------------- real GDB

TEST_CASE("gdb: break, print and change variables, step, finish and run to the end with gdb-multiarch",
          "[integration][gdb]") {
  Sandbox sb;
  const int port = free_port();
  auto sim = sb.start({"run", sb.config("gdb_target").string(), "--gdb", gdb_set(port)});
  const SimResult g = run_gdb(sb, port, firmware_elf("gdb_target"),
                              {"break gdb_checkpoint", "continue", "print gdb_value", "set var gdb_value = 77",
                               "print x", "set var x = 10", "stepi", "print $pc", "finish", "next", "continue"});
  const SimResult r = sim.wait(60);
  INFO("---- gdb ----\n" << g.describe() << "\n---- simulator ----\n" << r.describe());
  CHECK(g.exited(0));
  CHECK(contains(g.out, "Breakpoint 1 at 0x"));
  CHECK(contains(g.out, "Breakpoint 1, gdb_checkpoint (x=x@entry=5)"));
  CHECK(contains(g.out, "$1 = 1234\n"));
  CHECK(contains(g.out, "$2 = 5\n"));
  // stepi ran exactly the first instruction (mulli).
  CHECK(std::regex_search(g.out, std::regex(R"(\$3 = \(void \(\*\)\(\)\) 0x[0-9a-f]+ <gdb_checkpoint\+4>)")));
  // The changed argument went through: (10 * 3) + 7.
  CHECK(std::regex_search(g.out, std::regex(R"(Value returned is \$4 = 37)")));
  // next: to the following source line of main.
  const int after_call = firmware_source_line("gdb_target.c", "uint64_t t1 = sim_time_ns();");
  CHECK(std::regex_search(g.out, std::regex("\n" + std::to_string(after_call) + "\\s")));
  // Firmware output reaches GDB as 'O' packets, then the exit.
  CHECK(contains(g.out, "gdb_target: start\n"));
  CHECK(contains(g.out, "gdb_value = 77\n"));
  CHECK(contains(g.out, "[Inferior 1 (Remote target) exited normally]"));
  CHECK_FALSE(contains(g.out, "Remote communication error"));

  CHECK(r.exited(0));
  CHECK(contains(r.out, "ni0.cpu: waiting for GDB on 127.0.0.1:" + std::to_string(port)));
  CHECK(contains(r.out, "[ni0.cpu] gdb_value = 77\n"));
  CHECK(contains(r.out, "[ni0.cpu] checkpoint(5) = 37\n"));
}

TEST_CASE("gdb: simulated time stands still while GDB holds the CPU", "[integration][gdb]") {
  Sandbox sb;
  // Reference: the same firmware without GDB.
  const SimResult ref = sb.run({"run", sb.config("gdb_target").string()});
  INFO("---- reference ----\n" << ref.describe());
  REQUIRE(ref.exited(0));
  CHECK(contains(ref.out, "[ni0.cpu] gdb_value = 1234\n"));
  CHECK(contains(ref.out, "[ni0.cpu] checkpoint(5) = 22\n"));
  std::smatch took, ended;
  REQUIRE(std::regex_search(ref.out, took, std::regex(R"(\[ni0\.cpu\] checkpoint took (\d+) ns)")));
  REQUIRE(std::regex_search(ref.out, ended, std::regex(R"(firmware exited with code 0 at (\d+) ps)")));

  const int port = free_port();
  auto sim = sb.start({"run", sb.config("gdb_target").string(), "--gdb", gdb_set(port)});
  const SimResult g = run_gdb(sb, port, firmware_elf("gdb_target"),
                              {"break gdb_checkpoint", "continue", "monitor time", "shell sleep 1", "monitor time",
                               "stepi", "stepi", "monitor time", "delete", "continue"});
  const SimResult r = sim.wait(60);
  INFO("---- gdb ----\n" << g.describe() << "\n---- simulator ----\n" << r.describe());
  CHECK(g.exited(0));
  std::vector<uint64_t> times;
  const std::regex re(R"(ni0\.cpu: simulated time (\d+) ps \([0-9.]+ us\), (\d+) instructions)");
  std::vector<uint64_t> counts;
  for (auto it = std::sregex_iterator(g.out.begin(), g.out.end(), re); it != std::sregex_iterator(); ++it) {
    times.push_back(std::stoull((*it)[1]));
    counts.push_back(std::stoull((*it)[2]));
  }
  REQUIRE(times.size() == 3);
  CHECK(times[0] > 0);
  CHECK(times[1] == times[0]);  // a second of wall time halted: no simulated time
  CHECK(counts[1] == counts[0]);
  CHECK(counts[2] == counts[0] + 2);  // two instructions
  CHECK(times[2] > times[1]);

  // The run is the same as without GDB, to the picosecond.
  REQUIRE(r.exited(0));
  CHECK(contains(r.out, "[ni0.cpu] checkpoint took " + took[1].str() + " ns\n"));
  CHECK(contains(r.out, "firmware exited with code 0 at " + ended[1].str() + " ps"));
}

TEST_CASE("gdb: monitor dma, netbuf and trace show the NI around a halted MMP firmware", "[integration][gdb]") {
  Sandbox sb;
  const std::string cfg = std::string(M2VP_SOURCE_DIR) + "/configs/mmp-pingpong.yaml";
  const int port = free_port();
  // Node 1's firmware, halted when it completes its sixth received message.
  auto sim = sb.start({"run", cfg, "--gdb", "node1.ni.cpu=" + std::to_string(port), "--trace", "node1.*", "--set",
                       "node*.host.args=--sizes 64,4k --iters 4 --warmup 1"});
  const SimResult g = run_gdb(sb, port, firmware_elf("mmp"),
                              {"break message_complete", "ignore 1 5", "continue", "monitor help", "monitor dma",
                               "monitor netbuf", "monitor trace", "delete", "continue"});
  const SimResult r = sim.wait(60);
  INFO("---- gdb ----\n" << g.describe() << "\n---- simulator ----\n" << r.describe());
  CHECK(g.exited(0));
  CHECK(contains(g.out, "Breakpoint 1, "));
  CHECK(contains(g.out, "monitor dma    the DMA engine"));
  CHECK(contains(g.out, "monitor netbuf bytes in each network-buffer channel"));
  // The DMA engine has moved the six messages' payloads and records by now.
  std::smatch done;
  REQUIRE(std::regex_search(
      g.out, done,
      std::regex(
          R"(node1\.ni\.dma: (idle|busy)[^\n]*\n  queue: \d+ of \d+ descriptors waiting\n(    .*\n)*  done: (\d+) descriptors, (\d+) bytes, 0 errors)")));
  CHECK(std::stoul(done[3]) >= 12);
  CHECK(std::stoul(done[4]) > 6 * 64);
  CHECK(std::regex_search(
      g.out,
      std::regex(
          R"(node1\.ni\.netbuf: channel bytes used of 2048\n  channel 0: TX \d+, RX \d+\n  channel 1: TX \d+, RX \d+)")));
  // The last traced transactions of node 1, oldest first.
  CHECK(std::regex_search(g.out, std::regex(R"(\n +\d+\.\d{6} us  node1\.\S+ +[RW] 0x[0-9a-f]{8} +\d+ bytes)")));
  REQUIRE(r.exited(0));
}

// GDB reads the interrupt controller's and the DMA engine's registers for
// itself: a `watch` on one the firmware writes compares old and new values
// (it used to resume silently: the value was unreadable), and a dump of a
// register block goes across write-only registers (they read 0).
TEST_CASE("gdb: watch on an interrupt-controller register stops, register blocks dump whole", "[integration][gdb]") {
  Sandbox sb;
  const std::string cfg = std::string(M2VP_SOURCE_DIR) + "/configs/mmp-pingpong.yaml";
  const int port = free_port();
  auto sim = sb.start({"run", cfg, "--gdb", "node0.ni.cpu=" + std::to_string(port), "--set",
                       "node*.host.args=--sizes 64 --iters 2 --warmup 0"});
  const SimResult g = run_gdb(sb, port, firmware_elf("mmp"),
                              {"watch *(unsigned*)0xF0004004", "continue", "x/8xw 0xF0003000", "delete", "continue"});
  const SimResult r = sim.wait(60);
  INFO("---- gdb ----\n" << g.describe() << "\n---- simulator ----\n" << r.describe());
  CHECK(g.exited(0));
  CHECK(contains(g.out, "Hardware watchpoint 1: *(unsigned*)0xF0004004"));
  CHECK(std::regex_search(g.out, std::regex(R"(Old value = \d+\nNew value = \d+)")));
  // SRC DST LEN CTRL(write-only: 0) / STATUS DONE_COUNT ERR_ADDR ERR_CAUSE
  CHECK(std::regex_search(
      g.out, std::regex(R"(0xf0003000:\s+0x[0-9a-f]{8}\s+0x[0-9a-f]{8}\s+0x[0-9a-f]{8}\s+0x00000000\n)"
                        R"(0xf0003010:\s+0x[0-9a-f]{8}\s+0x[0-9a-f]{8}\s+0x[0-9a-f]{8}\s+0x[0-9a-f]{8})")));
  CHECK(r.exited(0));
}

// The line of gdb_watch.c holding `marker` (1-based), for GDB's "Line N".
static int firmware_source_line(const std::string& file, const std::string& marker) {
  std::ifstream in(std::string(M2VP_SOURCE_DIR) + "/sw/firmware/tests/" + file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n)
    if (contains(line, marker)) return n;
  FAIL("no line with '" << marker << "' in " << file);
  return 0;
}

TEST_CASE("gdb: watch, rwatch and awatch on SDRAM variables and a DMA register with gdb-multiarch",
          "[integration][gdb][watch]") {
  Sandbox sb;
  // Reference: the same firmware without GDB.
  const SimResult ref = sb.run({"run", sb.config("gdb_watch").string()});
  INFO("---- reference ----\n" << ref.describe());
  REQUIRE(ref.exited(0));
  std::smatch ended;
  REQUIRE(std::regex_search(ref.out, ended, std::regex(R"(firmware exited with code 0 at (\d+) ps)")));

  const int port = free_port();
  auto sim = sb.start({"run", sb.config("gdb_watch").string(), "--gdb", gdb_set(port)});
  // PowerPC watchpoints stop before the access: GDB then steps over it, so
  // $pc - 4 is the accessing instruction.
  const SimResult g = run_gdb(sb, port, firmware_elf("gdb_watch"),
                              {"watch watch_counter", "continue", "x/i $pc - 4", "info line *($pc - 4)", "continue",
                               "delete", "rwatch watch_limit", "continue", "x/i $pc - 4", "delete",
                               "awatch *(volatile unsigned int *)0xF0003014",  // NI_DMA_BASE + DMA_DONE_COUNT
                               "continue", "x/i $pc - 4", "print/x $r7", "monitor time", "delete", "continue"});
  const SimResult r = sim.wait(60);
  INFO("---- gdb ----\n" << g.describe() << "\n---- simulator ----\n" << r.describe());
  CHECK(g.exited(0));
  // watch: old and new value of each store, stopped at the store's line.
  CHECK(contains(g.out, "Hardware watchpoint 1: watch_counter\n\nOld value = 0\nNew value = 10\n"));
  CHECK(contains(g.out, "Hardware watchpoint 1: watch_counter\n\nOld value = 10\nNew value = 20\n"));
  CHECK(std::regex_search(g.out, std::regex(R"(<main\+\d+>:\s+stw\s+r9,0\(r8\))")));
  const int store_line = firmware_source_line("gdb_watch.c", "the watched store");
  CHECK(std::regex_search(g.out, std::regex("Line " + std::to_string(store_line) + R"( of "[^"]*gdb_watch\.c")")));
  // rwatch: the loop condition's load of watch_limit.
  CHECK(contains(g.out, "Hardware read watchpoint 2: watch_limit\n\nValue = 3\n"));
  CHECK(std::regex_search(g.out,
                          std::regex(R"(Value = 3\n[^\n]*\n[^\n]*\n\s+0x[0-9a-f]+ <main\+\d+>:\s+lwz\s+r9,0\(r7\))")));
  // awatch on the DMA engine's DONE_COUNT register, which fw_dma_wait polls:
  // GDB found the watchpoint from the reported address and read the register
  // (a debug read): the copy has not completed at the first poll.
  CHECK(contains(g.out,
                 "Hardware access (read/write) watchpoint 3: *(volatile unsigned int *)0xF0003014\n\nValue = 0\n"));
  CHECK(std::regex_search(g.out, std::regex(R"(<main\+\d+>:\s+lwz\s+r9,0\(r7\)\n\$\d+ = 0xf0003014\n)")));
  // Local time stayed right although the load's block was cut short after
  // the DMA register writes in it (it once jumped by ~2^64 fs there).
  const uint64_t halted_ps = monitor_ps(g.out);
  CHECK(halted_ps > 1'000'000);
  CHECK(halted_ps < std::stoull(ended[1].str()));
  CHECK(contains(g.out, "[Inferior 1 (Remote target) exited normally]"));

  // Every access ran exactly once: the same output and end time as without GDB.
  REQUIRE(r.exited(0));
  CHECK(contains(r.out, "[ni0.cpu] watch_counter = 30\n"));
  CHECK(contains(r.out, "[ni0.cpu] dma copy ok, done count 1\n"));
  CHECK(contains(r.out, "firmware exited with code 0 at " + ended[1].str() + " ps"));
}

TEST_CASE("gdb: next over a one-line loop of 20,000 rounds range-steps in the simulator (vCont r)",
          "[integration][gdb]") {
  // Without range stepping GDB would step the loop an instruction at a time,
  // a round trip each (minutes); with it the CPU steps on in the simulator
  // while the pc stays in the line, and GDB hears of the end.
  Sandbox sb;
  const int port = free_port();
  auto sim = sb.start({"run", sb.config("gdb_target").string(), "--gdb", gdb_set(port)});
  const SimResult g =
      run_gdb(sb, port, firmware_elf("gdb_target"), {"break gdb_spin", "continue", "next", "next", "continue"});
  const SimResult r = sim.wait(60);
  INFO("---- gdb ----\n" << g.describe() << "\n---- simulator ----\n" << r.describe());
  CHECK(g.exited(0));
  CHECK(contains(g.out, "Breakpoint 1, gdb_spin (n=n@entry=20000)"));
  // The first next ran the whole loop: the second is already in main, after the call.
  CHECK(std::regex_search(g.out, std::regex(R"(main \(\) at \S*gdb_target\.c:\d+)")));
  CHECK(contains(g.out, "spin = 3741497956\n"));
  CHECK(contains(g.out, "[Inferior 1 (Remote target) exited normally]"));
  REQUIRE(r.exited(0));
}

// ---------------------------------------------------------------- raw protocol

TEST_CASE("gdb: Ctrl-C halts a running CPU, time stands still, kill ends the run", "[integration][gdb]") {
  Sandbox sb;
  const int port = free_port();
  auto sim =
      sb.start({"run", sb.config("spin_forever").string(), "--gdb", gdb_set(port), "--set", "sim.max_time_ms=100000"});
  RspClient c;
  REQUIRE(c.connect(port));
  CHECK(c.command("?") == "T05thread:1;");
  const uint32_t entry_pc = reg32(c.command("g"), 64);
  c.send("c");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  c.send_raw("\x03");
  CHECK(c.receive() == std::optional<std::string>("T02thread:1;"));
  const std::string g = c.command("g");
  REQUIRE(g.size() == 2 * (32 * 4 + 32 * 8 + 7 * 4));
  CHECK(reg32(g, 64) != entry_pc);  // it ran

  // Halted: neither simulated time nor instructions move.
  const std::string t1 = c.monitor("time");
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const std::string t2 = c.monitor("time");
  INFO("monitor time: " << t1 << " / " << t2);
  CHECK(monitor_ps(t1) > 0);
  CHECK(t1 == t2);

  // Running again moves time on; a second Ctrl-C stops it again.
  c.send("c");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  c.send_raw("\x03");
  CHECK(c.receive() == std::optional<std::string>("T02thread:1;"));
  CHECK(monitor_ps(c.monitor("time")) > monitor_ps(t2));

  c.send("k");
  const SimResult r = sim.wait(30);
  INFO(r.describe());
  CHECK(r.exited(EXIT_KILLED));
  CHECK(contains(r.err, "error: run killed from GDB on ni0.cpu"));
  CHECK(contains(r.file("report.txt"), "killed from GDB on ni0.cpu"));
}

TEST_CASE("gdb: firmware output as O packets, exit as W, malformed packets and bad addresses get errors",
          "[integration][gdb]") {
  Sandbox sb;
  const int port = free_port();
  auto sim = sb.start({"run", sb.config("gdb_target").string(), "--gdb", gdb_set(port)});
  RspClient c;
  REQUIRE(c.connect(port));
  CHECK(c.command("qSupported:multiprocess+;swbreak+") == "PacketSize=4000;qXfer:features:read+");
  const std::string xml = c.command("qXfer:features:read:target.xml:0,4000");
  CHECK(contains(xml, "<architecture>powerpc:603</architecture>"));
  CHECK(contains(xml, "<reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\" regnum=\"64\"/>"));
  CHECK(contains(xml, "<reg name=\"fpscr\" bitsize=\"32\" type=\"uint32\" regnum=\"70\" group=\"float\"/>"));
  // Errors, never a crash.
  CHECK(c.command("m50000000,4") == "E03");  // no memory there
  CHECK(c.command("Z0,50000000,4") == "E04");
  CHECK(c.command("mzz,4") == "E01");
  CHECK(c.command("p99") == "E02");
  CHECK(c.command("M0,4:xyz") == "E01");
  c.send_raw("$m0,4#00");  // bad checksum: NAK, nothing else
  CHECK(c.command("vMustReplyEmpty") == "");
  CHECK(c.naks() == 1);
  // Code reads back as loaded (_start at 0x3000); writing it back works.
  const std::string w = c.command("m3000,4");
  CHECK(w.size() == 8);
  CHECK(c.command("M3000,4:" + w) == "OK");
  CHECK(c.command("m3000,4") == w);

  c.send("c");
  const auto end = c.receive(30);
  CHECK(end == std::optional<std::string>("W00"));
  CHECK_THAT(c.console(), Catch::Matchers::StartsWith("gdb_target: start\ngdb_value = 1234\ncheckpoint(5) = 22\n"
                                                      "checkpoint took "));
  const SimResult r = sim.wait(30);
  INFO(r.describe());
  CHECK(r.exited(0));
}

TEST_CASE("gdb: watchpoint stops name the watched address, the PC is the access, errors where nothing can be watched",
          "[integration][gdb][watch]") {
  Sandbox sb;
  const int port = free_port();
  auto sim = sb.start({"run", sb.config("gdb_watch").string(), "--gdb", gdb_set(port)});
  RspClient c;
  REQUIRE(c.connect(port));
  CHECK(c.command("Z2,50000000,4") == "E05");  // no memory there
  CHECK(c.command("Z3,3000,0") == "E01");      // empty range
  // The upper half of DONE_COUNT (NI_DMA_BASE + 0x14), read as one word by
  // fw_dma_wait: the stop names the first watched byte the read touches.
  CHECK(c.command("Z4,f0003016,2") == "OK");
  c.send("c");
  CHECK(c.receive(30) == std::optional<std::string>("T05thread:1;awatch:f0003016;"));
  CHECK(c.command("?") == "T05thread:1;awatch:f0003016;");
  const std::string g = c.command("g");
  const uint32_t pc = reg32(g, 64);
  const std::string insn = c.command("m" + [&] {
    char b[16];
    std::snprintf(b, sizeof b, "%x", pc);
    return std::string(b);
  }() + ",4");
  REQUIRE(insn.size() == 8);
  const uint32_t word = static_cast<uint32_t>(std::stoul(insn, nullptr, 16));
  CHECK(word >> 26 == 32u);  // lwz: the load itself, not yet executed
  const unsigned ra = (word >> 16) & 31;
  CHECK(reg32(g, ra) + int16_t(word & 0xFFFF) == 0xf0003014u);
  // Continuing with the watchpoint still set runs that load and stops at the next.
  c.send("c");
  CHECK(c.receive(30) == std::optional<std::string>("T05thread:1;awatch:f0003016;"));
  CHECK(c.command("z4,f0003016,2") == "OK");
  c.send("c");
  CHECK(c.receive(30) == std::optional<std::string>("W00"));
  CHECK(contains(c.console(), "watch_counter = 30\ndma copy ok, done count 1\n"));
  const SimResult r = sim.wait(30);
  INFO(r.describe());
  CHECK(r.exited(0));
}

TEST_CASE("gdb: GDB may connect to a running CPU (gdb_wait false) and leave it running", "[integration][gdb]") {
  Sandbox sb;
  const int port = free_port();
  SECTION("connect, detach: the run goes on to its end") {
    auto sim = sb.start({"run", sb.config("spin_forever").string(), "--gdb", gdb_set(port), "--set",
                         "ni0.cpu.gdb_wait=false", "--set", "sim.max_time_ms=50"});
    RspClient c;
    REQUIRE(c.connect(port));
    // The CPU halts when GDB connects.
    CHECK(c.command("?") == "T05thread:1;");
    const std::string t1 = c.monitor("time");
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    CHECK(c.monitor("time") == t1);
    CHECK(c.command("D") == "OK");
    const SimResult r = sim.wait(60);
    INFO(r.describe());
    CHECK(contains(r.out, "ni0.cpu: GDB detached"));
    CHECK(contains(r.err, "time limit sim.max_time_ms = 50 ms reached"));
  }
  SECTION("a connection closed while running: the run goes on") {
    auto sim = sb.start({"run", sb.config("gdb_target").string(), "--gdb", gdb_set(port)});
    RspClient c;
    REQUIRE(c.connect(port));
    CHECK(c.command("Z0,3000,4") == "OK");  // dropped with the connection
    c.send("c");
    c.close();
    const SimResult r = sim.wait(60);
    INFO(r.describe());
    CHECK(r.exited(0));
    CHECK(contains(r.out, "[ni0.cpu] gdb_value = 1234\n"));
  }
}

TEST_CASE("gdb: a port in use is a configuration error naming parameter and port", "[integration][gdb]") {
  Sandbox sb;
  int port = 0;
  const int fd = listening_socket(port);
  SECTION("from --gdb") {
    const SimResult r = sb.run({"run", sb.config("hello").string(), "--gdb", gdb_set(port)});
    INFO(r.describe());
    CHECK(r.exited(EXIT_CONFIG));
    CHECK(contains(r.err, "error: --gdb: key 'ni0.cpu.gdb_port': cannot listen on 127.0.0.1:" + std::to_string(port) +
                              ": Address already in use"));
  }
  SECTION("from the config file") {
    const fs::path cfg = sb.config("hello", "ni0.cpu.gdb_port: " + std::to_string(port) + "\n");
    const SimResult r = sb.run({"run", cfg.string()});
    INFO(r.describe());
    CHECK(r.exited(EXIT_CONFIG));
    CHECK(contains(r.err,
                   cfg.string() + ":4: key 'ni0.cpu.gdb_port': cannot listen on 127.0.0.1:" + std::to_string(port)));
  }
  SECTION("malformed --gdb and an unknown CPU") {
    SimResult r = sb.run({"run", sb.config("hello").string(), "--gdb", "ni0.cpu"});
    INFO(r.describe());
    CHECK(r.exited(EXIT_CONFIG));
    CHECK(contains(r.err, "--gdb 'ni0.cpu': expected CPU=PORT (e.g. ni0.cpu=1234)"));
    r = sb.run({"run", sb.config("hello").string(), "--gdb", "ni0.cpx=1234"});
    CHECK(r.exited(EXIT_CONFIG));
    CHECK(contains(r.err, "--gdb: unknown key 'ni0.cpx.gdb_port' (did you mean 'ni0.cpu.gdb_port'?)"));
  }
  SECTION("a CPU without firmware") {
    const fs::path cfg = sb.write("nofw.yaml", "platform: single-ni\n");
    const SimResult r = sb.run({"run", cfg.string(), "--gdb", "ni0.cpu=1234"});
    INFO(r.describe());
    CHECK(r.exited(EXIT_CONFIG));
    CHECK(contains(r.err, "error: --gdb: key 'ni0.cpu.gdb_port': ni0.cpu runs no firmware to debug"));
  }
  ::close(fd);
}

// Address and size of a firmware function, from the ELF's symbol table.
static std::pair<uint64_t, uint64_t> firmware_function(const std::string& elf, const std::string& name) {
  const std::string cmd = "powerpc-linux-gnu-nm -S '" + elf + "'";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  char line[512];
  std::optional<std::pair<uint64_t, uint64_t>> found;
  while (std::fgets(line, sizeof line, p)) {
    char sym[256] = {0}, kind = 0;
    unsigned long long addr = 0, size = 0;
    if (std::sscanf(line, "%llx %llx %c %255s", &addr, &size, &kind, sym) == 4 && name == sym) found = {{addr, size}};
  }
  pclose(p);
  REQUIRE(found);
  return *found;
}

static uint64_t monitor_instructions(const std::string& text) {
  std::smatch m;
  REQUIRE(std::regex_search(text, m, std::regex(R"(, (\d+) instructions)")));
  return std::stoull(m[1]);
}

TEST_CASE("gdb: vCont r steps on while the pc stays in the range, one instruction when it is empty",
          "[integration][gdb]") {
  Sandbox sb;
  const std::string elf = firmware_elf("gdb_target");
  const auto [spin, spin_size] = firmware_function(elf, "gdb_spin");
  const int port = free_port();
  auto sim = sb.start({"run", sb.config("gdb_target").string(), "--gdb", gdb_set(port)});
  RspClient c;
  REQUIRE(c.connect(port));
  CHECK(c.command("vCont?") == "vCont;c;C;s;S;r");
  char hex[64];
  std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(spin));
  REQUIRE(c.command(std::string("Z0,") + hex + ",4") == "OK");
  CHECK(c.command("vCont;c") == "T05thread:1;");
  CHECK(reg32(c.command("g"), 64) == spin);
  REQUIRE(c.command(std::string("z0,") + hex + ",4") == "OK");

  // An empty range: one instruction, as 's'.
  const uint64_t n0 = monitor_instructions(c.monitor("time"));
  std::snprintf(hex, sizeof hex, "vCont;r%llx,%llx:1", static_cast<unsigned long long>(spin),
                static_cast<unsigned long long>(spin));
  CHECK(c.command(hex) == "T05thread:1;");
  const uint64_t n1 = monitor_instructions(c.monitor("time"));
  CHECK(n1 == n0 + 1);

  // The whole function: the CPU stops on the first instruction outside it,
  // the return address in main, with the loop's 20,000 rounds done.
  std::snprintf(hex, sizeof hex, "vCont;r%llx,%llx:1;c", static_cast<unsigned long long>(spin),
                static_cast<unsigned long long>(spin + spin_size));
  CHECK(c.command(hex, 30) == "T05thread:1;");
  const std::string g = c.command("g");
  const uint32_t pc = reg32(g, 64);
  CHECK((pc < spin || pc >= spin + spin_size));
  CHECK(pc == reg32(g, 67));          // at the return address (lr)
  CHECK(reg32(g, 3) == 3741497956u);  // gdb_spin's result in r3
  CHECK(monitor_instructions(c.monitor("time")) > n1 + 100000);

  // A range that ends before it starts is refused.
  CHECK(c.command("vCont;r3000,2000:1").rfind("E", 0) == 0);
  c.send("c");
  const SimResult r = sim.wait(30);
  INFO(r.describe());
  CHECK(r.exited(0));
  CHECK(contains(r.out, "[ni0.cpu] spin = 3741497956\n"));
}

// Interrupts while GDB steps (gdb_irq.c: the decrementer every 2 us).
// `next` over a line that the simulator range-steps through runs the handler
// through and ends on the next line of main (it used to stop in the vector,
// where GDB took a stale link register for the caller and ran away); in the
// handler, `bt` goes through the exception frame (its call-frame
// information, vectors.S) to the interrupted code, and `finish` twice
// returns there.
TEST_CASE("gdb: next runs interrupts through, bt and finish go through the exception frame", "[integration][gdb]") {
  Sandbox sb;
  const int port = free_port();
  auto sim = sb.start({"run", sb.config("gdb_irq").string(), "--gdb", gdb_set(port)});
  const int stepped = firmware_source_line("gdb_irq.c", "/* range-stepped */");
  const SimResult g =
      run_gdb(sb, port, firmware_elf("gdb_irq"),
              {"break gdb_irq.c:" + std::to_string(stepped), "continue", "print g_ticks", "next", "print g_ticks",
               "delete", "break fw_decrementer_interrupt", "continue", "bt", "finish", "finish", "delete", "continue"});
  const SimResult r = sim.wait(60);
  INFO("---- gdb ----\n" << g.describe() << "\n---- simulator ----\n" << r.describe());
  CHECK(g.exited(0));
  // next: from the range-stepped loop to the line after it, ticks counted meanwhile.
  std::smatch m;
  REQUIRE(std::regex_search(g.out, m, std::regex(R"(\$1 = (\d+)\n(\d+)\s[^\n]*\n\$2 = (\d+))")));
  CHECK(std::stoi(m[2]) == stepped + 1);
  CHECK(std::stoul(m[3]) > std::stoul(m[1]));  // the handler ran during the next
  // bt in the handler: the exception frame, then the interrupted function and main.
  CHECK(contains(g.out, "#0  fw_decrementer_interrupt () at "));
  CHECK(contains(g.out, "#1  <signal handler called>\n"));
  CHECK(std::regex_search(g.out, std::regex(R"(#\d  (0x[0-9a-f]+ in )?main \(\) at [^\n]*gdb_irq\.c:\d+)")));
  // finish, finish: out of the handler, then out of the exception frame to the interrupted code.
  // (GDB prints "Run till exit" on stderr; where each finish ends on stdout.)
  CHECK(std::regex_search(g.out, std::regex(R"(\n<signal handler called>\n(spin \(n=n@entry=\d+\)|main \(\)) at )")));
  CHECK(contains(g.out, "[Inferior 1 (Remote target) exited normally]"));
  CHECK(r.exited(0));
  CHECK(r.result_num("ni0.cpu", "fw_result0") > 100);  // ticks: the interrupts kept coming
}
