// Console device (ip/console.h): firmware text output, one line at a time,
// printed with the CPU's name as prefix and kept for the run's log and tests.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "core/params.h"
#include "core/register_bank.h"

namespace m2 {

class Console : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Console> socket;
  Param<double> access_ns;

  // `speaker` is the name lines are prefixed with (the CPU's).
  Console(sc_core::sc_module_name name, std::string speaker);

  // Emits a last line the firmware left without a newline (end of run).
  void flush();

  const std::vector<std::string>& lines() const { return m_lines; }

  // Also hands every complete line, with its '\n', to `listener` (the
  // platform forwards it to the CPU's debugger).
  void on_line(std::function<void(const std::string&)> listener) { m_listener = std::move(listener); }

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void put(char c);

  std::string m_speaker, m_current;
  std::vector<std::string> m_lines;
  std::function<void(const std::string&)> m_listener;
  RegisterBank m_regs;
};

}  // namespace m2
