// One GDB connection for all CPUs of a platform: every CPU is a thread
// (ids 1..N in platform order, named "node0.ni.cpu", "sb0.cpu", ...), in
// all-stop mode. The per-CPU servers (gdb_server.h) stay; this is the same
// server with the thread packets answered here and everything else (registers,
// memory, monitor) passed on to the CPU of the thread GDB has selected (Hg).
//
// Like the per-CPU server it runs nothing itself: the CPU that halts
// (breakpoint, end of a step, Ctrl-C, fault) serves the connection from its
// SystemC thread, which freezes the whole simulation, so every other CPU is
// stopped wherever it last gave control to SystemC:
//  - between two steps of its ISS (end of a quantum, dozing): everything may
//    be read and changed;
//  - inside a device access in the middle of a step (a polling loop with
//    sync_on_io): its registers can be read but not written, and breakpoints
//    reach it when that step ends (see Cpu::in_step).
// GDB debugs one program: software breakpoints (and watchpoints) go to every
// CPU that runs the same firmware file as thread 1 (all NIs running the MMP firmware, say);
// whichever of them reaches one stops all and is reported as its thread.
// CPUs running other firmware (the switch boxes' router) are threads that halt
// with the others and can be inspected and stepped, without breakpoints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "debug/gdb_server.h"

namespace m2 {

class GdbPlatformServer : private GdbTarget, public GdbServer {
 public:
  // A CPU as one thread of the connection.
  class Cpu : public GdbTarget {
   public:
    // The firmware file the CPU runs (which CPUs share breakpoints).
    virtual const std::string& program() const = 0;
    // True while the CPU is suspended in the middle of an ISS step (inside
    // a device access): its registers must not be written then.
    virtual bool in_step() const = 0;
    // Ends the current step soon (the thread is to stop after a step).
    virtual void cut_step() = 0;
    // What GDB shows after the thread's name ("" when nothing special).
    virtual std::string state() const = 0;
  };

  // `threads`: the names of threads 1..N.
  explicit GdbPlatformServer(std::vector<std::string> threads);

  // Thread `id` (1..N) is `cpu` from now on (before simulation starts).
  void bind(size_t id, Cpu& cpu);
  size_t threads() const { return m_threads.size(); }
  const std::string& thread_name(size_t id) const { return m_threads.at(id - 1).name; }
  // The firmware thread 1 runs: the program GDB debugs.
  std::string program() const;

  // Thread `id`'s CPU has halted with `signal`: it is the thread GDB hears
  // of and selects; serves the connection as GdbServer::serve_halted does.
  Resume serve_halted_as(size_t id, int signal, std::optional<WatchStop> watch = std::nullopt);
  // GDB asked thread `id` to step (one instruction, then halt) when resuming.
  bool step_requested(size_t id) const { return m_steps.count(id) != 0; }
  // The range thread `id` steps in (vCont;r): it goes on stepping while its pc
  // stays in [start, end); nullopt for a plain step or none.
  std::optional<std::pair<uint64_t, uint64_t>> step_range(size_t id) const {
    const auto it = m_steps.find(id);
    return it == m_steps.end() ? std::nullopt : it->second;
  }
  // The CPU's firmware has ended while the run goes on: the thread is gone.
  void thread_ended(size_t id);

  // The protocol without I/O (unit tests).
  Reply handle(const std::string& payload) override;
  size_t selected() const { return m_selected; }

 private:
  struct Thread {
    std::string name;
    Cpu* cpu = nullptr;
    bool alive = true;
  };
  std::string stop_thread() const override;

  bool valid(size_t id) const {
    return id >= 1 && id <= m_threads.size() && m_threads[id - 1].cpu && m_threads[id - 1].alive;
  }
  Cpu& cpu(size_t id) { return *m_threads[id - 1].cpu; }
  Cpu& current() { return cpu(m_selected); }
  // Thread id in a packet: "2", "-1" (all), "0" (any), "p1.2"; SIZE_MAX for
  // "all", 0 for "any", nullopt when malformed.
  std::optional<size_t> parse_thread(std::string_view text) const;
  std::string select(char op, std::string_view id);
  std::string thread_query(const std::string& packet);
  std::string threads_xml() const;
  Reply resume_vcont(std::string_view actions);
  void request_step(size_t id, std::optional<std::pair<uint64_t, uint64_t>> range = std::nullopt);

  // GdbTarget: the selected thread's CPU; breakpoints go to thread 1's program.
  std::string target_xml() override;
  size_t register_count() override { return current().register_count(); }
  unsigned register_bytes(size_t i) override { return current().register_bytes(i); }
  uint64_t read_register(size_t i) override { return current().read_register(i); }
  void write_register(size_t i, uint64_t v) override { current().write_register(i, v); }
  size_t pc_register() override { return current().pc_register(); }
  bool big_endian() override { return current().big_endian(); }
  size_t read_memory(uint64_t addr, uint8_t* data, size_t len) override {
    return current().read_memory(addr, data, len);
  }
  size_t write_memory(uint64_t addr, const uint8_t* data, size_t len) override {
    return current().write_memory(addr, data, len);
  }
  bool insert_breakpoint(uint64_t addr) override;
  void remove_breakpoint(uint64_t addr) override;
  bool insert_watchpoint(GdbWatch type, uint64_t addr, uint64_t len) override;
  void remove_watchpoint(GdbWatch type, uint64_t addr, uint64_t len) override;
  std::string monitor(const std::string& command) override { return current().monitor(command); }

  std::vector<Thread> m_threads;
  size_t m_selected = 1;  // Hg: registers, memory, monitor
  size_t m_continue = 0;  // Hc: the thread a legacy 's' steps (0: the selected one)
  size_t m_stopped = 1;   // the thread of the last stop reply
  // Threads to halt after one instruction, or once out of their range.
  std::map<size_t, std::optional<std::pair<uint64_t, uint64_t>>> m_steps;
};

}  // namespace m2
