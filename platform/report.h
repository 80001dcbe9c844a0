// The end-of-run report (simulated time, wall time, their ratio, per CPU the
// instructions, MIPS and idle share) and the files a run leaves behind:
// report.txt, results.tsv (one measurement per row) and params.tsv (the full
// parameter set, so the run can be reproduced).
#pragma once

#include <string>
#include <vector>

#include "core/run_control.h"
#include "cpu/processor.h"
#include "platform/platform.h"

namespace m2 {

struct RunSummary {
  std::string config_name, config_path;
  double sim_seconds = 0;
  double wall_seconds = 0;
};

// Simulated seconds in the unit that reads best (s, ms or us).
std::string human_time(double seconds);

std::string format_report(const RunSummary& s, const RunControl& run, const std::vector<Processor*>& cpus,
                          const std::vector<Statistic>& stats = {});
// Where each CPU stands: for time-limit and stall reports.
std::string format_cpu_states(const std::vector<Processor*>& cpus);

// Writes stats.tsv: header "source<TAB>key<TAB>value", then run statistics,
// every value firmware and host software reported, and model statistics.
// Throws ConfigError if it cannot write.
void write_stats_tsv(const std::string& path, const RunSummary& s, const RunControl& run,
                     const std::vector<Processor*>& cpus, const std::vector<Statistic>& stats = {});
// Writes results.tsv: the run's measurement table (ResultTable: a header
// line, one row per measurement) or, for runs without one, the values
// firmware and host software reported (source, key, value).
void write_results_tsv(const std::string& path, const RunControl& run);
void write_params_tsv(const std::string& path);
// The parameter table of `m2vp params`.
std::string format_params_table();
// The statistics table of `m2vp stats --list`: every statistic the models
// `models` declared (core/stats.h), by name, with unit and description.
std::string format_stats_table(const std::vector<std::string>& models);

}  // namespace m2
