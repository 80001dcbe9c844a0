#include "cpu/processor_debug.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/log.h"

namespace m2 {
namespace {

// The signal GDB shows for a firmware fault (iss::Fault::kind).
int fault_signal(const iss::Fault& f) {
  auto has = [&](const char* s) { return f.kind.find(s) != std::string::npos; };
  if (has("unmapped")) return GdbServer::SIG_SEGV;
  if (has("bus error") || has("alignment")) return GdbServer::SIG_BUS;
  if (has("trap")) return GdbServer::SIG_TRAP;
  if (has("floating-point")) return GdbServer::SIG_FPE;
  if (has("illegal") || has("privileged") || has("unsupported")) return GdbServer::SIG_ILL;
  return GdbServer::SIG_SEGV;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace

ProcessorDebug::ProcessorDebug(std::string name, std::string firmware, iss::Core& core, RunControl& run, Access access,
                               std::vector<std::pair<uint64_t, uint64_t>> code, GdbPlatformServer* platform,
                               size_t thread)
    : m_name(std::move(name)),
      m_firmware(std::move(firmware)),
      m_core(core),
      m_run(run),
      m_access(std::move(access)),
      m_code(std::move(code)),
      m_own_server(platform ? nullptr : std::make_unique<GdbServer>(m_name, static_cast<GdbTarget&>(*this))),
      m_platform(platform),
      m_thread(thread),
      m_server(platform ? *platform : *m_own_server) {
  const auto& regs = m_core.registers();
  for (size_t i = 0; i < regs.size(); ++i)
    if (regs[i].name == "pc") m_pc_register = i;
  if (m_platform) m_platform->bind(m_thread, *this);
}

void ProcessorDebug::listen(uint16_t port) { m_server.listen(port); }

void ProcessorDebug::start(bool wait) {
  if (m_platform) {
    // The first CPU to start waits for GDB; the others start halted with it.
    if (!wait || m_server.connected()) return;
    const std::string p = std::to_string(port());
    Log::instance().always("waiting for GDB on 127.0.0.1:" + p + " (all " + std::to_string(m_platform->threads()) +
                           " CPUs as threads): gdb-multiarch " + m_platform->program() + " -ex 'target remote :" + p +
                           "'");
    m_server.wait_for_connection();
    // Every CPU is at its entry point: GDB starts in thread 1, whichever
    // CPU's SystemC thread happens to start first.
    halt(GdbServer::SIG_TRAP, std::nullopt, 1);
    return;
  }
  if (!wait) {
    Log::instance().out(m_name + ": GDB server on 127.0.0.1:" + std::to_string(port()) +
                        " (the CPU runs; GDB may connect at any time)");
    return;
  }
  const std::string p = std::to_string(port());
  Log::instance().always(m_name + ": waiting for GDB on 127.0.0.1:" + p + ": gdb-multiarch " + m_firmware +
                         " -ex 'target remote :" + p + "'");
  m_server.wait_for_connection();
  halt(GdbServer::SIG_TRAP);
}

void ProcessorDebug::halt(int signal, std::optional<GdbServer::WatchStop> watch, size_t as_thread) {
  end_through();  // GDB is in control again
  const GdbServer::Resume r = m_platform ? m_platform->serve_halted_as(as_thread ? as_thread : m_thread, signal, watch)
                                         : m_server.serve_halted(signal, watch);
  m_stepping = r == GdbServer::Resume::Step;
  if (r == GdbServer::Resume::Kill) m_run.killed(m_name);
}

void ProcessorDebug::stopped(iss::StopReason why) {
  if (m_run.finished()) return;  // the run ends: GDB hears of it from ended()
  if (m_through && why == iss::StopReason::Breakpoint) {
    const uint64_t pc = m_core.read_register(static_cast<unsigned>(m_pc_register));
    if (pc == m_through->return_pc) {
      if (!at_through_return()) return;  // the same address deeper down: on
      const bool gdb_breakpoint = m_gdb_breakpoints.count(pc) != 0;
      end_through();
      const auto range = step_range();
      if (!gdb_breakpoint && range && pc >= range->first && pc < range->second) return;  // the range step goes on
      return halt(GdbServer::SIG_TRAP);
    }
  }
  if (why == iss::StopReason::Watchpoint) {
    const iss::WatchHit& h = m_core.watch_hit();
    const GdbWatch type = h.kind == iss::WatchKind::Write  ? GdbWatch::Write
                          : h.kind == iss::WatchKind::Read ? GdbWatch::Read
                                                           : GdbWatch::Access;
    return halt(GdbServer::SIG_TRAP, GdbServer::WatchStop{type, h.addr});
  }
  if (why == iss::StopReason::Breakpoint) return halt(GdbServer::SIG_TRAP);
  if (m_through) return;  // the handler runs on to its return
  // A stepping core that dozes finishes its step once an interrupt wakes it.
  if (!stepping() || why == iss::StopReason::Idle) return;
  // Range stepping: GDB's `next` and `step` over a source line let the CPU
  // step on here while the pc stays in the line's range, instead of a round
  // trip through GDB per instruction (minutes for a loop of 100,000).
  if (const auto range = step_range()) {
    const uint64_t pc = m_core.read_register(static_cast<unsigned>(m_pc_register));
    if (pc >= range->first && pc < range->second) return;  // Ctrl-C: poll() halts between steps
    if (const auto ret = m_core.entered_exception()) return start_through(*ret);
  }
  halt(GdbServer::SIG_TRAP);
}

void ProcessorDebug::start_through(uint64_t return_pc) {
  const bool own = m_gdb_breakpoints.count(return_pc) == 0;
  if (own && !m_core.insert_breakpoint(return_pc)) return halt(GdbServer::SIG_TRAP);  // cannot: stop in the vector
  m_through = ThroughException{return_pc, m_step_sp, own};
}

void ProcessorDebug::end_through() {
  if (!m_through) return;
  if (m_through->own_breakpoint) m_core.remove_breakpoint(m_through->return_pc);
  m_through.reset();
}

bool ProcessorDebug::at_through_return() const { return !m_through->sp || m_core.stack_pointer() == m_through->sp; }

void ProcessorDebug::fault(const iss::Fault& f) {
  m_fault_signal = fault_signal(f);
  if (m_server.connected()) halt(m_fault_signal);
}

void ProcessorDebug::ended() {
  if (m_ended) return;
  m_ended = true;
  if (m_platform && !m_run.finished()) {  // the other CPUs run on
    m_platform->thread_ended(m_thread);
    return;
  }
  switch (m_run.outcome()) {
    case RunControl::Outcome::Completed:
      m_server.exited(m_run.exit_code());
      break;
    case RunControl::Outcome::FirmwareFault:
      m_server.terminated(m_fault_signal ? m_fault_signal : GdbServer::SIG_KILL);
      break;
    default:
      m_server.terminated(GdbServer::SIG_KILL);
      break;
  }
}

uint64_t ProcessorDebug::read_register(size_t i) {
  // Stopped inside a device access, the ISS's pc is where its step began.
  if (i == m_pc_register && m_in_step) {
    if (auto pc = m_core.access_pc()) return *pc;
  }
  return m_core.read_register(static_cast<unsigned>(i));
}

std::string ProcessorDebug::state() const {
  if (!m_in_step) return "";
  return m_core.access_pc() ? "in a device access; registers read-only"
                            : "in a device access; registers read-only, pc: start of its ISS step";
}

void ProcessorDebug::core_running(bool running) {
  m_in_step = running;
  if (running) {
    m_step_sp = m_core.stack_pointer();
    return;
  }
  for (const auto& change : m_deferred) change();
  m_deferred.clear();
}

// Patching code, or the watch hooks, of a core inside a step could change the
// block it is executing: such changes wait for the step's end.
bool ProcessorDebug::insert_breakpoint(uint64_t addr) {
  if (!m_in_step) {
    const bool ok = m_core.insert_breakpoint(addr);
    if (ok) m_gdb_breakpoints.insert(addr);
    return ok;
  }
  m_gdb_breakpoints.insert(addr);
  m_deferred.push_back([this, addr] { m_core.insert_breakpoint(addr); });
  return true;
}

void ProcessorDebug::remove_breakpoint(uint64_t addr) {
  if (auto it = m_gdb_breakpoints.find(addr); it != m_gdb_breakpoints.end()) m_gdb_breakpoints.erase(it);
  if (!m_in_step) return m_core.remove_breakpoint(addr);
  m_deferred.push_back([this, addr] { m_core.remove_breakpoint(addr); });
}

bool ProcessorDebug::insert_watchpoint(GdbWatch type, uint64_t addr, uint64_t len) {
  if (!m_in_step) return m_core.insert_watchpoint(addr, len, watch_kind(type));
  m_deferred.push_back([this, type, addr, len] { m_core.insert_watchpoint(addr, len, watch_kind(type)); });
  return true;
}

void ProcessorDebug::remove_watchpoint(GdbWatch type, uint64_t addr, uint64_t len) {
  if (!m_in_step) return m_core.remove_watchpoint(addr, len, watch_kind(type));
  m_deferred.push_back([this, type, addr, len] { m_core.remove_watchpoint(addr, len, watch_kind(type)); });
}

size_t ProcessorDebug::transport(bool is_write, uint64_t addr, uint8_t* data, size_t len) {
  size_t done = 0;
  while (done < len) {
    const unsigned chunk = static_cast<unsigned>(std::min<size_t>(len - done, 1u << 20));
    const unsigned n = m_access.transport_dbg(is_write, addr + done, data + done, chunk);
    done += n;
    if (n < chunk) break;
  }
  return done;
}

size_t ProcessorDebug::read_memory(uint64_t addr, uint8_t* data, size_t len) {
  const size_t n = transport(false, addr, data, len);
  m_core.hide_patches(addr, data, n);
  return n;
}

size_t ProcessorDebug::write_memory(uint64_t addr, const uint8_t* data, size_t len) {
  const uint64_t end = addr + len;
  const bool code =
      std::any_of(m_code.begin(), m_code.end(), [&](const auto& r) { return addr < r.second && r.first < end; });
  if (!code) return transport(true, addr, const_cast<uint8_t*>(data), len);
  // Over code, write whole words of the program as GDB sees it (patches
  // hidden), then let the core patch them again and re-arm breakpoints.
  const uint64_t lo = addr & ~3ull, hi = (end + 3) & ~3ull;
  std::vector<uint8_t> buf(hi - lo);
  const size_t got = read_memory(lo, buf.data(), buf.size());
  if (got <= addr - lo) return 0;
  std::memcpy(&buf[addr - lo], data, std::min<size_t>(len, got - (addr - lo)));
  const size_t put = transport(true, lo, buf.data(), got);
  for (const auto& [b, e] : m_code) {
    const uint64_t from = std::max(lo, b), to = std::min(lo + put, e);
    if (from >= to) continue;
    if (m_in_step) m_deferred.push_back([this, from, to] { m_core.code_changed(from, to - from); });
    else m_core.code_changed(from, to - from);
  }
  return put > addr - lo ? std::min<size_t>(len, put - (addr - lo)) : 0;
}

std::string ProcessorDebug::monitor(const std::string& command) {
  const std::string cmd = trim(command);
  if (cmd == "help") {
    std::string h = "monitor time   simulated time and instructions of " + m_name +
                    "\n"
                    "monitor state  registers GDB does not show (SRR0/1, DEC, TB, HID0)\n";
    for (const MonitorCommand& c : m_access.commands) {
      std::string name = c.name;
      name.resize(std::max<size_t>(name.size(), 6), ' ');
      h += "monitor " + name + " " + c.help + "\n";
    }
    return h;
  }
  for (const MonitorCommand& c : m_access.commands)
    if (cmd == c.name) return c.run();
  if (cmd == "time") {
    const uint64_t ps = m_access.now_ps();
    char b[160];
    std::snprintf(b, sizeof b, "%s: simulated time %llu ps (%.6f us), %llu instructions\n", m_name.c_str(),
                  static_cast<unsigned long long>(ps), ps / 1e6,
                  static_cast<unsigned long long>(m_core.instruction_count()));
    return b;
  }
  if (cmd == "state") return m_core.dump_state();
  return "";
}

}  // namespace m2
