// Parameters, their text syntax and the process-wide registry (see params.h).
#include "core/params.h"

#include "core/glob.h"
#include "core/units.h"

#include <algorithm>
#include <regex>
#include <set>
#include <tuple>
#include <cctype>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

namespace m2 {

namespace {

std::string trim(const std::string& s) {
  const char* ws = " \t\r\n";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// [+|-] then decimal or 0x-hex digits; '_' may separate digits ("1_000",
// "0x8000_0000"). Fails on anything else and on overflow of 64 bits.
bool parse_magnitude(const std::string& s, bool& negative, uint64_t& mag) {
  size_t i = 0;
  negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  unsigned base = 10;
  if (s.size() - i > 2 && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
    base = 16;
    i += 2;
  }
  mag = 0;
  bool prev_digit = false;
  for (; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '_') {
      if (!prev_digit) return false;
      prev_digit = false;
      continue;
    }
    unsigned d;
    if (c >= '0' && c <= '9') d = static_cast<unsigned>(c - '0');
    else if (base == 16 && c >= 'a' && c <= 'f') d = static_cast<unsigned>(c - 'a' + 10);
    else if (base == 16 && c >= 'A' && c <= 'F') d = static_cast<unsigned>(c - 'A' + 10);
    else return false;
    if (mag > (std::numeric_limits<uint64_t>::max() - d) / base) return false;
    mag = mag * base + d;
    prev_digit = true;
  }
  return prev_digit;  // also rejects "", "+", and a trailing '_'
}

bool parse(const std::string& text, bool& out) {
  const std::string t = lower(trim(text));
  if (t == "true" || t == "yes" || t == "on" || t == "1") {
    out = true;
    return true;
  }
  if (t == "false" || t == "no" || t == "off" || t == "0") {
    out = false;
    return true;
  }
  return false;
}

bool parse(const std::string& text, int64_t& out) {
  bool neg;
  uint64_t mag;
  if (!parse_magnitude(trim(text), neg, mag)) return false;
  const uint64_t max_pos = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (!neg) {
    if (mag > max_pos) return false;
    out = static_cast<int64_t>(mag);
  } else {
    if (mag > max_pos + 1) return false;
    out = mag == max_pos + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(mag);
  }
  return true;
}

bool parse(const std::string& text, uint64_t& out) {
  bool neg;
  uint64_t mag;
  if (!parse_magnitude(trim(text), neg, mag) || neg) return false;
  out = mag;
  return true;
}

// Plain decimal or scientific notation only: strtod would also take hex
// floats, "inf", "nan" and depends on the C locale.
bool parse(const std::string& text, double& out) {
  const std::string t = trim(text);
  size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  size_t digits = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) {
    ++i;
    ++digits;
  }
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) {
      ++i;
      ++digits;
    }
  }
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) {
      ++i;
      ++exp_digits;
    }
    if (exp_digits == 0) return false;
  }
  if (i != t.size()) return false;
  // from_chars takes no leading '+'.
  const char* first = t.data() + (t[0] == '+' ? 1 : 0);
  double v = 0;
  const auto res = std::from_chars(first, t.data() + t.size(), v);
  if (res.ec != std::errc() || res.ptr != t.data() + t.size() || !std::isfinite(v)) return false;
  out = v;
  return true;
}

bool parse(const std::string& text, std::string& out) {
  out = text;  // strings are taken verbatim, empty included
  return true;
}

// A converted value as T: "" or why it cannot be one (integers: whole and
// within 64 bits).
template <typename T>
std::string from_converted(double x, T& out) {
  if (!std::isfinite(x)) return "out of range";
  if constexpr (std::is_same_v<T, double>) {
    out = x;
    return "";
  } else {
    const double whole = std::round(x);
    if (std::fabs(x - whole) > 1e-9 * std::max(1.0, std::fabs(x))) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.6g", x);
      return std::string("not a whole number (") + buf + ")";
    }
    if (std::is_same_v<T, uint64_t> && whole < 0) return "negative";
    // 2^64 and 2^63 are exact doubles; the largest values below them are too.
    const double limit = std::is_same_v<T, uint64_t> ? 18446744073709551616.0 : 9223372036854775808.0;
    if (whole >= limit || whole < -limit) return "too large for a 64-bit integer";
    out = static_cast<T>(whole);
    return "";
  }
}

// "a number (double, MHz) in 1..2000", "one of lt|at": what a value must look like.
std::string expectation(const ParamBase& p) {
  const std::string type = p.type_name();
  if (type == "enum") return "one of " + p.range_string();
  std::string what;
  if (type == "bool") return "a boolean (true/false, yes/no, on/off, 1/0)";
  if (type == "int") what = "an integer";
  else if (type == "uint") what = "a non-negative integer";
  else if (type == "double") what = "a number";
  else what = "a string";
  what += " (" + type + (p.unit().empty() ? "" : ", " + p.unit()) + ")";
  if (!p.range_string().empty()) what += " in " + p.range_string();
  return what;
}

std::string expected_got(const ParamBase& p, const std::string& got) {
  return "expected " + expectation(p) + ", got '" + got + "'";
}

std::string last_component(const std::string& s) {
  const auto dot = s.rfind('.');
  return dot == std::string::npos ? s : s.substr(dot + 1);
}

}  // namespace

size_t edit_distance(const std::string& a, const std::string& b) {
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

// ---------------------------------------------------------------- ParamBase

ParamBase::ParamBase(std::string owner, std::string local_name, std::string unit, std::string description)
    : m_name(owner.empty() ? std::move(local_name) : owner + "." + local_name),
      m_unit(std::move(unit)),
      m_description(std::move(description)) {}

ParamBase::~ParamBase() { ParamRegistry::instance().remove(this); }

void ParamBase::register_and_apply_preset() {
  ParamRegistry& reg = ParamRegistry::instance();
  reg.add(this);
  auto it = reg.best_preset(m_name);
  if (it == reg.m_presets.end()) return;
  Preset& preset = it->second;
  preset.used = true;
  // "[1]" would otherwise read as "1": a list where one value belongs is a mistake.
  if (preset.list && type_name() != "string")
    throw ConfigError(preset.origin.where + ": key '" + m_name + "': expected one " + type_name() +
                      " value, got a list [" + preset.text + "]");
  const std::string err = set_from_string(preset.text);
  if (!err.empty()) throw ConfigError(preset.origin.where + ": key '" + m_name + "': " + err);
  m_origin = preset.origin;
}

// ---------------------------------------------------------------- Param<T>

template <typename T>
Param<T>::Param(const std::string& owner, const std::string& local_name, T def, const std::string& unit,
                const std::string& description, std::optional<Range<T>> range)
    : ParamBase(owner, local_name, unit, description), m_value(def), m_default(def), m_range(std::move(range)) {
  // A bad default is a bug in the model, not in the user's configuration.
  if (m_range && m_range->max < m_range->min)
    throw std::logic_error("parameter '" + name() + "': empty range " + range_string());
  const std::string err = check(m_default);
  if (!err.empty()) throw std::logic_error("parameter '" + name() + "': bad default: " + err);
  register_and_apply_preset();
}

template <typename T>
Param<T>::Param(const std::string& owner, const std::string& local_name, T def, const std::string& description,
                std::vector<std::string> choices)
    : ParamBase(owner, local_name, "", description), m_value(def), m_default(def), m_choices(std::move(choices)) {
  if (m_choices.empty()) throw std::logic_error("parameter '" + name() + "': enumeration without choices");
  const std::string err = check(m_default);
  if (!err.empty()) throw std::logic_error("parameter '" + name() + "': bad default: " + err);
  register_and_apply_preset();
}

template <typename T>
void Param<T>::set(const T& v) {
  const std::string err = check(v);
  if (!err.empty()) throw ConfigError("parameter '" + name() + "': " + err);
  m_value = v;
}

template <typename T>
std::string Param<T>::type_name() const {
  if (!m_choices.empty()) return "enum";
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, int64_t>) return "int";
  else if constexpr (std::is_same_v<T, uint64_t>) return "uint";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else return "string";
}

template <typename T>
std::string Param<T>::value_string() const {
  return format(m_value);
}

template <typename T>
std::string Param<T>::default_string() const {
  return format(m_default);
}

template <typename T>
std::string Param<T>::range_string() const {
  if (!m_choices.empty()) {
    std::string s;
    for (const auto& c : m_choices) s += (s.empty() ? "" : "|") + c;
    return s;
  }
  if (m_range) return format(m_range->min) + ".." + format(m_range->max);
  return "";
}

template <typename T>
std::string Param<T>::set_from_string(const std::string& text) {
  T v{};
  // Report the user's own spelling ("0x10"), not the normalised value.
  if (parse(text, v)) {
    if (!check(v).empty()) return expected_got(*this, text);
    m_value = v;
    return "";
  }
  if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, uint64_t> || std::is_same_v<T, double>) {
    // A number with its unit ("1600MB/s", "20 ns"), in the declared unit;
    // a parameter without a unit takes plain numbers only.
    if (unit().empty()) return expected_got(*this, text);
    const auto split = split_unit(text);
    double number = 0, converted = 0;
    if (!split || !parse(split->number, number)) return expected_got(*this, text);
    const std::string err = convert_unit(number, split->unit, unit(), converted);
    if (!err.empty()) return expected_got(*this, text) + ": " + err;
    const std::string why = from_converted(converted, v);
    if (!why.empty()) return expected_got(*this, text) + ": " + why;
    if (!check(v).empty()) return expected_got(*this, text) + " (" + format(v) + " " + unit() + ")";
    m_value = v;
    return "";
  }
  return expected_got(*this, text);
}

template <typename T>
std::string Param<T>::check(const T& v) const {
  if constexpr (std::is_floating_point_v<T>) {
    if (!std::isfinite(v)) return expected_got(*this, format(v));
  }
  if (!m_choices.empty()) {
    if (std::find(m_choices.begin(), m_choices.end(), format(v)) == m_choices.end())
      return expected_got(*this, format(v));
  }
  if (m_range && (v < m_range->min || m_range->max < v)) return expected_got(*this, format(v));
  return "";
}

template <typename T>
std::string Param<T>::format(const T& v) const {
  if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    if (!m_hex) return std::to_string(v);
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%08" PRIx64, v);
    return buf;
  } else if constexpr (std::is_same_v<T, int64_t>) {
    return std::to_string(v);
  } else if constexpr (std::is_same_v<T, double>) {
    // Whole numbers in plain digits (100000, not 1e+05); otherwise the
    // shortest text that reads back to the same double: 0.1 stays "0.1".
    char buf[64];
    // (The range first: converting a double outside int64_t's is undefined.)
    if (v > -1e15 && v < 1e15 && v == static_cast<double>(static_cast<int64_t>(v)))
      return std::to_string(static_cast<int64_t>(v));
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
  } else {
    return v;
  }
}

template class Param<bool>;
template class Param<int64_t>;
template class Param<uint64_t>;
template class Param<double>;
template class Param<std::string>;

// ----------------------------------------------------------- ParamRegistry

namespace {

// The keys of the registry's presets that have a '*' (few; the registry is
// the one instance()). A parameter's lookup scans these and finds its exact
// key directly: elaborating thousands of parameters against thousands of
// per-instance presets (the variants', 256 nodes) is then not quadratic.
std::set<std::string>& pattern_keys() {
  static std::set<std::string>* const keys = new std::set<std::string>;  // outlives static parameters, as the registry
  return *keys;
}

}  // namespace

ParamRegistry& ParamRegistry::instance() {
  // Deliberately never destroyed: parameters with static storage duration
  // may unregister after a function-local static registry would be gone.
  static ParamRegistry* const registry = new ParamRegistry;
  return *registry;
}

void ParamRegistry::preset(const std::string& name, const std::string& text, ValueOrigin origin, bool list) {
  m_presets[name] = Preset{text, std::move(origin), false, list};
  if (name.find('*') != std::string::npos) pattern_keys().insert(name);
}

bool ParamRegistry::has_preset(const std::string& name) const {
  return m_presets.count(name) != 0 || const_cast<ParamRegistry*>(this)->find_pattern_preset(name) != m_presets.end();
}

// A key with '*' presets every parameter it matches; the longest (most
// specific) matching pattern wins, and an exact key beats every pattern.
std::map<std::string, Preset>::iterator ParamRegistry::find_pattern_preset(const std::string& name) {
  auto best = m_presets.end();
  for (const std::string& key : pattern_keys()) {  // in m_presets' order: ties go to the first, as before
    if (!glob_match(key, name)) continue;
    if (best == m_presets.end() || key.size() > best->first.size()) best = m_presets.find(key);
  }
  return best;
}

// The value a parameter takes: the command line (--set) wins over the config
// file (and its cases), whatever the patterns; within each, an exact key
// beats every pattern and a longer pattern a shorter one.
std::map<std::string, Preset>::iterator ParamRegistry::best_preset(const std::string& name) {
  auto best = m_presets.end();
  auto rank = [](const std::map<std::string, Preset>::iterator& it) {
    const bool command_line = it->second.origin.where == "--set";
    const bool exact = it->first.find('*') == std::string::npos;
    return std::make_tuple(command_line, exact, it->first.size());
  };
  // The exact key (a name has no '*'), then the matching patterns in key
  // order: the same winner as a scan of every preset.
  best = m_presets.find(name);
  for (const std::string& key : pattern_keys()) {
    if (!glob_match(key, name)) continue;
    const auto it = m_presets.find(key);
    if (best == m_presets.end() || rank(it) > rank(best)) best = it;
  }
  return best;
}

std::optional<Preset> ParamRegistry::take_preset(const std::string& name) {
  const auto it = m_presets.find(name);
  if (it == m_presets.end()) return std::nullopt;
  it->second.used = true;
  return it->second;
}

ParamBase* ParamRegistry::find(const std::string& name) const {
  const auto it = m_params.find(name);
  return it == m_params.end() ? nullptr : it->second;
}

std::vector<ParamBase*> ParamRegistry::all() const {
  std::vector<ParamBase*> out;
  out.reserve(m_params.size());
  for (const auto& entry : m_params) out.push_back(entry.second);  // std::map: already sorted
  return out;
}

void ParamRegistry::check_all_presets_used() const {
  std::string msg;
  auto report = [&msg](const std::string& line) { msg += (msg.empty() ? "" : "\n") + line; };
  for (const auto& [name, preset] : m_presets) {
    if (preset.used) continue;
    const std::string renamed = m_renamed ? m_renamed(name) : "";
    if (!renamed.empty() && renamed != name) {
      report(preset.origin.where + ": key '" + name + "' is an old name: it is now '" + renamed +
             "' (docs/models/cluster.md, names)");
      continue;
    }
    if (name.find('*') != std::string::npos) {
      // A pattern whose parameters all have exact keys is not an error.
      bool matches = false;
      for (const auto& entry : m_params) matches = matches || glob_match(name, entry.first);
      if (!matches) {
        std::string line = preset.origin.where + ": key '" + name + "' matches no parameter";
        const std::string suggestion = nearest_pattern(name);
        if (!suggestion.empty()) line += " (did you mean '" + suggestion + "'?)";
        report(line);
      }
      continue;
    }
    if (m_params.count(name)) {
      // Presets are only picked up when a parameter is constructed.
      report(preset.origin.where + ": key '" + name + "' was given after its parameter was created");
      continue;
    }
    // A group's name with a value ("topology: 2"): it wants a mapping.
    std::vector<std::string> members;
    for (const auto& entry : m_params)
      if (entry.first.rfind(name + ".", 0) == 0 && members.size() < 3) members.push_back(entry.first);
    for (const auto& [key, p] : m_presets)
      if (p.used && !m_params.count(key) && key.rfind(name + ".", 0) == 0 && members.size() < 3) members.push_back(key);
    if (!members.empty()) {
      std::string list;
      for (const std::string& m : members) list += (list.empty() ? "" : ", ") + m;
      report(preset.origin.where + ": key '" + name + "' is a group of parameters (" + list +
             ", ...), not one: expected a mapping under it (e.g. '" + name + ":' then '  " +
             last_component(members[0]) + ": VALUE' on the next line), not the value '" + preset.text + "'");
      continue;
    }
    std::string line = preset.origin.where + ": unknown key '" + name + "'";
    std::string suggestion = nearest(name);
    // The one-NI platform's names on a cluster, where an NI is node<N>.ni
    // (the nearest by spelling would be a switch box's key).
    static const std::regex one_ni(R"(^ni([0-9]+)\.(.*)$)");
    std::smatch ni;
    if (std::regex_match(name, ni, one_ni)) {
      const std::string in_node = "node" + ni[1].str() + ".ni." + ni[2].str();
      if (m_params.count(in_node)) suggestion = in_node;
    }
    if (!suggestion.empty()) line += " (did you mean '" + suggestion + "'?)";
    report(line);
  }
  if (!msg.empty()) throw ConfigError(msg);
}

std::string closest_name(const std::string& word, const std::vector<std::string>& candidates) {
  const size_t limit = std::max<size_t>(2, word.size() / 3);
  std::string best;
  size_t best_d = 0;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d <= limit && (best.empty() || d < best_d || (d == best_d && c < best))) {
      best = c;
      best_d = d;
    }
  }
  return best;
}

std::string ParamRegistry::nearest_pattern(const std::string& pattern) const {
  // The pattern's hierarchy is right, its leaf misspelt ("node*.pci.varient"):
  // the nearest leaf among the parameters under that hierarchy.
  const size_t dot = pattern.rfind('.');
  if (dot == std::string::npos) return "";
  const std::string prefix = pattern.substr(0, dot), leaf = pattern.substr(dot + 1);
  std::vector<std::string> leaves;
  for (const auto& entry : m_params) {
    const size_t d = entry.first.rfind('.');
    if (d != std::string::npos && glob_match(prefix, entry.first.substr(0, d)))
      leaves.push_back(entry.first.substr(d + 1));
  }
  const std::string best = closest_name(leaf, leaves);
  return best.empty() ? "" : prefix + "." + best;
}

std::string ParamRegistry::nearest(const std::string& name) const {
  // Valid names: parameters, and platform-level keys read with take_preset().
  std::vector<const std::string*> candidates;
  for (const auto& entry : m_params) candidates.push_back(&entry.first);
  for (const auto& [key, preset] : m_presets)
    if (preset.used && !m_params.count(key)) candidates.push_back(&key);

  // Comparing the last components too lets a right leaf under a wrong or
  // missing hierarchy ("clock_mhz", "cpu0.clock_mhz") still find its match.
  const std::string tail = last_component(name);
  const size_t full_limit = std::max<size_t>(2, name.size() / 3);
  const size_t tail_limit = std::max<size_t>(2, tail.size() / 3);
  std::string best;
  size_t best_score = 0, best_full = 0;
  for (const std::string* cand : candidates) {
    const size_t full = edit_distance(name, *cand);
    const size_t leaf = edit_distance(tail, last_component(*cand));
    const bool full_ok = full <= full_limit, leaf_ok = leaf <= tail_limit;
    if (!full_ok && !leaf_ok) continue;
    const size_t score = full_ok && leaf_ok ? std::min(full, leaf) : full_ok ? full : leaf;
    // Ties go to the closer full name, then to the alphabetically first one.
    if (best.empty() || score < best_score || (score == best_score && full < best_full) ||
        (score == best_score && full == best_full && *cand < best)) {
      best = *cand;
      best_score = score;
      best_full = full;
    }
  }
  return best;
}

void ParamRegistry::clear() {
  m_params.clear();
  m_presets.clear();
  pattern_keys().clear();
}

void ParamRegistry::add(ParamBase* p) {
  if (!m_params.emplace(p->name(), p).second) throw ConfigError("parameter '" + p->name() + "' declared twice");
}

void ParamRegistry::remove(ParamBase* p) {
  // Only the registered object: a rejected duplicate must not unregister the
  // original, and clear() may already have forgotten it.
  const auto it = m_params.find(p->name());
  if (it != m_params.end() && it->second == p) m_params.erase(it);
}

}  // namespace m2
