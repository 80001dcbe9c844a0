// Debug control of one Processor: its GDB server, and the CPU as GDB's target
// (registers and breakpoints through the ISS hook, memory through the
// processor's debug transport). The processor's run loop calls it at a few
// points; while the CPU is halted these calls block inside the GDB packet
// loop, so the SystemC kernel, and with it simulated time, stands still.
// Exists only when a GDB port is configured: without it the run loop pays
// nothing (breakpoints are patched into memory, never checked per
// instruction). The server is the CPU's own (gdb_port) or, as one thread of
// it, the platform's (sim.gdb_port, gdb_platform_server.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "debug/gdb_platform_server.h"
#include "debug/gdb_server.h"
#include "debug/monitor_command.h"
#include "core/run_control.h"
#include "cpu/iss.h"

namespace m2 {

class ProcessorDebug : private GdbPlatformServer::Cpu {
 public:
  struct Access {
    // Debug access through the bus (transport_dbg): bytes done.
    std::function<unsigned(bool is_write, uint64_t addr, uint8_t* data, unsigned len)> transport_dbg;
    // The CPU's local time in picoseconds (for "monitor time").
    std::function<uint64_t()> now_ps;
    // The platform's own monitor commands (Processor::add_monitor_command).
    std::vector<MonitorCommand> commands;
  };

  // `firmware`: the ELF's path (for GDB's command line in messages);
  // `code`: address ranges holding code (writes there go to the core too).
  // `platform`: this CPU is thread `thread` of the platform's connection
  // rather than having its own server.
  ProcessorDebug(std::string name, std::string firmware, iss::Core& core, RunControl& run, Access access,
                 std::vector<std::pair<uint64_t, uint64_t>> code, GdbPlatformServer* platform = nullptr,
                 size_t thread = 0);

  // Its own server only. Throws std::runtime_error when the port cannot be used.
  void listen(uint16_t port);
  uint16_t port() const { return m_server.port(); }
  // Listening or connected: idle waits are cut short to look for GDB.
  bool active() const { return m_server.active(); }

  // Before the first instruction: with `wait`, blocks until GDB connects
  // and serves it until it resumes the CPU.
  void start(bool wait);
  // Between steps: halts the CPU for Ctrl-C or a newly connected GDB.
  void poll() {
    if (auto sig = m_server.poll()) halt(*sig);
  }
  // GDB asked for a single step: run one instruction next (iss::Core::single_step).
  // Not while a range step runs an interrupt's handler through (m_through).
  bool stepping() const { return (m_platform ? m_platform->step_requested(m_thread) : m_stepping) && !m_through; }
  // Around each ISS step: while it runs, the CPU may wait inside a device
  // access, and another CPU may serve the platform's connection meanwhile.
  void core_running(bool running);
  // After a step: a breakpoint, a watchpoint, or the end of a single step,
  // halts the CPU; a range step (vCont;r) halts once the pc leaves its range.
  void stopped(iss::StopReason why);
  // The firmware faulted (already reported): GDB sees it as a signal and may
  // inspect the state; the run ends when GDB resumes.
  void fault(const iss::Fault& f);
  // Text the firmware printed ('O' packets; on the platform's connection
  // each line names its CPU).
  void output(const std::string& text) { m_server.output(m_platform ? "[" + m_name + "] " + text : text); }
  // The run is over: tells GDB how (exit code or signal). Idempotent.
  void ended();

 private:
  // Serves GDB; on the platform's connection as thread `as_thread` (0: this CPU's).
  void halt(int signal, std::optional<GdbServer::WatchStop> watch = std::nullopt, size_t as_thread = 0);
  // A range step that entered an exception (an interrupt, a system call)
  // runs its handler through, as if it took no time at GDB's level: to its
  // return address with the stack pointer of the interrupted code, where the
  // range step goes on. GDB's own breakpoints and watchpoints in the handler
  // still stop it. Without this `next` ended in the vector, where GDB took a
  // stale link register for the caller and lost control.
  struct ThroughException {
    uint64_t return_pc;
    std::optional<uint64_t> sp;
    bool own_breakpoint;  // set here (GDB has none at return_pc)
  };
  void start_through(uint64_t return_pc);
  void end_through();
  bool at_through_return() const;
  // The range GDB's step goes on in, if it asked for one.
  std::optional<std::pair<uint64_t, uint64_t>> step_range() const {
    return m_platform ? m_platform->step_range(m_thread) : m_server.step_range();
  }

  // GdbPlatformServer::Cpu
  const std::string& program() const override { return m_firmware; }
  bool in_step() const override { return m_in_step; }
  void cut_step() override { m_core.request_stop(); }
  std::string state() const override;
  // GdbTarget
  std::string target_xml() override { return m_core.gdb_target_xml(); }
  size_t register_count() override { return m_core.registers().size(); }
  unsigned register_bytes(size_t i) override { return m_core.registers()[i].bits / 8; }
  uint64_t read_register(size_t i) override;
  void write_register(size_t i, uint64_t v) override { m_core.write_register(static_cast<unsigned>(i), v); }
  size_t pc_register() override { return m_pc_register; }
  bool big_endian() override { return m_core.big_endian(); }
  size_t read_memory(uint64_t addr, uint8_t* data, size_t len) override;
  size_t write_memory(uint64_t addr, const uint8_t* data, size_t len) override;
  bool insert_breakpoint(uint64_t addr) override;
  void remove_breakpoint(uint64_t addr) override;
  bool insert_watchpoint(GdbWatch type, uint64_t addr, uint64_t len) override;
  void remove_watchpoint(GdbWatch type, uint64_t addr, uint64_t len) override;
  static iss::WatchKind watch_kind(GdbWatch type) {
    return type == GdbWatch::Write  ? iss::WatchKind::Write
           : type == GdbWatch::Read ? iss::WatchKind::Read
                                    : iss::WatchKind::Access;
  }
  std::string monitor(const std::string& command) override;

  size_t transport(bool is_write, uint64_t addr, uint8_t* data, size_t len);

  std::string m_name, m_firmware;
  iss::Core& m_core;
  RunControl& m_run;
  Access m_access;
  std::vector<std::pair<uint64_t, uint64_t>> m_code;  // [begin, end)
  std::unique_ptr<GdbServer> m_own_server;            // without a platform connection
  GdbPlatformServer* m_platform;
  size_t m_thread;
  GdbServer& m_server;  // the one in use
  size_t m_pc_register = 0;
  bool m_in_step = false;
  // Breakpoints, watchpoints and code GDB changed while the core was inside
  // a step, passed to the core in order when the step ends.
  std::vector<std::function<void()>> m_deferred;
  bool m_stepping = false;
  std::optional<ThroughException> m_through;
  std::optional<uint64_t> m_step_sp;          // the stack pointer when the current ISS step began
  std::multiset<uint64_t> m_gdb_breakpoints;  // what GDB has inserted
  int m_fault_signal = 0;
  bool m_ended = false;
};

}  // namespace m2
