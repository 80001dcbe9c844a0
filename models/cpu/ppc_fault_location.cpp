#include "cpu/ppc_fault_location.h"

#include <cstdio>
#include <map>

#include "cpu/ppc_decode.h"

namespace m2::ppc {

LocatedAccess locate_access(uint64_t block_start, uint64_t block_end, bool store, uint64_t addr,
                            const std::function<uint32_t(uint64_t)>& word_at,
                            const std::function<uint32_t(unsigned)>& gpr) {
  LocatedAccess r;
  r.pc = block_start;
  for (uint64_t a = block_start; a && a < block_end; a += 4) {
    const uint32_t insn = word_at(a);
    auto m = decode_mem_access(insn);
    if (!m || m->is_store != store) continue;
    const uint32_t base = m->ra ? gpr(m->ra) : 0;
    const uint32_t ea = base + (m->indexed ? gpr(m->rb) : uint32_t(m->displacement));
    if ((ea & ~3u) != (addr & ~3ull) && ea != addr) continue;
    if (r.matches++ == 0) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "0x%08x", static_cast<unsigned>(insn));
      r.pc = a;
      r.what = " by '" + std::string(m->mnemonic) + "' (insn " + hex + ")";
    }
  }
  return r;
}

std::string describe_exception_vector(uint64_t pc) {
  static const std::map<uint32_t, const char*> vectors = {
      {0x100, "system reset"},       {0x200, "machine check"}, {0x300, "DSI"},     {0x400, "ISI"},
      {0x500, "external interrupt"}, {0x600, "alignment"},     {0x700, "program"}, {0x800, "FP unavailable"},
      {0x900, "decrementer"},        {0xC00, "system call"},   {0xD00, "trace"}};
  auto it = vectors.find(static_cast<uint32_t>(pc & ~0xFFull & 0xFFFFF));
  if (pc < 0x3000 || (pc >= 0xFFF00000 && pc < 0xFFF03000)) {
    if (it != vectors.end())
      return std::string(" (in the ") + it->second + " exception vector: is a handler installed?)";
  }
  return "";
}

}  // namespace m2::ppc
