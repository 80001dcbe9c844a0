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
#include <vector>

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

// The protocol checkers an interconnect put on its bindings, in binding order.
using ProtocolCheckers = std::vector<std::unique_ptr<ProtocolChecker<>>>;

// Binds `initiator` to `target`: directly, or with checking on through a new
// checker of `owner` named after `binding`, kept in `checkers`. The bind
// calls are the same in number and order, so a multi-socket's port numbers
// do not change.
template <typename Initiator, typename Target>
void bind_checked(sc_core::sc_module& owner, const std::string& binding, Initiator& initiator, Target& target,
                  ProtocolCheckers& checkers) {
  if (!ProtocolChecking::enabled()) {
    initiator.bind(target);
    return;
  }
  checkers.push_back(make_protocol_checker(owner, binding));
  initiator.bind(checkers.back()->target_socket);
  checkers.back()->initiator_socket.bind(target);
}

}  // namespace m2
