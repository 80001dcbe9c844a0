// What the trace taps saw in a run: one record per transaction crossing a
// traced binding (start and end time, command, address, bytes, who, answer),
// written at the end of the run as CSV and as a Chrome/Perfetto JSON trace.
// Which bindings are traced is a list of name patterns (`*` matches any
// text; a pattern also covers everything below the name it matches, so
// "node*.pci" traces node0.pci.ni and node0.pci.bridge). Off by default.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/message_tag.h"

namespace m2 {

class PerfettoTrace;

struct TraceRecord {
  unsigned binding;   // index into TraceRecorder::bindings()
  uint64_t start_ps;  // the transaction's start (initiator's local time)
  uint64_t end_ps;    // when its annotated delay ran out
  char command;       // 'R', 'W' or 'I' (ignore)
  uint64_t address;
  uint32_t bytes;
  bool ok;                 // TLM_OK_RESPONSE
  uint32_t msg_first = 0;  // its messages (sim.messages): TraceRecorder::messages()[first, first + count)
  uint32_t msg_count = 0;
};

class TraceRecorder {
 public:
  static TraceRecorder& instance();

  // Patterns (comma- or space-separated) and an optional time window.
  void configure(const std::string& patterns, uint64_t from_ps, uint64_t to_ps);
  bool enabled() const { return !m_patterns.empty(); }
  bool matches(const std::string& binding_name) const;

  // A traced binding; returns its index for record().
  unsigned add_binding(const std::string& name);
  const std::vector<std::string>& bindings() const { return m_bindings; }
  // `msgs`: the n messages the transaction carries (may be none).
  void record(const TraceRecord& r, const MessageId* msgs = nullptr, size_t n = 0);
  const std::vector<TraceRecord>& records() const { return m_records; }
  const std::vector<MessageId>& messages() const { return m_messages; }

  // transactions.csv; throws ConfigError naming the path when it cannot write.
  void write_csv(const std::string& path) const;
  // A track per binding ("transactions") and a slice per transaction.
  void add_to(PerfettoTrace& trace) const;

  // The last `n` transactions of the bindings whose names start with
  // `prefix` ("node1." for a node), one line each (GDB "monitor trace").
  std::string last_records(const std::string& prefix, size_t n) const;

  void clear();  // tests

 private:
  std::vector<std::string> m_patterns, m_bindings;
  std::vector<TraceRecord> m_records;
  std::vector<MessageId> m_messages;
  uint64_t m_from = 0, m_to = UINT64_MAX;
};

// Wildcard match of a whole name, or of a prefix that ends at a '.'.
bool trace_pattern_matches(const std::string& pattern, const std::string& name);
// The patterns of a comma- or space-separated list ("node*.pci, sb0").
std::vector<std::string> split_trace_patterns(const std::string& text);
// Whether any of `patterns` matches `name`.
bool any_trace_pattern_matches(const std::vector<std::string>& patterns, const std::string& name);

}  // namespace m2
