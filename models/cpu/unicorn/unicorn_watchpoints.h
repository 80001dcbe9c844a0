// Data watchpoints for a Unicorn 2.0.1 core that stop BEFORE the accessing
// instruction (GDB's watch/rwatch/awatch on PowerPC, where GDB expects that).
// Used by the 603e adapter (ppc603e_unicorn_core.h); the mechanism, checked
// in Unicorn's sources:
//  - Only while a watchpoint is set ("watch mode") a code hook and memory
//    hooks are installed. Unicorn decides at translation whether code calls
//    them, so the core drops its translated code when the mode changes.
//  - With a code hook Unicorn writes the PC before every instruction and ends
//    a stop requested during an instruction right after it.
//  - The memory hooks run before the access. On a watched access the CPU
//    context is saved (TCG has written the registers back before a load or
//    store), the old bytes of each RAM store are kept, device accesses of
//    the instruction must not reach the bus (suppress_device_access()), and
//    emulation stops; undo() then puts context and bytes back, so the
//    instruction has not happened.
//  - Stops the core wants at a block boundary must come from the code hook
//    in this mode (stop_before_next_instruction()): with a code hook Unicorn
//    no longer resets the PC to the start of a block left before it began.
#pragma once

#include <unicorn/unicorn.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "cpu/iss.h"
#include "cpu/watchpoint_set.h"

namespace m2::iss {

class UnicornWatchpoints {
 public:
  struct Core {
    std::function<bool(uint64_t)> is_ram;  // direct memory: stores there are undone
    std::function<void()> mode_changed;    // drop translated code, after running a stub
    const bool* in_stub;                   // the core runs a private stub: not watched
    int pc_register;                       // Unicorn's id of the PC (UC_PPC_REG_PC)
  };
  UnicornWatchpoints(uc_engine* uc, Core core) : m_uc(uc), m_core(std::move(core)) {}
  ~UnicornWatchpoints();
  UnicornWatchpoints(const UnicornWatchpoints&) = delete;
  UnicornWatchpoints& operator=(const UnicornWatchpoints&) = delete;

  // The caller has checked that the range is mapped.
  void insert(uint64_t addr, uint64_t len, WatchKind kind);
  void remove(uint64_t addr, uint64_t len, WatchKind kind);
  // Watch mode: hooks installed.
  bool active() const { return m_code_hook != 0; }

  // Before a step at `pc`: resuming at the last reported instruction lets it
  // pass once (as for breakpoints).
  void start_step(uint64_t pc);
  // The PC was moved: the reported instruction no longer resumes.
  void forget_reported() { m_reported.reset(); }
  // Before each uc_emu_start.
  void start_emulation() { m_code_stop = false; }
  // From the block hook in watch mode: stop before the block's first instruction.
  void stop_before_next_instruction() { m_code_stop = true; }

  // A watched access happened in the last emulation.
  bool hit() const { return m_hit_pending; }
  // The instruction will be undone: its device accesses must not happen.
  bool suppress_device_access() const { return m_hit_pending; }
  // After the emulation stopped on a hit: the instruction never happened;
  // returns its address (the PC register is set to it).
  uint64_t undo();
  const WatchHit& last_hit() const { return m_hit; }

 private:
  void set_mode(bool on);
  void on_code(uint64_t addr);
  void on_access(bool is_write, uint64_t addr, unsigned size);
  static void code_hook(uc_engine*, uint64_t addr, uint32_t, void* user);
  static void mem_hook(uc_engine*, uc_mem_type type, uint64_t addr, int size, int64_t, void* user);

  uc_engine* m_uc;
  Core m_core;
  WatchpointSet m_set;
  uc_hook m_code_hook = 0, m_mem_hook = 0;
  uc_context* m_ctx = nullptr;  // the CPU just before the watched access
  bool m_hit_pending = false;   // in this step
  WatchHit m_hit;
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> m_undo;  // RAM bytes before the stores
  uint64_t m_insn_pc = 0;                                         // the instruction executing (code hook)
  bool m_code_stop = false;                                       // the code hook stops
  std::optional<uint64_t> m_reported;                             // resuming here executes the instruction
  bool m_pass = false;                                            // the first instruction of this step passes
  uint64_t m_code_calls = 0;
};

}  // namespace m2::iss
