// One invocation of the simulator: load the config, build the platform, run
// it, report. Returns the process exit code (see RunControl).
#pragma once

#include <string>
#include <vector>

namespace m2 {

struct RunOptions {
  std::string config_path;
  std::vector<std::string> overrides;  // "NAME=VALUE" from --set
  std::vector<std::string> gdb;        // "CPU=PORT" from --gdb
  std::string gdb_all;                 // PORT from --gdb-all (sim.gdb_port)
  std::vector<std::string> trace;      // binding patterns from --trace
  std::string case_name;               // --case: which of the config's cases (config_cases.h)
  std::string out_dir;                 // empty: traces/<config name>
  bool out_force = false;              // --out-force: also into a folder holding what no run wrote
  bool quiet = false;                  // no firmware output on stdout (still logged)
  std::string params_markdown;         // params --markdown MODULE: that module's table for its docs page
  std::string stats_markdown;          // stats --markdown MODULE: that model's statistics for its docs page
};

int run_simulation(const RunOptions& opts);
// Builds the platform without simulating and prints every parameter (of the
// first case when the config declares cases and no --case is given).
int list_params(const RunOptions& opts);
// Builds the platform without simulating and prints every statistic a run
// reports (format_stats_table), of the first case as list_params; with
// stats_markdown, the statistics of that model as its docs page's table.
int list_stats(const RunOptions& opts);
// Prints the cases the config declares (format_cases_table; nothing on stdout if none).
int list_cases(const RunOptions& opts);

}  // namespace m2
