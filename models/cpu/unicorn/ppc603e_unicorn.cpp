// PowerPC 603e core on Unicorn 2 (PPC32, big-endian, CPU model 603e v4.1).
//
// Unicorn 2.0.1 leaves out parts of the 603e that a platform needs, so this
// adapter supplies them:
//  - Timebase, decrementer and HID0: Unicorn's timebase state is never set up
//    (mftb crashes the host process) and its HID0 doze would hang it. Every
//    such instruction (and mtmsr, to see MSR[POW]) is found by scanning loaded
//    code and replaced by a reserved illegal opcode; the exception hook, where
//    Unicorn has already advanced the PC, performs the original instruction
//    from simulated time and execution simply goes on. Code hooks are not an
//    option: in Unicorn 2.0.1 merely having one makes stops from the block
//    hook corrupt execution. Software breakpoints use the same patching.
//  - Exceptions: Unicorn reports them to a hook with nip already advanced and
//    does not vector them. External, decrementer and system-call exceptions are
//    entered here (SRR0/SRR1 written by a two-instruction stub on a private
//    page, since Unicorn exposes no SPR registers); the others are faults.
//  - Idle: an mtmsr setting MSR[POW] stops the core, which then dozes.
//  - Instruction counting uses a block hook (a count limit would hook every
//    instruction: 30x slower). Stopping from the block hook prevents that
//    block from running, so counts stay exact.
//  - Data watchpoints (GDB's watch/rwatch/awatch) stop BEFORE the accessing
//    instruction (unicorn_watchpoints.h): hooks only while one is set.
#include "cpu/unicorn/ppc603e_unicorn.h"

#include <unicorn/unicorn.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "core/bytes.h"
#include "cpu/ppc_decode.h"
#include "cpu/ppc_fault_location.h"
#include "cpu/ppc_timers.h"
#include "cpu/unicorn/unicorn_watchpoints.h"

namespace m2::iss {
namespace {

constexpr uint32_t MSR_POW = 0x00040000, MSR_EE = 0x8000, MSR_PR = 0x4000, MSR_ME = 0x1000,
                   MSR_IP = 0x40, MSR_IR = 0x20, MSR_DR = 0x10;
constexpr uint64_t UNTIL_NEVER = 0xFFFFFFFFull;  // odd: never a PC
// Reserved illegal opcodes (primary opcode 0) standing in for patched
// instructions and software breakpoints.
constexpr uint32_t MARKER = 0x00004D32;        // "M2": an intercepted instruction
constexpr uint32_t BREAK_MARKER = 0x00004250;  // "BP": a breakpoint
constexpr uint32_t STUB_END = 0x00005354;      // "ST": end of a private stub

// Words of the private stub page.
constexpr uint32_t STUB_SET_SRR = 0x000;  // mtspr SRR0,r3 ; mtspr SRR1,r4
constexpr uint32_t STUB_GET_SRR = 0x010;  // mfspr r3,SRR0 ; mfspr r4,SRR1
uint32_t enc_mtspr(unsigned spr, unsigned rs) {
  return (31u << 26) | (rs << 21) | ((spr & 31) << 16) | ((spr >> 5) << 11) | (467u << 1);
}
uint32_t enc_mfspr(unsigned rd, unsigned spr) {
  return (31u << 26) | (rd << 21) | ((spr & 31) << 16) | ((spr >> 5) << 11) | (339u << 1);
}

class UnicornPpc603e final : public Core {
 public:
  UnicornPpc603e(Environment& env, const Ppc603eConfig& cfg) : m_env(env), m_cfg(cfg) {
    check(uc_open(UC_ARCH_PPC, static_cast<uc_mode>(UC_MODE_PPC32 | UC_MODE_BIG_ENDIAN), &m_uc), "uc_open");
    check(uc_ctl_set_cpu_model(m_uc, UC_CPU_PPC32_603E_V4_1), "select CPU model 603e");
    uc_hook h;
    check(uc_hook_add(m_uc, &h, UC_HOOK_BLOCK, reinterpret_cast<void*>(&on_block), this, 1, 0), "block hook");
    check(uc_hook_add(m_uc, &h, UC_HOOK_INTR, reinterpret_cast<void*>(&on_interrupt), this, 1, 0), "interrupt hook");
    check(uc_hook_add(m_uc, &h, UC_HOOK_MEM_UNMAPPED, reinterpret_cast<void*>(&on_unmapped), this, 1, 0),
          "unmapped-memory hook");
    m_registers.reserve(71);
    for (int i = 0; i < 32; ++i) m_registers.push_back({"r" + std::to_string(i), 32});
    for (int i = 0; i < 32; ++i) m_registers.push_back({"f" + std::to_string(i), 64});
    for (const char* n : {"pc", "msr", "cr", "lr", "ctr", "xer", "fpscr"}) m_registers.push_back({n, 32});
    m_watch = std::make_unique<UnicornWatchpoints>(
        m_uc, UnicornWatchpoints::Core{[this](uint64_t a) { return is_ram(a); }, [this] { watch_mode_changed(); },
                                       &m_in_stub, UC_PPC_REG_PC});
  }
  ~UnicornPpc603e() override {
    m_watch.reset();  // before the engine it uses
    uc_close(m_uc);
  }

  std::string model() const override { return "PowerPC 603e (Unicorn " + std::string(UC_VERSION_MAJOR == 2 ? "2" : "?") + ")"; }

  void reset(uint64_t pc) override {
    ensure_mapped();
    for (int i = 0; i < 32; ++i) write_reg(UC_PPC_REG_0 + i, 0);
    write_reg(UC_PPC_REG_MSR, MSR_IP | MSR_ME);  // 603e after reset, minus the boot ROM
    m_pc = pc;
    m_reported_bp.reset();
    m_idle = false;
    m_hid0 = 0;
    m_timers.reset(ticks());
  }

  void code_changed(uint64_t addr, uint64_t len) override {
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

  StopReason step(uint64_t max_instructions) override {
    m_exception_return.reset();
    update_timers();
    if (m_idle) {
      if (!interrupt_deliverable()) return StopReason::Idle;
      m_idle = false;
    }
    if (interrupt_deliverable()) take_async_interrupt();

    m_budget = static_cast<int64_t>(max_instructions);
    m_stop_requested = false;
    m_stop_at_next_block = false;
    m_bp_hit = false;
    m_fault_pending = false;
    m_running = true;
    m_watch->start_step(m_pc);
    if (m_breakpoints.count(m_pc)) {
      // A breakpoint not yet reported (a budget stop landed on it) stops now.
      if (m_reported_bp != m_pc) {
        m_reported_bp = m_pc;
        m_running = false;
        return StopReason::Breakpoint;
      }
      step_over_breakpoint();
      if (m_watch->hit()) {
        m_running = false;
        return StopReason::Watchpoint;
      }
      if (m_fault_pending) {
        m_running = false;
        return StopReason::Fault;
      }
      if (m_bp_hit) {  // a second breakpoint in the same block
        m_pc = m_bp_addr;
        m_reported_bp = m_bp_addr;
        m_running = false;
        return StopReason::Breakpoint;
      }
    }
    m_reported_bp.reset();
    const uint64_t icount_at_start = m_icount;
    StopReason reason = StopReason::Budget;
    for (;;) {
      m_block_start = m_block_end = 0;
      m_watch->start_emulation();
      uc_err err = uc_emu_start(m_uc, m_pc, UNTIL_NEVER, 0, 0);
      // After a fault Unicorn's PC is the block start or the next instruction:
      // the fault knows better.
      m_pc = m_fault_pending ? m_fault.pc : read_reg(UC_PPC_REG_PC);
      if (m_watch->hit()) undo_watched_instruction();
      // A block counted in full may have stopped part-way (breakpoint, exception).
      if (m_pc >= m_block_start && m_pc < m_block_end) uncount((m_block_end - m_pc) / 4);
      if (m_watch->hit()) {
        reason = StopReason::Watchpoint;
        break;
      }
      if (m_fault_pending || err != UC_ERR_OK) {
        if (!m_fault_pending) set_fault("emulation error", m_pc, false, std::nullopt, uc_strerror(err));
        reason = StopReason::Fault;
        break;
      }
      if (m_syscall_pending) {
        m_syscall_pending = false;
        enter_exception(PPC_VEC_SYSCALL, m_pc);
        if (m_budget > 0 && !m_stop_requested) continue;
      }
      const uint32_t msr = read_reg(UC_PPC_REG_MSR);
      if (msr & MSR_POW) {
        write_reg(UC_PPC_REG_MSR, msr & ~MSR_POW);
        m_idle = true;  // the next step() wakes it when an interrupt is deliverable
        reason = StopReason::Idle;
        break;
      }
      if (m_bp_hit) {
        m_pc = m_bp_addr;  // report the breakpoint itself, not the next instruction
        m_reported_bp = m_pc;
        reason = StopReason::Breakpoint;
        break;
      }
      if (m_stop_requested) { reason = StopReason::Requested; break; }
      // A store into the page of the running block makes QEMU retranslate
      // and restart it; with a budget smaller than the block that can repeat
      // forever without retiring anything. Always make progress.
      if (m_icount == icount_at_start && !m_stop_at_next_block) {
        m_budget = 64;
        continue;
      }
      break;  // budget used up, or an internal early stop (timer reprogrammed)
    }
    m_running = false;
    return reason;
  }

  StopReason single_step() override {
    m_exception_return.reset();
    update_timers();
    if (m_idle) {
      if (!interrupt_deliverable()) return StopReason::Idle;
      m_idle = false;
    }
    StopReason r = StopReason::Budget;
    if (interrupt_deliverable()) {
      // Entering the interrupt is the step: the debugger stops at the vector.
      take_async_interrupt();
    } else {
      const uint64_t at = m_pc, next = at + 4;
      if (m_breakpoints.count(at)) m_reported_bp = at;  // execute it, do not report it
      // A temporary breakpoint on the next instruction ends the block after
      // one instruction; a branch elsewhere ends the block anyway, and the
      // block hook stops the next one (budget 1).
      const bool temp = !m_breakpoints.count(next) && is_ram(next);
      if (temp) insert_breakpoint(next);
      r = step(1);
      if (temp) remove_breakpoint(next);
      if (r == StopReason::Breakpoint || r == StopReason::Requested) r = StopReason::Budget;  // not Watchpoint
    }
    // Stopped on a breakpoint the debugger now knows about: resuming runs it.
    if (m_breakpoints.count(m_pc)) m_reported_bp = m_pc;
    else m_reported_bp.reset();
    return r;
  }

  uint64_t instruction_count() const override { return m_icount; }
  void count_blocks(std::unordered_map<uint64_t, uint64_t>* counts) override { m_block_counts = counts; }

  void request_stop() override {
    m_stop_requested = true;
    // Inside a device access the block hook stops at the next block: a
    // uc_emu_stop there, from another CPU's debugger, left the core unable to
    // run on once resumed (seen with the platform's GDB connection).
    if (m_running && !m_access.active) uc_emu_stop(m_uc);
  }

  void set_interrupt(unsigned line, bool level) override {
    if (line != 0) return;
    m_ext_level = level;
    if (level && m_running && (msr() & MSR_EE)) m_stop_at_next_block = true;
  }

  bool idle() const override { return m_idle; }

  bool interrupt_deliverable() const override {
    const_cast<UnicornPpc603e*>(this)->update_timers();
    return (msr() & MSR_EE) && (m_ext_level || m_timers.pending());
  }

  std::optional<uint64_t> next_timer_event_ps() const override {
    if (m_timers.pending()) return std::nullopt;
    const unsigned __int128 at = m_timers.next_exception_tick();
    return static_cast<uint64_t>((at * 1'000'000'000'000ull + m_cfg.timebase_hz - 1) / m_cfg.timebase_hz);
  }

  uint64_t pc() const override { return m_pc; }
  std::optional<uint64_t> entered_exception() const override { return m_exception_return; }
  std::optional<uint64_t> access_pc() const override {
    if (!m_access.active) return std::nullopt;
    const ppc::LocatedAccess l = find_access(m_access.store, m_access.addr);
    if (l.matches != 1) return std::nullopt;
    return l.pc;
  }
  uint64_t access_code_address() const override {
    if (!m_access.active) return m_pc;
    const ppc::LocatedAccess l = find_access(m_access.store, m_access.addr);
    return l.matches > 0 || !m_block_start ? l.pc : m_block_start;
  }
  void set_pc(uint64_t pc) override {
    m_pc = pc;
    m_reported_bp.reset();
    m_watch->forget_reported();
  }

  bool big_endian() const override { return true; }
  const std::vector<Register>& registers() const override { return m_registers; }

  uint64_t read_register(unsigned i) const override {
    if (i < 32) return read_reg(UC_PPC_REG_0 + i);
    if (i < 64) {
      uint64_t v = 0;
      uc_reg_read(m_uc, UC_PPC_REG_FPR0 + (i - 32), &v);
      return v;
    }
    switch (i) {
      case 64: return m_pc;
      case 65: return read_reg(UC_PPC_REG_MSR);
      case 66: return read_reg(UC_PPC_REG_CR);
      case 67: return read_reg(UC_PPC_REG_LR);
      case 68: return read_reg(UC_PPC_REG_CTR);
      case 69: return read_reg(UC_PPC_REG_XER);
      case 70: return read_reg(UC_PPC_REG_FPSCR);
    }
    return 0;
  }

  void write_register(unsigned i, uint64_t v) override {
    if (i < 32) return write_reg(UC_PPC_REG_0 + i, static_cast<uint32_t>(v));
    if (i < 64) { uc_reg_write(m_uc, UC_PPC_REG_FPR0 + (i - 32), &v); return; }
    switch (i) {
      case 64: set_pc(v); return;
      case 65: write_reg(UC_PPC_REG_MSR, static_cast<uint32_t>(v)); return;
      case 66: write_reg(UC_PPC_REG_CR, static_cast<uint32_t>(v)); return;
      case 67: write_reg(UC_PPC_REG_LR, static_cast<uint32_t>(v)); return;
      case 68: write_reg(UC_PPC_REG_CTR, static_cast<uint32_t>(v)); return;
      case 69: write_reg(UC_PPC_REG_XER, static_cast<uint32_t>(v)); return;
      case 70: write_reg(UC_PPC_REG_FPSCR, static_cast<uint32_t>(v)); return;
    }
  }

  bool insert_breakpoint(uint64_t addr) override {
    if (m_breakpoints.count(addr)) return true;
    ensure_mapped();
    if ((addr & 3) || !is_ram(addr)) return false;  // no code there to patch
    m_breakpoints[addr] = read_word(addr);
    write_word(addr, BREAK_MARKER);
    uc_ctl_remove_cache(m_uc, addr, addr + 4);
    return true;
  }

  void remove_breakpoint(uint64_t addr) override {
    auto it = m_breakpoints.find(addr);
    if (it == m_breakpoints.end()) return;
    write_word(addr, it->second);
    m_breakpoints.erase(it);
    uc_ctl_remove_cache(m_uc, addr, addr + 4);
  }

  void hide_patches(uint64_t addr, uint8_t* data, uint64_t len) const override {
    const uint64_t first = addr >= 3 ? addr - 3 : 0, end = addr + len;
    // Breakpoints first: the original under one may itself be a MARKER.
    for (auto it = m_breakpoints.lower_bound(first); it != m_breakpoints.end() && it->first < end; ++it)
      unpatch_word(addr, data, len, it->first, BREAK_MARKER, it->second);
    for (auto it = m_patches.lower_bound(first); it != m_patches.end() && it->first < end; ++it)
      unpatch_word(addr, data, len, it->first, MARKER, it->second);
  }

  bool insert_watchpoint(uint64_t addr, uint64_t len, WatchKind kind) override {
    ensure_mapped();
    if (len == 0 || addr + len < addr || !mapped_range(addr, len)) return false;
    m_watch->insert(addr, len, kind);
    return true;
  }

  void remove_watchpoint(uint64_t addr, uint64_t len, WatchKind kind) override { m_watch->remove(addr, len, kind); }

  const WatchHit& watch_hit() const override { return m_watch->last_hit(); }

  std::string gdb_target_xml() const override {
    // GDB's PowerPC register numbers are those of registers(): r0-r31 0..31,
    // f0-f31 32..63, pc 64, msr, cr, lr, ctr, xer, fpscr 70.
    std::string core, fpu;
    for (size_t i = 0; i < m_registers.size(); ++i) {
      const Register& r = m_registers[i];
      const bool fp = r.name[0] == 'f';
      const char* type = fp && r.name != "fpscr"     ? "ieee_double"
                         : r.name == "pc" || r.name == "lr" ? "code_ptr"
                                                            : "uint32";
      (fp ? fpu : core) += "    <reg name=\"" + r.name + "\" bitsize=\"" + std::to_string(r.bits) + "\" type=\"" +
                           type + "\" regnum=\"" + std::to_string(i) + "\"" +
                           (r.name == "fpscr" ? " group=\"float\"" : "") + "/>\n";
    }
    return "<?xml version=\"1.0\"?>\n<target version=\"1.0\">\n  <architecture>powerpc:603</architecture>\n"
           "  <feature name=\"org.gnu.gdb.power.core\">\n" + core + "  </feature>\n"
           "  <feature name=\"org.gnu.gdb.power.fpu\">\n" + fpu + "  </feature>\n</target>\n";
  }

  const Fault& fault() const override { return m_fault; }

  std::optional<uint64_t> stack_pointer() const override { return read_register(1); }  // SVR4 ABI: r1

  std::string dump_state() const override {
    std::string s;
    char line[160];
    for (int i = 0; i < 32; i += 4) {
      std::snprintf(line, sizeof line, "  r%-2d %08" PRIx64 "  r%-2d %08" PRIx64 "  r%-2d %08" PRIx64 "  r%-2d %08" PRIx64 "\n",
                    i, read_register(i), i + 1, read_register(i + 1), i + 2, read_register(i + 2), i + 3,
                    read_register(i + 3));
      s += line;
    }
    auto* self = const_cast<UnicornPpc603e*>(this);
    uint32_t srr0 = 0, srr1 = 0;
    self->read_srr(srr0, srr1);
    std::snprintf(line, sizeof line,
                  "  pc  %08" PRIx64 "  msr %08" PRIx64 "  cr  %08" PRIx64 "  lr  %08" PRIx64 "\n"
                  "  ctr %08" PRIx64 "  xer %08" PRIx64 "  srr0 %08x srr1 %08x\n",
                  m_pc, read_register(65), read_register(66), read_register(67), read_register(68),
                  read_register(69), srr0, srr1);
    s += line;
    std::snprintf(line, sizeof line, "  dec %08x  tb %016" PRIx64 "  hid0 %08x\n", m_timers.decrementer(ticks()),
                  m_timers.timebase(ticks()), m_hid0);
    s += line;
    return s;
  }

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

  // Resumes from the breakpoint at the PC: runs the block starting there
  // with the original instruction back in place (the block hook stops at the
  // next block), then re-arms the breakpoint. Unicorn's instruction count is
  // no option: it installs a code hook (see above).
  void step_over_breakpoint() {
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
  bool mapped_range(uint64_t addr, uint64_t len) const {
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
  // In `data` (memory at [addr, addr+len)), the word at `at` holding `marker`
  // gets `original` back, also when only partly inside the range.
  static void unpatch_word(uint64_t addr, uint8_t* data, uint64_t len, uint64_t at, uint32_t marker,
                           uint32_t original) {
    for (unsigned i = 0; i < 4; ++i)
      if (at + i >= addr && at + i < addr + len && data[at + i - addr] != uint8_t(marker >> (24 - 8 * i))) return;
    for (unsigned i = 0; i < 4; ++i)
      if (at + i >= addr && at + i < addr + len) data[at + i - addr] = uint8_t(original >> (24 - 8 * i));
  }

  // Maps every bus region once: direct memory where the target grants it,
  // MMIO callbacks into the environment elsewhere; holes stay unmapped.
  void ensure_mapped() {
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
    // Each stub ends on a reserved illegal opcode rather than an `until`
    // address: every change of `until` costs Unicorn 2.0.1 ~0.5 ms.
    const uint32_t stubs[] = {enc_mtspr(ppc::SPR_SRR0, 3), enc_mtspr(ppc::SPR_SRR1, 4), STUB_END, 0,
                              enc_mfspr(3, ppc::SPR_SRR0), enc_mfspr(4, ppc::SPR_SRR1), STUB_END, 0};
    uint8_t bytes[sizeof stubs];
    for (size_t i = 0; i < sizeof stubs / 4; ++i)
      for (int b = 0; b < 4; ++b) bytes[4 * i + b] = static_cast<uint8_t>(stubs[i] >> (24 - 8 * b));
    check(uc_mem_write(m_uc, m_cfg.private_page, bytes, sizeof bytes), "write private stubs");
  }

  // Runs a stub from the private page with r3/r4 as arguments/results,
  // in supervisor mode, without counting its instructions.
  void run_stub(uint32_t offset, uint32_t& r3, uint32_t& r4) {
    const uint32_t save3 = read_reg(UC_PPC_REG_3), save4 = read_reg(UC_PPC_REG_4), save_msr = msr();
    write_reg(UC_PPC_REG_3, r3);
    write_reg(UC_PPC_REG_4, r4);
    write_reg(UC_PPC_REG_MSR, save_msr & ~(MSR_PR | MSR_EE));
    m_in_stub = true;
    uc_emu_start(m_uc, m_cfg.private_page + offset, UNTIL_NEVER, 0, 0);
    m_in_stub = false;
    r3 = read_reg(UC_PPC_REG_3);
    r4 = read_reg(UC_PPC_REG_4);
    write_reg(UC_PPC_REG_3, save3);
    write_reg(UC_PPC_REG_4, save4);
    write_reg(UC_PPC_REG_MSR, save_msr);
  }
  void read_srr(uint32_t& srr0, uint32_t& srr1) {
    if (!m_mapped) return;
    srr0 = srr1 = 0;
    run_stub(STUB_GET_SRR, srr0, srr1);
  }

  // Exception entry as the 603e does it for external, decrementer and sc.
  void enter_exception(uint32_t vector, uint64_t return_pc) {
    m_exception_return = return_pc;
    const uint32_t old = msr();
    uint32_t srr0 = static_cast<uint32_t>(return_pc), srr1 = old & 0xFFFF;
    run_stub(STUB_SET_SRR, srr0, srr1);
    write_reg(UC_PPC_REG_MSR, old & (MSR_ME | MSR_IP));
    m_pc = (old & MSR_IP ? 0xFFF00000u : 0u) | vector;
  }

  void take_async_interrupt() {
    if (m_ext_level) {
      enter_exception(PPC_VEC_EXTERNAL, m_pc);
    } else if (m_timers.pending()) {
      m_timers.take();
      enter_exception(PPC_VEC_DECREMENTER, m_pc);
    }
  }
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

  // ---- hooks -------------------------------------------------------------
  void set_fault(const std::string& kind, uint64_t pc, bool exact, std::optional<uint64_t> addr,
                 const std::string& detail) {
    m_fault = Fault{kind, pc, exact, addr, detail};
    m_fault_pending = true;
    uc_emu_stop(m_uc);
  }

  static void on_block(uc_engine*, uint64_t addr, uint32_t size, void* user) {
    auto* self = static_cast<UnicornPpc603e*>(user);
    if (self->m_in_stub) return;
    if (self->m_budget <= 0 || self->m_stop_at_next_block || self->m_stop_requested) {
      if (self->m_watch->active()) {
        // The code hook stops before the block's first instruction, with the
        // PC written; the block is counted here and uncounted by step().
        self->m_watch->stop_before_next_instruction();
        self->count_block(addr, size);
        return;
      }
      uc_emu_stop(self->m_uc);  // this block will not run: leave it uncounted
      self->m_block_start = self->m_block_end = 0;  // and the last one did run in full
      return;
    }
    self->count_block(addr, size);
  }
  void count_block(uint64_t addr, uint32_t size) {
    const uint64_t n = size / 4;
    m_icount += n;
    if (m_block_counts) (*m_block_counts)[addr] += n;
    m_budget -= static_cast<int64_t>(n);
    m_block_start = addr;
    m_block_end = addr + size;
  }  // Instructions of the current block (m_block_start) that did not run after all.
  void uncount(uint64_t n) {
    m_icount -= n;
    if (m_block_counts) (*m_block_counts)[m_block_start] -= n;
  }


  // ---- watchpoints (unicorn_watchpoints.h) ---------------------------------
  // After a watchpoint stop: the instruction (which Unicorn completed) never happened.
  void undo_watched_instruction() {
    m_pc = m_watch->undo();
    m_fault_pending = false;  // a later access of the same instruction faulted: it runs again
    m_bp_hit = false;
  }

  // Hooks came or went: Unicorn decides at translation whether code calls
  // them, so the code translated from RAM (the only place code runs from)
  // is dropped. Not UC_CTL_TB_FLUSH: Unicorn 2.0.1 then zeroes its whole
  // 1 GB code buffer (2 s and 1 GB resident on first use). Deleted hooks
  // stay listed until an emulation ends: a harmless stub runs first.
  void watch_mode_changed() {
    uint32_t srr0 = 0, srr1 = 0;
    read_srr(srr0, srr1);
    for (const auto& [base, size] : m_ram) check(uc_ctl_remove_cache(m_uc, base, base + size), "drop translated code");
  }

  // Performs a patched instruction; Unicorn's PC is already past it.
  void emulate(uint64_t addr, uint32_t insn) {
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
    const bool privileged = !(a.kind == ppc::Intercept::ReadSpr &&
                              (a.spr == ppc::SPR_TBL_READ || a.spr == ppc::SPR_TBU_READ));
    if (privileged && user_mode) {
      set_fault("privileged instruction in user mode", addr, true, std::nullopt, "insn " + hex(insn, 8));
      return;
    }
    if (a.kind == ppc::Intercept::ReadSpr) {
      uint32_t v = 0;
      switch (a.spr) {
        case ppc::SPR_TBL_READ: v = static_cast<uint32_t>(m_timers.timebase(ticks())); break;
        case ppc::SPR_TBU_READ: v = static_cast<uint32_t>(m_timers.timebase(ticks()) >> 32); break;
        case ppc::SPR_DEC: v = m_timers.decrementer(ticks()); break;
        case ppc::SPR_HID0: v = m_hid0; break;
      }
      write_reg(UC_PPC_REG_0 + a.reg, v);
    } else {
      const uint32_t v = read_reg(UC_PPC_REG_0 + a.reg);
      switch (a.spr) {
        case ppc::SPR_DEC:
          m_timers.write_decrementer(ticks(), v);
          uc_emu_stop(m_uc);  // let the platform re-plan around the new deadline
          break;
        case ppc::SPR_TBL_WRITE: m_timers.write_tbl(ticks(), v); break;
        case ppc::SPR_TBU_WRITE: m_timers.write_tbu(ticks(), v); break;
        case ppc::SPR_HID0: m_hid0 = v; break;  // kept here: Unicorn would hang on doze bits
      }
    }
  }

  static void on_interrupt(uc_engine*, uint32_t intno, void* user) {
    static_cast<UnicornPpc603e*>(user)->exception(intno);
  }

  void exception(uint32_t intno) {
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

  static bool on_unmapped(uc_engine*, uc_mem_type type, uint64_t addr, int size, int64_t, void* user) {
    static_cast<UnicornPpc603e*>(user)->unmapped(type, addr, size);
    return false;
  }

  void unmapped(uc_mem_type type, uint64_t addr, int size) {
    if (type == UC_MEM_FETCH_UNMAPPED) {
      set_fault("instruction fetch from unmapped address", addr, true, addr, "");
      return;
    }
    const bool store = type == UC_MEM_WRITE_UNMAPPED;
    locate_access(store, addr, size, store ? "store to unmapped address" : "load from unmapped address");
  }

  // Unicorn does not sync the PC before a data access: find the access in the
  // current block from its effective address (ppc_fault_location.h).
  ppc::LocatedAccess find_access(bool store, uint64_t addr) const {
    ppc::LocatedAccess l = ppc::locate_access(
        m_block_start, m_block_end, store, addr, [this](uint64_t a) { return read_word(a); },
        [this](unsigned r) { return read_reg(UC_PPC_REG_0 + static_cast<int>(r)); });
    if (!m_block_start) l.pc = read_reg(UC_PPC_REG_PC);
    return l;
  }

  void locate_access(bool store, uint64_t addr, int size, const std::string& kind) {
    const ppc::LocatedAccess l = find_access(store, addr);
    set_fault(kind, l.pc, l.matches == 1, addr, std::to_string(size) + "-byte " + (store ? "store" : "load") + l.what);
  }

  struct IoRegion {
    UnicornPpc603e* core;
    uint64_t base;
  };

  static uint64_t on_io_read(uc_engine*, uint64_t offset, unsigned size, void* user) {
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

  static void on_io_write(uc_engine*, uint64_t offset, unsigned size, uint64_t value, void* user) {
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

}  // namespace

std::unique_ptr<Core> make_unicorn_ppc603e(Environment& env, const Ppc603eConfig& cfg) {
  return std::make_unique<UnicornPpc603e>(env, cfg);
}

}  // namespace m2::iss
