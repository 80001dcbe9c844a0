#include "trace/trace_recorder.h"

#include <cinttypes>
#include <cstdio>
#include <sstream>

#include "core/glob.h"
#include "core/output_file.h"
#include "core/params.h"
#include "trace/perfetto_writer.h"

namespace m2 {

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

void TraceRecorder::record(const TraceRecord& r, const MessageId* msgs, size_t n) {
  if (r.end_ps < m_from || r.start_ps > m_to) return;
  m_records.push_back(r);
  if (n == 0) return;
  m_records.back().msg_first = static_cast<uint32_t>(m_messages.size());
  m_records.back().msg_count = static_cast<uint32_t>(n);
  m_messages.insert(m_messages.end(), msgs, msgs + n);
}

void TraceRecorder::write_csv(const std::string& path) const {
  OutputFile file(path, "the transaction trace");
  std::ostream& f = file.stream();
  f << "binding,start_ps,end_ps,command,address,bytes,response,msg\n";
  char line[256];
  for (const TraceRecord& r : m_records) {
    std::snprintf(line, sizeof line, ",%" PRIu64 ",%" PRIu64 ",%c,0x%08" PRIx64 ",%u,%s,", r.start_ps, r.end_ps,
                  r.command, r.address, r.bytes, r.ok ? "ok" : "error");
    f << m_bindings[r.binding] << line;
    for (uint32_t i = 0; i < r.msg_count; ++i) f << (i ? " " : "") << message_name(m_messages[r.msg_first + i]);
    f << "\n";
  }
  file.commit();
}

void TraceRecorder::add_to(PerfettoTrace& trace) const {
  const unsigned pid = trace.add_process("transactions");
  std::vector<unsigned> tracks;
  for (const std::string& b : m_bindings) tracks.push_back(trace.add_track(pid, b));
  char name[32], args[160];
  for (const TraceRecord& r : m_records) {
    std::snprintf(name, sizeof name, "%c %u B", r.command, r.bytes);
    std::snprintf(args, sizeof args, "\"address\":\"0x%08" PRIx64 "\",\"bytes\":%u,\"response\":\"%s\"", r.address,
                  r.bytes, r.ok ? "ok" : "error");
    trace.add(tracks[r.binding], name, r.start_ps, r.end_ps, args,
              std::vector<MessageId>(m_messages.begin() + r.msg_first, m_messages.begin() + r.msg_first + r.msg_count));
  }
}

void TraceRecorder::clear() {
  m_patterns.clear();
  m_bindings.clear();
  m_records.clear();
  m_messages.clear();
  m_from = 0;
  m_to = UINT64_MAX;
}

std::string TraceRecorder::last_records(const std::string& prefix, size_t n) const {
  if (!enabled()) return "tracing is off: run with --trace PATTERN (or sim.trace) to record transactions\n";
  std::vector<const TraceRecord*> found;
  for (auto it = m_records.rbegin(); it != m_records.rend() && found.size() < n; ++it)
    if (m_bindings[it->binding].rfind(prefix, 0) == 0) found.push_back(&*it);
  if (found.empty()) return "no transaction of " + prefix + "* traced yet\n";
  std::string r;
  char line[200];
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    const TraceRecord& t = **it;
    std::snprintf(line, sizeof line, "  %14.6f us  %-22s %c 0x%08llx %5u bytes%s\n", t.start_ps / 1e6,
                  m_bindings[t.binding].c_str(), t.command, static_cast<unsigned long long>(t.address), t.bytes,
                  t.ok ? "" : "  (error)");
    r += line;
  }
  return r;
}

}  // namespace m2
