#include "core/run_control.h"

#include "core/console_fold.h"
#include "core/log.h"

namespace m2 {

void RunControl::add_participant(const std::string& who) { m_participants.insert(who); }

void RunControl::firmware_exit(const std::string& who, uint32_t code, sc_core::sc_time when, const char* what) {
  if (finished() || !m_exited.insert(who).second) return;
  if (when > m_last_exit) m_last_exit = when;
  ConsoleFold::instance().line(
      who, std::string(what) + " exited with code " + std::to_string(code) + " at " + when.to_string());
  if (code != 0 && m_first_nonzero == 0) {
    m_first_nonzero = code > 63 ? 63 : static_cast<int>(code);
    m_first_nonzero_who = who + "'s " + what;
    m_failed_source = who;
  }
  if (m_exited.size() == m_participants.size()) {
    finish(Outcome::Completed, m_first_nonzero,
           m_first_nonzero ? m_first_nonzero_who + " exited with a non-zero code" : "all firmware exited with code 0");
  }
}

void RunControl::fault(const std::string& who, const std::string& report, const char* what, sc_core::sc_time when) {
  if (finished()) return;
  if (when > m_last_exit) m_last_exit = when;
  m_failed_source = who;
  Log::instance().error(report);
  finish(Outcome::FirmwareFault, EXIT_FAULT, std::string(what) + " fault on " + who);
}

void RunControl::time_limit(const std::string& report) {
  if (finished()) return;
  Log::instance().error(report);
  finish_after_failure(Outcome::TimeLimit, "time limit reached before all firmware exited");
}

void RunControl::stalled(const std::string& report, const std::string& summary) {
  if (finished()) return;
  Log::instance().error(report);
  finish_after_failure(Outcome::Stalled, summary);
}

// A run that stalls after a program or firmware exited with a non-zero code
// (the others waiting for what it would have done) ends with that code: the
// first failure is the cause a script needs to see, the stall its result.
void RunControl::finish_after_failure(Outcome o, const std::string& summary) {
  if (m_first_nonzero == 0) return finish(o, EXIT_STALL, summary);
  finish(o, m_first_nonzero,
         m_first_nonzero_who + " exited with code " + std::to_string(m_first_nonzero) + ", then: " + summary);
}

void RunControl::error(const std::string& report) {
  if (finished()) return;
  Log::instance().error(report);
  finish(Outcome::Error, EXIT_CONFIG, report);
}

void RunControl::killed(const std::string& who) {
  if (finished()) return;
  Log::instance().error("run killed from GDB on " + who);
  finish(Outcome::Killed, EXIT_KILLED, "killed from GDB on " + who);
}

void RunControl::aborted(const std::string& who, int code, const std::string& report) {
  if (finished()) return;
  Log::instance().error(report);
  finish(Outcome::Error, code < 1 ? 1 : code > 63 ? 63 : code, who + " ended the run: " + report);
}

void RunControl::record_result(const std::string& source, const std::string& key, int64_t value,
                               const std::string& label) {
  for (Result& r : m_results) {
    if (r.source == source && r.key == key) {
      r.value = value;
      r.label = label;
      return;
    }
  }
  m_results.push_back({source, key, value, label});
}

void RunControl::finish(Outcome o, int code, const std::string& summary) {
  m_outcome = o;
  m_exit_code = code;
  m_summary = summary;
  if (sc_core::sc_is_running()) sc_core::sc_stop();
}

}  // namespace m2
