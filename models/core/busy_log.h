// When a shared resource (a bus, a link direction) carried transfers, for
// sampled signals (the VCD's busy lines): each transfer's [start, end) as its
// model books it, and whether one overlapped a sampling period. A model adds
// its transfers only once a sampler has switched the log on.
#pragma once

#include <deque>
#include <utility>

#include <systemc>

namespace m2 {

class BusyLog {
 public:
  void enable() { m_on = true; }
  bool enabled() const { return m_on; }
  void add(const sc_core::sc_time& start, const sc_core::sc_time& end) {
    if (!m_on || end <= start) return;
    m_spans.emplace_back(start, end);
    // Before the first look (a window that opens late) keep only the latest.
    if (m_spans.size() > kMaxKept) m_spans.pop_front();
  }
  // True if a transfer overlapped (from, to]; forgets those that ended by
  // `from` (transfers booked ahead of time, in LT, stay for later periods).
  bool overlaps(const sc_core::sc_time& from, const sc_core::sc_time& to) {
    bool any = false;
    for (auto it = m_spans.begin(); it != m_spans.end();) {
      if (it->second <= from) {
        it = m_spans.erase(it);
        continue;
      }
      any = any || it->first < to;
      ++it;
    }
    return any;
  }

 private:
  static constexpr size_t kMaxKept = 100000;
  bool m_on = false;
  std::deque<std::pair<sc_core::sc_time, sc_core::sc_time>> m_spans;
};

}  // namespace m2
