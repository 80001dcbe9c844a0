// Whether interconnects put the project's protocol checker
// (core/tlm_protocol_checker.h) on their bindings: the run's
// sim.check_protocol. The platform layer sets it once, before it builds the
// platform (a run is one process); an interconnect reads it when a master or
// a target is bound to it. Off by default (unit tests build models without a
// run and opt in where they test the checker's placement).
#pragma once

#include <cctype>
#include <memory>
#include <string>

#include <systemc>

#include "core/module_scope.h"
#include "core/tlm_protocol_checker.h"

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

// A checker for the binding `binding` of the interconnect `owner`, built as
// its child: <owner>.check_<binding> (characters other than letters and
// digits become '_'). During elaboration only.
inline std::unique_ptr<ProtocolChecker<>> make_protocol_checker(sc_core::sc_module& owner, const std::string& binding) {
  std::string n = "check_" + binding;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  ModuleScope inside(owner);
  return std::make_unique<ProtocolChecker<>>(n.c_str());
}

}  // namespace m2
