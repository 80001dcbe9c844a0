// Folds the per-instance chatter of a big platform on the console: when a
// kind of component ("node*.ni.cpu") has many instances, a line an instance
// prints ("[node5.ni.cpu] firmware exited with code 0 at 516 ps") that
// another instance of the kind already printed in the same form (numbers
// aside; a 0 stays a 0, so a non-zero exit code or error count is a form of
// its own and shows) goes to run.log only, and the end of the run prints
// one line per such form with how many lines it stands for. Small platforms
// (fewer instances than kFoldFrom) print everything, as before.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace m2 {

// The kind of a component: its name with each number replaced by '*'
// ("node12.ni.cpu" -> "node*.ni.cpu", "sb0.port3.mlx" -> "sb*.port*.mlx").
std::string component_kind(const std::string& name);

class ConsoleFold {
 public:
  static constexpr unsigned kFoldFrom = 8;  // instances of a kind from which its lines fold

  static ConsoleFold& instance();
  // The components that speak on the console (the run's participants):
  // kinds with at least kFoldFrom of them fold.
  void set_speakers(const std::set<std::string>& names);
  void clear();

  // Prints "[speaker] text": to the console and run.log, or, folded, to
  // run.log only.
  void line(const std::string& speaker, const std::string& text);
  // One line per folded form: "[node*.ni.cpu] 15 more lines like 'firmware
  // exited with code 0 at # ps' (16 of 16 instances; each in run.log)".
  std::vector<std::string> summary() const;

 private:
  struct Form {
    std::string kind, shape, first_speaker;
    std::set<std::string> speakers;
    unsigned folded = 0;
  };
  std::map<std::string, unsigned> m_instances;                    // kind -> instances, for folding kinds
  std::map<std::pair<std::string, std::string>, size_t> m_index;  // (kind, shape) -> m_forms
  std::vector<Form> m_forms;                                      // in first-seen order
};

}  // namespace m2
