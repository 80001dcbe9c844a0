// A run's output folder is reused (traces/<config>/ by default): before a run
// writes into it, what an earlier run left there goes, so that an earlier
// run's trace, breakdown or plot never sits next to this run's results and
// gets read as theirs. What a run wrote is listed in the folder's manifest
// (kRunManifest: the files the run is known to write, and what `./m2vp plot`
// adds to it later); a folder without one (older runs) loses the simulator's
// own fixed file names.
//
// A run touches nothing else (docs/usage.md, "What a run may touch"): it
// refuses a folder that holds things no run wrote (foreign_entries) unless
// told to write there anyway, it locks the folder while it writes
// (output_folder_lock.h), a manifest entry removes only a regular file
// reached inside the folder through no symbolic link, and every file is
// written without following a link (core/output_file.h).
#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "platform/output_folder_lock.h"

namespace m2 {

inline constexpr const char* kRunManifest = ".m2vp-run-files";

// What clear_earlier_run did.
struct EarlierRun {
  bool had_manifest = false;         // false: the simulator's own file names went
  std::vector<std::string> removed;  // paths relative to the folder, in the order removed
  std::vector<std::string> partial;  // temporary files of writes a killed run left
};

// Removes the files of the earlier run in `out` (see above) and the
// temporary files of a write a killed run left (core/output_file.h). An
// entry of a damaged manifest that does not name a regular file inside `out`
// through folders that are no links is skipped.
EarlierRun clear_earlier_run(const std::filesystem::path& out);

// The entries directly in `out` that no run wrote, by name (a folder's with
// a trailing '/', a symbolic link's with " (a link)"), sorted; empty for a
// folder that does not exist. An entry is a run's when it is
//  - a plain file: the manifest, the lock, a name the manifest lists (without
//    a manifest: one of the simulator's own file names), a killed run's
//    temporary file;
//  - a folder (not a link): an outside program's working folder node<N>/, a
//    run folder (it holds a manifest: a case's, a sweep variant's), or a
//    folder holding run folders (a sweep's).
// Nothing else is (a link never: a run makes none).
std::vector<std::string> foreign_entries(const std::filesystem::path& out);

// The output folder made ready for a run (or `m2vp-sim clear-output`):
// created if missing, locked, refused when it holds foreign entries unless
// `force`, then cleared of the earlier run. Throws ConfigError saying why
// (an empty name, a folder another run holds, the foreign entries).
struct PreparedFolder {
  std::unique_ptr<OutputFolderLock> lock;  // held until the run has written everything
  EarlierRun earlier;
};
PreparedFolder prepare_output_folder(const std::filesystem::path& out, bool force);

// The line for run.log about what prepare_output_folder removed ("" when nothing).
std::string describe_earlier_run(const EarlierRun& earlier, const std::filesystem::path& out);

// Writes the manifest of `out`: what the run is known to have written there,
// never anything else (the folder may be one the user also keeps other
// files in): `names` (the simulator's files and what host software asked
// for, m2host_output_path) where they exist directly in `out`, and in the
// outside programs' working folders (node<N>/) the files modified at or
// after `since`.
void write_run_manifest(const std::filesystem::path& out, std::filesystem::file_time_type since,
                        const std::set<std::string>& names);

// The manifest of a run under way: a name is listed (the manifest rewritten)
// before the run creates the file, so that a run killed half-way (Ctrl-C)
// still leaves the list of what it wrote, and the next run into the folder
// (or into the folder of its cases) takes its files for a run's. finish()
// writes the final list (write_run_manifest); the destructor does, when the
// run is left by an exception.
class RunManifest {
 public:
  explicit RunManifest(std::filesystem::path out) : m_out(std::move(out)) {}
  ~RunManifest();
  RunManifest(const RunManifest&) = delete;
  RunManifest& operator=(const RunManifest&) = delete;

  void add(const std::string& name);
  // Files in node<N>/ changed from `since` on are the run's (write_run_manifest).
  void set_start(std::filesystem::file_time_type since) { m_since = since; }
  void finish();

 private:
  std::filesystem::path m_out;
  std::set<std::string> m_names;
  std::filesystem::file_time_type m_since = std::filesystem::file_time_type::max();
  bool m_finished = false;
  std::mutex m_mutex;  // host software may ask for names from its own threads
};

}  // namespace m2
