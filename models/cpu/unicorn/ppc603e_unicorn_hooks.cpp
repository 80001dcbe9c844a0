// Unicorn's hooks of the 603e adapter (ppc603e_unicorn_core.h) and the
// workarounds they need.
//
// Why: Unicorn 2.0.1 gives the platform only hooks, and each has a catch:
//  - instructions are counted per translated block (a count limit would hook
//    every instruction: 30x slower); stopping from the block hook keeps that
//    block from running, and a block left part-way is uncounted afterwards;
//  - exceptions arrive with the PC already past the instruction: the
//    exception hook tells breakpoints, patched instructions
//    (ppc603e_patching.cpp), system calls (ppc603e_exception_entry.cpp) and
//    faults apart;
//  - the PC is not synchronised before a data access: a faulting or device
//    access is located in the block from its effective address;
//  - device accesses are MMIO callbacks into the platform, which a pending
//    watchpoint stop must suppress (unicorn_watchpoints.h).
#include <string>

#include "cpu/ppc_decode.h"
#include "cpu/unicorn/ppc603e_unicorn_core.h"

namespace m2::iss {

// Maps every bus region once: direct memory where the target grants it,
// MMIO callbacks into the environment elsewhere; holes stay unmapped.
void UnicornPpc603e::ensure_mapped() {
  if (m_mapped) return;
  m_mapped = true;
  const uint64_t page = 4096;
  for (const MemRegion& r : m_env.memory_map()) {
    if ((r.base | r.size) & (page - 1))
      throw std::runtime_error(m_cfg.name + ": region '" + r.name + "' at " + hex(r.base, 8) + " size " +
                               hex(r.size, 8) + " is not 4 KB aligned (the ISS maps whole pages)");
    if (r.base < m_cfg.private_page + page && m_cfg.private_page < r.base + r.size)
      throw std::runtime_error(m_cfg.name + ": region '" + r.name + "' overlaps the ISS private page at " +
                               hex(m_cfg.private_page, 8));
    auto dm = m_env.direct_memory(r.base);
    if (dm && dm->base <= r.base && r.base + r.size <= dm->base + dm->size) {
      const uint32_t perms = UC_PROT_READ | UC_PROT_EXEC | (dm->writable ? UC_PROT_WRITE : 0);
      check(uc_mem_map_ptr(m_uc, r.base, r.size, perms, dm->host + (r.base - dm->base)), "map direct memory");
      m_ram.emplace_back(r.base, r.size);
    } else {
      m_io.push_back(std::make_unique<IoRegion>(IoRegion{this, r.base}));
      check(uc_mmio_map(m_uc, r.base, r.size, &on_io_read, m_io.back().get(), &on_io_write, m_io.back().get()),
            "map I/O region");
    }
  }
  check(uc_mem_map(m_uc, m_cfg.private_page, page, UC_PROT_ALL), "map private page");
  write_stubs();
}

// Whether every byte of [addr, addr+len) is in a mapped bus region.
bool UnicornPpc603e::mapped_range(uint64_t addr, uint64_t len) const {
  uc_mem_region* regions = nullptr;
  uint32_t count = 0;
  if (uc_mem_regions(m_uc, &regions, &count) != UC_ERR_OK) return false;
  uint64_t at = addr;
  const uint64_t end = addr + len;
  for (bool progress = true; at < end && progress;) {
    progress = false;
    for (uint32_t i = 0; i < count; ++i)
      if (regions[i].begin <= at && at <= regions[i].end && regions[i].begin != m_cfg.private_page) {
        at = regions[i].end + 1;  // inclusive end
        progress = at != 0;
      }
  }
  uc_free(regions);
  return at >= end;
}

void UnicornPpc603e::set_fault(const std::string& kind, uint64_t pc, bool exact, std::optional<uint64_t> addr,
                               const std::string& detail) {
  m_fault = Fault{kind, pc, exact, addr, detail};
  m_fault_pending = true;
  uc_emu_stop(m_uc);
}

void UnicornPpc603e::on_block(uc_engine*, uint64_t addr, uint32_t size, void* user) {
  auto* self = static_cast<UnicornPpc603e*>(user);
  if (self->m_in_stub) return;
  if (self->m_budget <= 0) self->renew_budget();
  if (self->m_budget <= 0 || self->m_stop_at_next_block || self->m_stop_requested) {
    if (self->m_watch->active()) {
      // The code hook stops before the block's first instruction, with the
      // PC written; the block is counted here and uncounted by step().
      self->m_watch->stop_before_next_instruction();
      self->count_block(addr, size);
      return;
    }
    uc_emu_stop(self->m_uc);                      // this block will not run: leave it uncounted
    self->m_block_start = self->m_block_end = 0;  // and the last one did run in full
    return;
  }
  self->count_block(addr, size);
}

// A budget stop that the platform would follow at once with the next step
// (usually the end of a quantum that it extends without a wait) goes on
// here instead: leaving and re-entering Unicorn costs more than a quantum's
// instructions. Only when nothing else would happen between the two steps
// (see step()): no stop asked for, no doze, no interrupt to enter, no
// breakpoint or watchpoint to report, no system call to enter. The block then runs as it
// would at the start of the next step, so instructions and times are the same.
void UnicornPpc603e::renew_budget() {
  if (m_stop_at_next_block || m_stop_requested || m_syscall_pending || m_fault_pending || m_bp_hit || m_idle) return;
  if (!m_breakpoints.empty() || m_watch->active()) return;
  if (interrupt_deliverable()) return;
  m_budget = static_cast<int64_t>(m_env.budget_exhausted());
}

// ---- watchpoints (unicorn_watchpoints.h) ---------------------------------
// After a watchpoint stop: the instruction (which Unicorn completed) never happened.
void UnicornPpc603e::undo_watched_instruction() {
  m_pc = m_watch->undo();
  m_fault_pending = false;  // a later access of the same instruction faulted: it runs again
  m_bp_hit = false;
}

// Hooks came or went: Unicorn decides at translation whether code calls
// them, so the code translated from RAM (the only place code runs from)
// is dropped. Not UC_CTL_TB_FLUSH: Unicorn 2.0.1 then zeroes its whole
// 1 GB code buffer (2 s and 1 GB resident on first use). Deleted hooks
// stay listed until an emulation ends: a harmless stub runs first.
void UnicornPpc603e::watch_mode_changed() {
  uint32_t srr0 = 0, srr1 = 0;
  read_srr(srr0, srr1);
  for (const auto& [base, size] : m_ram) check(uc_ctl_remove_cache(m_uc, base, base + size), "drop translated code");
}

void UnicornPpc603e::on_interrupt(uc_engine*, uint32_t intno, void* user) {
  static_cast<UnicornPpc603e*>(user)->exception(intno);
}

void UnicornPpc603e::exception(uint32_t intno) {
  if (m_in_stub) {  // STUB_END
    uc_emu_stop(m_uc);
    return;
  }
  const uint64_t next = read_reg(UC_PPC_REG_PC);  // Unicorn has advanced past the instruction
  const uint64_t at = next - 4;
  // The block ended here: what follows will be counted again as a new block.
  if (at >= m_block_start && next < m_block_end) {
    uncount((m_block_end - next) / 4);
    m_budget += static_cast<int64_t>((m_block_end - next) / 4);
    m_block_end = next;
  }
  if (intno == 96 || intno == 6) {
    if (auto bp = m_breakpoints.find(at); bp != m_breakpoints.end()) {
      m_bp_hit = true;
      m_bp_addr = at;
      uncount(1);  // the breakpoint's instruction has not run yet
      uc_emu_stop(m_uc);
      return;
    }
    if (auto p = m_patches.find(at); p != m_patches.end() && read_word(at) == MARKER) {
      emulate(at, p->second);
      return;
    }
  }
  const uint32_t insn = read_word(at);
  if (intno == 8) {  // sc: entered once Unicorn has stopped
    m_syscall_pending = true;
    uc_emu_stop(m_uc);
    return;
  }
  const bool user_mode = msr() & MSR_PR;
  std::string kind = "exception " + std::to_string(intno);
  if (intno == 96 || intno == 6) {
    if (ppc::is_trap(insn)) kind = "trap instruction";
    else if (user_mode) kind = "privileged or illegal instruction in user mode";
    else kind = "illegal instruction";
  } else if (intno == 5) {
    kind = "alignment exception";
  } else if (intno == 7) {
    kind = "floating-point unavailable (MSR[FP] = 0)";
  }
  set_fault(kind, at, true, std::nullopt, "insn " + hex(insn, 8) + ppc::describe_exception_vector(at));
}

bool UnicornPpc603e::on_unmapped(uc_engine*, uc_mem_type type, uint64_t addr, int size, int64_t, void* user) {
  static_cast<UnicornPpc603e*>(user)->unmapped(type, addr, size);
  return false;
}

void UnicornPpc603e::unmapped(uc_mem_type type, uint64_t addr, int size) {
  if (type == UC_MEM_FETCH_UNMAPPED) {
    set_fault("instruction fetch from unmapped address", addr, true, addr, "");
    return;
  }
  const bool store = type == UC_MEM_WRITE_UNMAPPED;
  locate_access(store, addr, size, store ? "store to unmapped address" : "load from unmapped address");
}

// Unicorn does not sync the PC before a data access: find the access in the
// current block from its effective address (ppc_fault_location.h).
ppc::LocatedAccess UnicornPpc603e::find_access(bool store, uint64_t addr) const {
  ppc::LocatedAccess l = ppc::locate_access(
      m_block_start, m_block_end, store, addr, [this](uint64_t a) { return read_word(a); },
      [this](unsigned r) { return read_reg(UC_PPC_REG_0 + static_cast<int>(r)); });
  if (!m_block_start) l.pc = read_reg(UC_PPC_REG_PC);
  return l;
}

void UnicornPpc603e::locate_access(bool store, uint64_t addr, int size, const std::string& kind) {
  const ppc::LocatedAccess l = find_access(store, addr);
  set_fault(kind, l.pc, l.matches == 1, addr, std::to_string(size) + "-byte " + (store ? "store" : "load") + l.what);
}

uint64_t UnicornPpc603e::on_io_read(uc_engine*, uint64_t offset, unsigned size, void* user) {
  auto* r = static_cast<IoRegion*>(user);
  uint8_t b[8] = {};
  const uint64_t addr = r->base + offset;
  if (r->core->m_watch->suppress_device_access()) return 0;  // the instruction will be undone
  r->core->m_access = IoAccess{true, false, addr};
  const bool ok = r->core->m_env.transport(false, addr, b, size);
  r->core->m_access.active = false;
  if (!ok) {
    r->core->locate_access(false, addr, size, "bus error on load");
    return 0;
  }
  uint64_t v = 0;
  for (unsigned i = 0; i < size; ++i) v = (v << 8) | b[i];
  return v;
}

void UnicornPpc603e::on_io_write(uc_engine*, uint64_t offset, unsigned size, uint64_t value, void* user) {
  auto* r = static_cast<IoRegion*>(user);
  uint8_t b[8];
  for (unsigned i = 0; i < size; ++i) b[i] = static_cast<uint8_t>(value >> (8 * (size - 1 - i)));
  const uint64_t addr = r->base + offset;
  if (r->core->m_watch->suppress_device_access()) return;  // the instruction will be undone
  r->core->m_access = IoAccess{true, true, addr};
  const bool ok = r->core->m_env.transport(true, addr, b, size);
  r->core->m_access.active = false;
  if (!ok) r->core->locate_access(true, addr, size, "bus error on store");
}

}  // namespace m2::iss
