// Declared signals and their process-wide registry (see signals.h).
#include "core/signals.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "core/params.h"

namespace m2 {

SignalProbe busy_probe(const std::string& name, BusyLog& log) {
  auto last = std::make_shared<sc_core::sc_time>(sc_core::SC_ZERO_TIME);
  return {name, 1,
          [&log, last] {
            const sc_core::sc_time now = sc_core::sc_time_stamp();
            const bool busy = log.overlaps(*last, now);
            *last = now;
            return uint64_t(busy);
          },
          [&log] { log.enable(); }};
}

unsigned signal_width_for(uint64_t max) {
  unsigned n = 1;
  while (n < 64 && (max >> n)) ++n;
  return n;
}

namespace {

std::string full_name(const sc_core::sc_object* owner, const std::string& local_name) {
  return owner ? std::string(owner->name()) + "." + local_name : local_name;
}

}  // namespace

Signal::Signal(const sc_core::sc_object* owner, const std::string& local_name, unsigned width,
               std::function<uint64_t()> read)
    : m_owner(owner ? owner->name() : ""), m_probe{full_name(owner, local_name), width, std::move(read), nullptr} {
  SignalRegistry::instance().add(this);
}

Signal::Signal(const sc_core::sc_object* owner, const std::string& local_name, BusyLog& log)
    : m_owner(owner ? owner->name() : ""), m_probe(busy_probe(full_name(owner, local_name), log)) {
  SignalRegistry::instance().add(this);
}

Signal::~Signal() { SignalRegistry::instance().remove(this); }

SignalRegistry& SignalRegistry::instance() {
  // Never destroyed, as the parameter and statistics registries.
  static SignalRegistry* const registry = new SignalRegistry;
  return *registry;
}

const Signal* SignalRegistry::find(const std::string& name) const {
  const auto it = m_by_name.find(name);
  return it == m_by_name.end() ? nullptr : it->second;
}

std::vector<const Signal*> SignalRegistry::of(const std::string& owner) const {
  std::vector<const Signal*> r;
  for (const Signal* s : m_order)
    if (s->owner() == owner) r.push_back(s);
  return r;
}

void SignalRegistry::clear() {
  m_by_name.clear();
  m_order.clear();
}

void SignalRegistry::add(const Signal* s) {
  if (!m_by_name.emplace(s->name(), s).second) throw ConfigError("signal '" + s->name() + "' declared twice");
  m_order.push_back(s);
}

void SignalRegistry::remove(const Signal* s) {
  const auto it = m_by_name.find(s->name());
  if (it == m_by_name.end() || it->second != s) return;
  m_by_name.erase(it);
  m_order.erase(std::find(m_order.begin(), m_order.end(), s));
}

}  // namespace m2
