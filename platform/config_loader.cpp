// YAML config files and --set options to parameter presets (see config_loader.h).
#include "platform/config_loader.h"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

namespace m2 {

namespace {

// A dotted parameter name: no blanks, no empty component.
bool valid_key(const std::string& key) {
  if (key.empty() || key.front() == '.' || key.back() == '.' ||
      key.find("..") != std::string::npos)
    return false;
  for (const char c : key)
    if (std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

// 1-based line of a node; yaml-cpp gives implicit nulls no position of their own.
int line_of(const YAML::Node& node, int fallback) {
  const YAML::Mark mark = node.Mark();
  return mark.is_null() ? fallback : mark.line + 1;
}

struct Entry {
  std::string key, text;
  int line;
};

// Walks the mapping tree into dotted keys, rejecting what cannot be a preset.
class Flattener {
 public:
  explicit Flattener(const std::string& path) : m_path(path) {}

  void walk(const YAML::Node& mapping, const std::string& prefix) {
    for (const auto& kv : mapping) {
      const YAML::Node& k = kv.first;
      const YAML::Node& v = kv.second;
      const int key_line = line_of(k, 0);
      if (!k.IsScalar()) fail(key_line, "keys must be plain names" + under(prefix));
      const std::string& local = k.Scalar();
      if (!valid_key(local))
        fail(key_line, "bad key '" + local + "'" + under(prefix) +
                           ": expected a dotted name without blanks");
      const std::string key = prefix.empty() ? local : prefix + "." + local;
      switch (v.Type()) {
        case YAML::NodeType::Map:
          walk(v, key);
          break;
        case YAML::NodeType::Scalar:
          add(key, v.Scalar(), line_of(v, key_line));
          break;
        case YAML::NodeType::Sequence: {
          std::string joined;
          bool first = true;
          for (const YAML::Node& item : v) {
            if (!item.IsScalar())
              fail(line_of(item, key_line),
                   "key '" + key + "': list items must be plain values (a list of numbers or names)");
            joined += (first ? "" : ",") + item.Scalar();
            first = false;
          }
          add(key, joined, line_of(v, key_line));
          break;
        }
        default:  // null ("key:" alone, "~", "null") or undefined
          fail(key_line, "key '" + key + "' has no value");
      }
    }
  }

  const std::vector<Entry>& entries() const { return m_entries; }

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw ConfigError(m_path + ":" + std::to_string(line) + ": " + what);
  }

 private:
  static std::string under(const std::string& prefix) {
    return prefix.empty() ? "" : " (under '" + prefix + "')";
  }

  // yaml-cpp keeps duplicate keys, and "a: {b: 1}" collides with "a.b: 2"
  // only once flattened, so duplicates are caught here.
  void add(const std::string& key, const std::string& text, int line) {
    const auto [it, inserted] = m_first_line.emplace(key, line);
    if (!inserted)
      fail(line, "key '" + key + "' given twice (first at line " + std::to_string(it->second) + ")");
    m_entries.push_back({key, text, line});
  }

  std::string m_path;
  std::vector<Entry> m_entries;
  std::map<std::string, int> m_first_line;
};

}  // namespace

void load_config_presets(const std::string& path, ParamRegistry& reg) {
  // An ifstream opens a directory without complaint; reading it then fails.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ConfigError(path + ": cannot open config file: " + std::strerror(EISDIR));
  errno = 0;
  std::ifstream in(path);
  if (!in) {
    const int err = errno;
    throw ConfigError(path + ": cannot open config file: " +
                      (err ? std::strerror(err) : "unknown error"));
  }

  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(in);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(path + ":" + std::to_string(e.mark.line + 1) + ":" +
                      std::to_string(e.mark.column + 1) + ": YAML syntax error: " + e.msg);
  } catch (const YAML::Exception& e) {
    throw ConfigError(path + ": YAML error: " + e.msg);
  }

  Flattener flat(path);
  if (docs.size() > 1) flat.fail(line_of(docs[1], 0), "only one YAML document is allowed");
  // An empty or comments-only file is a valid config that changes nothing.
  if (!docs.empty() && !docs[0].IsNull()) {
    if (!docs[0].IsMap())
      flat.fail(line_of(docs[0], 1),
                "the top level must be a mapping of keys to values (e.g. 'ni0.cpu.clock_mhz: 300')");
    flat.walk(docs[0], "");
  }

  // Preset only once the whole file is known to be good.
  for (const Entry& e : flat.entries())
    reg.preset(e.key, e.text, ValueOrigin{path + ":" + std::to_string(e.line)});
}

void apply_set_override(const std::string& assignment, ParamRegistry& reg) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || !valid_key(assignment.substr(0, eq)))
    throw ConfigError("--set '" + assignment + "': expected NAME=VALUE");
  // An empty VALUE is only valid for strings; the parameter decides.
  reg.preset(assignment.substr(0, eq), assignment.substr(eq + 1), ValueOrigin{"--set"});
}

void apply_gdb_option(const std::string& assignment, ParamRegistry& reg) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || !valid_key(assignment.substr(0, eq)) || eq + 1 == assignment.size())
    throw ConfigError("--gdb '" + assignment + "': expected CPU=PORT (e.g. ni0.cpu=1234)");
  // The parameter checks the port; an unknown CPU is an unknown key.
  reg.preset(assignment.substr(0, eq) + ".gdb_port", assignment.substr(eq + 1), ValueOrigin{"--gdb"});
}

std::string config_name_of(const std::string& path) {
  return std::filesystem::path(path).stem().string();
}

}  // namespace m2
