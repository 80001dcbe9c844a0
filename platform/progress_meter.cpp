#include "platform/progress_meter.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/log.h"

namespace m2 {
namespace {

// Wall time between updates: 500 ms, or M2VP_PROGRESS_INTERVAL_MS (tests
// use a short one so that even a fast run shows the line).
std::chrono::milliseconds interval() {
  const char* v = std::getenv("M2VP_PROGRESS_INTERVAL_MS");
  const long ms = v ? std::strtol(v, nullptr, 10) : 0;
  return std::chrono::milliseconds(ms > 0 ? ms : 500);
}

}  // namespace

ProgressMeter::ProgressMeter(sc_core::sc_time limit) : m_limit(limit), m_thread([this] { loop(); }) {}

ProgressMeter::~ProgressMeter() { stop(); }

bool ProgressMeter::wanted() { return isatty(STDERR_FILENO) == 1; }

void ProgressMeter::loop() {
  const auto start = std::chrono::steady_clock::now();
  const auto period = interval();
  std::unique_lock<std::mutex> lock(m_mutex);
  while (!m_wake.wait_for(lock, period, [this] { return m_stop; })) {
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // Read while the simulation runs: a display value, at worst one step old.
    const double sim = sc_core::sc_time_stamp().to_seconds();
    const double rate = wall > 0 ? sim / wall : 0;
    const double left = rate > 0 ? (m_limit.to_seconds() - sim) / rate : 0;
    char line[200];
    std::snprintf(line, sizeof line, "  simulated %.3f ms of at most %.0f ms in %.1f s wall, at most %.0f s left",
                  sim * 1e3, m_limit.to_seconds() * 1e3, wall, left);
    Log::instance().status(line);
  }
}

void ProgressMeter::stop() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_stop) return;
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_thread.joinable()) m_thread.join();
  Log::instance().status("");
}

}  // namespace m2
