// A run's output folder is reused (traces/<config>/ by default): before a run
// writes into it, what an earlier run left there goes, so that an earlier
// run's trace, breakdown or plot never sits next to this run's results and
// gets read as theirs. What a run wrote is listed in the folder's manifest
// (kRunManifest: the files the run is known to write, and what `./m2vp plot`
// adds to it later); a folder without one (older runs) loses the simulator's
// own fixed file names. Nothing else is touched: a user's own files in the
// folder stay, even ones changed while the run went on.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace m2 {

inline constexpr const char* kRunManifest = ".m2vp-run-files";

// Removes the files of the earlier run in `out` (see above) and returns
// their paths relative to `out`, in the order removed. Entries of a damaged
// manifest that do not name a file inside `out` are skipped.
std::vector<std::string> clear_earlier_run(const std::filesystem::path& out);

// Writes the manifest of `out`: what the run is known to have written there,
// never anything else (the folder may be one the user also keeps other
// files in): `names` (the simulator's files and what host software asked
// for, m2host_output_path) where they exist directly in `out`, and in the
// outside programs' working folders (node<N>/) the files modified at or
// after `since`.
void write_run_manifest(const std::filesystem::path& out, std::filesystem::file_time_type since,
                        const std::set<std::string>& names);

}  // namespace m2
