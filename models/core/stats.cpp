// Statistics and their process-wide registry (see stats.h).
#include "core/stats.h"

#include <algorithm>
#include <utility>

#include "core/params.h"

namespace m2 {

StatBase::StatBase(std::string owner, std::string local_name, std::string unit, std::string description,
                   StatReset reset)
    : m_owner(std::move(owner)),
      m_local(std::move(local_name)),
      m_name(m_owner.empty() ? m_local : m_owner + "." + m_local),
      m_unit(std::move(unit)),
      m_description(std::move(description)),
      m_reset(reset) {}

StatBase::~StatBase() { StatRegistry::instance().remove(this); }

void StatBase::register_stat() { StatRegistry::instance().add(this); }

StatProbe::StatProbe(const sc_core::sc_object* owner, const std::string& local_name, const std::string& unit,
                     const std::string& description, std::function<double()> read, StatReset reset, StatFormat format)
    : StatProbe(owner ? std::string(owner->name()) : std::string(), local_name, unit, description, std::move(read),
                reset, format) {}

StatProbe::StatProbe(const std::string& owner, const std::string& local_name, const std::string& unit,
                     const std::string& description, std::function<double()> read, StatReset reset, StatFormat format)
    : StatBase(owner, local_name, unit, description, reset), m_read(std::move(read)) {
  m_format = format;
  register_stat();
}

StatRegistry& StatRegistry::instance() {
  // Never destroyed, as the parameter registry: statistics with static
  // storage duration may unregister after a function-local static is gone.
  static StatRegistry* const registry = new StatRegistry;
  return *registry;
}

StatBase* StatRegistry::find(const std::string& name) const {
  const auto it = m_by_name.find(name);
  return it == m_by_name.end() ? nullptr : it->second;
}

std::vector<StatBase*> StatRegistry::of(const std::string& owner) const {
  std::vector<StatBase*> r;
  for (StatBase* s : m_order)
    if (s->owner() == owner) r.push_back(s);
  return r;
}

void StatRegistry::reset_after_warmup() {
  for (StatBase* s : m_order)
    if (s->reset_policy() == StatReset::AfterWarmup) s->reset();
}

void StatRegistry::clear() {
  m_by_name.clear();
  m_order.clear();
}

void StatRegistry::add(StatBase* s) {
  // Two models of one name, or a model that declares a name twice: their
  // figures would be reported under one name.
  if (!m_by_name.emplace(s->name(), s).second)
    throw ConfigError("statistic '" + s->name() + "' declared twice (unit '" + s->unit() + "', '" + s->description() +
                      "')");
  m_order.push_back(s);
}

void StatRegistry::remove(StatBase* s) {
  // Only the registered object: a refused duplicate must not unregister the
  // original, and clear() may already have forgotten it.
  const auto it = m_by_name.find(s->name());
  if (it == m_by_name.end() || it->second != s) return;
  m_by_name.erase(it);
  m_order.erase(std::find(m_order.begin(), m_order.end(), s));
}

}  // namespace m2
