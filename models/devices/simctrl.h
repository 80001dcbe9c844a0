// Simulation-control device (ip/simctrl.h): firmware ends its part of the run
// with an exit code, reports result values, and reads simulated time and the
// configured clock rates. Trace marks (SIMCTRL_TRACE_MARK, virtual platform
// only) go to the message ledger when a probe is set, else nowhere.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "core/elf_loader.h"
#include "core/params.h"
#include "core/register_bank.h"
#include "core/run_control.h"
#include "trace/message_tag.h"

#include <vector>

namespace m2 {

class SimCtrl : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<SimCtrl> socket;
  Param<double> access_ns;
  Param<std::string> args;

  // `participant` is the CPU whose firmware uses this device.
  SimCtrl(sc_core::sc_module_name name, RunControl& run, std::string participant, uint32_t timebase_hz,
          uint32_t cpu_hz);

  void set_message_probe(MessageProbe probe) { m_probe = probe; }
  // Names of the result indices (the firmware's FW_RESULT_NAMES), shown with
  // the values in the end-of-run report; an index without one has none.
  void set_result_names(std::vector<std::string> names) { m_result_names = std::move(names); }
  // Those names from a firmware image's `fw_result_names` string ([] without).
  static std::vector<std::string> result_names_of(const ElfImage& image);

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void trace_mark(uint32_t value);

  RunControl& m_run;
  std::string m_participant;
  RegisterBank m_regs;
  sc_core::sc_time m_access_time;  // time of the access being served
  uint32_t m_time_hi_latch = 0;
  std::vector<uint32_t> m_args;
  std::vector<std::string> m_result_names;
  MessageProbe m_probe;
};

}  // namespace m2
