#include "platform/report.h"

#include "core/result_table.h"

#include <cmath>
#include <cstdarg>
#include <cinttypes>
#include <cstdio>

#include "core/output_file.h"
#include "core/params.h"
#include "core/stats.h"

#include <algorithm>

namespace m2 {
namespace {

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

}  // namespace

std::string human_time(double s) {
  if (s >= 1) return fmt("%.6f s", s);
  if (s >= 1e-3) return fmt("%.6f ms", s * 1e3);
  return fmt("%.3f us", s * 1e6);
}

std::string format_report(const RunSummary& s, const RunControl& run, const std::vector<Processor*>& cpus,
                          const std::vector<Statistic>& stats) {
  std::string r = "== run report: " + s.config_name + " (" + s.config_path + ") ==\n";
  r += "outcome:          " + run.summary() + " (exit code " + std::to_string(run.exit_code()) + ")\n";
  r += "simulated time:   " + human_time(s.sim_seconds) + "\n";
  r += "wall time:        " + fmt("%.3f s", s.wall_seconds) + "\n";
  r += "sim/wall ratio:   " + fmt("%.4g", s.wall_seconds > 0 ? s.sim_seconds / s.wall_seconds : 0.0) +
       " (simulated seconds per wall-clock second)\n";
  r += fmt("%-14s %-9s %14s %10s %12s %7s\n", "cpu", "isa", "instructions", "host MIPS", "target MIPS", "idle");
  for (Processor* p : cpus) {
    const double n = static_cast<double>(p->instructions());
    const double idle = s.sim_seconds > 0 ? p->idle_time().to_seconds() / s.sim_seconds : 0.0;
    r += fmt("%-14s %-9s %14" PRIu64 " %10.2f %12.2f %6.1f%%\n", p->name(), p->isa.get().c_str(), p->instructions(),
             s.wall_seconds > 0 ? n / s.wall_seconds / 1e6 : 0.0, s.sim_seconds > 0 ? n / s.sim_seconds / 1e6 : 0.0,
             100.0 * idle);
  }
  if (!run.results().empty()) {
    r += "firmware results:\n";
    for (const auto& res : run.results())
      r += fmt("  %-14s %-12s %14" PRId64 "%s\n", res.source.c_str(), res.key.c_str(), res.value,
               res.label.empty() ? "" : ("  " + res.label).c_str());
  }
  if (!ResultTable::instance().empty()) r += "results:\n" + ResultTable::instance().format();
  if (!stats.empty()) {
    r += "model statistics:\n";
    for (const Statistic& st : stats) r += fmt("  %-16s %-26s %.6g\n", st.source.c_str(), st.key.c_str(), st.value);
  }
  return r;
}

std::string format_cpu_states(const std::vector<Processor*>& cpus) {
  std::string r;
  for (Processor* p : cpus) {
    const uint64_t pc = p->core().pc();
    const std::string where = p->describe(pc);
    r += fmt("  %s: pc 0x%08" PRIx64 "%s%s%s, %s, %" PRIu64 " instructions\n", p->name(), pc, where.empty() ? "" : " (",
             where.c_str(), where.empty() ? "" : ")",
             p->firmware() == nullptr ? "no firmware"
             : p->core().idle()       ? "dozing (waiting for an interrupt)"
                                      : "running",
             p->instructions());
  }
  return r;
}

void write_results_tsv(const std::string& path, const RunControl& run) {
  OutputFile file(path, "the results table");
  std::ostream& f = file.stream();
  const ResultTable& t = ResultTable::instance();
  if (!t.empty()) {
    for (size_t c = 0; c < t.columns().size(); ++c) f << (c ? "\t" : "") << t.columns()[c];
    f << "\n";
    for (const auto& row : t.rows()) {
      for (size_t c = 0; c < row.size(); ++c) f << (c ? "\t" : "") << row[c];
      f << "\n";
    }
  } else {
    f << "source\tkey\tvalue\n";
    for (const auto& res : run.results()) f << res.source << "\t" << res.key << "\t" << res.value << "\n";
  }
  file.commit();
}

void write_stats_tsv(const std::string& path, const RunSummary& s, const RunControl& run,
                     const std::vector<Processor*>& cpus, const std::vector<Statistic>& stats) {
  OutputFile file(path, "the statistics");
  std::ostream& f = file.stream();
  f << "source\tkey\tvalue\n";
  f << "run\tsim_time_us\t" << fmt("%.6f", s.sim_seconds * 1e6) << "\n";
  f << "run\texit_code\t" << run.exit_code() << "\n";
  // Counts as integers (48, not 48.000000), times and rates with six decimals.
  auto write = [&f](const Statistic& st) {
    f << st.source << "\t" << st.key << "\t"
      << (!st.always_decimals && st.value == std::floor(st.value) && std::fabs(st.value) < 1e15 ? fmt("%.0f", st.value)
                                                                                                : fmt("%.6f", st.value))
      << "\n";
  };
  // The CPUs' statistics (cpu/processor.h) first, then the results, then the other models'.
  std::vector<Statistic> cpu_stats;
  for (Processor* p : cpus) append_statistics_of(p->name(), cpu_stats);
  for (const Statistic& st : cpu_stats) write(st);
  for (const auto& res : run.results()) f << res.source << "\t" << res.key << "\t" << res.value << "\n";
  for (const Statistic& st : stats) write(st);
  file.commit();
}

void write_params_tsv(const std::string& path) {
  OutputFile file(path, "the parameter table");
  std::ostream& f = file.stream();
  f << "name\tvalue\tunit\tdefault\torigin\n";
  for (ParamBase* p : ParamRegistry::instance().all())
    f << p->name() << "\t" << p->value_string() << "\t" << p->unit() << "\t" << p->default_string() << "\t"
      << p->origin().where << "\n";
  file.commit();
}

std::string format_params_table() {
  const auto all = ParamRegistry::instance().all();
  size_t wn = 4, wv = 5, wu = 4, wd = 7;
  for (ParamBase* p : all) {
    wn = std::max(wn, p->name().size());
    wv = std::max(wv, p->value_string().size());
    wu = std::max(wu, p->unit().size());
    wd = std::max(wd, p->default_string().size());
  }
  std::string r = fmt("%-*s  %-*s  %-*s  %-*s  %s\n", int(wn), "name", int(wv), "value", int(wu), "unit", int(wd),
                      "default", "description");
  for (ParamBase* p : all) {
    std::string desc = p->description();
    if (!p->range_string().empty()) desc += " [" + p->range_string() + "]";
    if (p->origin().where != "default") desc += " (set at " + p->origin().where + ")";
    r += fmt("%-*s  %-*s  %-*s  %-*s  ", int(wn), p->name().c_str(), int(wv), p->value_string().c_str(), int(wu),
             p->unit().c_str(), int(wd), p->default_string().c_str()) +
         desc + "\n";
  }
  return r;
}

std::string format_stats_table(const std::vector<std::string>& models) {
  std::vector<const StatBase*> all;
  for (const std::string& m : models)
    for (const StatBase* st : StatRegistry::instance().of(m)) all.push_back(st);
  std::sort(all.begin(), all.end(), [](const StatBase* a, const StatBase* b) { return a->name() < b->name(); });
  size_t wn = 4, wu = 4;
  for (const StatBase* st : all) {
    wn = std::max(wn, st->name().size());
    wu = std::max(wu, st->unit().size());
  }
  std::string r = fmt("%-*s  %-*s  %s\n", int(wn), "name", int(wu), "unit", "description");
  for (const StatBase* st : all) {
    std::string desc = st->description();
    if (st->reset_policy() == StatReset::Never) desc += " (not reset after warm-up)";
    r += fmt("%-*s  %-*s  ", int(wn), st->name().c_str(), int(wu), st->unit().c_str()) + desc + "\n";
  }
  return r;
}

}  // namespace m2
