#include "platform/console_report.h"

#include <cctype>
#include <cstdio>
#include <map>
#include <utility>

#include "core/result_table.h"

namespace m2 {
namespace {

// Counts as integers, other values with six significant digits.
std::string number(double v) {
  char b[40];
  if (v == static_cast<double>(static_cast<long long>(v)) && v > -1e15 && v < 1e15)
    std::snprintf(b, sizeof b, "%lld", static_cast<long long>(v));
  else std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

// The instances of one kind's statistic, in the order first seen.
struct KindStat {
  std::string kind, key, label;  // label: what the firmware calls a result (FW_RESULT_NAMES)
  unsigned instances = 0;
  double total = 0, largest = 0;
  std::string largest_at;
};

class KindTable {
 public:
  void add(const std::string& source, const std::string& key, double value, const std::string& label = "") {
    const std::string kind = component_kind(source);
    auto [it, fresh] = m_index.try_emplace({kind, key}, m_rows.size());
    if (fresh) m_rows.push_back(KindStat{kind, key, label, 0, 0, 0, ""});
    KindStat& k = m_rows[it->second];
    if (k.label != label) k.label.clear();  // instances that name it differently: the key alone
    if (k.instances == 0 || value > k.largest) k.largest = value, k.largest_at = source;
    k.instances++;
    k.total += value;
  }
  const std::vector<KindStat>& rows() const { return m_rows; }

 private:
  std::map<std::pair<std::string, std::string>, size_t> m_index;
  std::vector<KindStat> m_rows;
};

}  // namespace

std::string format_kind_summary(const RunControl& run, const std::vector<Processor*>& cpus,
                                const std::vector<Statistic>& stats) {
  KindTable t;
  for (Processor* p : cpus) t.add(p->name(), "instructions", static_cast<double>(p->instructions()));
  for (const auto& r : run.results()) t.add(r.source, r.key, static_cast<double>(r.value), r.label);
  for (const Statistic& st : stats) t.add(st.source, st.key, st.value);
  if (t.rows().empty()) return "";
  auto shown = [](const KindStat& k) { return k.label.empty() ? k.key : k.key + " (" + k.label + ")"; };
  size_t wk = 4, ws = 9;
  for (const KindStat& k : t.rows()) {
    wk = std::max(wk, k.kind.size() + 5);
    ws = std::max(ws, shown(k).size());
  }
  std::string r;
  char line[512];
  std::snprintf(line, sizeof line, "  %-*s %-*s %14s   %s\n", int(wk), "kind", int(ws), "statistic", "total",
                "largest (where)");
  r += line;
  for (const KindStat& k : t.rows()) {
    const std::string kind = k.kind + " (" + std::to_string(k.instances) + ")";
    // Where the largest is says something only when there is a choice.
    const std::string largest = k.instances > 1 && k.largest > 0 ? number(k.largest) + " (" + k.largest_at + ")" : "";
    std::snprintf(line, sizeof line, "  %-*s %-*s %14s   %s\n", int(wk), kind.c_str(), int(ws), shown(k).c_str(),
                  number(k.total).c_str(), largest.c_str());
    r += line;
  }
  return r;
}

std::string format_outcome_line(const RunSummary& s, const RunControl& run) {
  char wall[32];
  std::snprintf(wall, sizeof wall, "%.3f s", s.wall_seconds);
  return "== " + s.config_name + ": " + run.summary() + " (exit code " + std::to_string(run.exit_code()) + "), " +
         human_time(s.sim_seconds) + " simulated in " + wall + " wall ==";
}

std::string format_results_table() {
  const ResultTable& t = ResultTable::instance();
  return t.empty() ? "" : "results:\n" + t.format();
}

std::string format_console_report(const RunSummary& s, const RunControl& run, const std::vector<Processor*>& cpus,
                                  const std::vector<Statistic>& stats, const std::string& out_dir) {
  std::string r = format_outcome_line(s, run) + "\n" + format_results_table();
  const std::string kinds = format_kind_summary(run, cpus, stats);
  if (!kinds.empty()) r += "per kind of component (instances): total, largest and where:\n" + kinds;
  r += "full report: " + out_dir + "/report.txt; every statistic per instance: " + out_dir + "/stats.tsv";
  return r;
}

}  // namespace m2
