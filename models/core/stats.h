// Self-describing model statistics (name, unit, description), beside the
// parameters of core/params.h.
//
// A model declares what it counts as members; each statistic registers itself
// in the StatRegistry under its hierarchical name ("node0.ni.dma.descriptors")
// and unregisters when the model goes. The platform layer then only says which
// models' statistics a run reports, in which order: stats.tsv, the report and
// `m2vp-sim stats --list` read the registry, not the models' fields.
//
//   Stat<uint64_t> descriptors{this, "descriptors", "count", "descriptors completed"};
//   ++descriptors;                       // in the model's code
//   StatProbe busy_us{this, "busy_us", "us", "time the bus was held",
//                     [this] { return m_busy.to_seconds() * 1e6; }};
//
// A Stat owns its value; a StatProbe reads one the model keeps anyway (a time,
// a field of a Stats struct its tests read, one of a set of statistics that
// only exists once the platform has bound something, such as a PCI master).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#include <systemc>

namespace m2 {

// Whether a statistic starts again from zero when the platform ends a warm-up
// (StatRegistry::reset_after_warmup). No platform has a warm-up phase today
// (benchmarks' warm-up iterations are the application's); the flag is
// declared now so that one needs no change to the models.
enum class StatReset { AfterWarmup, Never };

// How tables (stats.tsv, the report) write the value: Auto, a whole number as
// an integer (48) and any other with six decimals; Decimals, always six
// decimals (a CPU's idle time, 0.000000 when it never dozed).
enum class StatFormat { Auto, Decimals };

class StatBase {
 public:
  // `owner` is the model's hierarchical name; "" for a top-level statistic.
  StatBase(std::string owner, std::string local_name, std::string unit, std::string description, StatReset reset);
  virtual ~StatBase();
  StatBase(const StatBase&) = delete;
  StatBase& operator=(const StatBase&) = delete;

  const std::string& name() const { return m_name; }         // hierarchical
  const std::string& owner() const { return m_owner; }       // "node0.pci"
  const std::string& local_name() const { return m_local; }  // "busy_us", "bridge.bytes"
  const std::string& unit() const { return m_unit; }         // "count", "bytes", "us"
  const std::string& description() const { return m_description; }
  StatReset reset_policy() const { return m_reset; }

  // The value since the last reset.
  virtual double value() const = 0;
  // Starts again from zero (StatRegistry::reset_after_warmup).
  virtual void reset() = 0;
  // Whether the run reports it: a statistic of something a run may not do
  // (inject damage) is left out of that run's tables while it is zero.
  bool reported() const { return !m_only_when_nonzero || value() != 0; }
  // Marks it as reported only while non-zero (see reported()).
  void only_when_nonzero() { m_only_when_nonzero = true; }
  bool reported_only_when_nonzero() const { return m_only_when_nonzero; }
  StatFormat format() const { return m_format; }

 protected:
  // Called by the typed constructors: registers the statistic (throws
  // ConfigError when its name is taken).
  void register_stat();

 private:
  std::string m_owner, m_local, m_name, m_unit, m_description;
  StatReset m_reset;
  bool m_only_when_nonzero = false;

 protected:
  StatFormat m_format = StatFormat::Auto;
};

// A statistic that owns its value: a counter or an accumulated amount.
template <typename T>
class Stat : public StatBase {
  static_assert(std::is_arithmetic_v<T>, "a Stat counts numbers");

 public:
  Stat(const sc_core::sc_object* owner, const std::string& local_name, const std::string& unit,
       const std::string& description, StatReset reset = StatReset::AfterWarmup)
      : Stat(owner ? std::string(owner->name()) : std::string(), local_name, unit, description, reset) {}
  Stat(const std::string& owner, const std::string& local_name, const std::string& unit, const std::string& description,
       StatReset reset = StatReset::AfterWarmup)
      : StatBase(owner, local_name, unit, description, reset) {
    register_stat();
  }

  const T& get() const { return m_value; }
  operator const T&() const { return m_value; }
  Stat& operator++() {
    ++m_value;
    return *this;
  }
  Stat& operator+=(T v) {
    m_value += v;
    return *this;
  }
  Stat& operator=(T v) {
    m_value = v;
    return *this;
  }

  double value() const override { return static_cast<double>(m_value); }
  void reset() override { m_value = T{}; }

 private:
  T m_value{};
};

// A statistic read from the model's state when the run reports it. A reset
// takes the current reading as the new zero.
class StatProbe : public StatBase {
 public:
  StatProbe(const sc_core::sc_object* owner, const std::string& local_name, const std::string& unit,
            const std::string& description, std::function<double()> read, StatReset reset = StatReset::AfterWarmup,
            StatFormat format = StatFormat::Auto);
  StatProbe(const std::string& owner, const std::string& local_name, const std::string& unit,
            const std::string& description, std::function<double()> read, StatReset reset = StatReset::AfterWarmup,
            StatFormat format = StatFormat::Auto);

  double value() const override { return m_read() - m_zero; }
  void reset() override { m_zero = m_read(); }

 private:
  std::function<double()> m_read;
  double m_zero = 0;
};

// Microseconds, the unit the statistics give times in.
inline double in_us(const sc_core::sc_time& t) { return t.to_seconds() * 1e6; }

class StatRegistry {
 public:
  static StatRegistry& instance();

  StatBase* find(const std::string& name) const;
  // Every statistic, in the order they were declared.
  const std::vector<StatBase*>& all() const { return m_order; }
  // The statistics of one model (owner name), in the order it declared them.
  std::vector<StatBase*> of(const std::string& owner) const;
  // Resets every statistic declared StatReset::AfterWarmup.
  void reset_after_warmup();

  // Forgets everything (tests).
  void clear();

 private:
  friend class StatBase;
  void add(StatBase* s);
  void remove(StatBase* s);
  std::map<std::string, StatBase*> m_by_name;
  std::vector<StatBase*> m_order;
};

}  // namespace m2
