// Console device (ip/console.h): firmware text output, one line at a time,
// printed with the CPU's name as prefix and kept for the run's log and tests
// (the line handling is TextOutput's).
#pragma once

#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "core/peripheral.h"
#include "core/text_output.h"

namespace m2 {

// Registers: Peripheral::regs (SystemC name "socket").
class Console : public Peripheral, public TextOutput {
 public:
  // `speaker` is the name lines are prefixed with (the CPU's).
  Console(sc_core::sc_module_name name, std::string speaker);
};

}  // namespace m2
