// What the console shows at the end of a run: the outcome, the results
// table and a short summary per kind of component (instances, total, the
// largest value and where), then where the full report and every statistic
// are (report.txt, stats.tsv). A 16-node run's full report is some 600 lines
// of per-instance figures; the console keeps it to what a user reads.
#pragma once

#include <string>
#include <vector>

#include "core/console_fold.h"  // component_kind
#include "core/run_control.h"
#include "cpu/processor.h"
#include "platform/platform.h"
#include "platform/report.h"

namespace m2 {

// One line per kind of component and statistic: how many instances, the sum
// over them and the largest value with its instance (just the value when the
// kind has one instance). CPUs contribute their instructions; firmware and
// host results are statistics like the others. Kinds in first-seen order.
std::string format_kind_summary(const RunControl& run, const std::vector<Processor*>& cpus,
                                const std::vector<Statistic>& stats);

// The outcome line: "== NAME: OUTCOME (exit code N), S simulated in W wall ==".
std::string format_outcome_line(const RunSummary& s, const RunControl& run);

// The results table (empty when the run has none).
std::string format_results_table();

// Outcome, results, the per-kind summary and the names of the files.
std::string format_console_report(const RunSummary& s, const RunControl& run, const std::vector<Processor*>& cpus,
                                  const std::vector<Statistic>& stats, const std::string& out_dir);

}  // namespace m2
