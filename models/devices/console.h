// Console device (ip/console.h): firmware text output, one line at a time,
// printed with the CPU's name as prefix and kept for the run's log and tests
// (the line handling is TextOutput's).
#pragma once

#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "core/params.h"
#include "core/register_bank.h"
#include "core/text_output.h"

namespace m2 {

class Console : public sc_core::sc_module, public TextOutput {
 public:
  tlm_utils::simple_target_socket<Console> socket;
  Param<double> access_ns;

  // `speaker` is the name lines are prefixed with (the CPU's).
  Console(sc_core::sc_module_name name, std::string speaker);

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  RegisterBank m_regs;
};

}  // namespace m2
