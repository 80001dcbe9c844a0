// The cases a config declares (see config_cases.h).
#include "platform/config_cases.h"

#include <map>
#include <sstream>

namespace m2 {

namespace {

// Axis names become columns of a TSV table, level names parts of a folder name.
bool valid_name(const std::string& s, bool level) {
  if (s.empty() || s.size() > 40) return false;
  for (const char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    (level && (c == '.' || c == '+' || c == '-'));
    if (!ok) return false;
  }
  return true;
}

struct Level {
  std::string name;
  std::vector<ConfigEntry> settings;
};

struct Axis {
  std::string name;
  std::vector<Level> levels;
};

class CasesParser {
 public:
  explicit CasesParser(const std::string& path) : m_path(path) {}

  ConfigCases parse(const YAML::Node& cases, int line) {
    if (!cases.IsMap())
      fail(line, "'cases' must be a mapping with 'vary' (axes of named levels) and optionally 'show'");
    ConfigCases out;
    std::vector<Axis> axes;
    for (const auto& kv : cases) {
      const std::string key = kv.first.Scalar();
      const int key_line = yaml_line(kv.first, line);
      if (key == "show") {
        if (!kv.second.IsScalar() || !valid_name(kv.second.Scalar(), false))
          fail(key_line, "cases.show: expected the name of a results column (e.g. latency_us)");
        out.show = kv.second.Scalar();
      } else if (key == "vary") {
        axes = parse_axes(kv.second, key_line);
      } else {
        fail(key_line, "cases: unknown key '" + key + "' (expected 'vary' and optionally 'show')");
      }
    }
    if (axes.empty()) fail(line, "cases: 'vary' is missing: give at least one axis of named levels");
    check_disjoint(axes);
    size_t n = 1;
    for (const Axis& a : axes) {
      n *= a.levels.size();
      if (n > MAX_CONFIG_CASES)
        fail(line, "cases: the axes give more than " + std::to_string(MAX_CONFIG_CASES) + " cases");
    }
    for (const Axis& a : axes) out.axes.push_back(a.name);
    // Cross product, the first axis varying slowest.
    for (size_t i = 0; i < n; i++) {
      ConfigCase c;
      size_t rest = i;
      std::vector<size_t> pick(axes.size());
      for (size_t k = axes.size(); k-- > 0;) {
        pick[k] = rest % axes[k].levels.size();
        rest /= axes[k].levels.size();
      }
      for (size_t k = 0; k < axes.size(); k++) {
        const Level& lv = axes[k].levels[pick[k]];
        c.levels.emplace_back(axes[k].name, lv.name);
        c.name += (k ? "," : "") + axes[k].name + "=" + lv.name;
        c.dir += (k ? "_" : "") + axes[k].name + "-" + lv.name;
        c.settings.insert(c.settings.end(), lv.settings.begin(), lv.settings.end());
      }
      out.cases.push_back(std::move(c));
    }
    return out;
  }

 private:
  std::vector<Axis> parse_axes(const YAML::Node& vary, int line) {
    if (!vary.IsMap() || vary.size() == 0)
      fail(line,
           "cases.vary: expected axes, each a mapping of level names to settings, e.g.\n"
           "  vary:\n    burst:\n      continuous: {node*.ni.mlcx.variant: maestro2}\n"
           "      plain: {node*.ni.mlcx.variant: plain}");
    std::vector<Axis> axes;
    for (const auto& kv : vary) {
      Axis a;
      a.name = kv.first.Scalar();
      const int axis_line = yaml_line(kv.first, line);
      if (!valid_name(a.name, false))
        fail(axis_line, "cases.vary: bad axis name '" + a.name + "': expected letters, digits and '_' (a column name)");
      for (const Axis& other : axes)
        if (other.name == a.name) fail(axis_line, "cases.vary: axis '" + a.name + "' given twice");
      if (!kv.second.IsMap() || kv.second.size() == 0)
        fail(axis_line, "cases.vary." + a.name + ": expected one or more levels, each 'NAME: {settings}'");
      for (const auto& lv : kv.second) {
        Level level;
        level.name = lv.first.Scalar();
        const int level_line = yaml_line(lv.first, axis_line);
        const std::string where = "cases.vary." + a.name + "." + level.name;
        if (!valid_name(level.name, true))
          fail(level_line, "cases.vary." + a.name + ": bad level name '" + level.name +
                               "': expected letters, digits and '_' '.' '+' '-'");
        for (const Level& other : a.levels)
          if (other.name == level.name) fail(level_line, where + ": level given twice");
        if (lv.second.IsMap()) {
          level.settings = flatten_yaml_mapping(lv.second, m_path);
          for (const ConfigEntry& e : level.settings)
            if (e.key == "cases" || e.key.rfind("cases.", 0) == 0)
              fail(e.line, where + ": a case cannot declare cases");
        } else if (!lv.second.IsNull()) {
          fail(level_line, where + ": expected a mapping of settings (or nothing), e.g. {sb0.variant: inorder}");
        }
        a.levels.push_back(std::move(level));
      }
      axes.push_back(std::move(a));
    }
    return axes;
  }

  // Two axes setting the same key would make the product's meaning depend on
  // their order.
  void check_disjoint(const std::vector<Axis>& axes) const {
    std::map<std::string, std::string> owner;  // key -> axis
    for (const Axis& a : axes)
      for (const Level& lv : a.levels)
        for (const ConfigEntry& e : lv.settings) {
          const auto [it, inserted] = owner.emplace(e.key, a.name);
          if (!inserted && it->second != a.name)
            fail(e.line, "cases.vary." + a.name + "." + lv.name + ": key '" + e.key + "' is also set by axis '" +
                             it->second + "': each key may be varied by one axis only");
        }
  }

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw ConfigError(m_path + ":" + std::to_string(line) + ": " + what);
  }

  std::string m_path;
};

}  // namespace

ConfigCases load_config_cases(const std::string& path) {
  const YAML::Node doc = load_yaml_config(path);
  if (!doc.IsMap()) return {};
  for (const auto& kv : doc) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "";
    if (key.rfind("cases.", 0) == 0)
      throw ConfigError(path + ":" + std::to_string(yaml_line(kv.first, 0)) + ": key '" + key +
                        "': declare cases as one nested mapping under 'cases:' (see docs/usage.md)");
    if (key == "cases") return CasesParser(path).parse(kv.second, yaml_line(kv.first, 0));
  }
  return {};
}

const ConfigCase& find_config_case(const ConfigCases& cases, const std::string& name, const std::string& path) {
  for (const ConfigCase& c : cases.cases)
    if (c.name == name || c.dir == name) return c;
  std::string list;
  for (const ConfigCase& c : cases.cases) list += "\n  " + c.name;
  throw ConfigError(path + ": no case '" + name + "'; the config declares:" + list);
}

void apply_case_presets(const ConfigCase& c, const std::string& path, ParamRegistry& reg) {
  for (const ConfigEntry& e : c.settings)
    reg.preset(e.key, e.text, ValueOrigin{path + ":" + std::to_string(e.line) + ", case " + c.name}, e.list);
}

std::string format_cases_table(const ConfigCases& cases) {
  std::ostringstream os;
  if (!cases.show.empty()) os << "#show\t" << cases.show << "\n";
  os << "case\tdir";
  for (const std::string& a : cases.axes) os << "\t" << a;
  os << "\n";
  for (const ConfigCase& c : cases.cases) {
    os << c.name << "\t" << c.dir;
    for (const auto& lv : c.levels) os << "\t" << lv.second;
    os << "\n";
  }
  return os.str();
}

}  // namespace m2
