#include "platform/output_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <regex>
#include <system_error>

#include "core/log.h"
#include "core/output_file.h"
#include "core/params.h"

namespace fs = std::filesystem;

namespace m2 {
namespace {

// What the simulator wrote before runs kept a manifest: what a folder without
// one loses (its own names now come from the run, simulation.cpp).
const char* const kFixedOutputs[] = {"params.tsv",   "report.txt",       "stats.tsv",    "results.tsv", "signals.vcd",
                                     "signals.gtkw", "transactions.csv", "messages.csv", "trace.json",  "run.log"};

// The largest manifest read (a run lists a few dozen files).
constexpr off_t kMaxManifestBytes = 16 << 20;

// A file descriptor, closed when it goes.
class Fd {
 public:
  explicit Fd(int fd = -1) : m_fd(fd) {}
  ~Fd() {
    if (m_fd >= 0) ::close(m_fd);
  }
  Fd(Fd&& o) noexcept : m_fd(o.m_fd) { o.m_fd = -1; }
  Fd& operator=(Fd&& o) noexcept {
    std::swap(m_fd, o.m_fd);
    return *this;
  }
  int get() const { return m_fd; }
  explicit operator bool() const { return m_fd >= 0; }

 private:
  int m_fd;
};

// A folder inside `dir`, never through a link.
Fd open_folder_at(int dir, const std::string& name) {
  return Fd(::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

// The folder holding `rel` (relative to `dir`), reached through folders that
// are no links; closed (false) when one is a link or missing.
Fd open_parent_at(int dir, const fs::path& rel) {
  Fd cur(::dup(dir));
  for (const fs::path& part : rel.parent_path()) {
    cur = open_folder_at(cur.get(), part.string());
    if (!cur) break;
  }
  return cur;
}

mode_t kind_at(int dir, const std::string& name) {
  struct stat st {};
  return ::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 ? (st.st_mode & S_IFMT) : 0;
}

std::vector<std::string> names_in(int dir) {
  std::vector<std::string> names;
  const int own = ::dup(dir);
  DIR* d = own >= 0 ? ::fdopendir(own) : nullptr;
  if (!d) {
    if (own >= 0) ::close(own);
    return names;
  }
  ::rewinddir(d);
  while (const dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  return names;
}

// `entry` as a path relative to the folder, or empty when it is not one
// (absolute, climbing out with "..", empty).
fs::path inside(const std::string& entry) {
  const fs::path p = fs::path(entry).lexically_normal();
  if (entry.empty() || p.is_absolute() || p.empty() || p == ".") return {};
  for (const fs::path& part : p)
    if (part == "..") return {};
  return p;
}

// The manifest's lines; none when the folder has no manifest that is a
// regular file (a link is not read).
std::optional<std::vector<std::string>> read_manifest(int dir) {
  Fd f(::openat(dir, kRunManifest, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  if (!f || ::fstat(f.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string text(static_cast<size_t>(std::min<off_t>(st.st_size, kMaxManifestBytes)), '\0');
  size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(f.get(), &text[got], text.size() - got);
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  text.resize(got);
  std::vector<std::string> lines;
  for (size_t at = 0; at < text.size();) {
    const size_t nl = std::min(text.find('\n', at), text.size());
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return lines;
}

// Removes `rel` when it is a regular file reached through no link.
bool remove_file_at(int dir, const fs::path& rel) {
  const Fd parent = open_parent_at(dir, rel);
  const std::string name = rel.filename().string();
  // unlinkat removes the entry itself: had it become a link since, the link
  // would go, never its target; a folder it refuses.
  return parent && kind_at(parent.get(), name) == S_IFREG && ::unlinkat(parent.get(), name.c_str(), 0) == 0;
}

void remove_folder_if_empty_at(int dir, const fs::path& rel) {
  const Fd parent = open_parent_at(dir, rel);
  if (parent) ::unlinkat(parent.get(), rel.filename().string().c_str(), AT_REMOVEDIR);
}

bool is_workdir(const std::string& name) {
  static const std::regex workdir(R"(node\d+)");
  return std::regex_match(name, workdir);
}

bool is_partial(const std::string& name) {
  return name.size() > 1 && name[0] == '.' && name.find(kPartialMark) != std::string::npos;
}

bool is_run_folder_at(int dir, const std::string& name) {
  const Fd f = open_folder_at(dir, name);
  return f && kind_at(f.get(), kRunManifest) == S_IFREG;
}

bool holds_run_folder_at(int dir, const std::string& name) {
  const Fd f = open_folder_at(dir, name);
  if (!f) return false;
  for (const std::string& n : names_in(f.get()))
    if (kind_at(f.get(), n) == S_IFDIR && is_run_folder_at(f.get(), n)) return true;
  return false;
}

}  // namespace

EarlierRun clear_earlier_run(const fs::path& out) {
  EarlierRun done;
  const Fd dir(::open(out.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) return done;
  const std::optional<std::vector<std::string>> manifest = read_manifest(dir.get());
  done.had_manifest = manifest.has_value();
  const std::vector<std::string> listed =
      manifest ? *manifest : std::vector<std::string>(std::begin(kFixedOutputs), std::end(kFixedOutputs));
  std::set<fs::path> parents;
  for (const std::string& entry : listed) {
    const fs::path rel = inside(entry);
    // Never the lock a run holds while it clears (a second run could then take a new one).
    if (rel.empty() || rel == kFolderLock || !remove_file_at(dir.get(), rel)) continue;
    done.removed.push_back(rel.generic_string());
    for (fs::path p = rel.parent_path(); !p.empty(); p = p.parent_path()) parents.insert(p);
  }
  for (const std::string& name : names_in(dir.get()))
    if (is_partial(name) && remove_file_at(dir.get(), name)) done.partial.push_back(name);
  // Folders the earlier run's files were in (a host program's node<i>/) go
  // when that left them empty; deepest first.
  for (auto it = parents.rbegin(); it != parents.rend(); ++it) remove_folder_if_empty_at(dir.get(), *it);
  if (manifest) remove_file_at(dir.get(), kRunManifest);
  return done;
}

std::vector<std::string> foreign_entries(const fs::path& out) {
  const Fd dir(::open(out.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir) {
    if (errno == ENOENT) return {};
    throw ConfigError(out.string() + ": cannot read the output folder: " + std::strerror(errno));
  }
  const std::optional<std::vector<std::string>> manifest = read_manifest(dir.get());
  std::set<std::string> files;
  if (manifest) {
    for (const std::string& entry : *manifest) {
      const fs::path rel = inside(entry);
      if (!rel.empty() && !rel.has_parent_path()) files.insert(rel.string());
    }
  } else {
    files.insert(std::begin(kFixedOutputs), std::end(kFixedOutputs));
  }
  std::vector<std::string> foreign;
  for (const std::string& name : names_in(dir.get())) {
    const mode_t kind = kind_at(dir.get(), name);
    if (kind == S_IFREG) {
      if (name != kRunManifest && name != kFolderLock && !files.count(name) && !is_partial(name))
        foreign.push_back(name);
    } else if (kind == S_IFDIR) {
      if (!is_workdir(name) && !is_run_folder_at(dir.get(), name) && !holds_run_folder_at(dir.get(), name))
        foreign.push_back(name + "/");
    } else {
      foreign.push_back(name + (kind == S_IFLNK ? " (a link)" : " (not a file)"));
    }
  }
  std::sort(foreign.begin(), foreign.end());
  return foreign;
}

PreparedFolder prepare_output_folder(const fs::path& out, bool force) {
  if (out.empty()) throw ConfigError("the output folder's name is empty: expected a folder (--out DIR)");
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) throw ConfigError(out.string() + ": cannot create the output folder: " + ec.message());
  if (!fs::is_directory(out, ec)) throw ConfigError(out.string() + ": is not a folder: expected the output folder");
  PreparedFolder p;
  // A run writing there now is said first (its files are not yet listed).
  p.lock = OutputFolderLock::take(out, false);
  if (!force) {
    const std::vector<std::string> foreign = foreign_entries(out);
    if (!foreign.empty()) {
      std::string shown;
      constexpr size_t kShown = 5;
      for (size_t i = 0; i < foreign.size() && i < kShown; ++i) shown += (i ? ", " : "") + foreign[i];
      if (foreign.size() > kShown) shown += " and " + std::to_string(foreign.size() - kShown) + " more";
      throw ConfigError(out.string() + ": the output folder holds what no run wrote (" + shown +
                        "): a run writes only into a new or empty folder or one runs wrote; choose another --out, "
                        "or add --out-force to write into this one all the same (what is there stays; "
                        "docs/usage.md, 'What a run may touch')");
    }
  }
  if (!p.lock) p.lock = OutputFolderLock::take(out, true);
  p.earlier = clear_earlier_run(out);
  return p;
}

std::string describe_earlier_run(const EarlierRun& earlier, const fs::path& out) {
  std::string text;
  const std::string folder = out.string() + "/";
  if (!earlier.removed.empty())
    text = "removed " + std::to_string(earlier.removed.size()) +
           (earlier.had_manifest ? " file(s) an earlier run left in " + folder + " (listed in its " + kRunManifest + ")"
                                 : " file(s) with the simulator's own output names from " + folder +
                                       " (the folder had no " + kRunManifest + ", the list of a run's files)");
  if (!earlier.partial.empty())
    text += (text.empty() ? "removed " : "; and ") + std::to_string(earlier.partial.size()) +
            " unfinished file(s) of a run stopped while writing" + (text.empty() ? " in " + folder : "");
  return text;
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
  for (fs::directory_iterator d(out, ec), end; !ec && d != end; d.increment(ec)) {
    std::error_code de;
    if (!d->is_directory(de) || d->is_symlink(de) || !is_workdir(d->path().filename().string())) continue;
    for (fs::recursive_directory_iterator it(d->path(), de), e2; !de && it != e2; it.increment(de)) {
      std::error_code fe;
      if (!it->is_regular_file(fe) || it->is_symlink(fe)) continue;
      if (it->last_write_time(fe) >= since && !fe) files.push_back(it->path().lexically_relative(out).generic_string());
    }
  }
  OutputFile m((out / kRunManifest).string(), "the list of the run's files");
  for (const std::string& f : files) m.stream() << f << "\n";
  m.commit();
}

void RunManifest::add(const std::string& name) {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_finished || !m_names.insert(name).second) return;
  // Listed whether or not it will exist: the next run skips a missing name.
  OutputFile m((m_out / kRunManifest).string(), "the list of the run's files");
  for (const std::string& n : m_names) m.stream() << n << "\n";
  m.commit();
}

void RunManifest::finish() {
  std::lock_guard<std::mutex> lock(m_mutex);
  if (m_finished) return;
  m_finished = true;
  write_run_manifest(m_out, m_since, m_names);
}

RunManifest::~RunManifest() {
  try {
    finish();
  } catch (const std::exception& e) {
    Log::instance().warning(e.what());
  }
}

}  // namespace m2
