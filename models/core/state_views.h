// What a model says about its state when asked (the GDB monitor's
// `monitor dma`, a stall report's network state), declared by the model as
// its statistics and signals are (core/stats.h, core/signals.h): each view
// registers in the StateViewRegistry under the model's hierarchical name
// and leaves it with the model. The platform layer then only names the
// models whose views a command or report shows.
//
//   StateView m_view_state{this, "dma", "the DMA engine: busy or idle, its descriptor queue, counters",
//                          [this] { return describe_state(); }};
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <systemc>

namespace m2 {

class StateView {
 public:
  // `topic` names the view (the monitor command: "dma"); `help` says what it shows.
  StateView(const sc_core::sc_object* owner, const std::string& topic, const std::string& help,
            std::function<std::string()> describe);
  ~StateView();
  StateView(const StateView&) = delete;
  StateView& operator=(const StateView&) = delete;

  const std::string& owner() const { return m_owner; }
  const std::string& name() const { return m_name; }  // owner.topic
  const std::string& topic() const { return m_topic; }
  const std::string& help() const { return m_help; }
  std::string describe() const { return m_describe(); }

 private:
  std::string m_owner, m_topic, m_name, m_help;
  std::function<std::string()> m_describe;
};

class StateViewRegistry {
 public:
  static StateViewRegistry& instance();

  const StateView* find(const std::string& name) const;
  // The views of one model (owner name), in the order it declared them.
  std::vector<const StateView*> of(const std::string& owner) const;
  // Forgets everything (tests).
  void clear();

 private:
  friend class StateView;
  void add(const StateView* v);
  void remove(const StateView* v);
  std::map<std::string, const StateView*> m_by_name;
  std::vector<const StateView*> m_order;
};

// What the views `model` declared say, one after the other ("" if none).
std::string describe_declared_state(const std::string& model);

}  // namespace m2
