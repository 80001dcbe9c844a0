// The run log: every line the simulation prints (firmware console output,
// warnings, the end-of-run report) goes to stdout or stderr and, once a run
// directory is known, to run.log in it.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

namespace m2 {

class Log {
 public:
  static Log& instance();
  // Starts copying everything to a new file `path` (whatever had the name
  // goes first; never written through a link: core/output_file.h). Throws
  // ConfigError.
  void open_file(const std::string& path);
  void close_file();
  void set_quiet(bool quiet) { m_quiet = quiet; }  // stdout suppressed, file kept

  void out(const std::string& line);  // normal output (stdout)
  // The last lines out() kept off stdout (--quiet), oldest first: a failed
  // quiet run shows them, since the reason is often in them.
  std::vector<std::string> quieted_tail() const;
  // The last lines out() kept off stdout that came from `source` (lines
  // "[source] ..."), oldest first: its own reason, however much the other
  // sources said after it.
  std::vector<std::string> quieted_tail_of(const std::string& source) const;
  // Output the user must see even with --quiet (the run waits for them, or
  // it tells how a failed run ended): stdout when not quiet, else stderr.
  void always(const std::string& line);
  // A run's results and outcome: stdout even with --quiet (only progress and
  // firmware chatter are quiet), and the file.
  void result(const std::string& line);
  // The file only (the full end-of-run report, which the console summarises).
  void file_only(const std::string& line);
  // A source's "[source] ..." line folded off the console (core/console_fold.h):
  // the file, and with --quiet that source's tail (quieted_tail_of).
  void folded(const std::string& line);
  // A status line on stderr, rewritten in place (the progress meter, only on
  // a terminal); every other line clears it first. "" clears it.
  void status(const std::string& line);
  void warning(const std::string& line);  // "warning: ..." (stderr)
  void error(const std::string& line);    // "error: ..." (stderr)

 private:
  void clear_status();
  void remember_for_source(const std::string& line);  // m_mutex held
  std::unique_ptr<std::ostream> m_file;               // null: no run log
  bool m_quiet = false;
  std::deque<std::string> m_quieted;  // at most kQuietedTail lines
  static constexpr size_t kQuietedTail = 64;
  std::map<std::string, std::deque<std::string>> m_quieted_by_source;  // at most kSourceTail lines each
  static constexpr size_t kSourceTail = 6;
  bool m_status_shown = false;
  mutable std::mutex m_mutex;  // the progress meter's thread writes the status line
};

}  // namespace m2
