// m2vp-sim: the Maestro2 virtual platform simulator.
//   m2vp-sim run CONFIG [--set NAME=VALUE]... [--gdb CPU=PORT]... [--gdb-all PORT] [--out DIR [--out-force]] [--quiet]
//   m2vp-sim params CONFIG [--set NAME=VALUE]... [--case NAME] [--markdown MODULE]
//   m2vp-sim stats --list CONFIG [--set NAME=VALUE]... [--case NAME] | --markdown MODULE
//   m2vp-sim cases CONFIG
//   m2vp-sim clear-output DIR [--out-force]
// (./m2vp at the top of the repository builds it and supplies defaults.)
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <systemc>

#include "core/log.h"
#include "core/params.h"
#include "core/run_control.h"
#include "platform/output_folder.h"
#include "platform/simulation.h"

namespace {

const char* const USAGE =
    "usage: m2vp-sim run CONFIG [--set NAME=VALUE]... [--gdb CPU=PORT]... [--gdb-all PORT] [--trace PATTERN]...\n"
    "                    [--case NAME] [--out DIR] [--out-force] [--quiet]\n"
    "       m2vp-sim params CONFIG [--set NAME=VALUE]... [--case NAME] [--markdown MODULE]\n"
    "       m2vp-sim stats --list CONFIG [--set NAME=VALUE]... [--case NAME]  (the statistics a run reports)\n"
    "       m2vp-sim stats --markdown MODULE CONFIG [--set NAME=VALUE]...\n"
    "       m2vp-sim cases CONFIG  (the cases a config declares: case, folder, level per axis)\n"
    "       m2vp-sim clear-output DIR [--out-force]  (removes what earlier runs wrote into DIR, as a run does first)\n"
    "  --set NAME=VALUE  override a parameter (list them with 'params')\n"
    "  --gdb CPU=PORT    GDB server for CPU on 127.0.0.1:PORT, e.g. --gdb ni0.cpu=1234; the CPU\n"
    "                    waits for GDB before its first instruction (--set CPU.gdb_wait=false: not)\n"
    "  --gdb-all PORT    one GDB server on 127.0.0.1:PORT for all CPUs, each a thread (info threads,\n"
    "                    thread N); all wait for GDB (--set sim.gdb_wait=false: not)\n"
    "  --trace PATTERN   record the transactions of the bindings PATTERN names (node*.pci,\n"
    "                    node0.ni.dma; adds to sim.trace) in transactions.csv and trace.json\n"
    "  --case NAME       which of the config's cases (its `cases:` key) to run; ./m2vp run runs them all\n"
    "  --out DIR         output folder (default traces/<config name>, a case in traces/<config name>/<case>);\n"
    "                    refused when it holds what no run wrote, or another run is writing into it\n"
    "  --out-force       write into the --out folder even though it holds what no run wrote (it stays)\n"
    "  --quiet           no firmware output on stdout (still in run.log)\n"
    "  --markdown MODULE with params: the parameters of MODULE (node0.ni.dma, node*.ni.dma) as the\n"
    "                    markdown table of its docs/models page (traces/doc_tables.py); with stats: the\n"
    "                    statistics MODULE declares, likewise\n"
    "  values may carry a unit: --set node*.link.cable_m=250cm, 20ns, 300MHz, 64KiB, 3.2Gb/s\n";

// SystemC prints its banner before sc_main unless this variable is set;
// a static initializer runs before that (the simulator's output starts with
// what the run prints, also when started directly rather than by ./m2vp).
const bool kNoSystemcBanner = [] { return setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0) == 0; }();

int usage_error(const std::string& why) {
  std::cerr << "error: " << why << "\n" << USAGE;
  return m2::RunControl::EXIT_CONFIG;
}

}  // namespace

int sc_main(int argc, char* argv[]) {
  // SystemC's informational messages ("stopped by user") would mix with
  // firmware output; the run report says how the run ended.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  sc_core::sc_report_handler::set_actions("/IEEE_Std_1666/deprecated", sc_core::SC_DO_NOTHING);
  if (argc < 2) return usage_error("no command given");
  const std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << USAGE;
    return 0;
  }
  if (cmd == "clear-output") {
    // For a run that is not one simulation (traces/cases.py): the same
    // clean-up as a run's, then an empty manifest its own files join.
    bool force = false;
    std::vector<std::string> folders;
    for (int i = 2; i < argc; ++i) {
      if (std::string(argv[i]) == "--out-force") force = true;
      else folders.push_back(argv[i]);
    }
    if (folders.size() != 1) return usage_error("clear-output takes one folder (and --out-force)");
    try {
      const m2::PreparedFolder folder = m2::prepare_output_folder(folders[0], force);
      m2::write_run_manifest(folders[0], std::filesystem::file_time_type::max(), {});
    } catch (const std::exception& e) {
      m2::Log::instance().error(std::string("clear-output: ") + e.what());
      return m2::RunControl::EXIT_CONFIG;
    }
    return 0;
  }
  if (cmd != "run" && cmd != "params" && cmd != "stats" && cmd != "cases")
    return usage_error("unknown command '" + cmd + "'");
  m2::RunOptions opts;
  bool list = false;  // stats --list
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* opt) -> std::string {
      if (i + 1 >= argc) throw std::invalid_argument(std::string(opt) + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {  // e.g. ./m2vp run --help
      std::cout << USAGE;
      return 0;
    }
    try {
      if (a == "--set") opts.overrides.push_back(value("--set"));
      else if (a.rfind("--set=", 0) == 0) opts.overrides.push_back(a.substr(6));
      else if (a == "--gdb") opts.gdb.push_back(value("--gdb"));
      else if (a.rfind("--gdb=", 0) == 0) opts.gdb.push_back(a.substr(6));
      else if (a == "--gdb-all") opts.gdb_all = value("--gdb-all");
      else if (a.rfind("--gdb-all=", 0) == 0) opts.gdb_all = a.substr(10);
      else if (a == "--case") opts.case_name = value("--case");
      else if (a.rfind("--case=", 0) == 0) opts.case_name = a.substr(7);
      else if (a == "--out" || a.rfind("--out=", 0) == 0) {
        opts.out_dir = a == "--out" ? value("--out") : a.substr(6);
        // Empty would silently mean the default folder.
        if (opts.out_dir.empty()) throw std::invalid_argument("--out needs a folder name, got an empty one");
      } else if (a == "--out-force") opts.out_force = true;
      else if (a == "--quiet" || a == "-q") opts.quiet = true;
      else if (a == "--markdown" && cmd == "params") opts.params_markdown = value("--markdown");
      else if (a == "--markdown" && cmd == "stats") opts.stats_markdown = value("--markdown");
      else if (a == "--list" && cmd == "stats") list = true;
      else if (a == "--trace") opts.trace.push_back(value("--trace"));
      else if (a.rfind("--trace=", 0) == 0) opts.trace.push_back(a.substr(8));
      else if (!a.empty() && a[0] == '-') return usage_error("unknown option '" + a + "'");
      else if (opts.config_path.empty()) opts.config_path = a;
      else return usage_error("more than one config file given ('" + opts.config_path + "' and '" + a + "')");
    } catch (const std::invalid_argument& e) {
      return usage_error(e.what());
    }
  }
  if (opts.config_path.empty()) return usage_error("no config file given");
  // The values themselves are in a run's stats.tsv: only the list is asked for here.
  if (cmd == "stats" && !list && opts.stats_markdown.empty())
    return usage_error("stats needs --list or --markdown MODULE (a run writes the values to stats.tsv)");
  if (cmd == "stats" && list && !opts.stats_markdown.empty())
    return usage_error("stats takes --list or --markdown MODULE, not both");
  try {
    if (cmd == "cases") return m2::list_cases(opts);
    if (cmd == "stats") return m2::list_stats(opts);
    return cmd == "run" ? m2::run_simulation(opts) : m2::list_params(opts);
  } catch (const m2::ConfigError& e) {
    m2::Log::instance().error(e.what());
    return m2::RunControl::EXIT_CONFIG;
  } catch (const std::exception& e) {
    m2::Log::instance().error(std::string("internal error: ") + e.what());
    return m2::RunControl::EXIT_INTERNAL;
  }
}
