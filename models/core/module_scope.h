// Builds modules as children of a module whose constructor has already run,
// so that names follow the hardware: the platform adds a switch-box port's
// MLX engine once it knows the port is cabled, and it becomes
// "sb0.port3.mlx" rather than a top-level "sb0_port3_mlx".
// SystemC names a new module after the module on top of its hierarchy stack;
// this pushes `parent` there for the scope's lifetime (elaboration only).
// Why the kernel's sc_simcontext::hierarchy_push and not a standard call:
// IEEE 1666-2011 makes a module the current parent only while its own
// constructor or its before_end_of_elaboration callback runs (4.1.4, 4.4.1),
// and has no call to make an existing module current again. The standard's
// way would be to build the children in the parent's callback, but the
// topology builder decides the cabling only after every box exists, from the
// platform, not from each box. So this stays on hierarchy_push/pop, which
// the Accellera kernels 2.3 and 3.0 both have (a kernel without them fails
// to compile here, never silently); used during elaboration only.
#pragma once

#include <systemc>

namespace m2 {

class ModuleScope {
 public:
  explicit ModuleScope(sc_core::sc_module& parent) { sc_core::sc_get_curr_simcontext()->hierarchy_push(&parent); }
  ~ModuleScope() { sc_core::sc_get_curr_simcontext()->hierarchy_pop(); }
  ModuleScope(const ModuleScope&) = delete;
  ModuleScope& operator=(const ModuleScope&) = delete;
};

}  // namespace m2
