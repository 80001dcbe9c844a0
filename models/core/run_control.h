// Decides when a run ends and how: every CPU that runs firmware is a
// participant; the run ends when all of them have exited (through the
// simulation-control device), at the first firmware fault, when the
// platform reports a time limit or a stall, or when GDB kills it. Also
// collects the values firmware reports, for the end-of-run report and
// results.tsv.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <systemc>

namespace m2 {

class RunControl {
 public:
  enum class Outcome { Running, Completed, FirmwareFault, TimeLimit, Stalled, Error, Killed };

  // Process exit codes (documented in docs/usage.md).
  static constexpr int EXIT_CONFIG = 64, EXIT_FAULT = 65, EXIT_STALL = 66, EXIT_KILLED = 67, EXIT_INTERNAL = 70;

  void add_participant(const std::string& who);
  // `what` names what exited in the log line: "firmware" (an NI's or a switch
  // box's CPU) or "program" (a host's application).
  void firmware_exit(const std::string& who, uint32_t code, sc_core::sc_time when, const char* what = "firmware");
  // `what` names what failed in the summary: "firmware" (a CPU's fault) or
  // "program" (a host's outside program, docs/models/host-process.md).
  // `when`: the fault's simulated time where it is ahead of SystemC's (a CPU's
  // local time), so that the run's end time is not before its fault.
  void fault(const std::string& who, const std::string& report, const char* what = "firmware",
             sc_core::sc_time when = sc_core::SC_ZERO_TIME);
  void time_limit(const std::string& report);
  void stalled(const std::string& report,
               const std::string& summary = "simulation stalled: nothing left to happen but firmware has not exited");
  void error(const std::string& report);
  // GDB's kill request on `who`'s debug connection.
  void killed(const std::string& who);
  // Host software ended the whole run (MPI_Abort, an unimplemented MPI
  // function): exit code `code` clamped to 1..63, like a firmware exit code.
  void aborted(const std::string& who, int code, const std::string& report);

  struct Result {
    std::string source, key;
    int64_t value;
    std::string label;  // what the firmware calls it (FW_RESULT_NAMES), or empty
  };
  void record_result(const std::string& source, const std::string& key, int64_t value, const std::string& label = "");
  const std::vector<Result>& results() const { return m_results; }

  bool finished() const { return m_outcome != Outcome::Running; }
  // Simulated time of the last firmware exit, or of the fault that ended the
  // run (CPUs run ahead of SystemC time).
  sc_core::sc_time last_exit_time() const { return m_last_exit; }
  Outcome outcome() const { return m_outcome; }
  const std::string& summary() const { return m_summary; }
  // 0 when every firmware exited with 0; the first non-zero firmware code
  // (clamped to 1..63), also when the run then stalled or reached its time
  // limit; or one of the EXIT_* codes.
  int exit_code() const { return m_exit_code; }
  bool has_exited(const std::string& who) const { return m_exited.count(who) != 0; }
  // The CPU or host whose non-zero exit or fault decided the outcome ("" if none did).
  const std::string& failed_source() const { return m_failed_source; }
  const std::set<std::string>& participants() const { return m_participants; }

 private:
  void finish(Outcome o, int code, const std::string& summary);
  void finish_after_failure(Outcome o, const std::string& summary);
  std::set<std::string> m_participants, m_exited;
  std::vector<Result> m_results;
  Outcome m_outcome = Outcome::Running;
  int m_exit_code = 0;
  int m_first_nonzero = 0;
  std::string m_first_nonzero_who;
  std::string m_failed_source;  // "node0.host's program", "ni0.cpu's firmware"
  sc_core::sc_time m_last_exit = sc_core::SC_ZERO_TIME;
  std::string m_summary;
};

}  // namespace m2
