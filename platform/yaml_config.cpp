// YAML config documents and their flattening into dotted keys (see yaml_config.h).
#include "platform/yaml_config.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <sstream>

#include "core/input_file.h"
#include "core/params.h"

namespace m2 {

bool valid_config_key(const std::string& key) {
  if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos) return false;
  for (const char c : key)
    if (std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

int yaml_line(const YAML::Node& node, int fallback) {
  const YAML::Mark mark = node.Mark();
  return mark.is_null() ? fallback : mark.line + 1;
}

namespace {

// Limits that keep a hostile or broken config from exhausting the stack or
// memory: real configs nest 4-5 levels and hold a few hundred values; a
// self-referring alias ("&t {self: *t}") would otherwise nest forever, and
// aliases of aliases multiply the values exponentially.
constexpr int kMaxDepth = 32;
constexpr size_t kMaxValues = 100000;
constexpr uint64_t kMaxConfigBytes = 4u << 20;

// Walks the mapping tree into dotted keys, rejecting what cannot be a preset.
class Flattener {
 public:
  Flattener(const std::string& path, const std::vector<std::string>& skip) : m_path(path), m_skip(skip) {}

  void walk(const YAML::Node& mapping, const std::string& prefix, int depth = 1) {
    if (depth > kMaxDepth)
      fail(yaml_line(mapping, 0), "key '" + prefix.substr(0, 60) + (prefix.size() > 60 ? "..." : "") +
                                      "' nests deeper than " + std::to_string(kMaxDepth) +
                                      " levels (a YAML alias that contains itself?)");
    for (const auto& kv : mapping) {
      const YAML::Node& k = kv.first;
      const YAML::Node& v = kv.second;
      const int key_line = yaml_line(k, 0);
      if (!k.IsScalar()) fail(key_line, "keys must be plain names" + under(prefix));
      const std::string& local = k.Scalar();
      if (prefix.empty() && std::find(m_skip.begin(), m_skip.end(), local) != m_skip.end()) continue;
      if (!valid_config_key(local))
        fail(key_line, "bad key '" + local + "'" + under(prefix) + ": expected a dotted name without blanks");
      const std::string key = prefix.empty() ? local : prefix + "." + local;
      switch (v.Type()) {
        case YAML::NodeType::Map:
          walk(v, key, depth + 1);
          break;
        case YAML::NodeType::Scalar:
          add(key, v.Scalar(), yaml_line(v, key_line));
          break;
        case YAML::NodeType::Sequence: {
          std::string joined;
          bool first = true;
          for (const YAML::Node& item : v) {
            if (!item.IsScalar())
              fail(yaml_line(item, key_line),
                   "key '" + key + "': list items must be plain values (a list of numbers or names)");
            joined += (first ? "" : ",") + item.Scalar();
            first = false;
          }
          add(key, joined, yaml_line(v, key_line), true);
          break;
        }
        default:  // null ("key:" alone, "~", "null") or undefined
          fail(key_line, "key '" + key + "' has no value");
      }
    }
  }

  std::vector<ConfigEntry> take() { return std::move(m_entries); }

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw ConfigError(m_path + ":" + std::to_string(line) + ": " + what);
  }

 private:
  static std::string under(const std::string& prefix) { return prefix.empty() ? "" : " (under '" + prefix + "')"; }

  // yaml-cpp keeps duplicate keys, and "a: {b: 1}" collides with "a.b: 2"
  // only once flattened, so duplicates are caught here.
  void add(const std::string& key, const std::string& text, int line, bool list = false) {
    if (m_entries.size() >= kMaxValues)
      fail(line, "more than " + std::to_string(kMaxValues) + " values (aliases that repeat each other?)");
    const auto [it, inserted] = m_first_line.emplace(key, line);
    if (!inserted) fail(line, "key '" + key + "' given twice (first at line " + std::to_string(it->second) + ")");
    m_entries.push_back({key, text, line, list});
  }

  std::string m_path;
  std::vector<std::string> m_skip;
  std::vector<ConfigEntry> m_entries;
  std::map<std::string, int> m_first_line;
};

// Where each document starts, nothing else. yaml-cpp 0.7's LoadAll loops
// forever, allocating, on a token no rule consumes (a ',' that starts the
// document, as in ",a" or "'x' ,a": yaml-cpp issue 1040, fixed upstream in
// PR 1319): every further "document" is an empty one at the same place.
// This pass over the events stops at the first document that does not
// move and names it.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
  YAML::Mark start;
};

void check_documents_advance(const std::string& text, const std::string& path) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts h;
  int previous = -1;
  while (parser.HandleNextDocument(h)) {
    if (h.start.pos == previous) {
      const auto at = static_cast<size_t>(h.start.pos);
      const std::string what = at < text.size() ? std::string("'") + text[at] + "'" : "the end";
      throw ConfigError(path + ":" + std::to_string(h.start.line + 1) + ":" + std::to_string(h.start.column + 1) +
                        ": YAML syntax error: unexpected " + what + " (it starts no key, value or list item)");
    }
    previous = h.start.pos;
  }
}

// yaml-cpp's message for a tab in the indentation says nothing of tabs
// ("illegal map value"): name it when the line has one (or the line before:
// the error can surface on the line after).
std::string tab_hint(const std::string& text, int line) {
  std::istringstream in(text);
  std::string l;
  for (int n = 0; std::getline(in, l) && n <= line; ++n) {
    if (n < line - 1) continue;
    const size_t indent_end = l.find_first_not_of(" \t");
    const size_t tab = l.find('\t');
    if (tab != std::string::npos && (indent_end == std::string::npos || tab < indent_end))
      return " (line " + std::to_string(n + 1) + " is indented with a tab: YAML indents with spaces only)";
  }
  return "";
}

}  // namespace

YAML::Node load_yaml_config(const std::string& path) {
  const std::vector<uint8_t> bytes = read_input_file(path, "config file", kMaxConfigBytes);
  std::vector<YAML::Node> docs;
  const std::string text(bytes.begin(), bytes.end());
  try {
    check_documents_advance(text, path);
    docs = YAML::LoadAll(text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's guard against stack overflow; its own message says "bad file".
    throw ConfigError(path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1) +
                      ": brackets or blocks nested " + std::to_string(e.depth()) +
                      " deep, more than the YAML reader allows (configs need a few levels)");
  } catch (const YAML::ParserException& e) {
    const std::string where = path + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
    // YAML allows a plain key of at most 1024 characters; yaml-cpp then only
    // finds an "illegal map value" after it.
    if (e.msg == YAML::ErrorMsg::MAP_VALUE && e.mark.column >= 1024)
      throw ConfigError(where +
                        ": a key longer than 1024 characters (YAML's limit for a plain key; expected a "
                        "dotted parameter name)");
    throw ConfigError(where + ": YAML syntax error: " + e.msg + tab_hint(text, e.mark.line));
  } catch (const YAML::Exception& e) {
    throw ConfigError(path + ": YAML error: " + e.msg);
  }
  if (docs.size() > 1)
    throw ConfigError(path + ":" + std::to_string(yaml_line(docs[1], 0)) + ": only one YAML document is allowed");
  // An empty or comments-only file is a valid config that changes nothing.
  if (docs.empty() || docs[0].IsNull()) return YAML::Node();
  if (!docs[0].IsMap())
    throw ConfigError(path + ":" + std::to_string(yaml_line(docs[0], 1)) +
                      ": the top level must be a mapping of keys to values (e.g. 'ni0.cpu.clock_mhz: 300')");
  return docs[0];
}

std::vector<ConfigEntry> flatten_yaml_mapping(const YAML::Node& mapping, const std::string& path,
                                              const std::vector<std::string>& skip) {
  Flattener flat(path, skip);
  if (mapping.IsMap()) flat.walk(mapping, "");
  return flat.take();
}

}  // namespace m2
