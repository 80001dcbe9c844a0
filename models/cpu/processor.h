// A processor: any ISS core behind the ISS hook, run in a SystemC thread with
// temporal decoupling. Executed instructions become cycles (cpi) at the core
// clock and advance the thread's local time; it synchronises with SystemC at
// the end of each global quantum and, with sync_on_io, before each device
// access so that polled device state is seen at the right time. An idle core
// (dozing until an interrupt) waits on SystemC events and costs no wall time.
// With gdb_port set, a GDB server controls the CPU (processor_debug.h); with
// use_platform_gdb, the platform's one connection does, the CPU as a thread.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "debug/monitor_command.h"
#include "core/elf_loader.h"
#include "core/params.h"
#include "core/signals.h"
#include "core/stats.h"
#include "core/run_control.h"
#include "cpu/firmware_profile.h"
#include "cpu/iss.h"
#include "core/lazy_timer.h"
#include "core/read_hint.h"
#include "cpu/local_time.h"

namespace m2 {

class GdbPlatformServer;
class ProcessorDebug;

class Processor : public sc_core::sc_module, private iss::Environment {
 public:
  tlm_utils::simple_initiator_socket<Processor> socket;

  Param<std::string> isa;
  Param<double> clock_mhz;
  Param<double> cpi;
  Param<uint64_t> timebase_hz;
  Param<bool> sync_on_io;
  Param<uint64_t> gdb_port;
  Param<bool> gdb_wait;
  Param<bool> profile;

  SC_HAS_PROCESS(Processor);
  // `memory_map` gives the regions of the bus behind `socket` (the ISS maps
  // them when simulation starts).
  Processor(sc_core::sc_module_name name, RunControl& run, std::function<std::vector<iss::MemRegion>()> memory_map);
  ~Processor() override;

  // Firmware to load into memory through the socket before simulation starts.
  void load_firmware(std::shared_ptr<const ElfImage> image);
  // What the platform knows of an address a fault names that nothing answers
  // (a device this node lacks): a line for the fault report, or "".
  void set_address_note(std::function<std::string(uint64_t)> note) { m_address_note = std::move(note); }
  const ElfImage* firmware() const { return m_image.get(); }

  // Level of an interrupt input (line 0: external interrupt). Call from
  // SystemC processes (device models).
  void set_irq(unsigned line, bool level);

  iss::Core& core() { return *m_core; }
  const iss::Core& core() const { return *m_core; }

  // Text the firmware printed (console lines), for an attached debugger.
  void console_output(const std::string& text);
  // A GDB "monitor" command of this CPU's debugger (before the simulation
  // starts; used only when a GDB port is configured).
  void add_monitor_command(MonitorCommand command) { m_monitor_commands.push_back(std::move(command)); }
  // Makes this CPU thread `thread` of the platform's GDB connection (before
  // the simulation starts; for a CPU with firmware). `wait`: the first CPU to
  // start halts until GDB connects.
  void use_platform_gdb(GdbPlatformServer& server, size_t thread, bool wait) {
    m_platform_gdb = &server;
    m_platform_thread = thread;
    m_platform_gdb_wait = wait;
  }

  // Statistics for the end-of-run report.
  uint64_t instructions() const { return m_core->instruction_count(); }
  sc_core::sc_time idle_time() const;
  // Device reads sent without a synchronisation first (see transport()).
  uint64_t syncs_skipped() const { return m_syncs_skipped; }
  // Quantum ends: waited in the kernel, passed without a wait, and of those
  // passed without leaving the ISS (budget_exhausted()).
  uint64_t quantum_waits() const { return m_quantum_waits; }
  uint64_t quanta_extended() const { return m_quanta_extended; }
  uint64_t budgets_renewed() const { return m_budgets_renewed; }
  // Whether a quantum end passed without a wait may also pass without
  // leaving the ISS (on by default). Off, every budget ends the ISS's step:
  // the same instructions and times, slower (tests compare the two).
  void set_renew_budgets(bool on) { m_renew_budgets = on; }
  // The firmware profile (null unless the `profile` parameter is on) and
  // what one instruction takes, for its times.
  const FirmwareProfile* firmware_profile() const { return m_profile.get(); }
  double ns_per_instruction() const { return cpi.get() * 1000.0 / clock_mhz.get(); }
  // "main+0x1c" when the firmware has symbols for addr.
  std::string describe(uint64_t addr) const;

 private:
  void end_of_elaboration() override;
  void run();
  void halt();
  std::string stack_note() const;
  std::string code_note(uint64_t pc);
  void report_fault();
  uint64_t budget_until(sc_core::sc_time deadline_local) const;
  bool pass_quantum_end();
  void wait_at_quantum_end();
  void start_debugger();

  // iss::Environment
  std::vector<iss::MemRegion> memory_map() override;
  std::optional<iss::DirectMemory> direct_memory(uint64_t addr) override;
  bool transport(bool is_write, uint64_t addr, uint8_t* data, unsigned len) override;
  uint64_t now_ps() override;
  uint64_t budget_exhausted() override;

  // Local time = committed offset + instructions executed since then.
  sc_core::sc_time local_offset() const;
  uint64_t uncommitted_instructions() const;
  void commit_local_time();

  RunControl& m_run;
  std::function<std::vector<iss::MemRegion>()> m_memory_map;
  std::function<std::string(uint64_t)> m_address_note;
  std::unique_ptr<iss::Core> m_core;
  std::shared_ptr<const ElfImage> m_image;
  LocalTime m_qk;
  uint64_t m_fs_per_instruction = 0;  // integer femtoseconds: exact enough, cheap
  sc_core::sc_time m_max_run_ahead;
  uint64_t m_committed_icount = 0;
  uint64_t m_fs_carry = 0;  // committed time below 1 ps
  sc_core::sc_event m_irq_event;
  LazyTimer m_doze_timer;  // the next decrementer event while dozing
  sc_core::sc_time m_idle_time = sc_core::SC_ZERO_TIME;
  std::optional<sc_core::sc_time> m_idle_since;
  bool m_halted = false;
  tlm::tlm_generic_payload m_trans;
  ReadHint m_read_hint;                       // attached to m_trans
  std::unordered_set<uint64_t> m_pure_reads;  // addresses whose reads had no side effects
  uint64_t m_syncs_skipped = 0;
  uint64_t m_quantum_waits = 0;    // quantum ends that waited in the kernel
  uint64_t m_quanta_extended = 0;  // quantum ends passed without a wait
  uint64_t m_budgets_renewed = 0;  // budgets renewed inside the ISS (budget_exhausted)
  bool m_renew_budgets = true;
  std::unique_ptr<ProcessorDebug> m_debug;     // only with gdb_port
  std::unique_ptr<FirmwareProfile> m_profile;  // only with profile
  std::vector<MonitorCommand> m_monitor_commands;
  GdbPlatformServer* m_platform_gdb = nullptr;  // use_platform_gdb
  size_t m_platform_thread = 0;
  bool m_platform_gdb_wait = true;
  // What the run reports (core/stats.h).
  StatProbe m_stat_instructions{this, "instructions", "count", "instructions executed",
                                [this] { return double(instructions()); }};
  StatProbe m_stat_idle{this,
                        "idle_us",
                        "us",
                        "time dozing, waiting for an interrupt",
                        [this] { return in_us(idle_time()); },
                        StatReset::AfterWarmup,
                        StatFormat::Decimals};
  StatProbe m_stat_syncs_skipped{this, "io_syncs_skipped", "count",
                                 "device reads sent without a synchronisation first (no side effects)",
                                 [this] { return double(m_syncs_skipped); }};
  // Whether the core dozes, in the VCD (core/signals.h).
  Signal m_signal_idle{this, "idle", 1, [this] { return uint64_t(core().idle()); }};
};

}  // namespace m2
