// Unit tests for the PowerPC decoding helpers (models/cpu/ppc_decode.h).
// Every encoding below was produced by the cross assembler, e.g.
//   echo 'mftb 3' | powerpc-linux-gnu-as -mregnames -m603 -o x.o && powerpc-linux-gnu-objdump -d x.o
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "core/params.h"
#include "cpu/ppc_decode.h"

using m2::ppc::classify;
using m2::ppc::decode_mem_access;
using m2::ppc::Intercept;
using m2::ppc::is_trap;

TEST_CASE("ppc decode: field extraction", "[model][ppc_decode]") {
  // mfspr r3,HID0 (1008 = 0b11111_10000: halves swapped in the encoding)
  CHECK(m2::ppc::primary_op(0x7C70FAA6) == 31);
  CHECK(m2::ppc::ext_op(0x7C70FAA6) == 339);
  CHECK(m2::ppc::field_rd(0x7C70FAA6) == 3);
  CHECK(m2::ppc::field_spr(0x7C70FAA6) == 1008);
  CHECK(m2::ppc::field_spr(0x7C6C42E6) == 268);  // mftb r3
  CHECK(m2::ppc::field_spr(0x7CB602A6) == 22);   // mfdec r5
  // lwzx r3,r4,r5
  CHECK(m2::ppc::field_ra(0x7C64282E) == 4);
  CHECK(m2::ppc::field_rb(0x7C64282E) == 5);
}

TEST_CASE("ppc decode: timebase reads are intercepted", "[model][ppc_decode]") {
  auto a = classify(0x7C6C42E6);  // mftb r3
  CHECK(a.kind == Intercept::ReadSpr);
  CHECK(a.reg == 3);
  CHECK(a.spr == m2::ppc::SPR_TBL_READ);

  a = classify(0x7C8D42E6);  // mftbu r4
  CHECK(a.kind == Intercept::ReadSpr);
  CHECK(a.reg == 4);
  CHECK(a.spr == m2::ppc::SPR_TBU_READ);

  a = classify(0x7C6C42A6);  // mfspr r3,268 (mftb through mfspr)
  CHECK(a.kind == Intercept::ReadSpr);
  CHECK(a.spr == 268);
  a = classify(0x7C6D42A6);  // mfspr r3,269
  CHECK(a.kind == Intercept::ReadSpr);
  CHECK(a.spr == 269);
}

TEST_CASE("ppc decode: decrementer accesses are intercepted", "[model][ppc_decode]") {
  auto a = classify(0x7CB602A6);  // mfdec r5
  CHECK(a.kind == Intercept::ReadSpr);
  CHECK(a.reg == 5);
  CHECK(a.spr == m2::ppc::SPR_DEC);

  a = classify(0x7CD603A6);  // mtdec r6
  CHECK(a.kind == Intercept::WriteSpr);
  CHECK(a.reg == 6);
  CHECK(a.spr == m2::ppc::SPR_DEC);

  a = classify(0x7C7603A6);  // mtdec r3
  CHECK(a.kind == Intercept::WriteSpr);
  CHECK(a.reg == 3);
}

TEST_CASE("ppc decode: timebase writes are intercepted", "[model][ppc_decode]") {
  auto a = classify(0x7C7C43A6);  // mttbl r3
  CHECK(a.kind == Intercept::WriteSpr);
  CHECK(a.reg == 3);
  CHECK(a.spr == m2::ppc::SPR_TBL_WRITE);
  a = classify(0x7C7D43A6);  // mttbu r3
  CHECK(a.kind == Intercept::WriteSpr);
  CHECK(a.spr == m2::ppc::SPR_TBU_WRITE);
}

TEST_CASE("ppc decode: HID0 and mtmsr are intercepted", "[model][ppc_decode]") {
  auto a = classify(0x7C70FAA6);  // mfspr r3,HID0
  CHECK(a.kind == Intercept::ReadSpr);
  CHECK(a.reg == 3);
  CHECK(a.spr == m2::ppc::SPR_HID0);

  a = classify(0x7C70FBA6);  // mtspr HID0,r3
  CHECK(a.kind == Intercept::WriteSpr);
  CHECK(a.reg == 3);
  CHECK(a.spr == m2::ppc::SPR_HID0);

  a = classify(0x7CA00124);  // mtmsr r5
  CHECK(a.kind == Intercept::Mtmsr);
  CHECK(a.reg == 5);
}

TEST_CASE("ppc decode: other instructions are not intercepted", "[model][ppc_decode]") {
  const struct {
    uint32_t insn;
    const char* text;
  } others[] = {
      {0x7C7A02A6, "mfspr r3,SRR0"},
      {0x7C7A03A6, "mtspr SRR0,r3"},
      {0x7C632214, "add r3,r3,r4"},
      {0x7C6000A6, "mfmsr r3"},
      {0x7C71FAA6, "mfspr r3,1009 (HID1)"},
      {0x7C7F42A6, "mfpvr r3"},
      {0x7C6C43A6, "mtspr 268,r3 (TBL read number: not a write SPR)"},
      {0x7C7C42A6, "mfspr r3,284 (TBL write number: not a read SPR)"},
      {0x38630001, "addi r3,r3,1"},
      {0x80690004, "lwz r3,4(r9)"},
      {0x4E800020, "blr"},
      {0x44000002, "sc"},
      {0x4C000064, "rfi"},
      {0x00000000, ".long 0"},
      {0x7FE00008, "trap"},
  };
  for (const auto& o : others) {
    INFO(o.text);
    CHECK(classify(o.insn).kind == Intercept::None);
  }
}

TEST_CASE("ppc decode: D-form loads and stores", "[model][ppc_decode]") {
  auto m = decode_mem_access(0x80690004);  // lwz r3,4(r9)
  REQUIRE(m);
  CHECK_FALSE(m->is_store);
  CHECK_FALSE(m->indexed);
  CHECK(m->ra == 9);
  CHECK(m->displacement == 4);
  CHECK(std::string(m->mnemonic) == "lwz");

  m = decode_mem_access(0x9421FFF0);  // stwu r1,-16(r1)
  REQUIRE(m);
  CHECK(m->is_store);
  CHECK_FALSE(m->indexed);
  CHECK(m->ra == 1);
  CHECK(m->displacement == -16);
  CHECK(std::string(m->mnemonic) == "stwu");

  m = decode_mem_access(0xA10AFFFE);  // lhz r8,-2(r10)
  REQUIRE(m);
  CHECK_FALSE(m->is_store);
  CHECK(m->ra == 10);
  CHECK(m->displacement == -2);
  CHECK(std::string(m->mnemonic) == "lhz");

  const struct {
    uint32_t insn;
    const char* mnemonic;
    bool store;
    unsigned ra;
    int32_t disp;
  } dforms[] = {
      {0x84850008, "lwzu", false, 5, 8},   {0x88C00000, "lbz", false, 0, 0},      {0x98E8FFFF, "stb", true, 8, -1},
      {0xB0640002, "sth", true, 4, 2},     {0xA8648000, "lha", false, 4, -32768}, {0xBB81FFF0, "lmw", false, 1, -16},
      {0xBF81FFF0, "stmw", true, 1, -16},  {0xC0230004, "lfs", false, 3, 4},      {0xD0230004, "stfs", true, 3, 4},
      {0xD8230008, "stfd", true, 3, 8},    {0xC8230008, "lfd", false, 3, 8},      {0xDC21FFF8, "stfdu", true, 1, -8},
      {0x90647FFC, "stw", true, 4, 32764},
  };
  for (const auto& d : dforms) {
    INFO(d.mnemonic);
    auto x = decode_mem_access(d.insn);
    REQUIRE(x);
    CHECK(std::string(x->mnemonic) == d.mnemonic);
    CHECK(x->is_store == d.store);
    CHECK(x->ra == d.ra);
    CHECK(x->displacement == d.disp);
    CHECK_FALSE(x->indexed);
  }
}

TEST_CASE("ppc decode: X-form loads and stores", "[model][ppc_decode]") {
  auto m = decode_mem_access(0x7CA639AE);  // stbx r5,r6,r7
  REQUIRE(m);
  CHECK(m->is_store);
  CHECK(m->indexed);
  CHECK(m->ra == 6);
  CHECK(m->rb == 7);
  CHECK(std::string(m->mnemonic) == "stbx");

  const struct {
    uint32_t insn;
    const char* mnemonic;
    bool store;
    unsigned ra, rb;
  } xforms[] = {
      {0x7C64282E, "lwzx", false, 4, 5},  {0x7C64292E, "stwx", true, 4, 5},   {0x7C6429EE, "stbux", true, 4, 5},
      {0x7C642E2C, "lhbrx", false, 4, 5}, {0x7C642D2C, "stwbrx", true, 4, 5}, {0x7C642828, "lwarx", false, 4, 5},
      {0x7C64292D, "stwcx.", true, 4, 5}, {0x7C242CAE, "lfdx", false, 4, 5},  {0x7C242DAE, "stfdx", true, 4, 5},
      {0x7C0327EC, "dcbz", true, 3, 4},
  };
  for (const auto& x : xforms) {
    INFO(x.mnemonic);
    auto d = decode_mem_access(x.insn);
    REQUIRE(d);
    CHECK(std::string(d->mnemonic) == x.mnemonic);
    CHECK(d->is_store == x.store);
    CHECK(d->indexed);
    CHECK(d->ra == x.ra);
    CHECK(d->rb == x.rb);
  }
}

TEST_CASE("ppc decode: non-memory instructions have no memory access", "[model][ppc_decode]") {
  for (uint32_t insn :
       {0x7C632214u /*add*/, 0x38630001u /*addi*/, 0x7C832378u /*mr*/, 0x4E800020u /*blr*/, 0x44000002u /*sc*/,
        0x7C6C42E6u /*mftb*/, 0x7CA00124u /*mtmsr*/, 0x7C6000A6u /*mfmsr*/, 0x7FE00008u /*trap*/, 0x0FE00000u /*twi*/,
        0x00000000u, 0x48000000u /*b .*/, 0x4C000064u /*rfi*/}) {
    INFO(std::hex << insn);
    CHECK_FALSE(decode_mem_access(insn).has_value());
  }
}

TEST_CASE("ppc decode: traps", "[model][ppc_decode]") {
  CHECK(is_trap(0x7FE00008));  // tw 31,0,0 (trap)
  CHECK(is_trap(0x7C832008));  // tweq r3,r4
  CHECK(is_trap(0x0FE00000));  // twi 31,r0,0 (twui)
  CHECK(is_trap(0x0C830064));  // tweqi r3,100
  CHECK_FALSE(is_trap(0x00000000));
  CHECK_FALSE(is_trap(0x7C632214));  // add
  CHECK_FALSE(is_trap(0x44000002));  // sc
  CHECK_FALSE(is_trap(0x7C6C42E6));  // mftb
  CHECK_FALSE(is_trap(0x80690004));  // lwz
}
