#include "switchbox/switching_bus.h"

#include <algorithm>
#include <utility>

#include "core/params.h"

namespace m2 {

using sc_core::sc_time;

SwitchingBus::SwitchingBus(std::string name, TimingStyle style, uint64_t width_bits, double clock_mhz,
                           uint64_t setup_cycles)
    : m_name(std::move(name)),
      m_style(style),
      m_width_bytes(width_bits / 8),
      m_clock_mhz(clock_mhz),
      m_setup(setup_cycles) {
  if (width_bits == 0 || width_bits % 8 != 0)
    throw ConfigError(m_name + ": bus width must be a whole number of bytes, got " + std::to_string(width_bits) +
                      " bits");
}

unsigned SwitchingBus::add_master(const std::string& name) {
  m_stats.emplace_back();
  m_stats.back().name = name;
  return static_cast<unsigned>(m_stats.size() - 1);
}

sc_time SwitchingBus::clock_period() const { return sc_time(1e6 / m_clock_mhz, sc_core::SC_PS); }

sc_time SwitchingBus::transfer_time(uint64_t bytes) const {
  // One rounding for the whole transfer, not per clock.
  return sc_time(static_cast<double>(cycles(bytes)) * 1e6 / m_clock_mhz, sc_core::SC_PS);
}

void SwitchingBus::transfer(unsigned master, uint64_t bytes) {
  const sc_time t = transfer_time(bytes);
  if (m_style == TimingStyle::AT) {
    const sc_time asked = sc_core::sc_time_stamp();
    acquire(master);
    m_stats.at(master).waiting += sc_core::sc_time_stamp() - asked;
  }
  if (m_busy_log.enabled()) m_busy_log.add(sc_core::sc_time_stamp(), sc_core::sc_time_stamp() + t);
  sc_core::wait(t);
  MasterStats& s = m_stats.at(master);
  s.transfers++;
  s.bytes += bytes;
  s.busy += t;
  m_busy += t;
  if (m_style == TimingStyle::AT) release(master);
}

bool SwitchingBus::acquire(unsigned master) {
  if (m_owner < 0 && m_waiters.empty()) {
    m_owner = static_cast<int>(master);
    return false;
  }
  Waiter w;
  w.master = master;
  w.seq = m_next_seq++;
  m_waiters.push_back(&w);
  while (!w.granted) sc_core::wait(w.event);
  return true;
}

void SwitchingBus::release(unsigned master) {
  if (m_waiters.empty()) {
    m_owner = -1;
    return;
  }
  // Round-robin: the next master after the one releasing; the bus stays owned
  // during the hand-over so that no newcomer slips in.
  const uint64_t n = std::max<size_t>(m_stats.size(), 1);
  auto rank = [&](const Waiter* w) { return std::make_pair((w->master + n - master - 1) % n, w->seq); };
  auto next = std::min_element(m_waiters.begin(), m_waiters.end(),
                               [&](const Waiter* a, const Waiter* b) { return rank(a) < rank(b); });
  Waiter* w = *next;
  m_waiters.erase(next);
  m_owner = static_cast<int>(w->master);
  w->granted = true;
  w->event.notify(sc_core::SC_ZERO_TIME);
}

std::string SwitchingBus::describe() const {
  if (m_style == TimingStyle::LT) return "LT (no arbitration)";
  if (m_owner < 0) return "idle";
  std::string s = "held by " + m_stats.at(m_owner).name;
  for (const Waiter* w : m_waiters) s += (w == m_waiters.front() ? "; waiting: " : ", ") + m_stats.at(w->master).name;
  return s;
}

}  // namespace m2
