// Self-describing model parameters (name, unit, default, description, range).
//
// Models declare their parameters as members; each one registers itself in the
// ParamRegistry under its hierarchical name ("ni0.cpu.clock_mhz"). The platform
// layer stores the values of a config file and of --set overrides in the
// registry as *presets* before the models are built; a parameter picks up its
// preset when it is constructed. Models therefore never read config files, and
// every parameter of a platform can be listed after elaboration.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace m2 {

// A configuration problem: bad value, unknown key, missing file... The message
// names the file, the key (with line) and what was expected.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a value came from: "configs/hello.yaml:12", "--set", "default".
struct ValueOrigin {
  std::string where = "default";
};

class ParamBase {
 public:
  ParamBase(std::string owner, std::string local_name, std::string unit, std::string description);
  virtual ~ParamBase();
  ParamBase(const ParamBase&) = delete;
  ParamBase& operator=(const ParamBase&) = delete;

  const std::string& name() const { return m_name; }  // hierarchical
  const std::string& unit() const { return m_unit; }  // "" for none
  const std::string& description() const { return m_description; }
  const ValueOrigin& origin() const { return m_origin; }

  virtual std::string type_name() const = 0;  // "bool", "int", "uint", "double", "string", "enum"
  virtual std::string value_string() const = 0;
  virtual std::string default_string() const = 0;
  virtual std::string range_string() const = 0;  // "1..2000", "lt|at", "" when unconstrained

  // Parses and checks `text`; on success sets the value and returns "", on
  // failure leaves the value unchanged and returns what was expected.
  virtual std::string set_from_string(const std::string& text) = 0;

 protected:
  // Called by the typed constructors once the default is in place: registers
  // the parameter and applies its preset (throws ConfigError if it is bad).
  void register_and_apply_preset();

 private:
  friend class ParamRegistry;
  std::string m_name, m_unit, m_description;
  ValueOrigin m_origin;
};

// Numeric range, inclusive.
template <typename T>
struct Range {
  T min, max;
};

// A typed parameter. T is one of bool, int64_t, uint64_t, double, std::string.
//   Param<double> clock_mhz{name(), "clock_mhz", 300.0, "MHz", "core clock", Range<double>{1, 2000}};
template <typename T>
class Param : public ParamBase {
 public:
  Param(const std::string& owner, const std::string& local_name, T def, const std::string& unit,
        const std::string& description, std::optional<Range<T>> range = std::nullopt);
  // Enumerated string parameter: the value must be one of `choices`.
  Param(const std::string& owner, const std::string& local_name, T def, const std::string& description,
        std::vector<std::string> choices);
  // Without this overload a two-element list {"lt", "at"} is ambiguous: it
  // also converts to std::string (iterator-pair constructor) as `description`.
  Param(const std::string& owner, const std::string& local_name, T def, const std::string& description,
        std::initializer_list<std::string> choices)
      : Param(owner, local_name, std::move(def), description, std::vector<std::string>(choices)) {}

  const T& get() const { return m_value; }
  operator const T&() const { return m_value; }
  // Sets programmatically (platform layer, tests); checks range/choices and
  // throws ConfigError naming the parameter on a bad value.
  void set(const T& v);

  std::string type_name() const override;
  std::string value_string() const override;
  std::string default_string() const override;
  std::string range_string() const override;
  std::string set_from_string(const std::string& text) override;

  // Unsigned values that are addresses print in hex.
  Param& hex() {
    m_hex = true;
    return *this;
  }

 private:
  std::string check(const T& v) const;  // "" when acceptable
  std::string format(const T& v) const;
  T m_value, m_default;
  std::optional<Range<T>> m_range;
  std::vector<std::string> m_choices;
  bool m_hex = false;
};

// A preset: a value given by a config file or the command line for a
// parameter that may not exist yet.
struct Preset {
  std::string text;
  ValueOrigin origin;
  bool used = false;
  bool list = false;  // written as a list: only a text parameter takes it
};

// Optimal string alignment distance: Levenshtein plus adjacent transpositions,
// the commonest typo ("clokc"). For "did you mean" suggestions.
size_t edit_distance(const std::string& a, const std::string& b);
// The candidate closest to `word` (ties: the alphabetically first) when it is
// close enough to be a typo of it (a third of its length, at least 2 edits);
// "" otherwise.
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates);

class ParamRegistry {
 public:
  static ParamRegistry& instance();

  // Stores a value for a (future) parameter. A later preset for the same name
  // replaces an earlier one (so --set overrides the config file).
  void preset(const std::string& name, const std::string& text, ValueOrigin origin, bool list = false);
  bool has_preset(const std::string& name) const;
  // Reads a preset without a parameter object (platform-level keys such as
  // the platform name); marks it used. nullopt when absent.
  std::optional<Preset> take_preset(const std::string& name);

  ParamBase* find(const std::string& name) const;
  std::vector<ParamBase*> all() const;  // sorted by name

  // Throws ConfigError listing every preset no parameter has taken, with the
  // nearest valid name as a suggestion ("did you mean ...?").
  void check_all_presets_used() const;
  // The registered name closest to `name` (edit distance), "" if none is close.
  std::string nearest(const std::string& name) const;
  // For a pattern that matches no parameter ("node*.pci.varient"): the same
  // pattern with the nearest leaf that exists under its hierarchy, or "".
  std::string nearest_pattern(const std::string& pattern) const;

  // Names that changed: `renamed(old)` returns the current name for a name
  // of an earlier scheme ("" when `old` is not one); unknown keys and
  // patterns that match nothing are then reported with their new name.
  void set_renamed_names(std::function<std::string(const std::string&)> renamed) { m_renamed = std::move(renamed); }

  // Forgets everything (tests).
  void clear();

 private:
  friend class ParamBase;
  void add(ParamBase* p);
  std::map<std::string, Preset>::iterator find_pattern_preset(const std::string& name);
  std::map<std::string, Preset>::iterator best_preset(const std::string& name);
  void remove(ParamBase* p);
  std::map<std::string, ParamBase*> m_params;
  std::map<std::string, Preset> m_presets;
  std::function<std::string(const std::string&)> m_renamed;
};

}  // namespace m2
