#include "core/data_path_scheduler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace m2 {

using sc_core::sc_time;

DataPathScheduler& DataPathScheduler::instance() {
  static DataPathScheduler* s = nullptr;
  if (!s) s = new DataPathScheduler("data_path");  // lives as long as the simulation's modules
  return *s;
}

DataPathScheduler::DataPathScheduler(sc_core::sc_module_name name) : sc_module(name) {
  SC_METHOD(run);
  sensitive << m_wake;
  dont_initialize();
  for (StatProbe* p : {&m_stat_steps, &m_stat_ahead, &m_stat_wakeups}) p->only_when_nonzero();
}

void DataPathScheduler::schedule(const sc_time& at, StepFn fn, void* ctx) {
  const uint64_t t = at.value();
  if (at < now())
    throw std::logic_error(std::string(name()) + ": a step scheduled at " + at.to_string() + ", before now (" +
                           now().to_string() + ")");
  m_queue.push_back(Step{t, m_seq++, fn, ctx});
  std::push_heap(m_queue.begin(), m_queue.end(), later);
  if (!m_running) wake_at(t);  // in a step, run() wakes itself for what is left
}

void DataPathScheduler::notify(sc_core::sc_event& e) { e.notify(ahead()); }

void DataPathScheduler::observe(std::function<void()> fn) {
  if (!m_running || m_now == sc_core::sc_time_stamp()) {
    fn();
    return;
  }
  m_deferred.push_back(std::move(fn));
  m_deferred_at = m_now.value();
}

void DataPathScheduler::wake_at(uint64_t t) {
  if (t >= m_wake_at) return;  // an earlier wake-up is pending
  const uint64_t now_ps = sc_core::sc_time_stamp().value();
  m_wake.notify(sc_time::from_value(t > now_ps ? t - now_ps : 0));
  m_wake_at = t;
}

// A step later than SystemC time may run now if no other process has
// anything to do before it (strictly: at the same time, the kernel's order
// decides, as it would for a step run at its time).
bool DataPathScheduler::may_run_ahead(uint64_t t) const {
  const uint64_t now_ps = sc_core::sc_time_stamp().value();
  return t - now_ps < sc_core::sc_time_to_pending_activity().value();
}

void DataPathScheduler::run() {
  m_wake_at = UINT64_MAX;  // this activation used it
  ++m_stats.wakeups;
  const uint64_t now_ps = sc_core::sc_time_stamp().value();
  m_running = true;
  m_now = sc_core::sc_time_stamp();
  if (!m_deferred.empty() && m_deferred_at <= now_ps) {
    std::vector<std::function<void()>> due;
    due.swap(m_deferred);
    for (auto& fn : due) fn();
  }
  while (!m_queue.empty() && m_deferred.empty()) {
    const Step top = m_queue.front();
    if (top.time > now_ps && !may_run_ahead(top.time)) break;
    std::pop_heap(m_queue.begin(), m_queue.end(), later);
    m_queue.pop_back();
    m_now = sc_time::from_value(top.time);
    ++m_stats.steps;
    if (top.time > now_ps) ++m_stats.ahead_steps;
    top.fn(top.ctx);
  }
  m_running = false;
  uint64_t next = m_queue.empty() ? UINT64_MAX : m_queue.front().time;
  if (!m_deferred.empty()) next = std::min(next, m_deferred_at);
  if (next != UINT64_MAX) wake_at(next);
}

}  // namespace m2
