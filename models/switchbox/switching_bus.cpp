#include "switchbox/switching_bus.h"

#include <utility>

#include "core/params.h"

namespace m2 {

using sc_core::sc_time;

SwitchingBus::SwitchingBus(sc_core::sc_module_name name, TimingStyle style, uint64_t width_bits, double clock_mhz,
                           uint64_t setup_cycles)
    : sc_module(name),
      target("target"),
      m_style(style),
      m_width_bytes(width_bits / 8),
      m_clock_mhz(clock_mhz),
      m_setup(setup_cycles),
      m_peq(this, &SwitchingBus::peq_arrived),
      m_responses([this](unsigned port, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                         sc_time& d) { return target[port]->nb_transport_bw(t, phase, d); },
                  [this](tlm::tlm_generic_payload& t) { finish(m_at.at(&t).get()); },
                  [this](unsigned port, const std::string& what, const std::string& how) {
                    protocol_error(what + " from master " + stats(port).name + " " + how);
                  }) {
  if (width_bits == 0 || width_bits % 8 != 0)
    throw ConfigError(std::string(this->name()) + ": bus width must be a whole number of bytes, got " +
                      std::to_string(width_bits) + " bits");
  // Both interfaces in both styles: an LT master may meet an AT bus and the
  // other way round.
  target.register_b_transport(this, &SwitchingBus::b_transport);
  target.register_nb_transport_fw(this, &SwitchingBus::nb_transport_fw);
  if (m_style == TimingStyle::AT) SC_THREAD(sequencer);
}

void SwitchingBus::end_of_elaboration() {
  if (target.size() > 0) stats(target.size() - 1);  // every bound port has its figures
}

SwitchingBus::MasterStats& SwitchingBus::stats(unsigned port) {
  while (m_stats.size() <= port) {
    m_stats.emplace_back();
    m_stats.back().name = "master" + std::to_string(m_stats.size() - 1);
  }
  return m_stats[port];
}

void SwitchingBus::count(unsigned port, uint64_t bytes, const sc_time& t) const {
  MasterStats& s = m_stats.at(port);
  s.transfers++;
  s.bytes += bytes;
  s.busy += t;
  m_busy += t;
}

sc_time SwitchingBus::clock_period() const { return sc_time(1e6 / m_clock_mhz, sc_core::SC_PS); }

sc_time SwitchingBus::transfer_time(uint64_t bytes) const {
  // One rounding for the whole transfer, not per clock.
  return sc_time(static_cast<double>(cycles(bytes)) * 1e6 / m_clock_mhz, sc_core::SC_PS);
}

bool SwitchingBus::refuse(tlm::tlm_generic_payload& t) const {
  // The bus writes destination buffers; it has nothing to read, and a
  // transfer moves whole bytes (no byte enables).
  if (t.get_command() == tlm::TLM_IGNORE_COMMAND) {
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return true;
  }
  if (t.get_command() != tlm::TLM_WRITE_COMMAND) {
    t.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return true;
  }
  if (t.get_byte_enable_ptr()) {
    t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return true;
  }
  return false;
}

void SwitchingBus::b_transport(int id, tlm::tlm_generic_payload& t, sc_time& delay) {
  const unsigned port = static_cast<unsigned>(id);
  if (m_style == TimingStyle::AT) {
    b_transport_at(port, t, delay);
    return;
  }
  if (!refuse(t)) transfer_lt(port, t, delay);
}

tlm::tlm_sync_enum SwitchingBus::nb_transport_fw(int id, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                                 sc_time& delay) {
  const unsigned port = static_cast<unsigned>(id);
  if (m_style == TimingStyle::AT) return nb_transport_fw_at(port, t, phase, delay);
  // LT: the whole transfer at once, as b_transport (early completion).
  if (phase != tlm::BEGIN_REQ)
    protocol_error("a phase other than BEGIN_REQ from master " + stats(port).name +
                   " on an LT bus, which completes every request at once");
  if (!refuse(t)) transfer_lt(port, t, delay);
  return tlm::TLM_COMPLETED;
}

void SwitchingBus::transfer_lt(unsigned port, tlm::tlm_generic_payload& t, sc_time& delay) {
  const uint64_t bytes = t.get_data_length();
  const sc_time time = transfer_time(bytes);
  const sc_time start = sc_core::sc_time_stamp() + delay;
  if (m_busy_log.enabled()) m_busy_log.add(start, start + time);
  delay += time;
  t.set_response_status(tlm::TLM_OK_RESPONSE);
  // Counted when it is over, as in AT: a run that stops meanwhile leaves it out.
  stats(port);
  m_lt_running.emplace(start + time, LtTransfer{port, bytes, time});
  count_finished_lt();
}

void SwitchingBus::count_finished_lt() const {
  const sc_time now = sc_core::sc_time_stamp();
  while (!m_lt_running.empty() && m_lt_running.begin()->first <= now) {
    const LtTransfer& d = m_lt_running.begin()->second;
    count(d.port, d.bytes, d.time);
    m_lt_running.erase(m_lt_running.begin());
  }
}

std::string SwitchingBus::describe() const {
  if (m_style == TimingStyle::LT) return "LT (no arbitration)";
  if (!m_owner) return "idle";
  std::string s = "held by " + m_stats.at(m_owner->port).name;
  for (const AtTransfer* x : m_requests)
    s += (x == m_requests.front() ? "; waiting: " : ", ") + m_stats.at(x->port).name;
  return s;
}

}  // namespace m2
