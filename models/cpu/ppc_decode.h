// Decoding of the few PowerPC instructions the platform must intercept or
// describe: timebase/decrementer/HID0 SPR accesses, mtmsr, traps, and the
// effective address of loads and stores (to pinpoint a faulting access).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace m2::ppc {

// SPR numbers as encoded in mfspr/mtspr/mftb.
enum Spr : unsigned {
  SPR_DEC = 22,
  SPR_SRR0 = 26,
  SPR_SRR1 = 27,
  SPR_TBL_READ = 268,
  SPR_TBU_READ = 269,
  SPR_TBL_WRITE = 284,
  SPR_TBU_WRITE = 285,
  SPR_HID0 = 1008,
};

inline unsigned primary_op(uint32_t insn) { return insn >> 26; }
inline unsigned ext_op(uint32_t insn) { return (insn >> 1) & 0x3FF; }
inline unsigned field_rd(uint32_t insn) { return (insn >> 21) & 31; }
inline unsigned field_ra(uint32_t insn) { return (insn >> 16) & 31; }
inline unsigned field_rb(uint32_t insn) { return (insn >> 11) & 31; }
// The SPR field holds the two 5-bit halves swapped.
inline unsigned field_spr(uint32_t insn) { return ((insn >> 16) & 31) | (((insn >> 11) & 31) << 5); }

enum class Intercept { None, ReadSpr, WriteSpr, Mtmsr };

struct SprAccess {
  Intercept kind = Intercept::None;
  unsigned reg = 0;  // GPR read or written
  unsigned spr = 0;
};

// Instructions whose effect the ISS implements itself (timebase, decrementer,
// HID0) or must observe before they run (mtmsr).
inline SprAccess classify(uint32_t insn) {
  SprAccess a;
  if (primary_op(insn) != 31) return a;
  const unsigned xo = ext_op(insn), spr = field_spr(insn);
  auto intercepted = [](unsigned s, bool write) {
    if (write) return s == SPR_DEC || s == SPR_TBL_WRITE || s == SPR_TBU_WRITE || s == SPR_HID0;
    return s == SPR_DEC || s == SPR_TBL_READ || s == SPR_TBU_READ || s == SPR_HID0;
  };
  if ((xo == 371 /*mftb*/ || xo == 339 /*mfspr*/) && intercepted(spr, false)) {
    a = {Intercept::ReadSpr, field_rd(insn), spr};
  } else if (xo == 467 /*mtspr*/ && intercepted(spr, true)) {
    a = {Intercept::WriteSpr, field_rd(insn), spr};
  } else if (xo == 146 /*mtmsr*/) {
    a = {Intercept::Mtmsr, field_rd(insn), 0};
  }
  return a;
}

inline bool is_trap(uint32_t insn) {
  return primary_op(insn) == 3 /*twi*/ || (primary_op(insn) == 31 && ext_op(insn) == 4 /*tw*/);
}

struct MemAccess {
  bool is_store = false;
  unsigned ra = 0, rb = 0;  // rb used when indexed
  bool indexed = false;
  int32_t displacement = 0;
  const char* mnemonic = "";
};

// Loads and stores of the integer/FP unit (D-form and the common X-forms).
inline std::optional<MemAccess> decode_mem_access(uint32_t insn) {
  static const char* const dform[] = {"lwz", "lwzu", "lbz", "lbzu", "stw",  "stwu",  "stb",  "stbu",
                                      "lhz", "lhzu", "lha", "lhau", "sth",  "sthu",  "lmw",  "stmw",
                                      "lfs", "lfsu", "lfd", "lfdu", "stfs", "stfsu", "stfd", "stfdu"};
  const unsigned op = primary_op(insn);
  MemAccess m;
  m.ra = field_ra(insn);
  if (op >= 32 && op <= 55) {
    m.displacement = static_cast<int16_t>(insn & 0xFFFF);
    m.mnemonic = dform[op - 32];
    m.is_store = (op >= 36 && op <= 39) || op == 44 || op == 45 || op == 47 || op >= 52;
    return m;
  }
  if (op != 31) return std::nullopt;
  struct X {
    unsigned xo;
    const char* name;
    bool store;
  };
  static const X xforms[] = {{23, "lwzx", false},   {55, "lwzux", false}, {87, "lbzx", false},   {119, "lbzux", false},
                             {279, "lhzx", false},  {343, "lhax", false}, {534, "lwbrx", false}, {790, "lhbrx", false},
                             {20, "lwarx", false},  {151, "stwx", true},  {183, "stwux", true},  {215, "stbx", true},
                             {247, "stbux", true},  {407, "sthx", true},  {662, "stwbrx", true}, {918, "sthbrx", true},
                             {150, "stwcx.", true}, {535, "lfsx", false}, {599, "lfdx", false},  {663, "stfsx", true},
                             {727, "stfdx", true},  {1014, "dcbz", true}};
  for (const X& x : xforms) {
    if (x.xo == ext_op(insn)) {
      m.indexed = true;
      m.rb = field_rb(insn);
      m.mnemonic = x.name;
      m.is_store = x.store;
      return m;
    }
  }
  return std::nullopt;
}

}  // namespace m2::ppc
