// Integration tests of what a run guarantees about an outside program's
// processes and output (hostN.exec, docs/models/host-process.md, "What a
// run guarantees"): what it leaves running is killed and named on every
// exit path, a second thread's MPI call ends the run, endless lines are cut,
// and a program path that cannot be used says why.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/resource.h>

#include <string>
#include <vector>

#include "run_sim.h"

using namespace m2it;

namespace {

const std::string kProbe = M2VP_MPI_PROBE;
const std::string kThreads = M2VP_MPI_THREADS;

fs::path exec_config(Sandbox& sb, const std::string& program, const std::string& args, int nodes = 2) {
  return sb.write("exec.yaml", "platform: cluster\nsim:\n  max_time_ms: 200\ntopology:\n  nodes: " +
                                   std::to_string(nodes) + "\nnode*:\n  host:\n    exec: " + program +
                                   "\n    args: \"" + args + "\"\n  ni:\n    firmware: mmp\n");
}

fs::path script(Sandbox& sb, const std::string& name, const std::string& text) {
  const fs::path p = sb.write(name, text);
  fs::permissions(p, fs::perms::owner_all);
  return p;
}

// Processes (not zombies) whose environment holds the entry `mark`
// (NAME=VALUE): every process a test script started inherits it.
std::vector<int> marked(const std::string& mark) {
  std::vector<int> found;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream f(e.path() / "environ", std::ios::binary);
    const std::string env((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (("\0" + env + std::string(1, '\0')).find(std::string(1, '\0') + mark + std::string(1, '\0')) !=
        std::string::npos)
      found.push_back(std::stoi(name));
  }
  return found;
}

// A mark unique to this test process, and the promise that whatever the
// test's scripts started is killed when the test ends, passed or not.
class Marked {
 public:
  explicit Marked(const std::string& what) : m_mark("M2VP_TEST_MARK=" + what + "-" + std::to_string(::getpid())) {}
  ~Marked() {
    for (int pid : marked(m_mark)) ::kill(pid, SIGKILL);
  }
  const std::string& mark() const { return m_mark; }
  // Those still running, after giving a SIGKILL sent by the simulator as it
  // died up to 5 s of wall time to take effect (a bound, not a measurement).
  std::vector<int> survivors() const {
    std::vector<int> left = marked(m_mark);
    for (int i = 0; i < 1000 && !left.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      left = marked(m_mark);
    }
    return left;
  }

 private:
  std::string m_mark;
};

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// A script that leaves three sleeps behind, each its own way, then becomes
// `then` (exec): one in a session of its own (setsid), one orphaned in a
// new session by a subshell that has ended, one in its process group. It
// goes on only once each has become `sleep` (up: a wait for the exec, not a
// timing), so that exactly three sleeps are found whenever it ends.
std::string leaving_sleeps(const Marked& m, const std::string& then) {
  return "#!/bin/sh\nexport " + m.mark() +
         "\nup() { until [ \"$(cat /proc/$1/comm 2>/dev/null)\" = sleep ]; do :; done; }\n"
         "setsid sleep 301 &\nup $!\n"
         "(setsid sleep 302 & echo $! >orphan.pid)\nup $(cat orphan.pid)\n"
         "sleep 303 &\nup $!\n"
         "exec " +
         then + "\n";
}

}  // namespace

TEST_CASE("host.exec: processes a program leaves running are killed and named after a successful run",
          "[integration][exec]") {
  Marked m("success");
  Sandbox sb;
  const fs::path s = script(sb, "leaves.sh", leaving_sleeps(m, kProbe + " \"$@\""));
  const SimResult r = sb.run({"run", exec_config(sb, s.string(), "clocks").string(), "--quiet"});
  INFO(r.describe());
  CHECK(r.exited(0));
  const std::string log = r.file("run.log");
  for (const char* node : {"node0", "node1"}) {
    INFO(node);
    // Three sleeps per host, named with their node and program.
    CHECK(count(log, std::string("warning: ") + node + ".host: killed process sleep (pid ") == 3);
    CHECK(contains(log, ") that its program leaves.sh left running"));
  }
  CHECK(m.survivors().empty());
}

TEST_CASE("host.exec: processes a program leaves running are killed when the run fails", "[integration][exec]") {
  Marked m("failure");
  Sandbox sb;
  const fs::path s = script(sb, "fails.sh", leaving_sleeps(m, kProbe + " exit-early 3"));
  const SimResult r = sb.run({"run", exec_config(sb, s.string(), "").string(), "--quiet"});
  INFO(r.describe());
  CHECK(r.exited(65));
  CHECK(contains(r.err, "exited with status 3 before MPI_Init"));
  CHECK(contains(r.file("run.log"), "warning: node0.host: killed process sleep (pid "));
  CHECK(m.survivors().empty());
}

TEST_CASE("host.exec: SIGINT or SIGTERM to the simulator kills what programs started in sessions of their own",
          "[integration][exec]") {
  for (int sig : {SIGINT, SIGTERM}) {
    INFO("signal " << sig);
    Marked m("signal" + std::to_string(sig));
    Sandbox sb;
    const fs::path s = script(sb, "hangs.sh", leaving_sleeps(m, kProbe + " hang-early"));
    auto p = sb.start({"run", exec_config(sb, s.string(), "").string(), "--quiet"});
    // Every sleep and the probe's child are up (a wall-clock wait for the
    // processes to start, not a timing measurement): 2 x (3 sleeps, probe,
    // its child).
    std::vector<int> up;
    for (int i = 0; i < 2000 && up.size() != 10; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      up = marked(m.mark());
    }
    REQUIRE(up.size() == 10);
    ::kill(p.pid(), sig);
    const SimResult r = p.wait(30);
    INFO(r.describe());
    CHECK(r.term_signal == sig);
    CHECK(m.survivors().empty());
  }
}

TEST_CASE("host.exec: an MPI call from a second thread ends the run naming node, program and rule, never bad data",
          "[integration][exec]") {
  const std::string rule =
      "the platform's MPI library provides MPI_THREAD_SINGLE (only the thread that called "
      "MPI_Init may call MPI)";
  SECTION("while the MPI thread waits for the other thread") {
    Sandbox sb;
    const SimResult r = sb.run({"run", exec_config(sb, kThreads, "joined").string(), "--quiet"});
    INFO(r.describe());
    CHECK(r.exited(65));
    CHECK(contains(r.err, "host: program mpi_exec_threads (" + kThreads + ", pid "));
    CHECK(contains(r.err, ") called MPI_Send from thread "));
    CHECK(contains(r.err, rule));
    CHECK_FALSE(contains(r.file("run.log"), "bad messages"));
    CHECK(processes_in(r.out_dir).empty());
  }
  SECTION("while the MPI thread is in a call of its own") {
    // The MPI thread's receive waits for what the other rank's second thread
    // was to send: a fault, or (when that receive was first) the deadlock
    // report, which names the second thread's call on that host.
    Sandbox sb;
    const SimResult r = sb.run({"run", exec_config(sb, kThreads, "concurrent").string(), "--quiet"});
    INFO(r.describe());
    CHECK((r.exited(65) || r.exited(66)));
    CHECK(contains(r.err, "called MPI_Send from thread "));
    CHECK(contains(r.err, rule));
    CHECK_FALSE(contains(r.file("run.log"), "bad messages"));
    CHECK(processes_in(r.out_dir).empty());
  }
}

TEST_CASE("host.exec: a line of output without end is cut at 64 KiB in the log, said once, memory bounded",
          "[integration][exec]") {
  // 64 MiB without a newline, a short line, another long line at the very
  // end without a newline at all.
  Sandbox sb;
  const fs::path s = script(sb, "long.sh",
                            "#!/bin/sh\nhead -c 67108864 /dev/zero | tr '\\0' x\necho\necho after\n"
                            "head -c 100000 /dev/zero | tr '\\0' y\nexit 3\n");
  const SimResult r = sb.run({"run", exec_config(sb, s.string(), "", 1).string(), "--quiet"}, true, 120);
  INFO(r.describe().substr(0, 2000));
  CHECK(r.exited(65));
  const std::string log = r.file("run.log");
  const std::string kept(65536, 'x');
  CHECK(contains(log, "[node0.host] " + kept + "\n"));
  CHECK_FALSE(contains(log, kept + "x"));
  CHECK(contains(log, "\n[node0.host] after\n"));
  CHECK(contains(log, "[node0.host] " + std::string(65536, 'y') + "\n"));
  CHECK_FALSE(contains(log, std::string(65537, 'y')));
  CHECK(count(log, "node0.host: program long.sh wrote a line longer than 65536 bytes: its lines are cut there") == 1);
  // The simulator never held the 64 MiB line (it held all of it, several
  // times over, before). Its peak memory, as the kernel counts it for
  // children waited for (only the simulator is this test's child).
  struct rusage ru {};
  REQUIRE(::getrusage(RUSAGE_CHILDREN, &ru) == 0);
  CHECK(ru.ru_maxrss < 60 * 1024 * M2VP_WALL_SCALE);  // KiB
}

TEST_CASE("host.exec: a program path that cannot be used says why", "[integration][exec]") {
  Sandbox sb;
  fs::create_symlink("loop-b", sb.dir() / "loop-a");
  fs::create_symlink("loop-a", sb.dir() / "loop-b");
  sb.write("plain.txt", "not a folder\n");
  struct Case {
    std::string program, expect;
  } cases[] = {
      {"./loop-a", "loop-a: a symbolic link loop (Too many levels of symbolic links)"},
      {"./plain.txt/prog", "plain.txt/prog: a part of the path that should be a folder is not one (Not a directory)"},
      {"./dangling", "dangling: no such file"},
  };
  fs::create_symlink("nowhere", sb.dir() / "dangling");
  for (const Case& c : cases) {
    INFO(c.program);
    const SimResult r = sb.run({"run", exec_config(sb, c.program, "").string(), "--quiet"});
    INFO(r.describe());
    CHECK(r.exited(64));
    CHECK(contains(r.err, "node0.host.exec = '" + c.program + "': "));
    CHECK(contains(r.err, c.expect));
  }
  // Found, executable, but its interpreter is missing: exec's ENOENT said
  // "No such file or directory" of a file that is there.
  const fs::path s = script(sb, "orphan.sh", "#!/nonexistent/m2vp-shell\nexit 0\n");
  const SimResult r = sb.run({"run", exec_config(sb, s.string(), "").string(), "--quiet"});
  INFO(r.describe());
  CHECK(r.exited(65));
  CHECK(contains(r.err, "could not be started: cannot start " + s.string() +
                            ": No such file or directory (the interpreter its first line names, "
                            "'/nonexistent/m2vp-shell', is missing)"));
}
