// The ISS hook: a two-sided contract between an instruction-set simulator and
// the platform, in the spirit of OCX.
//
//  - Core (implemented by an ISS): step N instructions, instruction count,
//    registers, interrupts, breakpoints, halt/idle, faults.
//  - Environment (implemented by the SystemC processor wrapper): memory
//    transactions, direct memory pointers (DMI), memory map, time.
//
// Nothing outside an ISS implementation sees the ISS library's headers; the
// Unicorn PowerPC 603e is one implementation (models/cpu/unicorn/).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace m2::iss {

// A bus region the core may access (from the interconnect's address map).
struct MemRegion {
  uint64_t base = 0;
  uint64_t size = 0;
  std::string name;
};

// Host memory that backs a bus region and may be accessed directly.
struct DirectMemory {
  uint8_t* host = nullptr;
  uint64_t base = 0;  // bus address of host[0]
  uint64_t size = 0;
  bool writable = false;
};

class Environment {
 public:
  virtual ~Environment() = default;
  // Regions to map; everything else is unmapped (an access faults).
  virtual std::vector<MemRegion> memory_map() = 0;
  // Direct access to the region holding `addr`, if its target allows it.
  virtual std::optional<DirectMemory> direct_memory(uint64_t addr) = 0;
  // One access outside direct memory. `data` is in target byte order.
  // Returns false on a bus error (the core then faults).
  virtual bool transport(bool is_write, uint64_t addr, uint8_t* data, unsigned len) = 0;
  // The core's current time in picoseconds, including the instructions it
  // has executed so far in the current step.
  virtual uint64_t now_ps() = 0;
  // The step's budget ran out at the start of a block, with nothing else
  // stopping the core (no interrupt deliverable, no breakpoint or watchpoint
  // set). Returns a new budget to go on inside the same step, or 0 to end it
  // as a budget stop. Going on must be what the caller's loop would do next
  // anyway (no wait in between): it saves the ISS's exit and re-entry.
  virtual uint64_t budget_exhausted() { return 0; }
};

enum class StopReason {
  Budget,      // executed the requested number of instructions (or more by < 1 block)
  Idle,        // the core dozes until an interrupt (e.g. MSR[POW])
  Breakpoint,  // reached a breakpoint; pc() is the breakpoint address
  Fault,       // the core faulted; fault() says why
  Requested,   // request_stop() was called
  Watchpoint,  // an access hit a watchpoint; watch_hit() says which (not executed)
};

// Data watchpoints: which accesses of the CPU to a watched range stop it.
enum class WatchKind { Write, Read, Access };

struct WatchHit {
  WatchKind kind = WatchKind::Write;  // of the watchpoint that was hit
  uint64_t addr = 0;                  // first watched byte the access touches
  uint64_t pc = 0;                    // the accessing instruction (not executed)
  bool is_write = false;              // the access itself
};

struct Fault {
  std::string kind;                 // "illegal instruction", "load from unmapped address", ...
  uint64_t pc = 0;                  // faulting instruction (best known)
  bool pc_exact = true;             // false when only the enclosing block is known
  std::optional<uint64_t> address;  // data address for memory faults
  std::string detail;               // extra text (decoded instruction, vector...)
};

struct Register {
  std::string name;
  unsigned bits = 32;
};

class Core {
 public:
  virtual ~Core() = default;
  virtual std::string model() const = 0;  // "PowerPC 603e (Unicorn)"

  // Prepares execution at `pc` in the architecture's post-reset state.
  virtual void reset(uint64_t pc) = 0;
  // Memory at [addr, addr+len) now holds new code (loader, debugger);
  // breakpoints in the range stay armed over the new instructions.
  virtual void code_changed(uint64_t addr, uint64_t len) = 0;

  // Executes about `max_instructions` (stops at a block boundary at or after
  // the limit, or earlier for the reasons in StopReason).
  virtual StopReason step(uint64_t max_instructions) = 0;
  // Executes exactly one instruction, or only enters a deliverable interrupt
  // (debugger single step). A breakpoint at the PC does not stop it: the
  // debugger asked for that instruction. Returns Budget when done (also when
  // the new PC holds a breakpoint), Idle or Fault.
  virtual StopReason single_step() = 0;
  // Retired instructions; also valid while step() runs (block granularity).
  virtual uint64_t instruction_count() const = 0;
  // With a map (the processor's firmware profile): adds every retired
  // instruction to counts[start of its translated block]; nullptr stops it.
  // A core that cannot count per block leaves the map alone.
  virtual void count_blocks(std::unordered_map<uint64_t, uint64_t>* /*counts*/) {}
  // Makes a running step() return soon with StopReason::Requested.
  virtual void request_stop() = 0;

  // Interrupt inputs (level-sensitive). Line 0 is the external interrupt.
  virtual void set_interrupt(unsigned line, bool level) = 0;
  // True while the core dozes waiting for an interrupt.
  virtual bool idle() const = 0;
  // Whether an interrupt would be taken now (wakes an idle core).
  virtual bool interrupt_deliverable() const = 0;
  // Time of the core's next internal timer event (decrementer), if any.
  virtual std::optional<uint64_t> next_timer_event_ps() const = 0;

  virtual uint64_t pc() const = 0;
  // When the last step() or single_step() entered an exception (an
  // interrupt, a system call): where its handler returns to. A debugger's
  // `next` runs the handler through to that point.
  virtual std::optional<uint64_t> entered_exception() const { return std::nullopt; }
  // While step() waits inside Environment::transport (a device access): the
  // address of the instruction making the access, when the core can tell it
  // (a debugger shows a CPU stopped there); pc() is where the step began.
  virtual std::optional<uint64_t> access_pc() const { return std::nullopt; }
  // An address in the code making the device access in progress: access_pc()
  // where known, else the start of the block that made it (the same
  // function), else pc(). For profiles, which want the function, not the
  // instruction.
  virtual uint64_t access_code_address() const { return access_pc().value_or(pc()); }
  virtual void set_pc(uint64_t pc) = 0;
  // Byte order of the target (memory, and registers on GDB's wire).
  virtual bool big_endian() const = 0;
  // Registers in the order GDB's remote protocol uses for the architecture.
  virtual const std::vector<Register>& registers() const = 0;
  virtual uint64_t read_register(unsigned index) const = 0;
  virtual void write_register(unsigned index, uint64_t value) = 0;

  // Software breakpoints, patched into memory by the core. Insertion fails
  // (false) where there can be no instruction to patch (unaligned, not RAM).
  virtual bool insert_breakpoint(uint64_t addr) = 0;
  virtual void remove_breakpoint(uint64_t addr) = 0;
  // `data` is a copy of memory at [addr, addr+len): puts back the original
  // instructions where the core has patched its own (breakpoints,
  // intercepted instructions), so that a debugger sees the program as loaded.
  virtual void hide_patches(uint64_t addr, uint8_t* data, uint64_t len) const = 0;
  // Data watchpoints on [addr, addr+len): an access by this core stops it
  // BEFORE the accessing instruction has done anything (StopReason::Watchpoint,
  // pc() at that instruction); resuming executes it. Insertion fails (false)
  // for ranges outside the memory map, or on cores without watchpoints.
  virtual bool insert_watchpoint(uint64_t /*addr*/, uint64_t /*len*/, WatchKind) { return false; }
  virtual void remove_watchpoint(uint64_t /*addr*/, uint64_t /*len*/, WatchKind) {}
  // The last watchpoint stop.
  virtual const WatchHit& watch_hit() const {
    static const WatchHit none;
    return none;
  }
  // GDB target description (XML) of registers(), "" when GDB's default for
  // the architecture matches.
  virtual std::string gdb_target_xml() const { return ""; }

  // The stack pointer by the architecture's ABI (PowerPC: r1), for fault
  // reports that tell a stack overflow; nullopt when the core has no such rule.
  virtual std::optional<uint64_t> stack_pointer() const { return std::nullopt; }

  virtual const Fault& fault() const = 0;
  // Register file and special registers as text, for fault reports.
  virtual std::string dump_state() const = 0;
};

}  // namespace m2::iss
