// Simulation-control device (ip/simctrl.h): firmware ends its part of the run
// with an exit code, reports result values, and reads simulated time and the
// configured clock rates. Trace marks (SIMCTRL_TRACE_MARK, virtual platform
// only) go to the message ledger when a probe is set, else nowhere.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>

#include "core/elf_loader.h"
#include "core/params.h"
#include "core/peripheral.h"
#include "core/run_control.h"
#include "trace/message_tag.h"

#include <vector>

namespace m2 {

// Registers: Peripheral::regs (SystemC name "socket").
class SimCtrl : public Peripheral {
 public:
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
  void trace_mark(uint32_t value);

  RunControl& m_run;
  std::string m_participant;
  uint32_t m_time_hi_latch = 0;
  std::vector<uint32_t> m_args;
  std::vector<std::string> m_result_names;
  MessageProbe m_probe;
};

}  // namespace m2
