// Unit tests for the reused output folder (platform/output_folder.*): an
// earlier run's files go before a run writes, the user's own stay, and a
// damaged manifest cannot make the run delete anything outside the folder.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "platform/output_folder.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("m2vp-output-folder-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

bool listed(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE("output folder: the files an earlier run listed go, the user's own stay") {
  TempDir t;
  const fs::path out = t.path / "run";
  write(out / "results.tsv", "old");
  write(out / "messages.csv", "old breakdown");
  write(out / "breakdown_stacked.png", "old plot");
  write(out / "node0" / "np.out", "old NetPIPE");
  write(out / "notes.txt", "the user's");
  write(out / m2::kRunManifest, "results.tsv\nmessages.csv\nbreakdown_stacked.png\nnode0/np.out\n");

  const std::vector<std::string> removed = m2::clear_earlier_run(out);
  CHECK(removed.size() == 4);
  CHECK(listed(removed, "node0/np.out"));
  CHECK_FALSE(fs::exists(out / "messages.csv"));
  CHECK_FALSE(fs::exists(out / "breakdown_stacked.png"));
  CHECK_FALSE(fs::exists(out / "node0"));  // left empty: gone too
  CHECK_FALSE(fs::exists(out / m2::kRunManifest));
  CHECK(fs::exists(out / "notes.txt"));
}

TEST_CASE("output folder: a damaged manifest removes nothing outside the folder") {
  TempDir t;
  const fs::path out = t.path / "run";
  write(t.path / "outside.txt", "keep");
  write(out / "sub" / "keep.txt", "keep");
  write(out / "target.txt", "keep");
  fs::create_symlink(out / "target.txt", out / "link.txt");
  write(out / m2::kRunManifest,
        "../outside.txt\n" + (t.path / "outside.txt").string() + "\nsub\nlink.txt\n\n.\nsub/../../outside.txt\n");
  const std::vector<std::string> removed = m2::clear_earlier_run(out);
  CHECK(removed.empty());
  CHECK(fs::exists(t.path / "outside.txt"));
  CHECK(fs::exists(out / "sub" / "keep.txt"));
  CHECK(fs::exists(out / "target.txt"));
  CHECK(fs::is_symlink(out / "link.txt"));
}

TEST_CASE("output folder: without a manifest only the simulator's own file names go") {
  TempDir t;
  const fs::path out = t.path / "run";
  write(out / "trace.json", "old");
  write(out / "signals.vcd", "old");
  write(out / "latencies.tsv", "a host application's: not known without a manifest");
  const std::vector<std::string> removed = m2::clear_earlier_run(out);
  CHECK(removed.size() == 2);
  CHECK_FALSE(fs::exists(out / "trace.json"));
  CHECK(fs::exists(out / "latencies.tsv"));
}

TEST_CASE("output folder: the manifest lists only what the run is known to write") {
  TempDir t;
  const fs::path out = t.path / "run";
  write(out / "node1" / "old.txt", "an earlier program's, older than the run");
  fs::last_write_time(out / "node1" / "old.txt", fs::file_time_type::clock::now() - std::chrono::hours(1));
  write(out / "run.log", "");
  const fs::file_time_type start = fs::last_write_time(out / "run.log");
  write(out / "results.tsv", "new");                   // the simulator's own
  write(out / "latencies.tsv", "new");                 // a host application's (m2host_output_path)
  write(out / "node1" / "np.out", "new");              // an outside program's, in its working folder
  write(out / "notes.txt", "the user's, changed while the run went on");
  write(out / "mine" / "data.csv", "the user's, in a folder of their own");
  m2::write_run_manifest(out, start, {"run.log", "results.tsv", "latencies.tsv", "missing.tsv"});

  std::ifstream m(out / m2::kRunManifest);
  std::vector<std::string> lines;
  for (std::string l; std::getline(m, l);) lines.push_back(l);
  CHECK(lines.size() == 4);
  CHECK(listed(lines, "run.log"));
  CHECK(listed(lines, "results.tsv"));
  CHECK(listed(lines, "latencies.tsv"));
  CHECK(listed(lines, "node1/np.out"));
  CHECK_FALSE(listed(lines, "notes.txt"));       // new, but not the run's
  CHECK_FALSE(listed(lines, "mine/data.csv"));
  CHECK_FALSE(listed(lines, "node1/old.txt"));   // older than the run
  CHECK_FALSE(listed(lines, "missing.tsv"));     // asked for, never written
  // And the next run clears exactly those.
  CHECK(m2::clear_earlier_run(out).size() == 4);
  CHECK(fs::exists(out / "notes.txt"));
  CHECK(fs::exists(out / "mine" / "data.csv"));
}
