// Whether interconnects put the project's protocol checker
// (core/tlm_protocol_checker.h) on their bindings: the run's
// sim.check_protocol. The platform layer sets it once, before it builds the
// platform (a run is one process); an interconnect reads it when a master or
// a target is bound to it. Off by default (unit tests build models without a
// run and opt in where they test the checker's placement).
#pragma once

namespace m2 {

class ProtocolChecking {
 public:
  static bool enabled() { return flag(); }
  static void set(bool on) { flag() = on; }

 private:
  static bool& flag() {
    static bool on = false;
    return on;
  }
};

}  // namespace m2
