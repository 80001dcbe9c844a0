// Where a PowerPC fault happened, for the fault report: which instruction of
// a block made a data access (an ISS such as Unicorn reports the address, not
// the instruction), and which exception vector a PC lies in. Independent of
// the ISS: it reads instructions and registers through the given functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace m2::ppc {

struct LocatedAccess {
  uint64_t pc = 0;   // the first instruction that fits (block_start if none)
  int matches = 0;   // instructions of the block that fit; 1: pc is exact
  std::string what;  // " by 'lwz' (insn 0x...)", empty if none fits
};

// The loads (store = false) or stores of [block_start, block_end) whose
// effective address is `addr` (or its word), computed from the registers as
// they are now: the ISS stops at the faulting access, so the instructions
// before it have run and the ones after it have not.
LocatedAccess locate_access(uint64_t block_start, uint64_t block_end, bool store, uint64_t addr,
                            const std::function<uint32_t(uint64_t)>& word_at,
                            const std::function<uint32_t(unsigned)>& gpr);

// " (in the <name> exception vector: is a handler installed?)" when pc lies
// in a 603e vector (at 0 or at 0xFFF00000), else "".
std::string describe_exception_vector(uint64_t pc);

}  // namespace m2::ppc
