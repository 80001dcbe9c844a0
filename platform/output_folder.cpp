#include "platform/output_folder.h"

#include <fstream>
#include <regex>
#include <set>
#include <system_error>

namespace fs = std::filesystem;

namespace m2 {
namespace {

// What the simulator wrote before runs kept a manifest: what a folder without
// one loses (its own names now come from the run, simulation.cpp).
const char* const kFixedOutputs[] = {"params.tsv", "report.txt",       "stats.tsv",    "results.tsv",
                                     "signals.vcd", "signals.gtkw",    "transactions.csv",
                                     "messages.csv", "trace.json",     "run.log"};

// `entry` as a path relative to the folder, or empty when it is not one
// (absolute, climbing out with "..", empty).
fs::path inside(const std::string& entry) {
  const fs::path p = fs::path(entry).lexically_normal();
  if (entry.empty() || p.is_absolute() || p.empty() || p == ".") return {};
  for (const fs::path& part : p)
    if (part == "..") return {};
  return p;
}

}  // namespace

std::vector<std::string> clear_earlier_run(const fs::path& out) {
  std::vector<std::string> listed;
  if (std::ifstream m{out / kRunManifest}) {
    for (std::string line; std::getline(m, line);) listed.push_back(line);
  } else {
    listed.assign(std::begin(kFixedOutputs), std::end(kFixedOutputs));
  }
  std::vector<std::string> removed;
  std::set<fs::path> parents;
  for (const std::string& entry : listed) {
    const fs::path rel = inside(entry);
    if (rel.empty()) continue;
    std::error_code ec;
    // Only regular files: never a folder, never through a symbolic link.
    if (!fs::is_regular_file(fs::symlink_status(out / rel, ec))) continue;
    if (fs::remove(out / rel, ec)) {
      removed.push_back(rel.string());
      for (fs::path p = rel.parent_path(); !p.empty(); p = p.parent_path()) parents.insert(p);
    }
  }
  // Folders the earlier run's files were in (a host program's node<i>/) go
  // when that left them empty; deepest first.
  for (auto it = parents.rbegin(); it != parents.rend(); ++it) {
    std::error_code ec;
    if (fs::is_directory(fs::symlink_status(out / *it, ec)) && fs::is_empty(out / *it, ec)) fs::remove(out / *it, ec);
  }
  std::error_code ec;
  fs::remove(out / kRunManifest, ec);
  return removed;
}

void write_run_manifest(const fs::path& out, fs::file_time_type since, const std::set<std::string>& names) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const std::string& n : names) {
    const fs::path rel = inside(n);
    if (!rel.empty() && rel.parent_path().empty() && fs::is_regular_file(fs::symlink_status(out / rel, ec)))
      files.push_back(rel.generic_string());
  }
  // An outside program runs in <out>/node<N> (HostProgram::workdir) and may
  // write anything there.
  static const std::regex workdir(R"(node\d+)");
  for (fs::directory_iterator d(out, ec), end; !ec && d != end; d.increment(ec)) {
    std::error_code de;
    if (!d->is_directory(de) || d->is_symlink(de) || !std::regex_match(d->path().filename().string(), workdir))
      continue;
    for (fs::recursive_directory_iterator it(d->path(), de), e2; !de && it != e2; it.increment(de)) {
      std::error_code fe;
      if (!it->is_regular_file(fe) || it->is_symlink(fe)) continue;
      if (it->last_write_time(fe) >= since && !fe) files.push_back(it->path().lexically_relative(out).generic_string());
    }
  }
  std::ofstream m(out / kRunManifest, std::ios::trunc);
  for (const std::string& f : files) m << f << "\n";
}

}  // namespace m2
