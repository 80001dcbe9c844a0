#include "cpu/processor.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include <ip/ni_memory_map.h>

#include "core/bytes.h"
#include "core/log.h"
#include "cpu/core_factory.h"
#include "cpu/processor_debug.h"

namespace m2 {
namespace {}  // namespace

Processor::Processor(sc_core::sc_module_name name, RunControl& run,
                     std::function<std::vector<iss::MemRegion>()> memory_map)
    : sc_module(name),
      socket("socket"),
      isa(this->name(), "isa", "ppc603e", "instruction-set simulator model", iss::core_models()),
      clock_mhz(this->name(), "clock_mhz", 300.0, "MHz", "core clock", Range<double>{1, 4000}),
      cpi(this->name(), "cpi", 1.0, "cycles",
          "average cycles per instruction (assumption: 603e dual dispatch offset by cache misses)",
          Range<double>{0.1, 100}),
      timebase_hz(this->name(), "timebase_hz", 25'000'000, "Hz",
                  "timebase/decrementer rate (603e: bus clock / 4; assumed 100 MHz 60x bus)",
                  Range<uint64_t>{1000, 1'000'000'000}),
      sync_on_io(this->name(), "sync_on_io", true, "",
                 "synchronise with SystemC before each device access (exact polling; off: faster)"),
      gdb_port(this->name(), "gdb_port", 0, "",
               "TCP port of a GDB server for this CPU on 127.0.0.1 (0: none); --gdb CPU=PORT sets it",
               Range<uint64_t>{0, 65535}),
      gdb_wait(this->name(), "gdb_wait", true, "",
               "with gdb_port: halt before the first instruction until GDB connects"),
      profile(this->name(), "profile", false, "",
              "count instructions and device-access time per firmware function (profile.tsv)"),
      m_run(run),
      m_memory_map(std::move(memory_map)) {
  m_fs_per_instruction = static_cast<uint64_t>(cpi.get() * 1e9 / clock_mhz.get() + 0.5);
  m_core = iss::make_core(isa.get(), *this, {this->name(), timebase_hz.get(), NI_ISS_PRIVATE_BASE});
  m_trans.set_extension(&m_read_hint);
  SC_THREAD(run);
  // Unicorn's translator runs on this thread's stack.
  set_stack_size(8 * 1024 * 1024);
}

Processor::~Processor() {
  // A run ended by time limit or stall never returns to the thread.
  if (m_debug) m_debug->ended();
  m_trans.clear_extension(&m_read_hint);  // a member: the payload must not delete it
}

void Processor::load_firmware(std::shared_ptr<const ElfImage> image) { m_image = std::move(image); }

void Processor::end_of_elaboration() {
  if (sc_core::sc_get_time_resolution() != sc_core::sc_time(1, sc_core::SC_PS))
    throw std::runtime_error("the platform needs a SystemC time resolution of 1 ps");
  if (gdb_port.get() != 0 && m_platform_gdb)
    throw ConfigError(gdb_port.origin().where + ": key '" + gdb_port.name() + "': " + name() + " is thread " +
                      std::to_string(m_platform_thread) +
                      " of the platform's GDB connection (sim.gdb_port): use one or the other");
  if (!m_image) {
    if (gdb_port.get() != 0)
      throw ConfigError(gdb_port.origin().where + ": key '" + gdb_port.name() + "': " + name() +
                        " runs no firmware to debug");
    return;
  }
  load_into(*m_image, [this](uint64_t addr, const uint8_t* data, size_t len) {
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(addr);
    t.set_data_ptr(const_cast<uint8_t*>(data));
    t.set_data_length(static_cast<unsigned>(len));
    if (socket->transport_dbg(t) != len)
      throw ConfigError(m_image->path() + ": segment bytes at " + hex(addr, 8) + "+" + std::to_string(len) +
                        " do not fit in the memory of " + name());
  });
  for (const ElfSegment& s : m_image->segments())
    if (s.executable) m_core->code_changed(s.paddr, s.memsz);
  m_core->reset(m_image->entry());
  if (profile.get()) {
    m_profile = std::make_unique<FirmwareProfile>();
    m_core->count_blocks(&m_profile->block_counts());
  }
  if (gdb_port.get() != 0 || m_platform_gdb) start_debugger();
}

void Processor::start_debugger() {
  const std::string key = gdb_port.origin().where + ": key '" + gdb_port.name() + "'";
  std::vector<std::pair<uint64_t, uint64_t>> code;
  for (const ElfSegment& s : m_image->segments())
    if (s.executable) code.emplace_back(s.paddr, s.paddr + s.memsz);
  ProcessorDebug::Access access;
  access.transport_dbg = [this](bool is_write, uint64_t addr, uint8_t* data, unsigned len) {
    tlm::tlm_generic_payload t;
    t.set_command(is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(len);
    return socket->transport_dbg(t);
  };
  access.now_ps = [this] { return now_ps(); };
  access.commands = m_monitor_commands;
  m_debug = std::make_unique<ProcessorDebug>(name(), m_image->path(), *m_core, m_run, std::move(access),
                                             std::move(code), m_platform_gdb, m_platform_thread);
  if (m_platform_gdb) return;
  try {
    m_debug->listen(static_cast<uint16_t>(gdb_port.get()));
  } catch (const std::runtime_error& e) {
    m_debug.reset();
    throw ConfigError(key + ": " + e.what());
  }
}

void Processor::console_output(const std::string& text) {
  if (m_debug) m_debug->output(text);
}

void Processor::set_irq(unsigned line, bool level) {
  m_core->set_interrupt(line, level);
  if (level) m_irq_event.notify(sc_core::SC_ZERO_TIME);
}

// The core counts a block's instructions when it enters it, so a device
// access commits the whole block; a block cut short afterwards (breakpoint,
// watchpoint, intercepted instruction) lowers the count again. The cut
// instructions keep their charge and are not charged again when they run:
// only a count above the committed one is new time.
uint64_t Processor::uncommitted_instructions() const {
  const uint64_t n = m_core->instruction_count();
  return n > m_committed_icount ? n - m_committed_icount : 0;
}

sc_core::sc_time Processor::local_offset() const {
  const uint64_t pending = uncommitted_instructions();
  return m_qk.offset() + sc_core::sc_time::from_value((pending * m_fs_per_instruction + m_fs_carry) / 1000);
}

void Processor::commit_local_time() {
  // The sub-picosecond rest is carried over, so that time does not depend on
  // how often it is committed (a debugger's steps and breakpoints).
  const uint64_t fs = uncommitted_instructions() * m_fs_per_instruction + m_fs_carry;
  m_qk.set(m_qk.offset() + sc_core::sc_time::from_value(fs / 1000));
  m_fs_carry = fs % 1000;
  m_committed_icount = std::max(m_committed_icount, m_core->instruction_count());
}

uint64_t Processor::budget_until(sc_core::sc_time remaining) const {
  uint64_t ps = remaining.value();  // time resolution is 1 ps (checked at elaboration)
  if (auto t = m_core->next_timer_event_ps()) {
    const uint64_t now = (sc_core::sc_time_stamp() + m_qk.offset()).value();
    if (*t > now) ps = std::min(ps, *t - now);
  }
  const uint64_t n = (ps * 1000 + m_fs_per_instruction - 1) / m_fs_per_instruction;
  return n < 1 ? 1 : n;
}

void Processor::run() {
  if (!m_image) return;  // a CPU without firmware stays in reset
  // Alone, a CPU may run ahead by up to 100 quanta (see LocalTime::extend_quantum).
  m_max_run_ahead = tlm::tlm_global_quantum::instance().get() * 100;
  m_qk.reset();
  if (m_debug) m_debug->start(m_platform_gdb ? m_platform_gdb_wait : gdb_wait.get());
  while (!m_halted) {
    if (m_debug) m_debug->poll();  // Ctrl-C; cheap: looks at the socket every few ms
    if (m_run.finished()) return halt();
    if (m_core->idle() && !m_core->interrupt_deliverable()) {
      m_qk.sync();
      m_committed_icount = std::max(m_committed_icount, m_core->instruction_count());
      // An interrupt raised while SystemC caught up with the local time has
      // already notified m_irq_event: waiting for it would never end.
      if (m_core->interrupt_deliverable()) continue;
      const sc_core::sc_time start = sc_core::sc_time_stamp();
      m_idle_since = start;
      const auto next = m_core->next_timer_event_ps();
      sc_core::sc_time wake = next ? sc_core::sc_time(static_cast<double>(*next), sc_core::SC_PS) : start;
      // GDB's Ctrl-C is only seen between waits: doze in slices.
      if (m_debug && m_debug->active() && wake > start + m_max_run_ahead) wake = start + m_max_run_ahead;
      if (next && wake > start) {
        m_doze_timer.arm(wake);  // may wake early for an older time: the loop dozes again
        wait(m_irq_event | m_doze_timer.event());
      } else {
        wait(m_irq_event);
      }
      m_idle_time += sc_core::sc_time_stamp() - start;
      m_idle_since.reset();
      m_qk.reset();
      continue;
    }
    const uint64_t budget = budget_until(m_qk.remaining());
    iss::StopReason why;
    if (m_debug) {
      m_debug->core_running(true);
      why = m_debug->stepping() ? m_core->single_step() : m_core->step(budget);
      m_debug->core_running(false);
    } else {
      why = m_core->step(budget);
    }
    commit_local_time();
    if (why == iss::StopReason::Fault) {
      report_fault();
      if (m_debug) m_debug->fault(m_core->fault());  // GDB may look at the state first
      return halt();
    }
    // Without a debugger a breakpoint stop (tests) just resumes.
    if (m_debug) m_debug->stopped(why);
    if (m_qk.need_sync() && !pass_quantum_end()) wait_at_quantum_end();
  }
}

// The end of a quantum without a wait, when no other process has anything
// to do before the end of the next one (LocalTime::extend_quantum).
bool Processor::pass_quantum_end() {
  if (!m_qk.extend_quantum(m_max_run_ahead)) return false;
  ++m_quanta_extended;
  return true;
}

void Processor::wait_at_quantum_end() {
  ++m_quantum_waits;
  m_qk.sync();
}

// Called by the core from inside its step when the budget ran out and the
// core itself has no reason to stop: does what run() would do after that
// budget stop, as long as that involves no wait, and returns the budget
// run() would give the next step (0: stop, run() takes over).
uint64_t Processor::budget_exhausted() {
  if (!m_renew_budgets || m_debug || m_run.finished()) return 0;
  commit_local_time();
  if (m_qk.need_sync() && !pass_quantum_end()) return 0;
  ++m_budgets_renewed;
  return budget_until(m_qk.remaining());
}

void Processor::halt() {
  m_halted = true;
  if (m_debug) m_debug->ended();
  m_qk.sync();
}

sc_core::sc_time Processor::idle_time() const {
  if (m_idle_since) return m_idle_time + (sc_core::sc_time_stamp() - *m_idle_since);
  return m_idle_time;
}

std::string Processor::describe(uint64_t addr) const {
  if (m_image) {
    if (auto d = m_image->describe(addr)) return *d;
  }
  return "";
}

// A stack that has grown down over the data or code corrupts it, and the
// fault that follows (often an illegal instruction) says nothing of the
// stack: name it when the stack pointer is below the firmware's stack limit
// (__stack_limit, sw/firmware/common/ni.ld) or inside a loaded segment.
std::string Processor::stack_note() const {
  const std::optional<uint64_t> sp = m_core->stack_pointer();
  if (!sp || !m_image) return "";
  const std::optional<uint64_t> limit = m_image->symbol("__stack_limit");
  std::string why;
  if (limit && *sp < *limit) why = "below __stack_limit " + hex(*limit, 8);
  for (const ElfSegment& seg : m_image->segments())
    if (why.empty() && *sp >= seg.paddr && *sp < seg.paddr + seg.memsz)
      why = std::string("inside the firmware's ") + (seg.executable ? "code" : "data") + " segment at " +
            hex(seg.paddr, 8);
  if (why.empty()) return "";
  return "  stack:     the stack pointer " + hex(*sp, 8) + " is " + why +
         ": the stack has probably overflowed (too deep recursion or too large local arrays) and overwritten "
         "code or data\n";
}

// Code the firmware overwrote: the word at `pc` differs from the ELF's (a
// stray store, often through a null pointer plus an offset, can land on the
// exception vectors at 0x100..0x1400). The fault then says nothing of it.
std::string Processor::code_note(uint64_t pc) {
  if (!m_image) return "";
  for (const ElfSegment& seg : m_image->segments()) {
    if (!seg.executable || pc < seg.paddr || pc + 4 > seg.paddr + seg.data.size()) continue;
    const uint8_t* want = seg.data.data() + (pc - seg.paddr);
    uint8_t now[4] = {};
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(pc);
    t.set_data_ptr(now);
    t.set_data_length(4);
    if (socket->transport_dbg(t) != 4) return "";
    m_core->hide_patches(pc, now, 4);  // breakpoints and intercepts are the simulator's, not a store's
    if (std::equal(now, now + 4, want)) return "";
    return "  code:      the word at " + hex(pc, 8) + " is " + hex(load_be32(now), 8) + ", the firmware has " +
           hex(load_be32(want), 8) +
           " there: the code was overwritten after loading (a stray store, e.g. through a null pointer plus an "
           "offset)\n";
  }
  return "";
}

void Processor::report_fault() {
  const iss::Fault& f = m_core->fault();
  std::string r = "firmware fault on " + std::string(name()) + ": " + f.kind + "\n";
  r += "  pc:        " + hex(f.pc, 8);
  const std::string where = describe(f.pc);
  if (!where.empty()) r += " (" + where + ")";
  if (!f.pc_exact) r += " [approximate: in the block executing at the time]";
  r += "\n";
  if (f.address) {
    r += "  address:   " + hex(*f.address, 8) + "\n";
    if (m_address_note)
      if (const std::string note = m_address_note(*f.address); !note.empty()) r += "  device:    " + note + "\n";
  }
  if (!f.detail.empty()) r += "  detail:    " + f.detail + "\n";
  if (m_image) r += "  firmware:  " + m_image->path() + "\n";
  r += stack_note();
  r += code_note(f.pc);
  const sc_core::sc_time t = sc_core::sc_time_stamp() + m_qk.offset();
  r += "  time:      " + t.to_string() + " simulated, after " + std::to_string(m_core->instruction_count()) +
       " instructions\n";
  r += "  registers:\n" + m_core->dump_state();
  if (!r.empty() && r.back() == '\n') r.pop_back();
  m_run.fault(name(), r, "firmware", t);
}

// ---- iss::Environment ----------------------------------------------------

std::vector<iss::MemRegion> Processor::memory_map() { return m_memory_map(); }

std::optional<iss::DirectMemory> Processor::direct_memory(uint64_t addr) {
  tlm::tlm_generic_payload t;
  tlm::tlm_dmi dmi;
  t.set_command(tlm::TLM_READ_COMMAND);
  t.set_address(addr);
  if (!socket->get_direct_mem_ptr(t, dmi) || !dmi.is_read_allowed()) return std::nullopt;
  return iss::DirectMemory{dmi.get_dmi_ptr(), dmi.get_start_address(),
                           dmi.get_end_address() - dmi.get_start_address() + 1, dmi.is_write_allowed()};
}

bool Processor::transport(bool is_write, uint64_t addr, uint8_t* data, unsigned len) {
  commit_local_time();
  // Let the rest of the platform catch up first, so that the device's state
  // is the one at the time of the access. Not needed for a read known to be
  // free of side effects while no other process has anything to do up to
  // the local time (strictly before it): the device's state is then the same
  // now as at the access, and the read is sent with the offset as its delay.
  // A polling loop thus runs on without a kernel event per iteration until
  // the next event of the platform; times and values stay exactly the same.
  if (sync_on_io.get()) {
    if (!is_write && m_qk.offset() < sc_core::sc_time_to_pending_activity() && m_pure_reads.count(addr))
      ++m_syncs_skipped;
    else m_qk.sync();
  }
  m_read_hint.side_effect_free = false;
  sc_core::sc_time delay = m_qk.offset();
  const sc_core::sc_time issued = m_profile ? sc_core::sc_time_stamp() + delay : sc_core::SC_ZERO_TIME;
  m_trans.set_command(is_write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
  m_trans.set_address(addr);
  m_trans.set_data_ptr(data);
  m_trans.set_data_length(len);
  m_trans.set_streaming_width(len);
  m_trans.set_byte_enable_ptr(nullptr);
  m_trans.set_dmi_allowed(false);
  m_trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  socket->b_transport(m_trans, delay);
  if (m_profile) {
    // An AT target may also have waited in b_transport: count from the issue.
    m_profile->add_device_access(m_core->access_code_address(), (sc_core::sc_time_stamp() + delay - issued).value());
  }
  if (!is_write && m_read_hint.side_effect_free && m_trans.is_response_ok()) m_pure_reads.insert(addr);
  m_qk.set(delay);
  if (m_qk.need_sync()) wait_at_quantum_end();
  if (m_run.finished()) m_core->request_stop();
  return m_trans.is_response_ok();
}

uint64_t Processor::now_ps() { return (sc_core::sc_time_stamp() + local_offset()).value(); }

}  // namespace m2
