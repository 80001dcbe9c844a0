#include "platform/simulation.h"

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>

#include <systemc>
#include <tlm>

#include "core/console_fold.h"
#include "core/data_path_scheduler.h"
#include "core/glob.h"
#include "core/log.h"
#include "core/log_levels.h"
#include "core/output_file.h"
#include "core/params.h"
#include "core/protocol_checking.h"
#include "core/run_control.h"
#include "host/host_cpu.h"
#include "platform/config_cases.h"
#include "platform/config_loader.h"
#include "platform/console_report.h"
#include "platform/mmp_message_id.h"
#include "platform/output_folder.h"
#include "platform/params_markdown.h"
#include "platform/stats_markdown.h"
#include "platform/profile_report.h"
#include "platform/platform.h"
#include "platform/platform_gdb.h"
#include "platform/progress_meter.h"
#include "platform/renamed_names.h"
#include "platform/report.h"
#include "platform/sim_settings.h"
#include "platform/signal_sampler.h"
#include "platform/tie_order_perturbation.h"
#include "trace/message_breakdown.h"
#include "trace/message_ledger.h"
#include "trace/perfetto_writer.h"
#include "trace/trace_recorder.h"
#include "trace/gtkw_writer.h"
#include "trace/vcd_writer.h"

namespace fs = std::filesystem;

namespace m2 {
namespace {

// Everything a run builds, in construction order.
struct Elaborated {
  SimSettings sim;
  RunControl run;
  std::unique_ptr<GdbPlatformServer> gdb;  // only with sim.gdb_port; outlives the CPUs
  std::unique_ptr<Platform> platform;
  VcdWriter vcd;
  std::unique_ptr<SignalSampler> sampler;              // only with sim.vcd
  std::unique_ptr<TieOrderPerturbation> perturbation;  // only with sim.perturb_ns
  std::unique_ptr<ProgressMeter> progress;             // only on a terminal
  std::string case_dir;                                // the case run (config_cases.h); "" without cases
};

// --set wins over a case's setting (docs/usage.md); when it takes the very
// setting that makes the case what it is, the case is not what it says:
// tell (a sweep over cases with a common --set otherwise shows identical
// cases without a word).
void warn_overridden_case_settings(const ConfigCase& c, const RunOptions& opts) {
  for (const std::string& s : opts.overrides) {
    const std::string key = s.substr(0, s.find('='));
    for (const ConfigEntry& e : c.settings)
      if (key == e.key || glob_match(key, e.key) || glob_match(e.key, key))
        Log::instance().warning("--set " + key + " overrides case " + c.name + "'s own setting " + e.key + " = " +
                                e.text + " (" + opts.config_path + ":" + std::to_string(e.line) +
                                "): this run is not that case");
  }
}

// A config that declares cases is one run per case: --case chooses it (the
// listing of parameters takes the first when none is given).
// Returns the chosen case's folder name ("" without cases).
std::string apply_chosen_case(const RunOptions& opts, bool listing, ParamRegistry& reg) {
  const ConfigCases cases = load_config_cases(opts.config_path);
  if (cases.empty()) {
    if (!opts.case_name.empty())
      throw ConfigError(opts.config_path + ": --case " + opts.case_name + ": the config declares no cases");
    return "";
  }
  if (opts.case_name.empty() && !listing)
    throw ConfigError(opts.config_path + " declares " + std::to_string(cases.cases.size()) +
                      " cases (first: " + cases.cases.front().name +
                      "): './m2vp run CONFIG' runs them all and merges their tables; "
                      "'m2vp-sim run CONFIG --case NAME' runs one ('m2vp-sim cases CONFIG' lists them)");
  const ConfigCase& c =
      opts.case_name.empty() ? cases.cases.front() : find_config_case(cases, opts.case_name, opts.config_path);
  if (opts.case_name.empty())
    std::cerr << "note: " << opts.config_path << " declares " << cases.cases.size()
              << " cases; these are the parameters of the first, " << c.name << " (--case NAME for another)\n";
  apply_case_presets(c, opts.config_path, reg);
  warn_overridden_case_settings(c, opts);
  return c.dir;
}

// The shortest sim.perturb_ns accepted.
constexpr double kMinPerturbNs = 10;

std::unique_ptr<Elaborated> elaborate(const RunOptions& opts, bool listing) {
  ParamRegistry& reg = ParamRegistry::instance();
  reg.set_renamed_names(renamed_name);
  const size_t file_keys = load_config_presets(opts.config_path, reg);
  const std::string case_dir = apply_chosen_case(opts, listing, reg);
  // Without a single setting the default platform has nothing to run and
  // would only end as a stall: say what is wrong instead.
  if (!listing && file_keys == 0 && case_dir.empty() && opts.overrides.empty() && opts.gdb.empty() &&
      opts.gdb_all.empty())
    throw ConfigError(opts.config_path +
                      ": the config is empty (no keys, only comments or nothing): nothing to simulate; expected at "
                      "least 'platform:' and what it runs (see configs/ for examples)");
  for (const std::string& s : opts.overrides) apply_set_override(s, reg);
  for (const std::string& s : opts.gdb) apply_gdb_option(s, reg);
  if (!opts.gdb_all.empty()) reg.preset("sim.gdb_port", opts.gdb_all, ValueOrigin{"--gdb-all"});
  if (!opts.trace.empty()) {
    std::string patterns;
    for (const std::string& t : opts.trace) patterns += (patterns.empty() ? "" : ",") + t;
    if (auto earlier = reg.take_preset("sim.trace")) patterns = earlier->text + "," + patterns;
    reg.preset("sim.trace", patterns, ValueOrigin{"--trace"});
  }
  auto e = std::make_unique<Elaborated>();
  e->case_dir = case_dir;
  check_no_old_names(e->sim.trace.get(), e->sim.trace.origin().where + ": key 'sim.trace'");
  check_no_old_names(e->sim.vcd.get(), e->sim.vcd.origin().where + ": key 'sim.vcd'");
  if (e->sim.trace_to_us.get() > 0 && e->sim.trace_from_us.get() >= e->sim.trace_to_us.get())
    throw ConfigError(e->sim.trace_from_us.origin().where +
                      ": key 'sim.trace_from_us' = " + e->sim.trace_from_us.value_string() +
                      " us is not before sim.trace_to_us = " + e->sim.trace_to_us.value_string() + " us (set at " +
                      e->sim.trace_to_us.origin().where +
                      "): expected the window's start below its end (or trace_to_us 0 for the end of the run)");
  // Taps and message probes are set while the platform is built: configure
  // tracing first.
  const uint64_t from_ps = static_cast<uint64_t>(e->sim.trace_from_us.get() * 1e6);
  const uint64_t to_ps =
      e->sim.trace_to_us.get() > 0 ? static_cast<uint64_t>(e->sim.trace_to_us.get() * 1e6) : UINT64_MAX;
  TraceRecorder::instance().configure(e->sim.trace.get(), from_ps, to_ps);
  ProtocolChecking::set(e->sim.check_protocol.get());
  // Models log from their construction on.
  LogLevels::instance().configure(e->sim.log.get(), e->sim.log.origin().where + ": key 'sim.log'");
  MessageLedger::instance().configure(e->sim.messages.get(), from_ps, to_ps, mmp_message_id);
  PlatformContext ctx{fs::path(opts.config_path).parent_path().string(), e->run, e->sim.timing_style()};
  DataPathScheduler::instance();  // a top-level module, made before the models that schedule on it
  e->platform = build_platform(e->sim.platform.get(), ctx);
  // Many instances of a kind: their alike lines fold on the console.
  ConsoleFold::instance().set_speakers(e->run.participants());
  // Said before the run, like the sim.vcd one below: not after minutes of it.
  if (!listing && TraceRecorder::instance().enabled() && TraceRecorder::instance().bindings().empty())
    Log::instance().warning("sim.trace = '" + e->sim.trace.get() + "' matches no binding of this platform");
  if (!listing) e->gdb = start_platform_gdb(e->sim, *e->platform);
  if (!e->sim.vcd.get().empty()) {
    const std::vector<std::string> patterns = split_trace_patterns(e->sim.vcd.get());
    SignalProbes all, chosen;
    e->platform->add_signals(all);
    for (SignalProbe& p : all)
      if (any_trace_pattern_matches(patterns, p.name)) chosen.push_back(std::move(p));
    if (chosen.empty())
      Log::instance().warning("sim.vcd = '" + e->sim.vcd.get() + "' matches no signal of this platform");
    const double to_us = e->sim.trace_to_us.get();
    e->sampler =
        std::make_unique<SignalSampler>("signal_sampler", e->run, std::move(chosen), e->vcd,
                                        sc_core::sc_time(e->sim.vcd_sample_ns.get(), sc_core::SC_NS),
                                        sc_core::sc_time(e->sim.trace_from_us.get(), sc_core::SC_US),
                                        to_us > 0 ? sc_core::sc_time(to_us, sc_core::SC_US) : sc_core::sc_max_time());
  }
  if (e->sim.perturb_ns.get() > 0 && e->sim.perturb_ns.get() < kMinPerturbNs)
    throw ConfigError(e->sim.perturb_ns.origin().where +
                      ": key 'sim.perturb_ns' = " + e->sim.perturb_ns.value_string() +
                      " ns: expected 0 (none) or at least " + std::to_string(static_cast<int>(kMinPerturbNs)) +
                      " ns (a shorter period only slows the run; below the 1 ps resolution it would never advance)");
  if (e->sim.perturb_ns.get() > 0)
    e->perturbation = std::make_unique<TieOrderPerturbation>("tie_order_perturbation",
                                                             sc_core::sc_time(e->sim.perturb_ns.get(), sc_core::SC_NS));
  reg.check_all_presets_used();
  if (!listing && !opts.quiet && ProgressMeter::wanted())
    e->progress = std::make_unique<ProgressMeter>(sc_core::sc_time(e->sim.max_time_ms.get(), sc_core::SC_MS));
  return e;
}

}  // namespace

int list_params(const RunOptions& opts) {
  auto e = elaborate(opts, true);
  std::cout << (opts.params_markdown.empty() ? format_params_table() : format_params_markdown(opts.params_markdown));
  return 0;
}

int list_stats(const RunOptions& opts) {
  auto e = elaborate(opts, true);
  if (!opts.stats_markdown.empty()) {
    std::cout << format_stats_markdown(opts.stats_markdown);
    return 0;
  }
  // Those of the models whose statistics a run reports (stats.tsv), the CPUs' first.
  std::vector<std::string> models;
  for (Processor* p : e->platform->processors()) models.push_back(p->name());
  for (const std::string& m : e->platform->statistics_models()) models.push_back(m);
  if (DataPathScheduler::in_use()) models.push_back(DataPathScheduler::instance().name());
  std::cout << format_stats_table(models);
  return 0;
}

int list_cases(const RunOptions& opts) {
  const ConfigCases cases = load_config_cases(opts.config_path);
  // Nothing on stdout without cases: ./m2vp tells the two kinds of config apart by it.
  if (cases.empty()) std::cerr << opts.config_path << " declares no cases\n";
  else std::cout << format_cases_table(cases);
  return 0;
}

int run_simulation(const RunOptions& opts) {
  auto e = elaborate(opts, false);
  RunSummary summary;
  summary.config_path = opts.config_path;
  summary.config_name = config_name_of(opts.config_path);
  // (No trailing '/' from an empty case folder: messages add their own.)
  const fs::path out = !opts.out_dir.empty() ? fs::path(opts.out_dir)
                       : e->case_dir.empty() ? fs::path("traces") / summary.config_name
                                             : fs::path("traces") / summary.config_name / e->case_dir;
  // Locked until the function is left (after the manifest: declared first).
  const PreparedFolder folder = prepare_output_folder(out, opts.out_force);
  // Each file the run writes is listed before it is written (output_folder.h):
  // the simulator's own by name, and what host software asks for.
  RunManifest manifest(out);
  auto file = [&](const char* name) {
    manifest.add(name);
    return (out / name).string();
  };
  HostCpu::set_output_file_listener([&manifest](const std::string& name) { manifest.add(name); });
  struct ListenerReset {  // however the function is left, before `manifest` goes
    ~ListenerReset() { HostCpu::set_output_file_listener(nullptr); }
  } listener_reset;
  Log& log = Log::instance();
  log.set_quiet(opts.quiet);
  log.open_file(file("run.log"));
  // What this run writes is what changes from here on (file times have the
  // file system's resolution: the log's own time is the reference).
  std::error_code ec;
  const fs::file_time_type run_start = fs::last_write_time(out / "run.log", ec);
  if (!ec) manifest.set_start(run_start);
  const std::string cleared = describe_earlier_run(folder.earlier, out);
  if (!cleared.empty()) log.file_only(cleared);
  write_params_tsv(file("params.tsv"));
  // What the topology builder made of topology.* (a tree's boxes, its root,
  // the cables and routes): the summary in run.log, everything in topology.txt.
  if (const std::string net = e->platform->network_description(); !net.empty()) {
    log.file_only("topology: " + net.substr(0, net.find('\n')) + " (cables and routes: topology.txt)");
    OutputFile t(file("topology.txt"), "the network as built");
    t.stream() << net;
    t.commit();
  }
  HostCpu::set_output_dir(out.string());
  // More CPUs than a two-node cluster's: where same-time ties can decide results.
  if (e->sampler && e->platform->processors().size() > 3)
    log.out("note: sim.vcd samples every " + e->sim.vcd_sample_ns.value_string() +
            " ns, a process that can change the order of same-time events: this run's results are those of "
            "sim.perturb_ns = " +
            e->sim.vcd_sample_ns.value_string() + " without sim.vcd (docs/models/trace.md)");

  tlm::tlm_global_quantum::instance().set(sc_core::sc_time(e->sim.quantum_ns.get(), sc_core::SC_NS));
  const sc_core::sc_time limit(e->sim.max_time_ms.get(), sc_core::SC_MS);
  const auto wall0 = std::chrono::steady_clock::now();
  sc_core::sc_start(limit, sc_core::SC_EXIT_ON_STARVATION);
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  if (e->progress) e->progress->stop();
  summary.sim_seconds = std::max(sc_core::sc_time_stamp(), e->run.last_exit_time()).to_seconds();
  if (!e->run.finished() && sc_core::sc_pending_activity()) summary.sim_seconds = limit.to_seconds();

  std::vector<Processor*> cpus = e->platform->processors();
  for (TextOutput* c : e->platform->consoles()) c->flush();
  if (!e->run.finished()) {
    std::string states = format_cpu_states(cpus);
    for (HostCpu* h : e->platform->hosts()) states += "  " + h->state() + "\n";
    // Starvation ends sc_start early with nothing pending: a stall.
    if (sc_core::sc_pending_activity())
      e->run.time_limit("time limit sim.max_time_ms = " + e->sim.max_time_ms.value_string() +
                        " ms reached before all firmware exited; CPU states:\n" + states);
    else
      e->run.stalled("simulation stalled at " + sc_core::sc_time_stamp().to_string() +
                     ": no event is left to happen but firmware has not exited (deadlock?); CPU states:\n" + states);
  }
  const std::vector<Statistic> stats = e->platform->statistics();
  for (const std::string& w : e->platform->end_of_run_warnings()) Log::instance().warning(w);
  std::string report = format_report(summary, e->run, cpus, stats);
  const MessageLedger& ledger = MessageLedger::instance();
  if (ledger.enabled()) report += format_message_summary(ledger);
  if (any_profiled(cpus)) report += "\n" + format_profile_summary(cpus, 8);
  // The console gets the outcome, the results and a summary per kind of
  // component; run.log and report.txt the full report. --quiet keeps the
  // outcome and the results (a failed run's summary too: a non-zero outcome
  // is always told).
  log.file_only(report);
  if (opts.quiet && e->run.exit_code() != 0) {
    // The reason a program or firmware gave is often in its last lines: the
    // failed one's, or the run's when none failed on its own (a stall).
    const std::string who = e->run.failed_source();
    std::vector<std::string> shown = who.empty() ? std::vector<std::string>{} : log.quieted_tail_of(who);
    if (shown.empty()) shown = log.quieted_tail();
    if (shown.size() > 6) shown.erase(shown.begin(), shown.end() - 6);
    if (!shown.empty()) {
      std::string t = "last output lines" + (who.empty() ? std::string() : " of " + who) +
                      " (--quiet kept them off stdout; run.log has everything):";
      for (const std::string& l : shown) t += "\n  " + l;
      log.always(t);
    }
  }
  if (!opts.quiet) {
    for (const std::string& l : ConsoleFold::instance().summary()) log.out(l);
  }
  if (!opts.quiet || e->run.exit_code() != 0) {
    std::string console = format_console_report(summary, e->run, cpus, stats, out.string());
    if (ledger.enabled()) console += "\n" + format_message_summary(ledger);
    if (e->run.exit_code() != 0) log.always(console);
    else log.out(console);
  } else {
    log.result(format_outcome_line(summary, e->run) + "\n" + format_results_table() + "output in " + out.string() +
               "/");
  }
  {
    OutputFile f(file("report.txt"), "the run report");
    f.stream() << report;
    f.commit();
  }
  write_stats_tsv(file("stats.tsv"), summary, e->run, cpus, stats);
  write_results_tsv(file("results.tsv"), e->run);
  if (any_profiled(cpus)) write_profile_tsv(file("profile.tsv"), cpus);
  if (e->sampler) {
    e->vcd.write(file("signals.vcd"));
    // The GTKWave view of it: groups per component, zoomed to the window.
    std::vector<GtkwSignal> sigs;
    for (const auto& [name, width] : e->vcd.signal_list()) sigs.push_back({name, width});
    const uint64_t from = static_cast<uint64_t>(e->sim.trace_from_us.get() * 1e6);
    const uint64_t to = e->sim.trace_to_us.get() > 0 ? static_cast<uint64_t>(e->sim.trace_to_us.get() * 1e6)
                                                     : static_cast<uint64_t>(summary.sim_seconds * 1e12);
    OutputFile g(file("signals.gtkw"), "the GTKWave save file");
    g.stream() << format_gtkw("signals.vcd", VcdWriter::kTopScope, sigs, from, std::max(to, from + 1));
    g.commit();
  }
  const TraceRecorder& rec = TraceRecorder::instance();
  if (rec.enabled()) rec.write_csv(file("transactions.csv"));
  // A window that opens after the run ended leaves every trace empty: say why.
  const bool traced = rec.enabled() || ledger.enabled() || e->sampler;
  if (traced && e->sim.trace_from_us.get() > 0 && e->sim.trace_from_us.get() * 1e-6 >= summary.sim_seconds)
    log.warning("sim.trace_from_us = " + e->sim.trace_from_us.value_string() + " us is after the end of the run (" +
                std::to_string(summary.sim_seconds * 1e6) + " us simulated): the trace files are empty");
  if (ledger.enabled()) write_messages_csv(file("messages.csv"), ledger);
  if (rec.enabled() || ledger.enabled()) {
    PerfettoTrace trace;
    if (rec.enabled()) rec.add_to(trace);
    if (ledger.enabled()) add_message_slices(ledger, trace);
    trace.write(file("trace.json"));
  }
  log.out("output written to " + out.string() + "/");
  log.close_file();
  manifest.finish();
  return e->run.exit_code();
}

}  // namespace m2
