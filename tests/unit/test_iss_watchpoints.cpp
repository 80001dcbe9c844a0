// Data watchpoints of the Unicorn PowerPC 603e through the ISS hook
// (iss::Core::insert_watchpoint): hand-assembled code in RAM stores to and
// loads from watched SDRAM words and device registers. A watchpoint stops the
// core BEFORE the accessing instruction (GDB's "non-steppable" watchpoints);
// resuming executes it exactly once. The GDB side: test_gdb_server.cpp and
// the gdb-multiarch test in tests/integration/test_gdb.cpp.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "core/params.h"
#include "iss_bare_core.h"

using m2::iss::StopReason;
using m2::iss::WatchKind;
using m2test::BareCore;
using m2test::run_until_stop;

namespace {

constexpr uint64_t kCode = 0x00100000, kData = 0x00200000;
constexpr uint64_t kDev = NI_CONSOLE_BASE;  // BareEnv's device page

// PowerPC D-form and a few other encodings.
constexpr uint32_t dform(unsigned op, unsigned rt, unsigned ra, int d) {
  return (op << 26) | (rt << 21) | (ra << 16) | (uint32_t(d) & 0xFFFF);
}
constexpr uint32_t lis(unsigned rt, unsigned v) { return dform(15, rt, 0, int(v)); }
constexpr uint32_t li(unsigned rt, int v) { return dform(14, rt, 0, v); }
constexpr uint32_t addi(unsigned rt, unsigned ra, int v) { return dform(14, rt, ra, v); }
constexpr uint32_t lwz(unsigned rt, int d, unsigned ra) { return dform(32, rt, ra, d); }
constexpr uint32_t stw(unsigned rs, int d, unsigned ra) { return dform(36, rs, ra, d); }
constexpr uint32_t stwu(unsigned rs, int d, unsigned ra) { return dform(37, rs, ra, d); }
constexpr uint32_t mtctr(unsigned rs) { return (31u << 26) | (rs << 21) | (9u << 16) | (467u << 1); }
constexpr uint32_t bdnz(int offset) { return (16u << 26) | (16u << 21) | (uint32_t(offset) & 0xFFFC); }
constexpr uint32_t kNop = 0x60000000;

uint32_t be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}
void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (24 - 8 * i));
}

// A core with `code` at kCode, the PC there and a breakpoint on the last
// instruction (a nop): run_until_stop() ends there with StopReason::Breakpoint.
struct Program {
  BareCore c;
  std::vector<uint32_t> code;
  explicit Program(std::vector<uint32_t> insns) : code(std::move(insns)) {
    code.push_back(kNop);
    for (size_t i = 0; i < code.size(); ++i) put32(c.env.ram + kCode + 4 * i, code[i]);
    c.core->code_changed(kCode, 4 * code.size());
    c.core->set_pc(kCode);
    REQUIRE(c.core->insert_breakpoint(end()));
    c.env.device_ok = true;
  }
  uint64_t at(size_t index) const { return kCode + 4 * index; }
  uint64_t end() const { return at(code.size() - 1); }
  uint32_t data(uint64_t offset) const { return be32(c.env.ram + kData + offset); }
  void set_data(uint64_t offset, uint32_t v) { put32(c.env.ram + kData + offset, v); }
  m2::iss::Core& core() { return *c.core; }
  // From the PC to the final breakpoint: instructions executed.
  uint64_t run_to_end() {
    const uint64_t n = core().instruction_count();
    REQUIRE(run_until_stop(core()) == StopReason::Breakpoint);
    REQUIRE(core().pc() == end());
    return core().instruction_count() - n;
  }
};

// lis r3,data ; li r4,0x55 ; lwz r5,0(r3) ; stw r4,0(r3) ; stwu r4,4(r3) ; addi r8,r8,1
std::vector<uint32_t> store_program() {
  return {lis(3, kData >> 16), li(4, 0x55), lwz(5, 0, 3), stw(4, 0, 3), stwu(4, 4, 3), addi(8, 8, 1)};
}

}  // namespace

TEST_CASE("iss watchpoints: a write watchpoint stops before the store, which runs once on resume",
          "[model][processor][iss][watch]") {
  uint64_t ref_count = 0;
  {
    Program ref(store_program());
    ref_count = ref.run_to_end();
    CHECK(ref_count == 6);
    CHECK(ref.data(0) == 0x55);
  }
  Program p(store_program());
  p.set_data(0, 0x11111111);
  p.set_data(4, 0x22222222);
  REQUIRE(p.core().insert_watchpoint(kData, 4, WatchKind::Write));

  REQUIRE(run_until_stop(p.core()) == StopReason::Watchpoint);
  CHECK(p.core().pc() == p.at(3));  // the stw, not executed
  CHECK(p.core().instruction_count() == 3);
  CHECK(p.data(0) == 0x11111111);                  // memory still holds the old value
  CHECK(p.core().read_register(5) == 0x11111111);  // the load before it ran
  const m2::iss::WatchHit& h = p.core().watch_hit();
  CHECK(h.kind == WatchKind::Write);
  CHECK(h.addr == kData);
  CHECK(h.pc == p.at(3));
  CHECK(h.is_write);

  // Resuming executes the store once; the next one (stwu to +4) is not watched.
  CHECK(p.run_to_end() == ref_count - 3);
  CHECK(p.data(0) == 0x55);
  CHECK(p.data(4) == 0x55);
  CHECK(p.core().read_register(3) == kData + 4);
  CHECK(p.core().read_register(8) == 1);
}

TEST_CASE("iss watchpoints: an update-form store is undone completely, memory and base register",
          "[model][processor][iss][watch]") {
  Program p(store_program());
  p.set_data(4, 0x22222222);
  // One byte in the middle of the word the stwu writes: the hit names that byte.
  REQUIRE(p.core().insert_watchpoint(kData + 6, 1, WatchKind::Write));
  REQUIRE(run_until_stop(p.core()) == StopReason::Watchpoint);
  CHECK(p.core().pc() == p.at(4));
  CHECK(p.core().watch_hit().addr == kData + 6);
  CHECK(p.core().read_register(3) == kData);  // rA not yet updated
  CHECK(p.data(4) == 0x22222222);
  CHECK(p.data(0) == 0x55);  // the stw before it ran
  // Single-stepping from the stop executes the stwu (the core lets the
  // reported instruction pass, as GDB's step over a watchpoint expects).
  REQUIRE(p.core().single_step() == StopReason::Budget);
  CHECK(p.core().pc() == p.at(5));
  CHECK(p.core().read_register(3) == kData + 4);
  CHECK(p.data(4) == 0x55);
  CHECK(p.run_to_end() == 1);
}

TEST_CASE("iss watchpoints: read, write and access watchpoints in a loop stop once per access",
          "[model][processor][iss][watch]") {
  // lis r3,data ; li r9,3 ; mtctr r9 ; loop: lwz r10,0(r3) ; addi r10,r10,1 ;
  // stw r10,0(r3) ; bdnz loop
  const std::vector<uint32_t> loop = {lis(3, kData >> 16), li(9, 3),      mtctr(9), lwz(10, 0, 3),
                                      addi(10, 10, 1),     stw(10, 0, 3), bdnz(-12)};
  const uint64_t total = 3 + 3 * 4;
  struct Case {
    WatchKind kind;
    std::vector<size_t> stops;  // instruction index of each stop
  };
  for (const Case& k : {Case{WatchKind::Read, {3, 3, 3}}, Case{WatchKind::Write, {5, 5, 5}},
                        Case{WatchKind::Access, {3, 5, 3, 5, 3, 5}}}) {
    Program p(loop);
    REQUIRE(p.core().insert_watchpoint(kData, 4, k.kind));
    std::vector<uint32_t> seen;  // the counter in memory at each stop
    for (size_t i = 0; i < k.stops.size(); ++i) {
      INFO("kind " << int(k.kind) << ", stop " << i);
      REQUIRE(run_until_stop(p.core()) == StopReason::Watchpoint);
      CHECK(p.core().pc() == p.at(k.stops[i]));
      CHECK(p.core().watch_hit().is_write == (k.stops[i] == 5));
      seen.push_back(p.data(0));
    }
    // No further stop: the loop ends, every instruction counted once.
    p.run_to_end();
    CHECK(p.core().instruction_count() == total);
    CHECK(p.data(0) == 3);
    if (k.kind == WatchKind::Write) CHECK(seen == std::vector<uint32_t>{0, 1, 2});
    if (k.kind == WatchKind::Access) CHECK(seen == std::vector<uint32_t>{0, 0, 1, 1, 2, 2});
  }
}

TEST_CASE("iss watchpoints: a watched device register is not accessed until the instruction resumes",
          "[model][processor][iss][watch]") {
  // lis r6,dev ; li r4,0x55 ; lwz r7,8(r6) ; stw r4,12(r6) ; stw r4,16(r6)
  Program p({lis(6, kDev >> 16), li(4, 0x55), lwz(7, 8, 6), stw(4, 12, 6), stw(4, 16, 6)});
  p.c.env.regs[8 / 4] = 0xCAFE0001;
  // One access watchpoint over the registers at +8 and +12.
  REQUIRE(p.core().insert_watchpoint(kDev + 8, 8, WatchKind::Access));

  REQUIRE(run_until_stop(p.core()) == StopReason::Watchpoint);
  CHECK(p.core().pc() == p.at(2));
  CHECK(p.core().watch_hit().addr == kDev + 8);
  CHECK_FALSE(p.core().watch_hit().is_write);
  CHECK(p.c.env.accesses.empty());  // the device saw nothing
  CHECK(p.core().read_register(7) == 0);

  REQUIRE(run_until_stop(p.core()) == StopReason::Watchpoint);
  CHECK(p.core().pc() == p.at(3));
  CHECK(p.core().watch_hit().addr == kDev + 12);
  CHECK(p.core().watch_hit().is_write);
  REQUIRE(p.c.env.accesses.size() == 1);  // the read, once
  CHECK_FALSE(p.c.env.accesses[0].is_write);
  CHECK(p.c.env.accesses[0].addr == kDev + 8);
  CHECK(p.core().read_register(7) == 0xCAFE0001);

  CHECK(p.run_to_end() == 2);
  REQUIRE(p.c.env.accesses.size() == 3);  // each access exactly once, in order
  CHECK(p.c.env.accesses[1].is_write);
  CHECK(p.c.env.accesses[1].addr == kDev + 12);
  CHECK(p.c.env.accesses[1].value == 0x55);
  CHECK(p.c.env.accesses[2].addr == kDev + 16);
}

TEST_CASE("iss watchpoints: outside the memory map they cannot be set, removed ones stop nothing",
          "[model][processor][iss][watch]") {
  Program p(store_program());
  CHECK_FALSE(p.core().insert_watchpoint(0x50000000, 4, WatchKind::Write));         // unmapped
  CHECK_FALSE(p.core().insert_watchpoint(NI_SDRAM_SIZE - 2, 4, WatchKind::Write));  // runs past the SDRAM
  CHECK_FALSE(p.core().insert_watchpoint(kData, 0, WatchKind::Write));
  CHECK_FALSE(p.core().insert_watchpoint(NI_ISS_PRIVATE_BASE, 4, WatchKind::Read));  // the core's own page
  // Two equal watchpoints need two removals.
  REQUIRE(p.core().insert_watchpoint(kData, 4, WatchKind::Write));
  REQUIRE(p.core().insert_watchpoint(kData, 4, WatchKind::Write));
  p.core().remove_watchpoint(kData, 4, WatchKind::Write);
  REQUIRE(run_until_stop(p.core()) == StopReason::Watchpoint);
  p.core().remove_watchpoint(kData, 4, WatchKind::Write);
  p.core().set_pc(p.at(0));  // run it all again: nothing stops it now
  CHECK(p.run_to_end() == 6);
  CHECK(p.data(0) == 0x55);
}

TEST_CASE("iss watchpoints: firmware runs with the same result and count while a watchpoint is set",
          "[model][processor][iss][watch]") {
  // In watch mode budget stops are made by the code hook instead of the block
  // hook: small budgets must still count exactly and never re-execute.
  m2::ParamRegistry::instance().clear();
  const uint64_t kernel_insns = m2test::kernel_instructions();
  BareCore c;
  m2::iss::Core& core = *c.core;
  core.insert_breakpoint(c.sym("bench_kernel"));
  REQUIRE(run_until_stop(core) == StopReason::Breakpoint);
  const uint64_t ret = core.read_register(m2test::kRegLr);
  core.insert_breakpoint(ret);
  // A word nothing touches.
  REQUIRE(core.insert_watchpoint(0x02000000, 4, WatchKind::Access));
  const uint64_t n0 = core.instruction_count();
  REQUIRE(run_until_stop(core, 997) == StopReason::Breakpoint);
  CHECK(core.pc() == ret);
  CHECK(core.read_register(3) == 0x3848bc8du);
  CHECK(core.instruction_count() - n0 == kernel_insns);
}

TEST_CASE("iss watchpoints: GDB's step over a watched access (remove, single step, insert) runs it once",
          "[model][processor][iss][watch]") {
  // lis r6,dev ; lwz r7,8(r6) ; lwz r7,8(r6) ; addi r8,r8,1
  Program p({lis(6, kDev >> 16), lwz(7, 8, 6), lwz(7, 8, 6), addi(8, 8, 1)});
  for (int round = 0; round < 2; ++round) {
    INFO("round " << round);
    REQUIRE(p.core().insert_watchpoint(kDev + 8, 4, WatchKind::Read));
    REQUIRE(run_until_stop(p.core()) == StopReason::Watchpoint);
    CHECK(p.core().pc() == p.at(1 + round));
    CHECK(p.c.env.accesses.size() == size_t(round));
    p.core().remove_watchpoint(kDev + 8, 4, WatchKind::Read);
    REQUIRE(p.core().single_step() == StopReason::Budget);
    CHECK(p.core().pc() == p.at(2 + round));
    CHECK(p.c.env.accesses.size() == size_t(round + 1));
  }
  CHECK(p.run_to_end() == 1);
  CHECK(p.core().instruction_count() == 4);
}

TEST_CASE("iss watchpoints: code translated before the watchpoint was set stops at it too",
          "[model][processor][iss][watch]") {
  Program p(store_program());
  CHECK(p.run_to_end() == 6);  // translated and run without watchpoints
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    p.set_data(0, 0x11111111);
    p.core().set_pc(p.at(0));
    REQUIRE(p.core().insert_watchpoint(kData, 4, WatchKind::Write));
    REQUIRE(run_until_stop(p.core()) == StopReason::Watchpoint);
    CHECK(p.core().pc() == p.at(3));
    CHECK(p.data(0) == 0x11111111);
    p.core().remove_watchpoint(kData, 4, WatchKind::Write);
    CHECK(p.run_to_end() == 3);  // and without them again
    CHECK(p.data(0) == 0x55);
  }
}
