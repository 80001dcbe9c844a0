// Unit tests for writing into a run's output folder (core/output_file.*): a
// file appears whole under its name on commit, a symbolic link at the name is
// replaced and never written through, nothing is left behind on failure; a
// host application's m2host_output_path name is freed of a link too.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "temp_dir.h"
#include "core/output_file.h"
#include "core/params.h"
#include "host/host_cpu.h"
#include "host/host_env.h"

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

// How many entries `dir` holds (what a write left behind shows up).
size_t entries(const fs::path& dir) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

}  // namespace

TEST_CASE("output file: the new content appears whole under the name only on commit") {
  TempDir t{"m2vp-output-file"};
  const fs::path p = t.path / "results.tsv";
  write(p, "old\n");
  m2::OutputFile f(p.string(), "the results table");
  f.stream() << "bytes\tmbps\n";
  for (int i = 0; i < 20000; ++i) f.stream() << i << "\t" << i * 2 << "\n";  // more than one buffer
  CHECK(read(p) == "old\n");    // not yet: a reader sees the old file, never half the new one
  CHECK(entries(t.path) == 2);  // the temporary file next to it
  f.commit();
  const std::string text = read(p);
  CHECK(text.rfind("bytes\tmbps\n0\t0\n", 0) == 0);
  CHECK(text.size() > 64 * 1024);
  CHECK(text.substr(text.size() - 12) == "19999\t39998\n");
  CHECK(entries(t.path) == 1);
}

TEST_CASE("output file: a link at the name is replaced, its target keeps its content") {
  TempDir t{"m2vp-output-file"};
  const fs::path outside = t.path / "outside.txt";
  const fs::path out = t.path / "out";
  fs::create_directories(out);
  write(outside, "the user's\n");
  fs::create_symlink(outside, out / "run.log");
  fs::create_symlink(outside, out / "results.tsv");

  m2::OutputFile f((out / "results.tsv").string(), "the results table");
  f.stream() << "new\n";
  f.commit();
  CHECK(read(outside) == "the user's\n");
  CHECK_FALSE(fs::is_symlink(out / "results.tsv"));
  CHECK(read(out / "results.tsv") == "new\n");

  auto log = m2::create_fresh_file((out / "run.log").string(), "the run log");
  *log << "log line\n";
  CHECK(log->close());
  CHECK(read(outside) == "the user's\n");
  CHECK_FALSE(fs::is_symlink(out / "run.log"));
  CHECK(read(out / "run.log") == "log line\n");
  CHECK(fs::exists(outside));
}

TEST_CASE("output file: a fresh file replaces an earlier one and is written as the run goes") {
  TempDir t{"m2vp-output-file"};
  const fs::path p = t.path / "run.log";
  write(p, "an earlier run's log, much longer than the new one\n");
  auto log = m2::create_fresh_file(p.string(), "the run log");
  *log << "new\n" << std::flush;
  CHECK(read(p) == "new\n");  // written as the run goes, not at its end
  CHECK(log->close());
  // What cannot be unlinked (a folder) makes the exclusive create fail: said, nothing written into it.
  fs::create_directories(t.path / "adir");
  CHECK_THROWS_WITH(m2::create_fresh_file((t.path / "adir").string(), "the run log"),
                    Catch::Contains((t.path / "adir").string() + ": cannot write the run log: "));
}

TEST_CASE("output file: without commit, or when it cannot be written, nothing is left and the old file stays") {
  TempDir t{"m2vp-output-file"};
  const fs::path p = t.path / "stats.tsv";
  write(p, "old\n");
  {
    m2::OutputFile f(p.string(), "the statistics");
    f.stream() << "half";
  }  // an exception on the way, say
  CHECK(read(p) == "old\n");
  CHECK(entries(t.path) == 1);
  const fs::path missing = t.path / "no-such-folder" / "stats.tsv";
  CHECK_THROWS_WITH(m2::OutputFile(missing.string(), "the statistics"),
                    Catch::Contains(missing.string() + ": cannot write the statistics: No such file or directory"));
  // A folder where the file should go: the rename fails, named, and the
  // temporary file goes.
  fs::create_directories(t.path / "report.txt");
  m2::OutputFile f((t.path / "report.txt").string(), "the run report");
  f.stream() << "text";
  CHECK_THROWS_WITH(f.commit(), Catch::Contains((t.path / "report.txt").string() + ": cannot write the run report: "));
  CHECK(fs::is_directory(t.path / "report.txt"));
  CHECK(entries(t.path) == 2);
}

TEST_CASE("output file: a new file gets the usual permissions (0666 less the umask)") {
  TempDir t{"m2vp-output-file"};
  const mode_t old = ::umask(022);
  m2::OutputFile f((t.path / "a.tsv").string(), "a table");
  f.stream() << "x\n";
  f.commit();
  auto log = m2::create_fresh_file((t.path / "b.log").string(), "a log");
  log->close();
  ::umask(old);
  struct stat a {
  }, b{};
  REQUIRE(::stat((t.path / "a.tsv").c_str(), &a) == 0);
  REQUIRE(::stat((t.path / "b.log").c_str(), &b) == 0);
  CHECK((a.st_mode & 0777) == 0644);
  CHECK((b.st_mode & 0777) == 0644);
}

TEST_CASE("output file: a host application's output name is freed of a link and reported before it is created") {
  TempDir t{"m2vp-output-file"};
  const fs::path outside = t.path / "outside.txt";
  const fs::path out = t.path / "out";
  fs::create_directories(out);
  write(outside, "the user's\n");
  fs::create_symlink(outside, out / "np.out");
  std::vector<std::string> told;
  m2::HostCpu::set_output_dir(out.string());
  m2::HostCpu::set_output_file_listener([&](const std::string& name) { told.push_back(name); });
  char path[512];
  REQUIRE(m2host_output_path("np.out", path, sizeof path) == 0);
  CHECK(path == (out / "np.out").string());
  CHECK_FALSE(fs::exists(fs::symlink_status(out / "np.out")));  // the link went, its target stayed
  CHECK(read(outside) == "the user's\n");
  CHECK(told == std::vector<std::string>{"np.out"});
  REQUIRE(m2host_output_path("np.out", path, sizeof path) == 0);
  CHECK(told.size() == 1);  // each name once
  CHECK(m2host_output_path("../np.out", path, sizeof path) == -1);
  m2::HostCpu::set_output_file_listener(nullptr);
  m2::HostCpu::set_output_dir("");
}
