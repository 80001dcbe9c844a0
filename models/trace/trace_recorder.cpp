#include "trace/trace_recorder.h"

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "core/glob.h"
#include "core/params.h"

namespace m2 {
namespace {

std::ofstream open_out(const std::string& path) {
  std::ofstream f(path, std::ios::trunc);
  if (!f) throw ConfigError(path + ": cannot write the trace file");
  return f;
}

std::string json_escape(const std::string& s) {
  std::string r;
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    r += c;
  }
  return r;
}

}  // namespace

bool trace_pattern_matches(const std::string& pattern, const std::string& name) {
  if (glob_match(pattern, name)) return true;
  for (size_t dot = name.find('.'); dot != std::string::npos; dot = name.find('.', dot + 1))
    if (glob_match(pattern, name.substr(0, dot))) return true;
  return false;
}

TraceRecorder& TraceRecorder::instance() {
  static TraceRecorder r;
  return r;
}

std::vector<std::string> split_trace_patterns(const std::string& text) {
  std::string t = text;
  for (char& c : t)
    if (c == ',') c = ' ';
  std::vector<std::string> patterns;
  std::istringstream in(t);
  for (std::string p; in >> p;) patterns.push_back(p);
  return patterns;
}

bool any_trace_pattern_matches(const std::vector<std::string>& patterns, const std::string& name) {
  for (const std::string& p : patterns)
    if (trace_pattern_matches(p, name)) return true;
  return false;
}

void TraceRecorder::configure(const std::string& patterns, uint64_t from_ps, uint64_t to_ps) {
  m_patterns = split_trace_patterns(patterns);
  m_from = from_ps;
  m_to = to_ps;
}

bool TraceRecorder::matches(const std::string& binding_name) const {
  return any_trace_pattern_matches(m_patterns, binding_name);
}

unsigned TraceRecorder::add_binding(const std::string& name) {
  m_bindings.push_back(name);
  return static_cast<unsigned>(m_bindings.size() - 1);
}

void TraceRecorder::record(const TraceRecord& r) {
  if (r.end_ps < m_from || r.start_ps > m_to) return;
  m_records.push_back(r);
}

void TraceRecorder::write_csv(const std::string& path) const {
  std::ofstream f = open_out(path);
  f << "binding,start_ps,end_ps,command,address,bytes,response\n";
  char line[256];
  for (const TraceRecord& r : m_records) {
    std::snprintf(line, sizeof line, ",%" PRIu64 ",%" PRIu64 ",%c,0x%08" PRIx64 ",%u,%s\n", r.start_ps, r.end_ps,
                  r.command, r.address, r.bytes, r.ok ? "ok" : "error");
    f << m_bindings[r.binding] << line;
  }
}

// Chrome trace event format (loads in ui.perfetto.dev): one thread track per
// binding, a complete ("X") slice per transaction, times in microseconds.
void TraceRecorder::write_perfetto_json(const std::string& path) const {
  std::ofstream f = open_out(path);
  f << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  for (size_t i = 0; i < m_bindings.size(); ++i) {
    f << (first ? "" : ",\n") << "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":" << i
      << ",\"args\":{\"name\":\"" << json_escape(m_bindings[i]) << "\"}}";
    first = false;
  }
  char buf[320];
  for (const TraceRecord& r : m_records) {
    std::snprintf(buf, sizeof buf,
                  "{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"name\":\"%c %u B\",\"ts\":%.6f,\"dur\":%.6f,"
                  "\"args\":{\"address\":\"0x%08" PRIx64 "\",\"bytes\":%u,\"response\":\"%s\"}}",
                  r.binding, r.command, r.bytes, static_cast<double>(r.start_ps) / 1e6,
                  static_cast<double>(r.end_ps - r.start_ps) / 1e6, r.address, r.bytes, r.ok ? "ok" : "error");
    f << (first ? "" : ",\n") << buf;
    first = false;
  }
  f << "\n]}\n";
}

void TraceRecorder::clear() {
  m_patterns.clear();
  m_bindings.clear();
  m_records.clear();
  m_from = 0;
  m_to = UINT64_MAX;
}

}  // namespace m2
