// The PowerPC 603e adapter on Unicorn 2 (see ppc603e_unicorn.cpp for what it
// adds to Unicorn and why), declared once for the files that implement it:
//  - ppc603e_unicorn.cpp: the ISS hook (models/cpu/iss.h): stepping,
//    registers, breakpoints and watchpoints as the platform sees them;
//  - ppc603e_patching.cpp: instruction patching (timebase, decrementer,
//    HID0, mtmsr, software breakpoints) and performing patched instructions;
//  - ppc603e_exception_entry.cpp: exception entry through the private stub page;
//  - ppc603e_unicorn_hooks.cpp: Unicorn's hooks and the workarounds they need
//    (block counting, exceptions reported after the PC moved on, data accesses
//    without a synchronised PC, device accesses).
// Private to models/cpu/unicorn: callers use ppc603e_unicorn.h.
#pragma once

#include <unicorn/unicorn.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/bytes.h"
#include "cpu/iss.h"
#include "cpu/ppc_fault_location.h"
#include "cpu/ppc_timers.h"
#include "cpu/unicorn/ppc603e_unicorn.h"
#include "cpu/unicorn/unicorn_watchpoints.h"

namespace m2::iss {

inline constexpr uint32_t MSR_POW = 0x00040000, MSR_EE = 0x8000, MSR_PR = 0x4000, MSR_ME = 0x1000, MSR_IP = 0x40,
                          MSR_IR = 0x20, MSR_DR = 0x10;
inline constexpr uint64_t UNTIL_NEVER = 0xFFFFFFFFull;  // odd: never a PC
// Reserved illegal opcodes (primary opcode 0) standing in for patched
// instructions and software breakpoints.
inline constexpr uint32_t MARKER = 0x00004D32;        // "M2": an intercepted instruction
inline constexpr uint32_t BREAK_MARKER = 0x00004250;  // "BP": a breakpoint
inline constexpr uint32_t STUB_END = 0x00005354;      // "ST": end of a private stub

// Words of the private stub page.
inline constexpr uint32_t STUB_SET_SRR = 0x000;  // mtspr SRR0,r3 ; mtspr SRR1,r4
inline constexpr uint32_t STUB_GET_SRR = 0x010;  // mfspr r3,SRR0 ; mfspr r4,SRR1

class UnicornPpc603e final : public Core {
 public:
  UnicornPpc603e(Environment& env, const Ppc603eConfig& cfg);
  ~UnicornPpc603e() override;

  // ---- the ISS hook (ppc603e_unicorn.cpp) ---------------------------------
  std::string model() const override;
  void reset(uint64_t pc) override;
  void code_changed(uint64_t addr, uint64_t len) override;  // ppc603e_patching.cpp
  StopReason step(uint64_t max_instructions) override;
  StopReason single_step() override;
  uint64_t instruction_count() const override { return m_icount; }
  void count_blocks(std::unordered_map<uint64_t, uint64_t>* counts) override { m_block_counts = counts; }
  void request_stop() override;
  void set_interrupt(unsigned line, bool level) override;
  bool idle() const override { return m_idle; }
  bool interrupt_deliverable() const override;
  std::optional<uint64_t> next_timer_event_ps() const override;
  uint64_t pc() const override { return m_pc; }
  std::optional<uint64_t> entered_exception() const override { return m_exception_return; }
  std::optional<uint64_t> access_pc() const override;
  uint64_t access_code_address() const override;
  void set_pc(uint64_t pc) override;
  bool big_endian() const override { return true; }
  const std::vector<Register>& registers() const override { return m_registers; }
  uint64_t read_register(unsigned i) const override;
  void write_register(unsigned i, uint64_t v) override;
  bool insert_breakpoint(uint64_t addr) override;                                // ppc603e_patching.cpp
  void remove_breakpoint(uint64_t addr) override;                                // ppc603e_patching.cpp
  void hide_patches(uint64_t addr, uint8_t* data, uint64_t len) const override;  // ppc603e_patching.cpp
  bool insert_watchpoint(uint64_t addr, uint64_t len, WatchKind kind) override;
  void remove_watchpoint(uint64_t addr, uint64_t len, WatchKind kind) override { m_watch->remove(addr, len, kind); }
  const WatchHit& watch_hit() const override { return m_watch->last_hit(); }
  std::string gdb_target_xml() const override;
  const Fault& fault() const override { return m_fault; }
  std::optional<uint64_t> stack_pointer() const override { return read_register(1); }  // SVR4 ABI: r1
  std::string dump_state() const override;

 private:
  // ---- Unicorn plumbing -------------------------------------------------
  static void check(uc_err e, const char* what) {
    if (e != UC_ERR_OK) throw std::runtime_error(std::string("Unicorn: ") + what + ": " + uc_strerror(e));
  }
  uint32_t read_reg(int id) const {
    uint32_t v = 0;
    uc_reg_read(m_uc, id, &v);
    return v;
  }
  void write_reg(int id, uint32_t v) { uc_reg_write(m_uc, id, &v); }
  uint32_t msr() const { return read_reg(UC_PPC_REG_MSR); }
  void write_word(uint64_t addr, uint32_t v) {
    uint8_t b[4];
    store_be32(b, v);
    uc_mem_write(m_uc, addr, b, 4);
  }
  uint32_t read_word(uint64_t addr) const {
    uint8_t b[4] = {0, 0, 0, 0};
    uc_mem_read(m_uc, addr, b, 4);
    return load_be32(b);
  }
  // Direct memory: reading or patching it has no side effects (MMIO would).
  bool is_ram(uint64_t addr) const {
    for (const auto& [base, size] : m_ram)
      if (addr >= base && addr - base < size) return true;
    return false;
  }
  // Whether every byte of [addr, addr+len) is in a mapped bus region.
  bool mapped_range(uint64_t addr, uint64_t len) const;

  // ---- instruction patching (ppc603e_patching.cpp) -------------------------
  void step_over_breakpoint();
  static void unpatch_word(uint64_t addr, uint8_t* data, uint64_t len, uint64_t at, uint32_t marker, uint32_t original);
  void emulate(uint64_t addr, uint32_t insn);

  // ---- exception entry (ppc603e_exception_entry.cpp) -----------------------
  void write_stubs();
  void run_stub(uint32_t offset, uint32_t& r3, uint32_t& r4);
  void read_srr(uint32_t& srr0, uint32_t& srr1);
  void enter_exception(uint32_t vector, uint64_t return_pc);
  void take_async_interrupt();
  static constexpr uint32_t PPC_VEC_EXTERNAL = 0x500, PPC_VEC_DECREMENTER = 0x900, PPC_VEC_SYSCALL = 0xC00;

  // ---- timebase and decrementer ------------------------------------------
  // Timebase ticks since reset (ppc_timers.h counts in these).
  uint64_t ticks() const {
    const unsigned __int128 ps = m_env.now_ps();
    return static_cast<uint64_t>(ps * m_cfg.timebase_hz / 1'000'000'000'000ull);
  }
  void update_timers() {
    if (m_mapped) m_timers.update(ticks());
  }

  // ---- hooks and their workarounds (ppc603e_unicorn_hooks.cpp) -------------
  void ensure_mapped();
  void set_fault(const std::string& kind, uint64_t pc, bool exact, std::optional<uint64_t> addr,
                 const std::string& detail);
  static void on_block(uc_engine*, uint64_t addr, uint32_t size, void* user);
  void renew_budget();
  void count_block(uint64_t addr, uint32_t size) {
    const uint64_t n = size / 4;
    m_icount += n;
    if (m_block_counts) (*m_block_counts)[addr] += n;
    m_budget -= static_cast<int64_t>(n);
    m_block_start = addr;
    m_block_end = addr + size;
  }
  // Instructions of the current block (m_block_start) that did not run after all.
  void uncount(uint64_t n) {
    m_icount -= n;
    if (m_block_counts) (*m_block_counts)[m_block_start] -= n;
  }
  void undo_watched_instruction();
  void watch_mode_changed();
  static void on_interrupt(uc_engine*, uint32_t intno, void* user);
  void exception(uint32_t intno);
  static bool on_unmapped(uc_engine*, uc_mem_type type, uint64_t addr, int size, int64_t, void* user);
  void unmapped(uc_mem_type type, uint64_t addr, int size);
  ppc::LocatedAccess find_access(bool store, uint64_t addr) const;
  void locate_access(bool store, uint64_t addr, int size, const std::string& kind);
  struct IoRegion {
    UnicornPpc603e* core;
    uint64_t base;
  };
  static uint64_t on_io_read(uc_engine*, uint64_t offset, unsigned size, void* user);
  static void on_io_write(uc_engine*, uint64_t offset, unsigned size, uint64_t value, void* user);

  Environment& m_env;
  Ppc603eConfig m_cfg;
  uc_engine* m_uc = nullptr;
  bool m_mapped = false;
  std::vector<std::unique_ptr<IoRegion>> m_io;
  std::vector<std::pair<uint64_t, uint64_t>> m_ram;  // direct memory: base, size
  std::vector<Register> m_registers;

  uint64_t m_pc = 0;
  uint64_t m_icount = 0;
  std::unordered_map<uint64_t, uint64_t>* m_block_counts = nullptr;  // count_blocks()
  int64_t m_budget = 0;
  uint64_t m_block_start = 0, m_block_end = 0;
  bool m_running = false, m_in_stub = false;
  bool m_stop_requested = false, m_stop_at_next_block = false;
  bool m_bp_hit = false, m_fault_pending = false, m_syscall_pending = false;
  bool m_idle = false;
  uint64_t m_bp_addr = 0;
  std::optional<uint64_t> m_reported_bp;  // resuming here steps over it
  Fault m_fault;
  struct IoAccess {
    bool active = false;  // inside Environment::transport from a hook
    bool store = false;
    uint64_t addr = 0;
  } m_access;

  bool m_ext_level = false;
  uint32_t m_hid0 = 0;
  ppc::Timers m_timers;
  std::optional<uint64_t> m_exception_return;  // SRR0 of an exception the last step entered

  std::map<uint64_t, uint32_t> m_patches;      // address -> original instruction
  std::map<uint64_t, uint32_t> m_breakpoints;  // address -> original instruction

  std::unique_ptr<UnicornWatchpoints> m_watch;
};

}  // namespace m2::iss
