// A value-change-dump (VCD) file of named integer signals, for GTKWave.
// Signals are dotted names ("node0.ni.netbuf.tx0_used"); the dots become
// VCD scopes. Changes are kept in memory and written at the end, so the file
// is complete and sorted whatever order the samples came in.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace m2 {

class VcdWriter {
 public:
  // Returns the signal's index for change().
  unsigned add_signal(const std::string& name, unsigned width);
  // Records `value` at `time_ps` if it differs from the signal's last value.
  // A value that does not fit the signal's width throws std::logic_error (a
  // probe declared too narrow: the dump would show its low bits only).
  void change(unsigned signal, uint64_t time_ps, uint64_t value);
  size_t signals() const { return m_signals.size(); }
  // (name, width) of each signal, in the order added.
  std::vector<std::pair<std::string, unsigned>> signal_list() const;
  // The scope that holds every signal in the file.
  static constexpr const char* kTopScope = "m2vp";
  size_t changes() const { return m_changes.size(); }
  // Throws ConfigError naming `path` when it cannot write.
  void write(const std::string& path) const;

 private:
  struct Signal {
    std::string name;
    unsigned width;
    uint64_t last;
    bool seen;
  };
  struct Change {
    uint64_t time_ps;
    unsigned signal;
    uint64_t value;
  };
  std::vector<Signal> m_signals;
  std::vector<Change> m_changes;
};

}  // namespace m2
