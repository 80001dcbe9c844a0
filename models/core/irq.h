// A level-sensitive interrupt wire from one device output to one controller
// input. The device calls set(); the sink (an interrupt controller, a CPU's
// interrupt input, a host's PCI INTA handler) is connected by the platform.
// Plain C++ rather than sc_signal: a level change is seen by the sink at
// once, in the caller's process, which keeps devices free of extra processes.
#pragma once

#include <functional>
#include <utility>

namespace m2 {

class IrqLine {
 public:
  void connect(std::function<void(bool)> sink) { m_sink = std::move(sink); }
  void set(bool level) {
    if (level == m_level) return;
    m_level = level;
    if (m_sink) m_sink(level);
  }
  bool level() const { return m_level; }

 private:
  std::function<void(bool)> m_sink;
  bool m_level = false;
};

}  // namespace m2
