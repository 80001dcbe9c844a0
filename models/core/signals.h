// Signals for the VCD file, declared by the model as its statistics are
// (core/stats.h): each registers in the SignalRegistry under the model's
// hierarchical name ("node0.pci.busy") and leaves it with the model. The
// platform layer then only names the models whose signals a run can show,
// in the order the VCD lists them (platform/signal_probes.cpp); the sampler
// reads the probes.
//
//   Signal m_signal_busy{this, "busy", m_busy_log};                 // a busy line
//   Signal m_signal_level{this, "level", 8, [this] { return m_level; }};
//   std::deque<Signal> m_signals;  // one per channel, declared in a loop:
//   m_signals.emplace_back(this, "tx0_used", signal_width_for(capacity), [this] { ... });
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <systemc>

#include "core/busy_log.h"

namespace m2 {

// What the sampler reads.
struct SignalProbe {
  std::string name;  // dotted: node0.ni.netbuf.tx0_used
  unsigned width;    // bits
  std::function<uint64_t()> read;
  std::function<void()> enable;  // if set: called once when the signal is chosen for sampling
};
using SignalProbes = std::vector<SignalProbe>;

// A 1-bit signal, 1 when a transfer of `log` overlapped the time since the
// last sample (the log keeps transfers only once the signal is chosen). A
// counter of busy time would grow once per transfer, by its whole length: a
// 1 us PCI burst then showed in one 100 ns sample of ten.
SignalProbe busy_probe(const std::string& name, BusyLog& log);

// Bits a value up to `max` needs: a signal narrower than its values would
// wrap in the VCD (a 128 KB channel once read 0 when full).
unsigned signal_width_for(uint64_t max);

class Signal {
 public:
  // A value of `width` bits.
  Signal(const sc_core::sc_object* owner, const std::string& local_name, unsigned width,
         std::function<uint64_t()> read);
  // A busy line of a shared resource (busy_probe).
  Signal(const sc_core::sc_object* owner, const std::string& local_name, BusyLog& log);
  ~Signal();
  Signal(const Signal&) = delete;
  Signal& operator=(const Signal&) = delete;

  const std::string& owner() const { return m_owner; }
  const std::string& name() const { return m_probe.name; }
  const SignalProbe& probe() const { return m_probe; }

 private:
  std::string m_owner;
  SignalProbe m_probe;
};

class SignalRegistry {
 public:
  static SignalRegistry& instance();

  const Signal* find(const std::string& name) const;
  // The signals of one model (owner name), in the order it declared them.
  std::vector<const Signal*> of(const std::string& owner) const;
  // Forgets everything (tests).
  void clear();

 private:
  friend class Signal;
  void add(const Signal* s);
  void remove(const Signal* s);
  std::map<std::string, const Signal*> m_by_name;
  std::vector<const Signal*> m_order;
};

}  // namespace m2
