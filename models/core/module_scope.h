// Builds modules as children of a module whose constructor has already run,
// so that names follow the hardware: the platform adds a switch-box port's
// MLX engine once it knows the port is cabled, and it becomes
// "sb0.port3.mlx" rather than a top-level "sb0_port3_mlx".
// SystemC names a new module after the module on top of its hierarchy stack;
// this pushes `parent` there for the scope's lifetime (elaboration only).
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
