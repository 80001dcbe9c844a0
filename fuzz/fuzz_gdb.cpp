// libFuzzer target: the GDB remote protocol as the simulator's server reads
// it (models/core/gdb_packet, gdb_server): bytes from the socket through the
// packet reader, every packet through the command handler of a small fake
// CPU. Every packet must get a reply or a resume, never a crash or an
// exception; replies must be well-formed packets.
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "debug/gdb_packet.h"
#include "debug/gdb_server.h"

namespace {

// Four 32-bit registers and one 64-bit, 4 KB of memory at 0x1000.
struct FakeCpu : m2::GdbTarget {
  uint64_t regs[5] = {1, 2, 3, 0x1000, 5};
  uint8_t mem[4096] = {};
  static constexpr uint64_t BASE = 0x1000;
  std::string target_xml() override { return "<target><architecture>fuzz</architecture></target>"; }
  size_t register_count() override { return 5; }
  unsigned register_bytes(size_t i) override { return i == 4 ? 8 : 4; }
  uint64_t read_register(size_t i) override { return i < 5 ? regs[i] : (__builtin_trap(), 0); }
  void write_register(size_t i, uint64_t v) override {
    if (i >= 5) __builtin_trap();
    regs[i] = v;
  }
  size_t pc_register() override { return 3; }
  bool big_endian() override { return true; }
  size_t read_memory(uint64_t addr, uint8_t* data, size_t len) override {
    if (addr < BASE || addr >= BASE + sizeof mem) return 0;
    const size_t n = std::min<uint64_t>(len, BASE + sizeof mem - addr);
    std::memcpy(data, mem + (addr - BASE), n);
    return n;
  }
  size_t write_memory(uint64_t addr, const uint8_t* data, size_t len) override {
    if (addr < BASE || addr >= BASE + sizeof mem) return 0;
    const size_t n = std::min<uint64_t>(len, BASE + sizeof mem - addr);
    std::memcpy(mem + (addr - BASE), data, n);
    return n;
  }
  bool insert_breakpoint(uint64_t addr) override { return addr >= BASE && addr < BASE + sizeof mem && !(addr & 3); }
  void remove_breakpoint(uint64_t) override {}
  bool insert_watchpoint(m2::GdbWatch, uint64_t addr, uint64_t len) override {
    return addr >= BASE && len <= sizeof mem && addr - BASE <= sizeof mem - len;
  }
  std::string monitor(const std::string& cmd) override { return cmd == "time" ? "0 ps\n" : ""; }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FakeCpu cpu;
  m2::GdbServer server("fuzz.cpu", cpu);
  m2::gdb::PacketReader reader;
  reader.feed(reinterpret_cast<const char*>(data), size);
  while (auto e = reader.next()) {
    if (e->kind != m2::gdb::PacketReader::Event::Packet) continue;
    if (e->payload.size() > m2::gdb::MAX_PACKET) __builtin_trap();
    const m2::GdbServer::Reply r = server.handle(e->payload);
    // A reply goes out framed; its own framing must survive the reader.
    if (r.packet) {
      m2::gdb::PacketReader back;
      back.feed(m2::gdb::frame(*r.packet));
      auto p = back.next();
      if (r.packet->size() <= m2::gdb::MAX_PACKET && (!p || p->kind != m2::gdb::PacketReader::Event::Packet))
        __builtin_trap();
    }
  }
  // The helpers on the raw input.
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  m2::gdb::unescape(text);
  std::vector<uint8_t> bytes;
  m2::gdb::from_hex(text, bytes);
  m2::gdb::parse_hex(text);
  return 0;
}
