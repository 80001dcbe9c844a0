// Text output of one speaker (a CPU's console, a host program's printf),
// assembled into lines that go to the run log with the speaker's name as
// prefix and are kept for the report and the tests.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace m2 {

class TextOutput {
 public:
  explicit TextOutput(std::string speaker) : m_speaker(std::move(speaker)) {}
  virtual ~TextOutput() = default;

  void put(char c);
  void write(const std::string& text) {
    for (char c : text) put(c);
  }
  // Emits a last line left without a newline (end of run).
  void flush();

  // Also hands every complete line, with its '\n', to `listener` (the
  // platform forwards a CPU's console to its debugger).
  void on_line(std::function<void(const std::string&)> listener) { m_listener = std::move(listener); }

  // Lines are not read for results-table directives (@columns, @row): an
  // outside program's output is its own text, not the platform's protocol.
  void ignore_table_lines() { m_table_lines = false; }

  const std::string& speaker() const { return m_speaker; }
  const std::vector<std::string>& lines() const { return m_lines; }

 private:
  std::string m_speaker, m_current;
  std::vector<std::string> m_lines;
  std::function<void(const std::string&)> m_listener;
  bool m_table_lines = true;
};

}  // namespace m2
