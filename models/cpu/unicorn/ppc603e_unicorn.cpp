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
//
// The adapter's parts, each in its own file (ppc603e_unicorn_core.h declares
// the class): this file is the ISS hook as the platform sees it;
// ppc603e_patching.cpp the instruction patching, ppc603e_exception_entry.cpp
// the exception entry, ppc603e_unicorn_hooks.cpp Unicorn's hooks and their
// workarounds.
#include "cpu/unicorn/ppc603e_unicorn.h"

#include <cinttypes>
#include <cstdio>

#include "cpu/unicorn/ppc603e_unicorn_core.h"

namespace m2::iss {

UnicornPpc603e::UnicornPpc603e(Environment& env, const Ppc603eConfig& cfg) : m_env(env), m_cfg(cfg) {
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

UnicornPpc603e::~UnicornPpc603e() {
  m_watch.reset();  // before the engine it uses
  uc_close(m_uc);
}

std::string UnicornPpc603e::model() const {
  return "PowerPC 603e (Unicorn " + std::string(UC_VERSION_MAJOR == 2 ? "2" : "?") + ")";
}

void UnicornPpc603e::reset(uint64_t pc) {
  ensure_mapped();
  for (int i = 0; i < 32; ++i) write_reg(UC_PPC_REG_0 + i, 0);
  write_reg(UC_PPC_REG_MSR, MSR_IP | MSR_ME);  // 603e after reset, minus the boot ROM
  m_pc = pc;
  m_reported_bp.reset();
  m_idle = false;
  m_hid0 = 0;
  m_timers.reset(ticks());
}

StopReason UnicornPpc603e::step(uint64_t max_instructions) {
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
    if (m_stop_requested) {
      reason = StopReason::Requested;
      break;
    }
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

StopReason UnicornPpc603e::single_step() {
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

void UnicornPpc603e::request_stop() {
  m_stop_requested = true;
  // Inside a device access the block hook stops at the next block: a
  // uc_emu_stop there, from another CPU's debugger, left the core unable to
  // run on once resumed (seen with the platform's GDB connection).
  if (m_running && !m_access.active) uc_emu_stop(m_uc);
}

void UnicornPpc603e::set_interrupt(unsigned line, bool level) {
  if (line != 0) return;
  m_ext_level = level;
  if (level && m_running && (msr() & MSR_EE)) m_stop_at_next_block = true;
}

bool UnicornPpc603e::interrupt_deliverable() const {
  const_cast<UnicornPpc603e*>(this)->update_timers();
  return (msr() & MSR_EE) && (m_ext_level || m_timers.pending());
}

std::optional<uint64_t> UnicornPpc603e::next_timer_event_ps() const {
  if (m_timers.pending()) return std::nullopt;
  const unsigned __int128 at = m_timers.next_exception_tick();
  return static_cast<uint64_t>((at * 1'000'000'000'000ull + m_cfg.timebase_hz - 1) / m_cfg.timebase_hz);
}

std::optional<uint64_t> UnicornPpc603e::access_pc() const {
  if (!m_access.active) return std::nullopt;
  const ppc::LocatedAccess l = find_access(m_access.store, m_access.addr);
  if (l.matches != 1) return std::nullopt;
  return l.pc;
}

uint64_t UnicornPpc603e::access_code_address() const {
  if (!m_access.active) return m_pc;
  const ppc::LocatedAccess l = find_access(m_access.store, m_access.addr);
  return l.matches > 0 || !m_block_start ? l.pc : m_block_start;
}

void UnicornPpc603e::set_pc(uint64_t pc) {
  m_pc = pc;
  m_reported_bp.reset();
  m_watch->forget_reported();
}

uint64_t UnicornPpc603e::read_register(unsigned i) const {
  if (i < 32) return read_reg(UC_PPC_REG_0 + i);
  if (i < 64) {
    uint64_t v = 0;
    uc_reg_read(m_uc, UC_PPC_REG_FPR0 + (i - 32), &v);
    return v;
  }
  switch (i) {
    case 64:
      return m_pc;
    case 65:
      return read_reg(UC_PPC_REG_MSR);
    case 66:
      return read_reg(UC_PPC_REG_CR);
    case 67:
      return read_reg(UC_PPC_REG_LR);
    case 68:
      return read_reg(UC_PPC_REG_CTR);
    case 69:
      return read_reg(UC_PPC_REG_XER);
    case 70:
      return read_reg(UC_PPC_REG_FPSCR);
  }
  return 0;
}

void UnicornPpc603e::write_register(unsigned i, uint64_t v) {
  if (i < 32) return write_reg(UC_PPC_REG_0 + i, static_cast<uint32_t>(v));
  if (i < 64) {
    uc_reg_write(m_uc, UC_PPC_REG_FPR0 + (i - 32), &v);
    return;
  }
  switch (i) {
    case 64:
      set_pc(v);
      return;
    case 65:
      write_reg(UC_PPC_REG_MSR, static_cast<uint32_t>(v));
      return;
    case 66:
      write_reg(UC_PPC_REG_CR, static_cast<uint32_t>(v));
      return;
    case 67:
      write_reg(UC_PPC_REG_LR, static_cast<uint32_t>(v));
      return;
    case 68:
      write_reg(UC_PPC_REG_CTR, static_cast<uint32_t>(v));
      return;
    case 69:
      write_reg(UC_PPC_REG_XER, static_cast<uint32_t>(v));
      return;
    case 70:
      write_reg(UC_PPC_REG_FPSCR, static_cast<uint32_t>(v));
      return;
  }
}

bool UnicornPpc603e::insert_watchpoint(uint64_t addr, uint64_t len, WatchKind kind) {
  ensure_mapped();
  if (len == 0 || addr + len < addr || !mapped_range(addr, len)) return false;
  m_watch->insert(addr, len, kind);
  return true;
}

std::string UnicornPpc603e::gdb_target_xml() const {
  // GDB's PowerPC register numbers are those of registers(): r0-r31 0..31,
  // f0-f31 32..63, pc 64, msr, cr, lr, ctr, xer, fpscr 70.
  std::string core, fpu;
  for (size_t i = 0; i < m_registers.size(); ++i) {
    const Register& r = m_registers[i];
    const bool fp = r.name[0] == 'f';
    const char* type = fp && r.name != "fpscr"            ? "ieee_double"
                       : r.name == "pc" || r.name == "lr" ? "code_ptr"
                                                          : "uint32";
    (fp ? fpu : core) += "    <reg name=\"" + r.name + "\" bitsize=\"" + std::to_string(r.bits) + "\" type=\"" + type +
                         "\" regnum=\"" + std::to_string(i) + "\"" + (r.name == "fpscr" ? " group=\"float\"" : "") +
                         "/>\n";
  }
  return "<?xml version=\"1.0\"?>\n<target version=\"1.0\">\n  <architecture>powerpc:603</architecture>\n"
         "  <feature name=\"org.gnu.gdb.power.core\">\n" +
         core +
         "  </feature>\n"
         "  <feature name=\"org.gnu.gdb.power.fpu\">\n" +
         fpu + "  </feature>\n</target>\n";
}

std::string UnicornPpc603e::dump_state() const {
  std::string s;
  char line[160];
  for (int i = 0; i < 32; i += 4) {
    std::snprintf(
        line, sizeof line, "  r%-2d %08" PRIx64 "  r%-2d %08" PRIx64 "  r%-2d %08" PRIx64 "  r%-2d %08" PRIx64 "\n", i,
        read_register(i), i + 1, read_register(i + 1), i + 2, read_register(i + 2), i + 3, read_register(i + 3));
    s += line;
  }
  auto* self = const_cast<UnicornPpc603e*>(this);
  uint32_t srr0 = 0, srr1 = 0;
  self->read_srr(srr0, srr1);
  std::snprintf(line, sizeof line,
                "  pc  %08" PRIx64 "  msr %08" PRIx64 "  cr  %08" PRIx64 "  lr  %08" PRIx64
                "\n"
                "  ctr %08" PRIx64 "  xer %08" PRIx64 "  srr0 %08x srr1 %08x\n",
                m_pc, read_register(65), read_register(66), read_register(67), read_register(68), read_register(69),
                srr0, srr1);
  s += line;
  std::snprintf(line, sizeof line, "  dec %08x  tb %016" PRIx64 "  hid0 %08x\n", m_timers.decrementer(ticks()),
                m_timers.timebase(ticks()), m_hid0);
  s += line;
  return s;
}

std::unique_ptr<Core> make_unicorn_ppc603e(Environment& env, const Ppc603eConfig& cfg) {
  return std::make_unique<UnicornPpc603e>(env, cfg);
}

}  // namespace m2::iss
