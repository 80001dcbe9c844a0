// The LT data path's own scheduler (issue 28, docs/speed.md "Data-path
// scheduler"). Data-path models written as state machines (the MLX engines'
// transmitters and receivers in LT) schedule their steps here instead of
// waiting in SystemC threads: a step is a function and its object, run at
// its time. One SystemC method runs the steps in (time, then order of
// scheduling): a same-time order that follows from the model, so adding or
// removing unrelated kernel events (a probe, a shortcut) cannot reorder them.
//
// The method runs steps ahead of SystemC time while no other SystemC
// activity is pending before the step's time (sc_time_to_pending_activity):
// nothing outside the data path can observe or change its state in between,
// so the result is the same as waking at each step, without a kernel event
// per step. A step running ahead reports its time through now(), and what
// it does that the rest of the platform observes goes through the helpers
// below, which shift it to the step's time:
//  - notify(e): an event notified at now() (a timed notification when
//    ahead, which also stops running ahead at that time);
//  - observe(fn): an action whose effect others see at once (an interrupt
//    line, a call into a SystemC model) is run when SystemC time has come
//    to now(): at once when not ahead, else deferred to a kernel wake-up at
//    that time, before any later step.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include <systemc>

#include "core/stats.h"

namespace m2 {

class DataPathScheduler : public sc_core::sc_module {
 public:
  using StepFn = void (*)(void*);

  // The simulation's scheduler, made on first use (the platform makes it
  // before its models, so that it is a top-level module).
  static DataPathScheduler& instance();

  // The data path's time: the running step's time, else SystemC time.
  sc_core::sc_time now() const { return m_running ? m_now : sc_core::sc_time_stamp(); }
  // How far now() is ahead of SystemC time: the annotation for a call a
  // step makes into a TLM LT model.
  sc_core::sc_time ahead() const { return now() - sc_core::sc_time_stamp(); }

  // Runs fn(ctx) at absolute time `at` (not before now()). Steps at the
  // same time run in the order they were scheduled.
  void schedule(const sc_core::sc_time& at, StepFn fn, void* ctx);
  // A member function of a data-path model as a step.
  template <class T, void (T::*M)()>
  void schedule(const sc_core::sc_time& at, T* obj) {
    schedule(
        at, [](void* p) { (static_cast<T*>(p)->*M)(); }, obj);
  }

  // Notifies e at now().
  void notify(sc_core::sc_event& e);
  // Runs fn when SystemC time is now() (see above).
  void observe(std::function<void()> fn);

  // For a SystemC process at local time t (a CPU before a device access or
  // at a quantum's end): runs the data path's steps due before t as a call,
  // as far as nothing else is pending before them, and tells whether then
  // nothing at all is pending before t, so that the caller may go on at its
  // local time without waiting for the kernel (the issue's "run the queue up
  // to my local time").
  static bool quiet_until(const sc_core::sc_time& t) {
    if (s_instance) return s_instance->catch_up(t);
    return t - sc_core::sc_time_stamp() < sc_core::sc_time_to_pending_activity();
  }

  struct Stats {
    uint64_t steps = 0;        // steps run
    uint64_t ahead_steps = 0;  // of them, run ahead of SystemC time
    uint64_t wakeups = 0;      // activations of the scheduler's method
    uint64_t catch_ups = 0;    // quiet_until() calls that ran steps (instead of a wake-up)
  };
  const Stats& stats() const { return m_stats; }
  bool idle() const { return m_queue.empty() && m_deferred.empty(); }
  // A model that schedules steps says so when it is built: the run then
  // reports the scheduler's statistics (and `stats --list` names them).
  void add_user() { ++m_users; }
  static bool in_use() { return s_instance && s_instance->m_users > 0; }
  size_t pending() const { return m_queue.size(); }

 private:
  explicit DataPathScheduler(sc_core::sc_module_name name);
  SC_HAS_PROCESS(DataPathScheduler);

  struct Step {
    uint64_t time;  // ps
    uint64_t seq;   // order of scheduling
    StepFn fn;
    void* ctx;
  };
  // Binary min-heap on (time, seq): the measurements put it at
  // 41-65 ns an event; a timing wheel would save about 20 ns of that.
  static bool later(const Step& a, const Step& b) { return a.time != b.time ? a.time > b.time : a.seq > b.seq; }
  void run();
  // The stepping loop of run() and catch_up(): steps before `limit` (ps)
  // that nothing else pending precedes.
  void run_steps(uint64_t limit);
  bool catch_up(const sc_core::sc_time& t);
  void wake_at(uint64_t time_ps);
  bool may_run_ahead(uint64_t time_ps) const;

  static DataPathScheduler* s_instance;
  std::vector<Step> m_queue;
  std::vector<std::function<void()>> m_deferred;  // observe() while ahead, at m_deferred_at
  uint64_t m_deferred_at = 0;
  uint64_t m_seq = 0;
  unsigned m_users = 0;
  bool m_running = false;
  sc_core::sc_time m_now;
  sc_core::sc_event m_wake;
  uint64_t m_wake_at = UINT64_MAX;  // pending notification of m_wake (ps), UINT64_MAX: none
  Stats m_stats;
  // In stats.tsv when a model uses the scheduler (in_use) (`./m2vp bench speed` prints them per simulated us).
  StatProbe m_stat_steps{this, "steps", "count", "data-path steps run (each a state machine's step)",
                         [this] { return double(m_stats.steps); }};
  StatProbe m_stat_ahead{this, "ahead_steps", "count", "of the data-path steps, run ahead of SystemC time",
                         [this] { return double(m_stats.ahead_steps); }};
  StatProbe m_stat_catch_ups{this, "catch_ups", "count", "times a CPU ran the data path up to its local time as a call",
                             [this] { return double(m_stats.catch_ups); }};
  StatProbe m_stat_wakeups{this, "wakeups", "count", "kernel activations of the data-path scheduler",
                           [this] { return double(m_stats.wakeups); }};
};

}  // namespace m2
