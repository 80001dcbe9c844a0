#include "cpu/unicorn/unicorn_watchpoints.h"

#include <stdexcept>
#include <string>

namespace m2::iss {
namespace {

void check(uc_err e, const char* what) {
  if (e != UC_ERR_OK) throw std::runtime_error(std::string("Unicorn: ") + what + ": " + uc_strerror(e));
}

}  // namespace

UnicornWatchpoints::~UnicornWatchpoints() {
  if (m_ctx) uc_context_free(m_ctx);
}

void UnicornWatchpoints::insert(uint64_t addr, uint64_t len, WatchKind kind) {
  m_set.insert(addr, len, kind);
  set_mode(true);
}

void UnicornWatchpoints::remove(uint64_t addr, uint64_t len, WatchKind kind) {
  if (m_set.remove(addr, len, kind) && m_set.empty()) set_mode(false);
}

void UnicornWatchpoints::set_mode(bool on) {
  if (on == active()) return;
  if (on) {
    if (!m_ctx) check(uc_context_alloc(m_uc, &m_ctx), "allocate a context");
    check(uc_hook_add(m_uc, &m_code_hook, UC_HOOK_CODE, reinterpret_cast<void*>(&code_hook), this, 1, 0), "code hook");
    check(uc_hook_add(m_uc, &m_mem_hook, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(&mem_hook), this,
                      1, 0),
          "memory hook");
  } else {
    // Deleted hooks stay listed (and keep loads and stores on the slow path)
    // until an emulation ends: mode_changed() runs one first.
    uc_hook_del(m_uc, m_code_hook);
    uc_hook_del(m_uc, m_mem_hook);
    m_code_hook = m_mem_hook = 0;
  }
  m_core.mode_changed();
}

void UnicornWatchpoints::start_step(uint64_t pc) {
  m_pass = m_reported == pc;
  m_reported.reset();
  m_code_calls = 0;
  m_hit_pending = false;
}

void UnicornWatchpoints::code_hook(uc_engine*, uint64_t addr, uint32_t, void* user) {
  static_cast<UnicornWatchpoints*>(user)->on_code(addr);
}

void UnicornWatchpoints::on_code(uint64_t addr) {
  if (*m_core.in_stub) return;
  if (m_code_stop) {
    uc_emu_stop(m_uc);  // before this instruction, PC written
    return;
  }
  m_insn_pc = addr;
  if (m_pass && ++m_code_calls > 1) m_pass = false;
}

void UnicornWatchpoints::mem_hook(uc_engine*, uc_mem_type type, uint64_t addr, int size, int64_t, void* user) {
  static_cast<UnicornWatchpoints*>(user)->on_access(type == UC_MEM_WRITE, addr, static_cast<unsigned>(size));
}

void UnicornWatchpoints::on_access(bool is_write, uint64_t addr, unsigned size) {
  if (*m_core.in_stub || m_pass) return;
  if (!m_hit_pending) {
    auto hit = m_set.match(addr, size, is_write);
    if (!hit) return;
    // Before the access: the registers hold what they held before the
    // instruction (multi-word loads excepted: earlier words are loaded again
    // when it runs).
    check(uc_context_save(m_uc, m_ctx), "save the context at a watchpoint");
    m_hit = *hit;
    m_hit.pc = m_insn_pc;
    m_hit_pending = true;
    m_undo.clear();
    uc_emu_stop(m_uc);  // after this instruction (code hook installed)
  }
  // This and any further store of the instruction is undone afterwards.
  if (is_write && m_core.is_ram(addr)) {
    std::vector<uint8_t> old(size);
    uc_mem_read(m_uc, addr, old.data(), size);
    m_undo.emplace_back(addr, std::move(old));
  }
}

uint64_t UnicornWatchpoints::undo() {
  check(uc_context_restore(m_uc, m_ctx), "restore the context at a watchpoint");
  for (auto it = m_undo.rbegin(); it != m_undo.rend(); ++it)
    uc_mem_write(m_uc, it->first, it->second.data(), it->second.size());
  m_undo.clear();
  const uint32_t pc = static_cast<uint32_t>(m_hit.pc);
  uc_reg_write(m_uc, m_core.pc_register, &pc);
  m_reported = m_hit.pc;
  return m_hit.pc;
}

}  // namespace m2::iss
