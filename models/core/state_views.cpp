// Declared state views and their process-wide registry (see state_views.h).
#include "core/state_views.h"

#include <algorithm>
#include <utility>

#include "core/params.h"

namespace m2 {

StateView::StateView(const sc_core::sc_object* owner, const std::string& topic, const std::string& help,
                     std::function<std::string()> describe)
    : m_owner(owner ? owner->name() : ""),
      m_topic(topic),
      m_name(m_owner.empty() ? topic : m_owner + "." + topic),
      m_help(help),
      m_describe(std::move(describe)) {
  StateViewRegistry::instance().add(this);
}

StateView::~StateView() { StateViewRegistry::instance().remove(this); }

StateViewRegistry& StateViewRegistry::instance() {
  // Never destroyed, as the other registries: a model with static storage
  // duration may unregister after a function-local static is gone.
  static StateViewRegistry* const registry = new StateViewRegistry;
  return *registry;
}

const StateView* StateViewRegistry::find(const std::string& name) const {
  const auto it = m_by_name.find(name);
  return it == m_by_name.end() ? nullptr : it->second;
}

std::vector<const StateView*> StateViewRegistry::of(const std::string& owner) const {
  std::vector<const StateView*> r;
  for (const StateView* v : m_order)
    if (v->owner() == owner) r.push_back(v);
  return r;
}

void StateViewRegistry::clear() {
  m_by_name.clear();
  m_order.clear();
}

void StateViewRegistry::add(const StateView* v) {
  if (!m_by_name.emplace(v->name(), v).second) throw ConfigError("state view '" + v->name() + "' declared twice");
  m_order.push_back(v);
}

void StateViewRegistry::remove(const StateView* v) {
  // Only the registered object: a refused duplicate must not unregister the original.
  const auto it = m_by_name.find(v->name());
  if (it == m_by_name.end() || it->second != v) return;
  m_by_name.erase(it);
  m_order.erase(std::find(m_order.begin(), m_order.end(), v));
}

std::string describe_declared_state(const std::string& model) {
  std::string r;
  for (const StateView* v : StateViewRegistry::instance().of(model)) r += v->describe();
  return r;
}

}  // namespace m2
