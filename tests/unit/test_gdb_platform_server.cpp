// Unit tests for the platform's one GDB connection (models/debug/
// gdb_platform_server.*): thread packets, the selected thread's CPU behind
// register and memory packets, stop replies naming the halting CPU, per-thread
// steps and breakpoints per program, against fake CPUs.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "debug/gdb_packet.h"
#include "debug/gdb_platform_server.h"

using m2::GdbPlatformServer;
using m2::GdbServer;
namespace gdb = m2::gdb;

namespace {

// Two 32-bit registers (r0, pc), big-endian, 16 bytes of memory at 0x100;
// every value is distinct per CPU so that a reply tells which CPU answered.
struct FakeCpu : GdbPlatformServer::Cpu {
  FakeCpu(uint32_t seed, std::string prog) : regs{seed, 0x3000 + seed}, prog(std::move(prog)) {
    for (size_t i = 0; i < mem.size(); ++i) mem[i] = static_cast<uint8_t>(seed + i);
  }
  std::vector<uint64_t> regs;
  std::vector<uint8_t> mem = std::vector<uint8_t>(16);
  std::set<uint64_t> bps;
  std::string prog;
  bool busy = false;  // "inside a device access"
  int cuts = 0;

  const std::string& program() const override { return prog; }
  bool in_step() const override { return busy; }
  void cut_step() override { ++cuts; }
  std::string state() const override { return busy ? "in a device access" : ""; }
  std::string target_xml() override { return ""; }
  size_t register_count() override { return regs.size(); }
  unsigned register_bytes(size_t) override { return 4; }
  uint64_t read_register(size_t i) override { return regs.at(i); }
  void write_register(size_t i, uint64_t v) override { regs.at(i) = v; }
  size_t pc_register() override { return 1; }
  bool big_endian() override { return true; }
  size_t read_memory(uint64_t addr, uint8_t* data, size_t len) override {
    if (addr < 0x100 || addr + len > 0x110) return 0;
    std::memcpy(data, &mem[addr - 0x100], len);
    return len;
  }
  size_t write_memory(uint64_t addr, const uint8_t* data, size_t len) override {
    if (addr < 0x100 || addr + len > 0x110) return 0;
    std::memcpy(&mem[addr - 0x100], data, len);
    return len;
  }
  bool insert_breakpoint(uint64_t addr) override {
    bps.insert(addr);
    return true;
  }
  void remove_breakpoint(uint64_t addr) override { bps.erase(addr); }
  std::string monitor(const std::string& cmd) override { return cmd == "who" ? prog + "\n" : ""; }
};

// node0 and node1 run the same firmware, sb0 another one.
struct Platform {
  FakeCpu node0{0x10, "ni.elf"}, node1{0x20, "ni.elf"}, sb0{0x30, "sb.elf"};
  GdbPlatformServer server{{"node0.ni.cpu", "node1.ni.cpu", "sb0.cpu"}};
  Platform() {
    server.bind(1, node0);
    server.bind(2, node1);
    server.bind(3, sb0);
  }
  std::string reply(const std::string& packet) { return server.handle(packet).packet.value_or("<none>"); }
};

}  // namespace

TEST_CASE("gdb platform server: every CPU a thread, listed with its name", "[gdb]") {
  Platform p;
  CHECK(p.reply("qfThreadInfo") == "m1,2,3");
  CHECK(p.reply("qsThreadInfo") == "l");
  CHECK(p.reply("qThreadExtraInfo,2") == gdb::to_hex("node1.ni.cpu"));
  p.node1.busy = true;
  CHECK(p.reply("qThreadExtraInfo,2") == gdb::to_hex("node1.ni.cpu (in a device access)"));
  CHECK(p.reply("qThreadExtraInfo,7") == "E06");
  const std::string xml = p.reply("qXfer:threads:read::0,1000");
  CHECK(xml ==
        "l<?xml version=\"1.0\"?>\n<threads>\n<thread id=\"1\" name=\"node0.ni.cpu\"></thread>\n"
        "<thread id=\"2\" name=\"node1.ni.cpu\">in a device access</thread>\n"
        "<thread id=\"3\" name=\"sb0.cpu\"></thread>\n</threads>\n");
  // In pieces: 'm' while more follows.
  const std::string first = p.reply("qXfer:threads:read::0,a");
  CHECK(first == "m<?xml vers");
  CHECK(p.reply("qSupported:multiprocess+") == "PacketSize=4000;qXfer:threads:read+");
  CHECK(p.reply("T3") == "OK");
  CHECK(p.reply("Tp1.2") == "OK");
  CHECK(p.reply("T4") == "E06");
  CHECK(p.reply("T") == "E01");
  // A CPU whose firmware has ended is no thread any more.
  p.server.thread_ended(2);
  CHECK(p.reply("qfThreadInfo") == "m1,3");
  CHECK(p.reply("T2") == "E06");
  CHECK(p.reply("Hg2") == "E06");
}

TEST_CASE("gdb platform server: Hg selects the CPU whose registers, memory and monitor GDB sees", "[gdb]") {
  Platform p;
  CHECK(p.reply("g") == "0000001000003010");  // thread 1 until GDB selects another
  CHECK(p.reply("Hg2") == "OK");
  CHECK(p.server.selected() == 2);
  CHECK(p.reply("g") == "0000002000003020");
  CHECK(p.reply("p1") == "00003020");
  CHECK(p.reply("m100,4") == "20212223");
  CHECK(p.reply("M100,2:abcd") == "OK");
  CHECK(p.node1.mem[0] == 0xab);
  CHECK(p.node0.mem[0] == 0x10);  // the other NI's memory is its own
  CHECK(p.reply("Hgp1.3") == "OK");
  CHECK(p.reply("P0=00000099") == "OK");
  CHECK(p.sb0.regs[0] == 0x99);
  CHECK(p.node0.regs[0] == 0x10);
  CHECK(p.reply("qRcmd," + gdb::to_hex("who")) == gdb::to_hex("sb.elf\n"));
  // "any" and "all" keep the selection; unknown threads and ops are errors.
  CHECK(p.reply("Hg0") == "OK");
  CHECK(p.reply("Hg-1") == "OK");
  CHECK(p.server.selected() == 3);
  CHECK(p.reply("Hg9") == "E06");
  CHECK(p.reply("Hx1") == "E01");
  CHECK(p.reply("Hgzz") == "E01");
  // Stopped inside a device access: readable, not writable.
  p.sb0.busy = true;
  CHECK(p.reply("p0") == "00000099");
  CHECK(p.reply("P0=00000001") == "E07");
  CHECK(p.reply("G0000000100000002") == "E07");
  CHECK(p.sb0.regs[0] == 0x99);
}

TEST_CASE("gdb platform server: breakpoints go to every CPU running thread 1's firmware", "[gdb]") {
  Platform p;
  CHECK(p.reply("Hg3") == "OK");  // the selection does not matter
  CHECK(p.reply("Z0,3100,4") == "OK");
  CHECK(p.node0.bps == std::set<uint64_t>{0x3100});
  CHECK(p.node1.bps == std::set<uint64_t>{0x3100});
  CHECK(p.sb0.bps.empty());
  CHECK(p.reply("z0,3100,4") == "OK");
  CHECK(p.node0.bps.empty());
  CHECK(p.node1.bps.empty());
}

TEST_CASE("gdb platform server: vCont steps the named thread, the others continue", "[gdb]") {
  Platform p;
  CHECK(p.reply("vCont?") == "vCont;c;C;s;S;r");
  SECTION("a step of another thread than the halted one") {
    const GdbServer::Reply r = p.server.handle("vCont;s:2;c");
    CHECK_FALSE(r.packet.has_value());
    CHECK(r.resume == GdbServer::Resume::Continue);  // the halted CPU runs on
    CHECK(p.server.step_requested(2));
    CHECK_FALSE(p.server.step_requested(1));
    CHECK_FALSE(p.server.step_requested(3));
    CHECK(p.node1.cuts == 0);
  }
  SECTION("a thread inside a device access ends its ISS step soon") {
    p.sb0.busy = true;
    CHECK(p.server.handle("vCont;s:p1.3;c:p1.-1").resume == GdbServer::Resume::Continue);
    CHECK(p.server.step_requested(3));
    CHECK(p.sb0.cuts == 1);
  }
  SECTION("the first action naming a thread decides, continue clears steps") {
    p.server.handle("vCont;c:2;s:2");
    CHECK_FALSE(p.server.step_requested(2));
    p.server.handle("vCont;S05:1;c");
    CHECK(p.server.step_requested(1));
    p.server.handle("c");
    CHECK_FALSE(p.server.step_requested(1));
  }
  SECTION("a range step of one thread keeps its range; a plain step has none") {
    p.server.handle("vCont;r100,180:2;s:3;c");
    CHECK(p.server.step_requested(2));
    REQUIRE(p.server.step_range(2));
    CHECK(*p.server.step_range(2) == std::make_pair<uint64_t, uint64_t>(0x100, 0x180));
    CHECK(p.server.step_requested(3));
    CHECK_FALSE(p.server.step_range(3));
    CHECK_FALSE(p.server.step_range(1));
    CHECK(p.reply("vCont;r180,100:2") == "E01");
  }
  SECTION("legacy s steps the Hc thread, or the selected one") {
    CHECK(p.reply("Hc2") == "OK");
    CHECK(p.server.handle("s").resume == GdbServer::Resume::Continue);
    CHECK(p.server.step_requested(2));
    CHECK(p.reply("Hc-1") == "OK");
    CHECK(p.reply("Hg3") == "OK");
    p.server.handle("s");
    CHECK(p.server.step_requested(3));
    CHECK_FALSE(p.server.step_requested(2));
  }
  SECTION("malformed and unknown threads") {
    CHECK(p.reply("vCont;s:9;c") == "E06");
    CHECK(p.reply("vCont;t:1") == "E01");
    CHECK(p.reply("vCont;s:x") == "E01");
    CHECK(p.reply("vCont") == "E01");
    CHECK_FALSE(p.server.step_requested(1));
  }
}

TEST_CASE("gdb platform server: the stop reply names the halting CPU's thread and selects it", "[gdb]") {
  Platform p;
  int fds[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  p.server.use_connection(fds[0]);
  auto send = [&](const std::string& payload) {
    const std::string f = gdb::frame(payload);
    REQUIRE(::write(fds[1], f.data(), f.size()) == ssize_t(f.size()));
  };
  auto received = [&] {
    std::string s;
    char b[4096];
    for (ssize_t n; (n = ::recv(fds[1], b, sizeof b, MSG_DONTWAIT)) > 0;) s.append(b, size_t(n));
    return s;
  };
  // Attached in thread 1; GDB asks thread 2 to step and the rest to run.
  send("vCont;s:2;c");
  REQUIRE(p.server.serve_halted_as(1, GdbServer::SIG_TRAP) == GdbServer::Resume::Continue);
  CHECK(p.server.step_requested(2));
  CHECK(received() == "+");
  // sb0 reaches a breakpoint first: its thread is reported and selected, and
  // node1's pending step is over (GDB resumes anew).
  send("g");
  send("qC");
  send("c");
  REQUIRE(p.server.serve_halted_as(3, GdbServer::SIG_TRAP) == GdbServer::Resume::Continue);
  CHECK(received() ==
        gdb::frame("T05thread:3;") + "+" + gdb::frame("0000003000003030") + "+" + gdb::frame("QC3") + "+");
  CHECK_FALSE(p.server.step_requested(2));
  // Then node1 (thread 2) halts on Ctrl-C; '?' repeats it.
  send("?");
  send("k");
  REQUIRE(p.server.serve_halted_as(2, GdbServer::SIG_INT) == GdbServer::Resume::Kill);
  CHECK(received() == gdb::frame("T02thread:2;") + "+" + gdb::frame("T02thread:2;") + "+");
  CHECK(p.server.selected() == 2);
  ::close(fds[1]);
}

TEST_CASE("gdb platform server: random thread packets never crash it or select a missing thread", "[gdb]") {
  Platform p;
  p.node1.busy = true;
  p.server.thread_ended(3);
  uint32_t seed = 4242;
  auto rnd = [&] { return seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7FFF; };
  const std::string starts[] = {"Hg",
                                "Hc",
                                "H",
                                "T",
                                "vCont;",
                                "vCont;s:",
                                "vCont;c:",
                                "qThreadExtraInfo,",
                                "qXfer:threads:read::",
                                "qC",
                                "qfThreadInfo",
                                "s",
                                "S",
                                "c",
                                "g",
                                "P",
                                "Z0,"};
  const std::string alphabet = "0123456789abcdefp.-,:;sScC";
  for (int i = 0; i < 20000; ++i) {
    std::string pk = starts[rnd() % (sizeof starts / sizeof starts[0])];
    const int n = rnd() % 12;
    for (int k = 0; k < n; ++k) pk += alphabet[rnd() % alphabet.size()];
    INFO("packet: " << pk);
    REQUIRE_NOTHROW(p.server.handle(pk));
    REQUIRE((p.server.selected() == 1 || p.server.selected() == 2));
    REQUIRE_FALSE(p.server.step_requested(3));
  }
}
