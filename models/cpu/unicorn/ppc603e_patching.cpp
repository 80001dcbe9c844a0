// Instruction patching of the 603e adapter (ppc603e_unicorn_core.h).
//
// Why: Unicorn 2.0.1 never sets up the timebase (mftb crashes the host
// process), and its HID0 doze would hang it. Every timebase, decrementer and
// HID0 access, and every mtmsr (to see MSR[POW]), is therefore found in
// loaded code and replaced by a reserved illegal opcode (MARKER); the
// exception hook (ppc603e_unicorn_hooks.cpp) then performs the original
// instruction here, from simulated time. A code hook would be simpler but
// is no option: in Unicorn 2.0.1 merely having one makes stops from the
// block hook corrupt execution. Software breakpoints are patched the same way
// (BREAK_MARKER), and debugger reads see the original words (hide_patches).
#include <algorithm>
#include <vector>

#include "cpu/ppc_decode.h"
#include "cpu/unicorn/ppc603e_unicorn_core.h"

namespace m2::iss {

void UnicornPpc603e::code_changed(uint64_t addr, uint64_t len) {
  ensure_mapped();
  uc_ctl_remove_cache(m_uc, addr, addr + len);
  const uint64_t first = addr & ~3ull, end = addr + len;
  // Patches written over (by a debugger) are gone.
  for (auto it = m_patches.lower_bound(first); it != m_patches.end() && it->first < end;) {
    uint32_t w = read_word(it->first);
    if (auto bp = m_breakpoints.find(it->first); bp != m_breakpoints.end() && w == BREAK_MARKER) w = bp->second;
    if (w != MARKER) it = m_patches.erase(it);
    else ++it;
  }
  std::vector<uint8_t> buf(4096);
  for (uint64_t a = first; a < end; a += buf.size()) {
    const uint64_t n = std::min<uint64_t>(buf.size(), end - a);
    if (!is_ram(a) || uc_mem_read(m_uc, a, buf.data(), n) != UC_ERR_OK) continue;  // not RAM: nothing to scan
    for (uint64_t i = 0; i + 4 <= n; i += 4) {
      const uint32_t insn = load_be32(&buf[i]);
      if (insn != MARKER && insn != BREAK_MARKER && ppc::classify(insn).kind != ppc::Intercept::None) {
        m_patches[a + i] = insn;
        write_word(a + i, MARKER);
      }
    }
  }
  // A breakpoint written over keeps its place: the new word is its original.
  for (auto it = m_breakpoints.lower_bound(first); it != m_breakpoints.end() && it->first < end; ++it) {
    const uint32_t w = read_word(it->first);
    if (w == BREAK_MARKER) continue;
    it->second = w;
    write_word(it->first, BREAK_MARKER);
  }
}

bool UnicornPpc603e::insert_breakpoint(uint64_t addr) {
  if (m_breakpoints.count(addr)) return true;
  ensure_mapped();
  if ((addr & 3) || !is_ram(addr)) return false;  // no code there to patch
  m_breakpoints[addr] = read_word(addr);
  write_word(addr, BREAK_MARKER);
  uc_ctl_remove_cache(m_uc, addr, addr + 4);
  return true;
}

void UnicornPpc603e::remove_breakpoint(uint64_t addr) {
  auto it = m_breakpoints.find(addr);
  if (it == m_breakpoints.end()) return;
  write_word(addr, it->second);
  m_breakpoints.erase(it);
  uc_ctl_remove_cache(m_uc, addr, addr + 4);
}

void UnicornPpc603e::hide_patches(uint64_t addr, uint8_t* data, uint64_t len) const {
  const uint64_t first = addr >= 3 ? addr - 3 : 0, end = addr + len;
  // Breakpoints first: the original under one may itself be a MARKER.
  for (auto it = m_breakpoints.lower_bound(first); it != m_breakpoints.end() && it->first < end; ++it)
    unpatch_word(addr, data, len, it->first, BREAK_MARKER, it->second);
  for (auto it = m_patches.lower_bound(first); it != m_patches.end() && it->first < end; ++it)
    unpatch_word(addr, data, len, it->first, MARKER, it->second);
}

// Resumes from the breakpoint at the PC: runs the block starting there
// with the original instruction back in place (the block hook stops at the
// next block), then re-arms the breakpoint. Unicorn's instruction count is
// no option: it installs a code hook (see above).
void UnicornPpc603e::step_over_breakpoint() {
  const uint64_t at = m_pc;
  write_word(at, m_breakpoints[at]);
  uc_ctl_remove_cache(m_uc, at, at + 4);
  const int64_t budget = m_budget;
  m_budget = 1;
  m_block_start = m_block_end = 0;
  m_watch->start_emulation();
  uc_emu_start(m_uc, at, UNTIL_NEVER, 0, 0);
  m_pc = m_fault_pending ? m_fault.pc : read_reg(UC_PPC_REG_PC);
  if (m_watch->hit()) undo_watched_instruction();
  if (m_pc >= m_block_start && m_pc < m_block_end) uncount((m_block_end - m_pc) / 4);
  m_budget = budget - 1;
  write_word(at, BREAK_MARKER);
  uc_ctl_remove_cache(m_uc, at, at + 4);
}

// In `data` (memory at [addr, addr+len)), the word at `at` holding `marker`
// gets `original` back, also when only partly inside the range.
void UnicornPpc603e::unpatch_word(uint64_t addr, uint8_t* data, uint64_t len, uint64_t at, uint32_t marker,
                                  uint32_t original) {
  for (unsigned i = 0; i < 4; ++i)
    if (at + i >= addr && at + i < addr + len && data[at + i - addr] != uint8_t(marker >> (24 - 8 * i))) return;
  for (unsigned i = 0; i < 4; ++i)
    if (at + i >= addr && at + i < addr + len) data[at + i - addr] = uint8_t(original >> (24 - 8 * i));
}

// Performs a patched instruction; Unicorn's PC is already past it.
void UnicornPpc603e::emulate(uint64_t addr, uint32_t insn) {
  const ppc::SprAccess a = ppc::classify(insn);
  const bool user_mode = msr() & MSR_PR;
  if (a.kind == ppc::Intercept::Mtmsr) {
    if (user_mode) {
      set_fault("privileged instruction in user mode", addr, true, std::nullopt, "mtmsr " + hex(insn, 8));
      return;
    }
    const uint32_t v = read_reg(UC_PPC_REG_0 + a.reg);
    if (v & (MSR_IR | MSR_DR)) {
      set_fault("unsupported MSR setting", addr, true, std::nullopt,
                "mtmsr enables address translation (MSR[IR/DR] = " + hex(v, 8) +
                    "); this model runs firmware with the MMU off");
      return;
    }
    write_reg(UC_PPC_REG_MSR, v & ~MSR_POW);
    if (v & MSR_POW) {
      m_idle = true;
      uc_emu_stop(m_uc);
    } else if ((v & MSR_EE) && (m_ext_level || m_timers.pending())) {
      uc_emu_stop(m_uc);  // let step() take the interrupt now
    }
    return;
  }
  const bool privileged =
      !(a.kind == ppc::Intercept::ReadSpr && (a.spr == ppc::SPR_TBL_READ || a.spr == ppc::SPR_TBU_READ));
  if (privileged && user_mode) {
    set_fault("privileged instruction in user mode", addr, true, std::nullopt, "insn " + hex(insn, 8));
    return;
  }
  if (a.kind == ppc::Intercept::ReadSpr) {
    uint32_t v = 0;
    switch (a.spr) {
      case ppc::SPR_TBL_READ:
        v = static_cast<uint32_t>(m_timers.timebase(ticks()));
        break;
      case ppc::SPR_TBU_READ:
        v = static_cast<uint32_t>(m_timers.timebase(ticks()) >> 32);
        break;
      case ppc::SPR_DEC:
        v = m_timers.decrementer(ticks());
        break;
      case ppc::SPR_HID0:
        v = m_hid0;
        break;
    }
    write_reg(UC_PPC_REG_0 + a.reg, v);
  } else {
    const uint32_t v = read_reg(UC_PPC_REG_0 + a.reg);
    switch (a.spr) {
      case ppc::SPR_DEC:
        m_timers.write_decrementer(ticks(), v);
        uc_emu_stop(m_uc);  // let the platform re-plan around the new deadline
        break;
      case ppc::SPR_TBL_WRITE:
        m_timers.write_tbl(ticks(), v);
        break;
      case ppc::SPR_TBU_WRITE:
        m_timers.write_tbu(ticks(), v);
        break;
      case ppc::SPR_HID0:
        m_hid0 = v;
        break;  // kept here: Unicorn would hang on doze bits
    }
  }
}

}  // namespace m2::iss
