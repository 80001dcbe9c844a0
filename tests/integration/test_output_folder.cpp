// Integration tests of what a run may touch (docs/usage.md, "What a run may
// touch"), as the simulator is used: m2vp-sim run into folders prepared the
// way an attacker or a careless --out would leave them. Nothing outside the
// --out folder is removed or written, a folder holding what no run wrote is
// refused (exit 64) unless --out-force, and two runs never share a folder.
#include <catch2/catch.hpp>

#include <sys/file.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include "gdb_client.h"
#include "run_sim.h"

using namespace m2it;

namespace {

void write_text(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// Every file the simulator can write into its folder, with the options that
// make a hello run write them all.
const char* const kAllOutputs[] = {"run.log",      "params.tsv",  "report.txt",   "stats.tsv",
                                   "results.tsv",  "signals.vcd", "signals.gtkw", "transactions.csv",
                                   "messages.csv", "trace.json",  "profile.tsv",  ".m2vp-run-files"};
const std::vector<std::string> kAllOutputOptions = {
    "--trace", "*", "--set", "sim.vcd=*", "--set", "sim.messages=true", "--set", "ni0.cpu.profile=true"};

}  // namespace

TEST_CASE("output folder: a manifest entry through a linked folder removes nothing outside", "[integration][output]") {
  Sandbox sb;
  const fs::path cfg = sb.config("hello");
  const fs::path out = sb.dir() / "out", v = sb.dir() / "v";
  write_text(v / "f", "v\n");
  fs::create_directories(out);
  fs::create_symlink(v, out / "link");
  write_text(out / ".m2vp-run-files", "link/f\n");
  // The link is not a run's: refused as it is ...
  const SimResult refused = sb.run({"run", cfg.string(), "--quiet", "--out", out.string()}, false);
  INFO(refused.describe());
  CHECK(refused.exited(64));
  CHECK(contains(refused.err, out.string() + ": the output folder holds what no run wrote (link (a link))"));
  // ... and with --out-force the entry through it removes nothing.
  const SimResult r = sb.run({"run", cfg.string(), "--quiet", "--out-force", "--out", out.string()}, false);
  INFO(r.describe());
  REQUIRE(r.exited(0));
  CHECK(read_text(v / "f") == "v\n");
  CHECK(fs::read_symlink(out / "link") == v);
  CHECK_FALSE(contains(read_text(out / "run.log"), "removed"));
  // clear-output goes by the same rules.
  write_text(out / ".m2vp-run-files", "link/f\n");
  const SimResult c = sb.run({"clear-output", out.string(), "--out-force"}, false);
  INFO(c.describe());
  CHECK(c.exited(0));
  CHECK(read_text(v / "f") == "v\n");
}

TEST_CASE("output folder: no output file is written through a link at its name", "[integration][output]") {
  Sandbox sb;
  const fs::path cfg = sb.config("hello");
  const fs::path out = sb.dir() / "out2", outside = sb.dir() / "outside";
  fs::create_directories(out);
  for (const char* name : kAllOutputs) {
    write_text(outside / name, std::string("the user's ") + name + "\n");
    fs::create_symlink(outside / name, out / name);
  }
  std::vector<std::string> args = {"run", cfg.string(), "--quiet", "--out-force", "--out", out.string()};
  args.insert(args.end(), kAllOutputOptions.begin(), kAllOutputOptions.end());
  const SimResult r = sb.run(args, false);
  INFO(r.describe());
  REQUIRE(r.exited(0));
  for (const char* name : kAllOutputs) {
    INFO(name);
    CHECK(read_text(outside / name) == std::string("the user's ") + name + "\n");
    CHECK_FALSE(fs::is_symlink(out / name));  // the run's own file took the name
    CHECK(fs::is_regular_file(out / name));
  }
  CHECK(contains(read_text(out / "run.log"), "output written to " + out.string()));
  CHECK(contains(read_text(out / "results.tsv"), "fw_result0"));
  // The folder holds only what the run wrote now: accepted without --out-force.
  args.erase(args.begin() + 3);
  const SimResult again = sb.run(args, false);
  INFO(again.describe());
  CHECK(again.exited(0));
  for (const fs::directory_entry& e : fs::directory_iterator(out))
    CHECK(e.path().filename().string().find(".m2vp-partial-") == std::string::npos);  // nothing half-written left
}

TEST_CASE("output folder: a folder of the user's, or an empty --out, is refused", "[integration][output]") {
  Sandbox sb;
  const fs::path cfg = sb.config("hello");
  const fs::path home = sb.dir() / "home";
  write_text(home / ".profile", "the user's\n");
  write_text(home / "notes.txt", "the user's\n");
  write_text(home / "report.txt", "the user's, named like a run's file\n");  // no manifest: a run's name
  const SimResult r = sb.run({"run", cfg.string(), "--quiet", "--out", home.string()}, false);
  INFO(r.describe());
  CHECK(r.exited(64));
  CHECK(
      contains(r.err, "error: " + home.string() + ": the output folder holds what no run wrote (.profile, notes.txt)"));
  CHECK(contains(r.err, "add --out-force"));
  CHECK(read_text(home / "report.txt") == "the user's, named like a run's file\n");
  CHECK_FALSE(fs::exists(home / "run.log"));
  CHECK_FALSE(fs::exists(home / ".m2vp-lock"));
  const SimResult forced = sb.run({"run", cfg.string(), "--quiet", "--out-force", "--out", home.string()}, false);
  INFO(forced.describe());
  CHECK(forced.exited(0));
  CHECK(read_text(home / "notes.txt") == "the user's\n");
  CHECK(read_text(home / ".profile") == "the user's\n");
  // Still the user's folder: the next run without --out-force is refused again.
  CHECK(sb.run({"run", cfg.string(), "--quiet", "--out", home.string()}, false).exited(64));
  // The same for the clean-up a run of cases starts with.
  const SimResult clear = sb.run({"clear-output", home.string()}, false);
  CHECK(clear.exited(64));
  CHECK(contains(clear.err, "error: clear-output: " + home.string() + ": the output folder holds what no run wrote"));
  CHECK(fs::exists(home / "run.log"));

  for (const std::vector<std::string>& empty : {std::vector<std::string>{"--out", ""}, {"--out="}}) {
    std::vector<std::string> args = {"run", cfg.string(), "--quiet"};
    args.insert(args.end(), empty.begin(), empty.end());
    const SimResult e = sb.run(args, false);
    INFO(e.describe());
    CHECK(e.exited(64));
    CHECK(contains(e.err, "error: --out needs a folder name, got an empty one"));
  }
  CHECK_FALSE(fs::exists(sb.dir() / "traces"));  // not the default folder in disguise
}

TEST_CASE("output folder: runs again into their own folder, the default one included", "[integration][output]") {
  Sandbox sb;
  const fs::path cfg = sb.config("hello");
  for (int i = 0; i < 2; ++i) {
    const SimResult r = sb.run({"run", cfg.string(), "--quiet"}, false);  // into traces/test/
    INFO(r.describe());
    REQUIRE(r.exited(0));
  }
  const fs::path dflt = sb.dir() / "traces" / "test";
  CHECK(contains(read_text(dflt / "run.log"),
                 "removed 5 file(s) an earlier run left in traces/test/ (listed in its "
                 ".m2vp-run-files)"));
  CHECK(fs::exists(dflt / ".m2vp-lock"));
  // A folder from before manifests: its files go, and the log says so truly.
  const fs::path old = sb.dir() / "old";
  write_text(old / "results.tsv", "old\n");
  write_text(old / "run.log", "old\n");
  const SimResult r = sb.run({"run", cfg.string(), "--quiet", "--out", old.string()}, false);
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const std::string log = read_text(old / "run.log");
  CHECK(contains(log, "removed 2 file(s) with the simulator's own output names from " + old.string() +
                          "/ (the folder had no .m2vp-run-files, the list of a run's files)"));
  CHECK_FALSE(contains(log, "listed in its"));
}

TEST_CASE("output folder: a second run into a folder another run holds is refused, naming its pid",
          "[integration][output]") {
  Sandbox sb;
  const fs::path cfg = sb.config("hello");
  const fs::path out = sb.dir() / "shared";
  // The first run waits for a GDB that never comes, holding the folder.
  const int port = free_port();
  auto first =
      sb.start({"run", cfg.string(), "--gdb", "ni0.cpu=" + std::to_string(port), "--out", out.string()}, false);
  const std::string pid = std::to_string(first.pid());
  // Hang guard only: the first run is under way within moments.
  const auto t0 = std::chrono::steady_clock::now();
  while (!contains(first.out_so_far(), "waiting for GDB") &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(static_cast<int>(30 * kWallScale)))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  REQUIRE(contains(first.out_so_far(), "waiting for GDB"));
  CHECK(read_text(out / ".m2vp-lock") == pid + "\n");
  const SimResult second = sb.run({"run", cfg.string(), "--quiet", "--out", out.string()}, false);
  INFO(second.describe());
  CHECK(second.exited(64));
  CHECK(contains(second.err, "error: " + out.string() + ": another run (pid " + pid +
                                 ") is writing into this folder: wait for it to end, or choose another --out"));
  const SimResult clear = sb.run({"clear-output", out.string()}, false);
  CHECK(clear.exited(64));
  CHECK(contains(clear.err, "another run (pid " + pid + ")"));
  CHECK(fs::exists(out / "run.log"));  // the first run's, untouched
  // Killed, it leaves the list of what it had begun to write (a run folder).
  ::kill(first.pid(), SIGKILL);
  first.wait();
  CHECK(read_text(out / ".m2vp-run-files") == "params.tsv\nrun.log\n");
  // Its holder gone, the folder is free again.
  const SimResult third = sb.run({"run", cfg.string(), "--quiet", "--out", out.string()}, false);
  INFO(third.describe());
  CHECK(third.exited(0));
  CHECK(contains(read_text(out / "run.log"),
                 "removed 2 file(s) an earlier run left in " + out.string() + "/ (listed in its .m2vp-run-files)"));
}

TEST_CASE("output folder: an outside program never works in a linked node folder", "[integration][output][exec]") {
  Sandbox sb;
  const fs::path program = sb.write("writer.sh", "#!/bin/sh\necho written > out.txt\n");
  fs::permissions(program, fs::perms::owner_all);
  const fs::path cfg = sb.write("exec.yaml",
                                "platform: cluster\nsim:\n  max_time_ms: 200\ntopology:\n  nodes: 2\n"
                                "node*:\n  host:\n    exec: " +
                                    program.string() + "\n  ni:\n    firmware: mmp\n");
  const fs::path out = sb.dir() / "out", elsewhere = sb.dir() / "elsewhere";
  fs::create_directories(out);
  fs::create_directories(elsewhere);
  fs::create_symlink(elsewhere, out / "node0");
  const SimResult r = sb.run({"run", cfg.string(), "--quiet", "--out-force", "--out", out.string()}, false);
  INFO(r.describe());
  CHECK_FALSE(r.exited(0));
  CHECK(contains(r.err, "the working folder " + (out / "node0").string() + " is a symbolic link"));
  CHECK_FALSE(fs::exists(elsewhere / "out.txt"));
  CHECK(fs::is_symlink(out / "node0"));
}
