#include "devices/simctrl.h"

#include <ip/simctrl.h>

namespace m2 {

SimCtrl::SimCtrl(sc_core::sc_module_name name, RunControl& run, std::string participant, uint32_t timebase_hz,
                 uint32_t cpu_hz)
    : sc_module(name),
      socket("socket"),
      access_ns(this->name(), "access_ns", 0.0, "ns", "device latency per register access", Range<double>{0, 1e6}),
      m_run(run),
      m_participant(std::move(participant)),
      m_regs(this->name()) {
  m_regs.add(SIMCTRL_EXIT, "EXIT", nullptr,
             [this](uint32_t code) { m_run.firmware_exit(m_participant, code, m_access_time); });
  // Reading LO latches HI so that a 64-bit value is read consistently.
  m_regs.add(SIMCTRL_TIME_LO, "TIME_LO", [this] {
    const uint64_t ns = static_cast<uint64_t>(m_access_time.to_seconds() * 1e9 + 0.5);
    m_time_hi_latch = static_cast<uint32_t>(ns >> 32);
    return static_cast<uint32_t>(ns);
  }, nullptr);
  m_regs.add(SIMCTRL_TIME_HI, "TIME_HI", [this] { return m_time_hi_latch; }, nullptr);
  for (unsigned i = 0; i < SIMCTRL_NUM_RESULTS; ++i) {
    m_regs.add(SIMCTRL_RESULT(i), "RESULT" + std::to_string(i), nullptr, [this, i](uint32_t v) {
      m_run.record_result(m_participant, "fw_result" + std::to_string(i), v);
    });
  }
  m_regs.add(SIMCTRL_TB_HZ, "TB_HZ", [timebase_hz] { return timebase_hz; }, nullptr);
  m_regs.add(SIMCTRL_CPU_HZ, "CPU_HZ", [cpu_hz] { return cpu_hz; }, nullptr);
  socket.register_b_transport(this, &SimCtrl::b_transport);
}

void SimCtrl::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  // The initiator may run ahead of SystemC time: its offset is in `delay`.
  m_access_time = sc_core::sc_time_stamp() + delay;
  m_regs.access(t);
  delay += sc_core::sc_time(access_ns.get(), sc_core::SC_NS);
}

}  // namespace m2
