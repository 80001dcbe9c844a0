// Unit tests for the GDB remote protocol: framing (models/debug/gdb_packet.*),
// the packet handler against a fake CPU, and the server over a socketpair
// (acks, NAK and retransmission, Ctrl-C, output, a vanishing GDB).
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "debug/gdb_packet.h"
#include "debug/gdb_server.h"

using m2::GdbServer;
namespace gdb = m2::gdb;

namespace {

// 4 32-bit registers then one 64-bit (like f0), big-endian; 256 bytes of
// memory at 0x1000; breakpoints only on aligned addresses in that memory.
struct FakeTarget : m2::GdbTarget {
  std::vector<uint64_t> regs{0x11223344, 0, 0, 0x3000, 0x0102030405060708ull};
  std::vector<uint8_t> mem = std::vector<uint8_t>(256);
  std::set<uint64_t> bps;
  std::vector<std::string> monitors;
  static constexpr uint64_t BASE = 0x1000;

  std::string target_xml() override { return "<target><architecture>test</architecture></target>"; }
  size_t register_count() override { return regs.size(); }
  unsigned register_bytes(size_t i) override { return i == 4 ? 8 : 4; }
  uint64_t read_register(size_t i) override { return regs.at(i); }
  void write_register(size_t i, uint64_t v) override { regs.at(i) = v; }
  size_t pc_register() override { return 3; }
  bool big_endian() override { return true; }
  size_t read_memory(uint64_t addr, uint8_t* data, size_t len) override {
    if (addr < BASE || addr >= BASE + mem.size()) return 0;
    const size_t n = std::min<size_t>(len, BASE + mem.size() - addr);
    std::memcpy(data, &mem[addr - BASE], n);
    return n;
  }
  size_t write_memory(uint64_t addr, const uint8_t* data, size_t len) override {
    if (addr < BASE || addr >= BASE + mem.size()) return 0;
    const size_t n = std::min<size_t>(len, BASE + mem.size() - addr);
    std::memcpy(&mem[addr - BASE], data, n);
    return n;
  }
  bool insert_breakpoint(uint64_t addr) override {
    if ((addr & 3) || addr < BASE || addr >= BASE + mem.size()) return false;
    bps.insert(addr);
    return true;
  }
  void remove_breakpoint(uint64_t addr) override { bps.erase(addr); }
  // Watchpoints anywhere inside the 256 bytes of memory.
  std::multiset<GdbServer::Watchpoint> watches;
  bool insert_watchpoint(m2::GdbWatch type, uint64_t addr, uint64_t len) override {
    if (addr < BASE || addr + len > BASE + mem.size()) return false;
    watches.insert({type, addr, len});
    return true;
  }
  void remove_watchpoint(m2::GdbWatch type, uint64_t addr, uint64_t len) override {
    auto it = watches.find({type, addr, len});
    REQUIRE(it != watches.end());  // the server removes only what it inserted
    watches.erase(it);
  }
  std::string monitor(const std::string& cmd) override {
    monitors.push_back(cmd);
    return cmd == "hello" ? "hi there\n" : "";
  }
};

std::string reply(GdbServer& s, const std::string& packet) {
  const GdbServer::Reply r = s.handle(packet);
  return r.packet.value_or("<none>");
}

std::vector<gdb::PacketReader::Event> events(const std::string& bytes) {
  gdb::PacketReader r;
  r.feed(bytes);
  std::vector<gdb::PacketReader::Event> out;
  while (auto e = r.next()) out.push_back(*e);
  return out;
}

// A connected server and the GDB end of a socketpair.
struct Wire {
  FakeTarget target;
  GdbServer server{"test.cpu", target};
  int gdb_fd = -1;
  Wire() {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
    server.use_connection(fds[0]);
    gdb_fd = fds[1];
  }
  ~Wire() {
    if (gdb_fd >= 0) ::close(gdb_fd);
  }
  void send(const std::string& bytes) { REQUIRE(::write(gdb_fd, bytes.data(), bytes.size()) == ssize_t(bytes.size())); }
  void send_packet(const std::string& payload) { send(gdb::frame(payload)); }
  // Everything the server has sent so far.
  std::string received() {
    std::string s;
    char b[4096];
    for (;;) {
      const ssize_t n = ::recv(gdb_fd, b, sizeof b, MSG_DONTWAIT);
      if (n <= 0) return s;
      s.append(b, size_t(n));
    }
  }
};

}  // namespace

// ---- framing -----------------------------------------------------------------

TEST_CASE("gdb packet: checksum and framing", "[gdb]") {
  CHECK(gdb::checksum("") == 0);
  CHECK(gdb::checksum("OK") == 0x9a);
  CHECK(gdb::frame("OK") == "$OK#9a");
  CHECK(gdb::frame("") == "$#00");
  // Modulo 256.
  CHECK(gdb::checksum(std::string(3, '\xff')) == 0xfd);
}

TEST_CASE("gdb packet: escaping binary data", "[gdb]") {
  const std::string raw = std::string("a#b$c}d*e") + '\0' + "\x03";
  const std::string esc = gdb::escape(raw);
  CHECK(esc == std::string("a}\x03"
                           "b}\x04"
                           "c}]d}\x0a"
                           "e") +
                   '\0' + "\x03");
  CHECK(esc.find('#') == std::string::npos);
  CHECK(esc.find('$') == std::string::npos);
  CHECK(gdb::unescape(esc) == raw);
  CHECK_FALSE(gdb::unescape("abc}").has_value());  // a lone escape at the end
}

TEST_CASE("gdb packet: hex helpers reject malformed text", "[gdb]") {
  std::vector<uint8_t> b;
  CHECK(gdb::from_hex("00ff7A", b));
  CHECK(b == std::vector<uint8_t>{0x00, 0xff, 0x7a});
  CHECK(gdb::to_hex(b.data(), b.size()) == "00ff7a");
  CHECK_FALSE(gdb::from_hex("abc", b));  // odd length
  CHECK_FALSE(gdb::from_hex("zz", b));   // not hex
  CHECK(gdb::to_hex("OK\n") == "4f4b0a");
  CHECK(gdb::parse_hex("3000") == std::optional<uint64_t>(0x3000));
  CHECK(gdb::parse_hex("FFFFFFFFFFFFFFFF") == std::optional<uint64_t>(~0ull));
  CHECK_FALSE(gdb::parse_hex(""));
  CHECK_FALSE(gdb::parse_hex("12345678123456789"));  // more than 64 bits
  CHECK_FALSE(gdb::parse_hex("-1"));
  CHECK_FALSE(gdb::parse_hex("0x10"));
}

TEST_CASE("gdb packet: reader splits packets, acks, Ctrl-C and noise", "[gdb]") {
  const auto ev = events("+$g#67-\x03junk" + gdb::frame("m1000,4") + "$bad#00$x#7g");
  using E = gdb::PacketReader::Event;
  REQUIRE(ev.size() == 7);
  CHECK(ev[0].kind == E::Ack);
  CHECK(ev[1].kind == E::Packet);
  CHECK(ev[1].payload == "g");
  CHECK(ev[2].kind == E::Nak);
  CHECK(ev[3].kind == E::Interrupt);
  CHECK(ev[4].kind == E::Packet);
  CHECK(ev[4].payload == "m1000,4");
  CHECK(ev[5].kind == E::BadPacket);  // wrong checksum
  CHECK(ev[6].kind == E::BadPacket);  // checksum not hex
}

TEST_CASE("gdb packet: reader handles split input, 0x03 inside a packet, restarts and overlong packets", "[gdb]") {
  using E = gdb::PacketReader::Event;
  gdb::PacketReader r;
  const std::string pkt = gdb::frame(std::string("X1000,1:") + "}\x03");  // an escaped '#' is 0x03
  for (char c : pkt) r.feed(&c, 1);
  auto e = r.next();
  REQUIRE(e);
  CHECK(e->kind == E::Packet);
  CHECK(e->payload == std::string("X1000,1:}\x03"));
  CHECK_FALSE(r.next());

  // A '$' inside a packet starts over: the cut-off one is bad.
  r.feed("$abc$g#67");
  e = r.next();
  REQUIRE(e);
  CHECK(e->kind == E::BadPacket);
  e = r.next();
  REQUIRE(e);
  CHECK(e->kind == E::Packet);
  CHECK(e->payload == "g");

  const std::string huge(gdb::MAX_PACKET + 10, 'a');
  r.feed(gdb::frame(huge));
  e = r.next();
  REQUIRE(e);
  CHECK(e->kind == E::BadPacket);
}

// ---- packets ---------------------------------------------------------------

TEST_CASE("gdb server: registers g/G/p/P in target byte order", "[gdb]") {
  FakeTarget t;
  GdbServer s("test.cpu", t);
  CHECK(reply(s, "g") ==
        "11223344000000000000000000003000"
        "0102030405060708");
  CHECK(reply(s, "p0") == "11223344");
  CHECK(reply(s, "p4") == "0102030405060708");
  CHECK(reply(s, "P1=deadbeef") == "OK");
  CHECK(t.regs[1] == 0xdeadbeef);
  CHECK(reply(s,
              "G"
              "00000001000000020000000300000004"
              "1112131415161718") == "OK");
  CHECK(t.regs == std::vector<uint64_t>{1, 2, 3, 4, 0x1112131415161718ull});
  // Errors, never a crash.
  CHECK(reply(s, "p5") == "E02");
  CHECK(reply(s, "pzz") == "E01");
  CHECK(reply(s, "p") == "E01");
  CHECK(reply(s, "P5=00000000") == "E02");
  CHECK(reply(s, "P1=1234") == "E01");  // wrong size
  CHECK(reply(s, "P1") == "E01");
  CHECK(reply(s, "G0000") == "E01");  // too short
  CHECK(reply(s, "G" + std::string(48, 'q')) == "E01");
  CHECK(t.regs == std::vector<uint64_t>{1, 2, 3, 4, 0x1112131415161718ull});
}

TEST_CASE("gdb server: memory m/M/X and errors outside memory", "[gdb]") {
  FakeTarget t;
  GdbServer s("test.cpu", t);
  CHECK(reply(s, "M1000,4:cafef00d") == "OK");
  CHECK(reply(s, "m1000,4") == "cafef00d");
  CHECK(reply(s, "m1002,2") == "f00d");
  // Binary write with escapes ('#' and '}' in the data).
  CHECK(reply(s, std::string("X1004,3:") + "}\x03"
                                           "a}]") == "OK");
  CHECK(t.mem[4] == '#');
  CHECK(t.mem[5] == 'a');
  CHECK(t.mem[6] == '}');
  CHECK(reply(s, "X1004,0:") == "OK");  // GDB's probe
  // A read running past the end returns what exists.
  CHECK(reply(s, "m10fe,10").size() == 4);
  CHECK(reply(s, "m0,4") == "E03");
  CHECK(reply(s, "mffffffff,4") == "E03");
  CHECK(reply(s, "M0,2:0102") == "E03");
  CHECK(reply(s, "X0,1:a") == "E03");
  CHECK(reply(s, "m1000") == "E01");
  CHECK(reply(s, "m1000,") == "E01");
  CHECK(reply(s, "m1000,0") == "E01");
  CHECK(reply(s, "mxyz,4") == "E01");
  CHECK(reply(s, "M1000,4:cafe") == "E01");  // length mismatch
  CHECK(reply(s, "M1000,2:zzzz") == "E01");
  CHECK(reply(s, "M1000,2") == "E01");
  CHECK(reply(s, "X1000,1:}") == "E01");  // lone escape
  // A huge request is answered in part.
  CHECK(reply(s, "m1000,ffffffff").size() == 2 * 256);
}

TEST_CASE("gdb server: breakpoints Z0/Z1", "[gdb]") {
  FakeTarget t;
  GdbServer s("test.cpu", t);
  CHECK(reply(s, "Z0,1010,4") == "OK");
  CHECK(reply(s, "Z1,1020,4") == "OK");
  CHECK(reply(s, "Z0,1030,4;X1,0") == "OK");  // a condition is ignored
  CHECK(t.bps == std::set<uint64_t>{0x1010, 0x1020, 0x1030});
  CHECK(s.breakpoints() == t.bps);
  CHECK(reply(s, "z0,1010,4") == "OK");
  CHECK(reply(s, "z1,1020,4") == "OK");
  CHECK(t.bps == std::set<uint64_t>{0x1030});
  CHECK(reply(s, "Z0,0,4") == "E04");     // no memory there
  CHECK(reply(s, "Z0,1011,4") == "E04");  // misaligned
  CHECK(reply(s, "Z0,10x0,4") == "E01");
  CHECK(reply(s, "Z0") == "E01");
  CHECK(reply(s, "Z9,1000,4") == "E01");
  CHECK(reply(s, "Z0,1000") == "E01");
}

TEST_CASE("gdb server: watchpoints Z2/Z3/Z4 reach the target with their length", "[gdb]") {
  using W = m2::GdbWatch;
  FakeTarget t;
  GdbServer s("test.cpu", t);
  CHECK(reply(s, "Z2,1010,4") == "OK");
  CHECK(reply(s, "Z3,1020,1") == "OK");
  CHECK(reply(s, "Z4,1030,8") == "OK");
  CHECK(reply(s, "Z2,1040,40") == "OK");  // 64 bytes: longer ranges too
  CHECK(reply(s, "Z2,1010,4") == "OK");   // a second watchpoint on the same word
  using WP = GdbServer::Watchpoint;
  const std::multiset<WP> all{WP{W::Write, 0x1010, 4}, WP{W::Write, 0x1010, 4}, WP{W::Read, 0x1020, 1},
                              WP{W::Access, 0x1030, 8}, WP{W::Write, 0x1040, 64}};
  CHECK(t.watches == all);
  CHECK(s.watchpoints() == all);
  // Removing one of two equal watchpoints leaves the other.
  CHECK(reply(s, "z2,1010,4") == "OK");
  CHECK(t.watches.count(WP{W::Write, 0x1010, 4}) == 1);
  CHECK(reply(s, "z3,1020,1") == "OK");
  CHECK(reply(s, "z3,1020,1") == "OK");  // already gone: nothing to do
  CHECK(t.watches.count(WP{W::Read, 0x1020, 1}) == 0);
  // Where the target cannot watch, and malformed packets.
  CHECK(reply(s, "Z2,0,4") == "E05");
  CHECK(reply(s, "Z4,10fe,4") == "E05");  // runs past the end of memory
  CHECK(reply(s, "Z3,1000,0") == "E01");  // empty range
  CHECK(reply(s, "Z2,10x0,4") == "E01");
  CHECK(reply(s, "Z4,1000") == "E01");
  CHECK(s.watchpoints() == t.watches);
  CHECK(t.bps.empty());  // watchpoints are no breakpoints
}

TEST_CASE("gdb server: a watchpoint stop is reported with its kind and data address", "[gdb]") {
  FakeTarget t;
  GdbServer s("test.cpu", t);
  CHECK(s.stop_reply(GdbServer::SIG_TRAP, GdbServer::WatchStop{m2::GdbWatch::Write, 0x1010}) ==
        "T05thread:1;watch:1010;");
  CHECK(s.stop_reply(GdbServer::SIG_TRAP, GdbServer::WatchStop{m2::GdbWatch::Read, 0xf0003008}) ==
        "T05thread:1;rwatch:f0003008;");
  CHECK(s.stop_reply(GdbServer::SIG_TRAP, GdbServer::WatchStop{m2::GdbWatch::Access, 0}) == "T05thread:1;awatch:0;");
  CHECK(s.stop_reply(GdbServer::SIG_TRAP) == "T05thread:1;");

  // Over the wire: the stop GDB waits for, and '?' repeats the last one.
  Wire w;
  w.send_packet("Z4,1030,4");
  w.send_packet("c");
  REQUIRE(w.server.serve_halted(GdbServer::SIG_TRAP) == GdbServer::Resume::Continue);
  w.received();
  w.send_packet("?");
  w.send_packet("c");
  REQUIRE(w.server.serve_halted(GdbServer::SIG_TRAP, GdbServer::WatchStop{m2::GdbWatch::Access, 0x1032}) ==
          GdbServer::Resume::Continue);
  CHECK(w.received() == gdb::frame("T05thread:1;awatch:1032;") + "+" + gdb::frame("T05thread:1;awatch:1032;") + "+");
  // A later stop without a watchpoint says nothing of it.
  w.send_packet("?");
  w.send_packet("k");
  REQUIRE(w.server.serve_halted(GdbServer::SIG_INT) == GdbServer::Resume::Kill);
  CHECK(w.received() == gdb::frame("T02thread:1;") + "+" + gdb::frame("T02thread:1;") + "+");
}

TEST_CASE("gdb server: run control c/s/C/S/vCont/k/D", "[gdb]") {
  FakeTarget t;
  GdbServer s("test.cpu", t);
  auto act = [&](const std::string& p) { return s.handle(p).resume; };
  CHECK(act("c") == GdbServer::Resume::Continue);
  CHECK(act("s") == GdbServer::Resume::Step);
  CHECK(act("C05") == GdbServer::Resume::Continue);
  CHECK(act("S02") == GdbServer::Resume::Step);
  CHECK(act("c4000") == GdbServer::Resume::Continue);
  CHECK(t.regs[3] == 0x4000);  // resumed at the address
  CHECK(act("S05;5000") == GdbServer::Resume::Step);
  CHECK(t.regs[3] == 0x5000);
  CHECK(s.handle("c4000").packet == std::nullopt);  // the stop reply comes later
  CHECK(reply(s, "cxyz") == "E01");
  CHECK(reply(s, "C") == "E01");
  CHECK(reply(s, "vCont?") == "vCont;c;C;s;S;r");
  CHECK(act("vCont;c") == GdbServer::Resume::Continue);
  // Range stepping: a step that goes on in [start, end) (the CPU checks it).
  CHECK(act("vCont;r3144,3170:1;c") == GdbServer::Resume::Step);
  REQUIRE(s.step_range());
  CHECK(*s.step_range() == std::make_pair<uint64_t, uint64_t>(0x3144, 0x3170));
  CHECK(act("vCont;s:1;c") == GdbServer::Resume::Step);
  CHECK_FALSE(s.step_range());                              // a plain step after it has none
  CHECK(act("vCont;r10,10:1") == GdbServer::Resume::Step);  // empty: one instruction
  CHECK(act("s") == GdbServer::Resume::Step);
  CHECK_FALSE(s.step_range());
  CHECK(reply(s, "vCont;r20,10:1") == "E01");  // ends before it starts
  CHECK(reply(s, "vCont;r20:1") == "E01");
  CHECK(reply(s, "vCont;rx,10:1") == "E01");
  CHECK(act("vCont;s:1;c") == GdbServer::Resume::Step);
  CHECK(act("vCont;s:p1.1;c") == GdbServer::Resume::Step);
  CHECK(act("vCont;s:2;c") == GdbServer::Resume::Continue);  // another thread's step
  CHECK(act("vCont;C05:1") == GdbServer::Resume::Continue);
  CHECK(reply(s, "vCont;t") == "E01");
  CHECK(reply(s, "vCont") == "E01");
  CHECK(reply(s, "vCont;") == "E01");
  CHECK(act("k") == GdbServer::Resume::Kill);
  CHECK(s.handle("k").packet == std::nullopt);
  const auto d = s.handle("D");
  CHECK(d.packet == std::optional<std::string>("OK"));
  CHECK(d.detach);
  CHECK(s.handle("D;1").detach);
}

TEST_CASE("gdb server: queries GDB needs to connect", "[gdb]") {
  FakeTarget t;
  GdbServer s("test.cpu", t);
  CHECK(reply(s, "qSupported:multiprocess+;swbreak+;hwbreak+;xmlRegisters=i386") ==
        "PacketSize=4000;qXfer:features:read+");
  CHECK(reply(s, "?") == "T05thread:1;");
  CHECK(reply(s, "qAttached") == "1");
  CHECK(reply(s, "qAttached:1") == "1");
  CHECK(reply(s, "qC") == "QC1");
  CHECK(reply(s, "qfThreadInfo") == "m1");
  CHECK(reply(s, "qsThreadInfo") == "l");
  CHECK(reply(s, "qThreadExtraInfo,1") == gdb::to_hex("test.cpu"));
  CHECK(reply(s, "Hg0") == "OK");
  CHECK(reply(s, "Hc-1") == "OK");
  CHECK(reply(s, "Hgp1.1") == "OK");
  CHECK(reply(s, "Hg7") == "E01");
  CHECK(reply(s, "T1") == "OK");
  CHECK(reply(s, "T2") == "E01");
  CHECK(reply(s, "vMustReplyEmpty") == "");
  CHECK(reply(s, "qTStatus") == "");
  CHECK(reply(s, "qSymbol::") == "OK");
  CHECK(reply(s, "!") == "");
  CHECK(reply(s, "") == "");
  CHECK(reply(s, "\x01\x02garbage") == "");
}

TEST_CASE("gdb server: target description in pieces, monitor commands", "[gdb]") {
  FakeTarget t;
  GdbServer s("test.cpu", t);
  const std::string xml = t.target_xml();
  CHECK(reply(s, "qXfer:features:read:target.xml:0,ffb") == "l" + xml);
  CHECK(reply(s, "qXfer:features:read:target.xml:0,8") == "m" + xml.substr(0, 8));
  CHECK(reply(s, "qXfer:features:read:target.xml:8,1000") == "l" + xml.substr(8));
  CHECK(reply(s, "qXfer:features:read:target.xml:1000,10") == "l");
  CHECK(reply(s, "qXfer:features:read:other.xml:0,10") == "E00");
  CHECK(reply(s, "qXfer:features:read:target.xml:0") == "E01");
  CHECK(reply(s, "qRcmd," + gdb::to_hex("hello")) == gdb::to_hex("hi there\n"));
  std::vector<uint8_t> text;
  REQUIRE(gdb::from_hex(reply(s, "qRcmd," + gdb::to_hex("nope")), text));
  CHECK(std::string(text.begin(), text.end()) == "unknown monitor command 'nope' (try 'monitor help')\n");
  CHECK(reply(s, "qRcmd,zz") == "E01");
  // A bare `monitor` (GDB sends an empty command) asks for help.
  reply(s, "qRcmd,");
  REQUIRE(!t.monitors.empty());
  CHECK(t.monitors.back() == "help");
}

// ---- the server on a socket ------------------------------------------------

TEST_CASE("gdb server: halted serving acks packets, NAKs bad ones and resends on '-'", "[gdb]") {
  Wire w;
  w.send("+");               // a stray ack
  w.send("$m1000,4#00");     // bad checksum: '-'
  w.send_packet("m1000,4");  // good: '+' and the reply
  w.send("-");               // GDB did not get it: resent
  w.send_packet("c");
  REQUIRE(w.server.serve_halted(GdbServer::SIG_TRAP) == GdbServer::Resume::Continue);
  const std::string mem = gdb::frame("00000000");
  CHECK(w.received() == "-+" + mem + mem + "+");
  // The CPU stops again: GDB gets the stop reply first.
  w.send_packet("s");
  REQUIRE(w.server.serve_halted(GdbServer::SIG_INT) == GdbServer::Resume::Step);
  CHECK(w.received() == gdb::frame("T02thread:1;") + "+");
  w.send_packet("?");
  w.send_packet("k");
  REQUIRE(w.server.serve_halted(GdbServer::SIG_TRAP) == GdbServer::Resume::Kill);
  CHECK(w.received() == gdb::frame("T05thread:1;") + "+" + gdb::frame("T05thread:1;") + "+");
  CHECK_FALSE(w.server.connected());
}

TEST_CASE("gdb server: Ctrl-C while running, output while GDB waits", "[gdb]") {
  Wire w;
  w.server.output("not now\n");  // GDB does not wait for a stop yet: nothing sent
  w.send_packet("c");
  REQUIRE(w.server.serve_halted(GdbServer::SIG_TRAP) == GdbServer::Resume::Continue);
  CHECK(w.received() == "+");
  CHECK_FALSE(w.server.poll().has_value());
  w.server.output("hello\n");
  CHECK(w.received() == gdb::frame("O" + gdb::to_hex("hello\n")));
  w.send("\x03");
  std::optional<int> sig;
  for (int i = 0; i < 100 && !sig; ++i) {  // poll() looks at the socket every few ms
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    sig = w.server.poll();
  }
  CHECK(sig == std::optional<int>(GdbServer::SIG_INT));
  w.send_packet("D");
  CHECK(w.server.serve_halted(*sig) == GdbServer::Resume::Continue);
  CHECK(w.received() == gdb::frame("T02thread:1;") + "+" + gdb::frame("OK"));
  CHECK_FALSE(w.server.connected());
}

TEST_CASE("gdb server: a closed connection resumes the CPU and removes GDB's breakpoints", "[gdb]") {
  SECTION("while halted") {
    Wire w;
    w.send_packet("Z0,1010,4");
    w.send_packet("Z2,1020,4");
    w.send_packet("Z3,1020,4");
    ::shutdown(w.gdb_fd, SHUT_WR);
    CHECK(w.server.serve_halted(GdbServer::SIG_TRAP) == GdbServer::Resume::Continue);
    CHECK_FALSE(w.server.connected());
    CHECK(w.target.bps.empty());
    CHECK(w.target.watches.empty());  // watchpoints go with GDB too
    CHECK(w.server.watchpoints().empty());
  }
  SECTION("while running") {
    Wire w;
    w.send_packet("Z0,1010,4");
    w.send_packet("c");
    REQUIRE(w.server.serve_halted(GdbServer::SIG_TRAP) == GdbServer::Resume::Continue);
    CHECK(w.target.bps.size() == 1);
    ::close(w.gdb_fd);
    w.gdb_fd = -1;
    CHECK_FALSE(w.server.poll().has_value());
    CHECK_FALSE(w.server.connected());
    CHECK(w.target.bps.empty());
    // Output and the end of the program go nowhere, without SIGPIPE.
    w.server.output("lost\n");
    w.server.exited(0);
  }
}

TEST_CASE("gdb server: the end of the program is reported and closes the connection", "[gdb]") {
  Wire w;
  w.send_packet("c");
  REQUIRE(w.server.serve_halted(GdbServer::SIG_TRAP) == GdbServer::Resume::Continue);
  w.server.exited(3);
  CHECK(w.received() == "+" + gdb::frame("W03"));
  CHECK_FALSE(w.server.connected());
  Wire x;
  x.server.terminated(GdbServer::SIG_SEGV);
  CHECK(x.received() == gdb::frame("X0b"));
}

TEST_CASE("gdb server: listens on 127.0.0.1 only and a port in use is an error", "[gdb]") {
  FakeTarget t;
  GdbServer a("a.cpu", t);
  a.listen(0);
  const uint16_t port = a.port();
  REQUIRE(port != 0);
  GdbServer b("b.cpu", t);
  try {
    b.listen(port);
    FAIL("listening twice on one port succeeded");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()) == "cannot listen on 127.0.0.1:" + std::to_string(port) + ": Address already in use");
  }
  // A GDB connecting while the CPU runs halts it (SIGTRAP).
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  std::optional<int> sig;
  for (int i = 0; i < 100 && !sig; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    sig = a.poll();
  }
  CHECK(sig == std::optional<int>(GdbServer::SIG_TRAP));
  CHECK(a.connected());
  ::close(fd);
}

TEST_CASE("gdb server: random packets never crash the server", "[gdb]") {
  FakeTarget t;
  GdbServer s("test.cpu", t);
  uint32_t seed = 12345;
  auto rnd = [&] { return seed = seed * 1103515245u + 12345u, (seed >> 16) & 0x7FFF; };
  const std::string starts[] = {"m",      "M", "X",   "g",      "G",
                                "p",      "P", "Z0,", "z1,",    "c",
                                "s",      "C", "S",   "vCont;", "qXfer:features:read:target.xml:",
                                "qRcmd,", "H", "T",   "q",      "v",
                                "D",      "?"};
  const std::string alphabet = "0123456789abcdefABCDEF,:;=#$}*-pxzq\x03";
  for (int i = 0; i < 20000; ++i) {
    std::string p = starts[rnd() % (sizeof starts / sizeof starts[0])];
    const int n = rnd() % 24;
    for (int k = 0; k < n; ++k) p += alphabet[rnd() % alphabet.size()];
    INFO("packet: " << p);
    REQUIRE_NOTHROW(s.handle(p));
  }
}

TEST_CASE("gdb server: a Ctrl-C arriving together with the continue packet is not lost", "[gdb]") {
  Wire w;
  w.send(gdb::frame("c") + "\x03");
  REQUIRE(w.server.serve_halted(GdbServer::SIG_TRAP) == GdbServer::Resume::Continue);
  CHECK(w.server.poll() == std::optional<int>(GdbServer::SIG_INT));
}
