// Unit tests for the reused output folder (platform/output_folder.*,
// output_folder_lock.*): an earlier run's files go before a run writes, the
// user's own stay, a damaged manifest cannot make the run delete anything
// outside the folder (not through a link either), a folder holding what no
// run wrote is refused, and one run at a time holds a folder.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "temp_dir.h"
#include "core/params.h"
#include "platform/output_folder.h"
#include "platform/output_folder_lock.h"

namespace fs = std::filesystem;

namespace {

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::string read_text(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

bool listed(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST_CASE("output folder: the files an earlier run listed go, the user's own stay") {
  TempDir t{"m2vp-output-folder"};
  const fs::path out = t.path / "run";
  write(out / "results.tsv", "old");
  write(out / "messages.csv", "old breakdown");
  write(out / "breakdown_stacked.png", "old plot");
  write(out / "node0" / "np.out", "old NetPIPE");
  write(out / "notes.txt", "the user's");
  write(out / m2::kRunManifest, "results.tsv\nmessages.csv\nbreakdown_stacked.png\nnode0/np.out\n");

  const m2::EarlierRun earlier = m2::clear_earlier_run(out);
  CHECK(earlier.had_manifest);
  const std::vector<std::string>& removed = earlier.removed;
  CHECK(removed.size() == 4);
  CHECK(listed(removed, "node0/np.out"));
  CHECK_FALSE(fs::exists(out / "messages.csv"));
  CHECK_FALSE(fs::exists(out / "breakdown_stacked.png"));
  CHECK_FALSE(fs::exists(out / "node0"));  // left empty: gone too
  CHECK_FALSE(fs::exists(out / m2::kRunManifest));
  CHECK(fs::exists(out / "notes.txt"));
}

TEST_CASE("output folder: a damaged manifest removes nothing outside the folder") {
  TempDir t{"m2vp-output-folder"};
  const fs::path out = t.path / "run";
  write(t.path / "outside.txt", "keep");
  write(out / "sub" / "keep.txt", "keep");
  write(out / "target.txt", "keep");
  fs::create_symlink(out / "target.txt", out / "link.txt");
  write(out / m2::kFolderLock, "123\n");
  write(out / m2::kRunManifest, "../outside.txt\n" + (t.path / "outside.txt").string() +
                                    "\nsub\nlink.txt\n\n.\nsub/../../outside.txt\n.m2vp-lock\n");
  const std::vector<std::string> removed = m2::clear_earlier_run(out).removed;
  CHECK(removed.empty());
  CHECK(fs::exists(t.path / "outside.txt"));
  CHECK(fs::exists(out / "sub" / "keep.txt"));
  CHECK(fs::exists(out / "target.txt"));
  CHECK(fs::is_symlink(out / "link.txt"));
  CHECK(fs::exists(out / m2::kFolderLock));  // the lock a run holds while it clears
}

TEST_CASE("output folder: without a manifest only the simulator's own file names go") {
  TempDir t{"m2vp-output-folder"};
  const fs::path out = t.path / "run";
  write(out / "trace.json", "old");
  write(out / "signals.vcd", "old");
  write(out / "latencies.tsv", "a host application's: not known without a manifest");
  const m2::EarlierRun earlier = m2::clear_earlier_run(out);
  CHECK_FALSE(earlier.had_manifest);
  const std::vector<std::string>& removed = earlier.removed;
  CHECK(removed.size() == 2);
  CHECK_FALSE(fs::exists(out / "trace.json"));
  CHECK(fs::exists(out / "latencies.tsv"));
}

TEST_CASE("output folder: the manifest lists only what the run is known to write") {
  TempDir t{"m2vp-output-folder"};
  const fs::path out = t.path / "run";
  write(out / "node1" / "old.txt", "an earlier program's, older than the run");
  fs::last_write_time(out / "node1" / "old.txt", fs::file_time_type::clock::now() - std::chrono::hours(1));
  write(out / "run.log", "");
  const fs::file_time_type start = fs::last_write_time(out / "run.log");
  write(out / "results.tsv", "new");       // the simulator's own
  write(out / "latencies.tsv", "new");     // a host application's (m2host_output_path)
  write(out / "node1" / "np.out", "new");  // an outside program's, in its working folder
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
  CHECK_FALSE(listed(lines, "notes.txt"));  // new, but not the run's
  CHECK_FALSE(listed(lines, "mine/data.csv"));
  CHECK_FALSE(listed(lines, "node1/old.txt"));  // older than the run
  CHECK_FALSE(listed(lines, "missing.tsv"));    // asked for, never written
  // And the next run clears exactly those.
  CHECK(m2::clear_earlier_run(out).removed.size() == 4);
  CHECK(fs::exists(out / "notes.txt"));
  CHECK(fs::exists(out / "mine" / "data.csv"));
}

TEST_CASE("output folder: a manifest entry never removes a file through a linked folder") {
  TempDir t{"m2vp-output-folder"};
  const fs::path out = t.path / "out";
  write(t.path / "v" / "f", "v\n");  // outside the folder
  write(out / "sub" / "g", "inside, but behind a link\n");
  fs::create_symlink(t.path / "v", out / "link");   // a link to a folder outside
  fs::create_symlink(out / "sub", out / "inlink");  // a link to a folder inside
  fs::create_directories(out / "real");
  fs::create_symlink(t.path / "v", out / "real" / "deeper");  // a link further down
  write(out / m2::kRunManifest, "link/f\ninlink/g\nreal/deeper/f\nlink/../link/f\n");
  const m2::EarlierRun earlier = m2::clear_earlier_run(out);
  CHECK(earlier.removed.empty());
  CHECK(read_text(t.path / "v" / "f") == "v\n");
  CHECK(fs::exists(out / "sub" / "g"));
  CHECK(fs::read_symlink(out / "link") == t.path / "v");
  CHECK(fs::read_symlink(out / "real" / "deeper") == t.path / "v");
  CHECK(fs::is_directory(out / "real"));  // none of its files went: left as it was
}

TEST_CASE("output folder: a killed run's unfinished files go, the message says what was removed and why") {
  TempDir t{"m2vp-output-folder"};
  const fs::path out = t.path / "run";
  write(out / ".results.tsv.m2vp-partial-123-0", "half a table");
  write(out / "results.tsv", "old");
  const m2::EarlierRun earlier = m2::clear_earlier_run(out);
  CHECK_FALSE(earlier.had_manifest);
  CHECK(earlier.removed == std::vector<std::string>{"results.tsv"});
  CHECK(earlier.partial == std::vector<std::string>{".results.tsv.m2vp-partial-123-0"});
  CHECK_FALSE(fs::exists(out / ".results.tsv.m2vp-partial-123-0"));
  // Said as it was: no manifest claimed where there was none.
  const std::string said = m2::describe_earlier_run(earlier, out);
  CHECK(said == "removed 1 file(s) with the simulator's own output names from " + out.string() +
                    "/ (the folder had no .m2vp-run-files, the list of a run's files); and 1 unfinished file(s) of a "
                    "run stopped while writing");
  m2::EarlierRun listed_run;
  listed_run.had_manifest = true;
  listed_run.removed = {"run.log", "stats.tsv"};
  CHECK(m2::describe_earlier_run(listed_run, out) ==
        "removed 2 file(s) an earlier run left in " + out.string() + "/ (listed in its .m2vp-run-files)");
  CHECK(m2::describe_earlier_run(m2::EarlierRun{}, out).empty());
}

TEST_CASE("output folder: what counts as written by runs, and what does not") {
  TempDir t{"m2vp-output-folder"};
  const fs::path out = t.path / "out";
  CHECK(m2::foreign_entries(out).empty());  // not there yet
  fs::create_directories(out);
  CHECK(m2::foreign_entries(out).empty());  // empty
  // A folder runs wrote: the listed files, the manifest, the lock, an outside
  // program's working folder, a case's run folder, a sweep's folder of runs.
  write(out / m2::kRunManifest, "run.log\nresults.tsv\nlatencies.tsv\nnode0/np.out\nbreakdown_stacked.png\n");
  for (const char* f : {"run.log", "results.tsv", "latencies.tsv", "breakdown_stacked.png", m2::kFolderLock,
                        ".stats.tsv.m2vp-partial-9-1"})
    write(out / f, "x");
  write(out / "node0" / "np.out", "x");
  write(out / "node1" / "older.txt", "x");
  write(out / "case-a" / m2::kRunManifest, "run.log\n");
  write(out / "sweep" / "sweep.tsv", "x");
  write(out / "sweep" / "variant-1" / m2::kRunManifest, "run.log\n");
  CHECK(m2::foreign_entries(out).empty());
  // What no run writes: another file, a folder of no run, any link, and a
  // listed name that is a link rather than a file.
  write(out / "notes.txt", "the user's");
  write(out / "mine" / "data.csv", "the user's");
  fs::create_symlink(t.path, out / "up");
  fs::remove(out / "results.tsv");
  fs::create_symlink(t.path / "elsewhere.tsv", out / "results.tsv");
  fs::create_directories(out / "empty-of-runs" / "sub");
  CHECK(m2::foreign_entries(out) ==
        std::vector<std::string>{"empty-of-runs/", "mine/", "notes.txt", "results.tsv (a link)", "up (a link)"});
  // Without a manifest only the simulator's own names are a run's.
  const fs::path old = t.path / "old";
  write(old / "stats.tsv", "x");
  write(old / "latencies.tsv", "x");
  CHECK(m2::foreign_entries(old) == std::vector<std::string>{"latencies.tsv"});
}

TEST_CASE("output folder: a folder holding what no run wrote is refused unless forced, and left as it was") {
  TempDir t{"m2vp-output-folder"};
  const fs::path out = t.path / "home";
  write(out / ".bashrc", "the user's");
  write(out / "results.tsv", "the user's, named like a run's file");
  try {
    m2::prepare_output_folder(out, false);
    FAIL("a folder of the user's was accepted");
  } catch (const m2::ConfigError& e) {
    const std::string msg = e.what();
    CHECK(msg.rfind(out.string() + ": the output folder holds what no run wrote (.bashrc): ", 0) == 0);
    CHECK(Catch::contains(msg, "add --out-force"));
  }
  CHECK_FALSE(fs::exists(out / m2::kFolderLock));                                  // nothing made there
  CHECK(read_text(out / "results.tsv") == "the user's, named like a run's file");  // nothing removed
  CHECK_THROWS_WITH(m2::prepare_output_folder("", false), Catch::Contains("the output folder's name is empty"));
  {
    const m2::PreparedFolder p = m2::prepare_output_folder(out, true);
    CHECK(p.lock);
    CHECK_FALSE(p.earlier.had_manifest);
    CHECK(p.earlier.removed == std::vector<std::string>{"results.tsv"});  // the simulator's own name: a run's
    CHECK(fs::exists(out / ".bashrc"));
  }
  // A new folder is made, and one runs wrote is accepted as it is.
  const fs::path fresh = t.path / "a" / "b";
  CHECK(m2::prepare_output_folder(fresh, false).lock);
  CHECK(fs::is_directory(fresh));
  write(fresh / "run.log", "x");
  write(fresh / m2::kRunManifest, "run.log\n");
  const m2::PreparedFolder again = m2::prepare_output_folder(fresh, false);
  CHECK(again.earlier.removed == std::vector<std::string>{"run.log"});
}

TEST_CASE("output folder: one run at a time, the other is told the holder's pid") {
  TempDir t{"m2vp-output-folder"};
  const fs::path out = t.path / "out";
  fs::create_directories(out);
  CHECK_FALSE(m2::OutputFolderLock::take(out, false));  // no lock file: nothing taken, none made
  CHECK_FALSE(fs::exists(out / m2::kFolderLock));
  {
    const auto held = m2::OutputFolderLock::take(out, true);
    REQUIRE(held);
    CHECK(read_text(out / m2::kFolderLock) == std::to_string(::getpid()) + "\n");
    // A second open of the file is another lock holder, as another process is.
    CHECK_THROWS_WITH(m2::OutputFolderLock::take(out, false),
                      out.string() + ": another run (pid " + std::to_string(::getpid()) +
                          ") is writing into this folder: wait for it to end, or choose another --out (it holds " +
                          (out / m2::kFolderLock).string() + ")");
    CHECK_THROWS_WITH(m2::prepare_output_folder(out, false), Catch::Contains("pid " + std::to_string(::getpid())));
  }
  CHECK(m2::OutputFolderLock::take(out, false));  // released with its holder
  // A lock file that is a link is not opened (nor written through).
  const fs::path other = t.path / "other";
  fs::create_directories(other);
  write(t.path / "target", "keep");
  fs::create_symlink(t.path / "target", other / m2::kFolderLock);
  CHECK_THROWS_WITH(m2::OutputFolderLock::take(other, true),
                    Catch::Contains("the folder's run lock is a symbolic link"));
  CHECK(read_text(t.path / "target") == "keep");
}

TEST_CASE("output folder: a run under way lists each file before writing it, the end keeps what exists") {
  TempDir t{"m2vp-output-folder"};
  const fs::path out = t.path / "run";
  fs::create_directories(out);
  {
    m2::RunManifest m(out);
    m.add("run.log");
    CHECK(read_text(out / m2::kRunManifest) == "run.log\n");  // before the file is there: a killed run leaves it
    write(out / "run.log", "log");
    m.set_start(fs::last_write_time(out / "run.log"));
    m.add("latencies.tsv");  // asked for by host software, never written
    m.add("run.log");
    CHECK(read_text(out / m2::kRunManifest) == "latencies.tsv\nrun.log\n");
    write(out / "node0" / "np.out", "an outside program's");
    m.finish();
    CHECK(read_text(out / m2::kRunManifest) == "run.log\nnode0/np.out\n");
    m.add("late.tsv");  // after the end: nothing changes
  }
  CHECK(read_text(out / m2::kRunManifest) == "run.log\nnode0/np.out\n");
  {
    m2::RunManifest m(out);  // left without finish() (an exception): the destructor writes it
    m.add("results.tsv");
    write(out / "results.tsv", "x");
  }
  CHECK(read_text(out / m2::kRunManifest) == "results.tsv\n");
}
