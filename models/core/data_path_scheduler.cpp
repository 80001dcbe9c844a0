#include "core/data_path_scheduler.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace m2 {

using sc_core::sc_time;

DataPathScheduler* DataPathScheduler::s_instance = nullptr;

DataPathScheduler& DataPathScheduler::instance() {
  if (!s_instance) s_instance = new DataPathScheduler("data_path");  // lives as long as the simulation's modules
  return *s_instance;
}

DataPathScheduler::DataPathScheduler(sc_core::sc_module_name name) : sc_module(name) {
  SC_METHOD(run);
  sensitive << m_wake;
  dont_initialize();
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
  run_steps(UINT64_MAX);
}

void DataPathScheduler::run_steps(uint64_t limit) {
  const uint64_t now_ps = sc_core::sc_time_stamp().value();
  m_running = true;
  while (!m_queue.empty() && m_deferred.empty()) {
    const Step top = m_queue.front();
    if (top.time >= limit) break;
    if (top.time > now_ps && !may_run_ahead(top.time)) break;
    if (top.time == now_ps && limit != UINT64_MAX && sc_core::sc_time_to_pending_activity() == sc_core::SC_ZERO_TIME)
      break;  // a caller's catch-up: others due now go first, as they would before the scheduler's wake-up
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

bool DataPathScheduler::catch_up(const sc_time& t) {
  const uint64_t now_ps = sc_core::sc_time_stamp().value(), tp = t.value();
  const uint64_t next = now_ps + sc_core::sc_time_to_pending_activity().value();
  if (tp < next) return true;  // nothing pending before t
  // Only when the earliest pending activity may be this scheduler's own
  // wake-up (others may share its time) can running steps as a call let the
  // caller go on; then the wake-up hides what else is pending: set it aside,
  // run what may run, and wake again for the rest.
  if (m_running || !m_deferred.empty() || m_queue.empty() || m_wake_at != next) return false;
  m_wake.cancel();
  m_wake_at = UINT64_MAX;
  ++m_stats.catch_ups;
  run_steps(tp);
  return tp - now_ps < sc_core::sc_time_to_pending_activity().value();
}

}  // namespace m2
