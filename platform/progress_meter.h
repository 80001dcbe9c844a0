// A progress line for long runs on a terminal: simulated time reached, wall
// time, the simulation rate and the most wall time left (to the time limit
// sim.max_time_ms, the only end the simulator knows in advance). Rewritten in
// place on stderr twice a second; built only when stderr is a terminal, so
// files and pipes never see it. Console lines clear it before they print
// (core/log.h).
//
// It runs in its own OS thread and schedules no SystemC event: an event of
// its own would end the processors' quantum extensions at other points and
// so change LT results (observed: a 100 us periodic process moved the
// 16-node all-to-all's p50 by 1%). It only reads the simulated time.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

#include <systemc>

namespace m2 {

class ProgressMeter {
 public:
  explicit ProgressMeter(sc_core::sc_time limit);
  ~ProgressMeter();
  // Stops the thread and erases the line (before the end-of-run report).
  void stop();
  // Whether a run printing to this process's stderr should have one.
  static bool wanted();

 private:
  void loop();
  sc_core::sc_time m_limit;
  std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::thread m_thread;
};

}  // namespace m2
