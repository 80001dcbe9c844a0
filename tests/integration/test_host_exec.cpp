// Integration tests of outside programs as simulated hosts (host.exec,
// docs/models/host-process.md): the test program mpi_exec_probe (built
// against the project's mpi.h and libmpich.so.12) and Debian's NPmpich2 run
// unmodified; every failure path ends the run with a clear error and leaves
// no process behind.
#include <catch2/catch.hpp>

#include <signal.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "run_sim.h"

using namespace m2it;

namespace {

// A 2..n-node cluster whose hosts run `program` with `args`; `per_node`
// adds YAML lines (e.g. another node's args) at the end.
fs::path exec_config(Sandbox& sb, const std::string& program, const std::string& args, int nodes = 2,
                     const std::string& extra = "") {
  return sb.write("exec.yaml", "platform: cluster\nsim:\n  max_time_ms: 200\ntopology:\n  nodes: " +
                                   std::to_string(nodes) + "\nnode*:\n  host:\n    exec: " + program +
                                   "\n    args: \"" + args + "\"\n  ni:\n    firmware: mmp\n" + extra);
}

// Whether process `pid` still runs (a zombie does not).
bool running(int pid) {
  if (pid <= 0) return false;
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  if (stat.empty()) return false;
  const size_t paren = stat.rfind(')');
  return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z' && stat[paren + 2] != 'X';
}

int pid_in(const fs::path& file) {
  const std::string t = read_text(file);
  return t.empty() ? -1 : std::stoi(t);
}

// Every pid file the probe wrote under the run's node folders.
std::vector<int> probe_pids(const fs::path& out, int nodes) {
  std::vector<int> pids;
  for (int n = 0; n < nodes; ++n)
    for (const char* f : {"pid", "child.pid"}) {
      const int p = pid_in(out / ("node" + std::to_string(n)) / f);
      if (p > 0) pids.push_back(p);
    }
  return pids;
}

void check_none_left(const std::vector<int>& pids) {
  for (int p : pids) {
    INFO("pid " << p);
    CHECK_FALSE(running(p));
  }
}

// After the simulator died of a signal: its handler sent SIGKILL to every
// program's group, which the kernel carries out when it next schedules each
// process; wait (up to 5 s of wall time, a bound, not a measurement) for that.
void await_gone(const std::vector<int>& pids) {
  for (int i = 0; i < 1000; ++i) {
    bool any = false;
    for (int p : pids) any = any || running(p);
    if (!any) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

const std::string kProbe = M2VP_MPI_PROBE;

struct FailureCase {
  std::string args, expect;
};

// node0 runs the probe with each case's args, node1 with `node1_args`; each
// run must end as a program fault of node0 saying what happened, with at
// least `min_pids` pid files written, none of those processes left and no
// process at all working in the run's folder.
void check_failures(const std::vector<FailureCase>& cases, const std::string& node1_args, size_t min_pids) {
  Sandbox sb;
  for (const FailureCase& c : cases) {
    INFO(c.args);
    const fs::path cfg = exec_config(sb, kProbe, c.args, 2, "node1:\n  host:\n    args: " + node1_args + "\n");
    const SimResult r = sb.run({"run", cfg.string(), "--quiet"});
    INFO(r.describe());
    CHECK(r.exited(65));
    CHECK(contains(r.err, "node0.host: program mpi_exec_probe (" + kProbe + ", pid "));
    CHECK(contains(r.err, c.expect));
    CHECK(contains(r.err, "program fault on node0.host"));
    const std::vector<int> pids = probe_pids(r.out_dir, 2);
    CHECK(pids.size() >= min_pids);
    check_none_left(pids);
    CHECK(processes_in(r.out_dir).empty());
  }
}

// Every host runs the shell script `text` (written as `name`) as its program.
SimResult run_script(Sandbox& sb, const std::string& name, const std::string& text) {
  const fs::path script = sb.write(name, text);
  fs::permissions(script, fs::perms::owner_all);
  return sb.run({"run", exec_config(sb, script.string(), "").string(), "--quiet"});
}

}  // namespace

TEST_CASE("host.exec: missing, non-regular and non-executable programs are configuration errors naming the key",
          "[integration][exec]") {
  Sandbox sb;
  struct Case {
    std::string program, expect;
  } cases[] = {
      {"m2vp-no-such-program", "node0.host.exec = 'm2vp-no-such-program': no such program in PATH"},
      {"./no-such-file", "no-such-file: no such file"},
      {".", "is not a regular file"},
      {"./plain.txt", "plain.txt is not executable"},
  };
  sb.write("plain.txt", "not a program\n");
  for (const Case& c : cases) {
    INFO(c.program);
    const SimResult r = sb.run({"run", exec_config(sb, c.program, "").string(), "--quiet"});
    INFO(r.describe());
    CHECK(r.exited(64));
    CHECK(contains(r.err, c.expect));
  }
  // app and exec together
  const SimResult r = sb.run({"run", exec_config(sb, kProbe, "", 2, "node1:\n  host:\n    app: netpipe\n").string()});
  INFO(r.describe());
  CHECK(r.exited(64));
  CHECK(contains(r.err, "node1.host.app = 'netpipe': a host runs either an application or an outside program"));
}

TEST_CASE("host.exec: early exit, crash and unsupported call before MPI_Init end the run naming node and program",
          "[integration][exec]") {
  // node1 hangs with a child of its own: node0's program, node1's and its
  // child must all be gone afterwards. node0 fails only once node1's child
  // runs (--after), so all three have started whatever the machine's speed.
  const std::string after = " --after ../node1/child.pid";
  check_failures(
      {{"exit-early 3" + after, "exited with status 3 before MPI_Init"},
       {"crash-early" + after, "was killed by signal 11 (Segmentation fault) before MPI_Init"},
       {"unsupported-early" + after, "called MPI_Comm_dup, which the platform's MPI library does not implement"}},
      "hang-early", 3);
}

TEST_CASE("host.exec: a program that never calls its simulated host is named as such", "[integration][exec]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", exec_config(sb, "true", "").string(), "--quiet"});
  INFO(r.describe());
  CHECK(r.exited(65));
  CHECK(contains(r.err, "node0.host: program true ("));
  // It loads the preloaded libm2vp_exec.so (every program does) but makes no
  // MPI, socket or clock call.
  CHECK(contains(r.err, "exited with status 0 without a call to its simulated host"));
}

TEST_CASE("host.exec: SIGINT or SIGTERM to the simulator stops every program and its children", "[integration][exec]") {
  for (int sig : {SIGINT, SIGTERM}) {
    INFO("signal " << sig);
    Sandbox sb;
    auto p = sb.start({"run", exec_config(sb, kProbe, "hang-early", 2).string(), "--quiet"});
    const fs::path out = sb.dir() / "out0";
    // Both programs and their children are up once the four pid files exist
    // (a wall-clock wait for the processes, not a timing measurement).
    std::vector<int> pids;
    for (int i = 0; i < 2000 && pids.size() < 4; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      pids = probe_pids(out, 2);
    }
    REQUIRE(pids.size() == 4);
    for (int pid : pids) CHECK(running(pid));
    kill(p.pid(), sig);
    const SimResult r = p.wait(30);
    INFO(r.describe());
    CHECK(r.term_signal == sig);
    await_gone(pids);
    check_none_left(pids);
    CHECK(processes_in(out).empty());
  }
}

TEST_CASE("host.exec: the program's clocks read simulated time, its output goes to the log with the node's prefix",
          "[integration][exec]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", exec_config(sb, kProbe, "clocks-early", 1).string(), "--quiet"});
  INFO(r.describe());
  CHECK(r.exited(65));  // it exits before MPI_Init on purpose
  const std::string log = r.file("run.log");
  // Simulated time 0 is 2001-01-01 00:00:00 UTC (978307200); each clock read
  // costs host.syscall_ns (1 us) and the sleep passes 1.5 ms at once.
  CHECK(contains(log,
                 "[node0.host] clocks start: gettimeofday 978307200.000001 realtime 978307200.000002000 "
                 "monotonic 0.000003000 time 978307200"));
  CHECK(contains(log,
                 "[node0.host] clocks after 1.5 ms sleep: gettimeofday 978307200.001505 realtime "
                 "978307200.001506000 monotonic 0.001507000 time 978307200"));
}

TEST_CASE("host.exec: an outside MPI program's calls run on 2 and 4 simulated hosts with payloads intact",
          "[integration][exec]") {
  for (int nodes : {2, 4}) {
    INFO(nodes << " nodes");
    Sandbox sb;
    // Every implemented function, eager and rendezvous sizes around the
    // eager limit, byte-checked payloads (the program counts its own errors).
    const SimResult r = sb.run({"run", exec_config(sb, kProbe, "calls", nodes).string(), "--quiet"});
    INFO(r.describe());
    REQUIRE(r.exited(0));
    const std::string log = r.file("run.log");
    for (int n = 0; n < nodes; ++n) {
      const std::string node = "[node" + std::to_string(n) + ".host] ";
      CHECK(contains(log, node + "rank " + std::to_string(n) + " of " + std::to_string(nodes) + " (calls)"));
      CHECK(contains(log, node + "calls: 0 errors (rank " + std::to_string(n) + " of " + std::to_string(nodes) + ")"));
      CHECK(contains(log, node + "program exited with code 0"));
    }
    CHECK_FALSE(contains(log, "FAIL"));
    check_none_left(probe_pids(r.out_dir, nodes));
    CHECK(processes_in(r.out_dir).empty());
  }
}

TEST_CASE("host.exec: the same config gives the same simulated times", "[integration][exec]") {
  Sandbox sb;
  const fs::path cfg = exec_config(sb, kProbe, "calls", 2);
  const SimResult a = sb.run({"run", cfg.string(), "--quiet"}), b = sb.run({"run", cfg.string(), "--quiet"});
  INFO(a.describe());
  REQUIRE(a.exited(0));
  REQUIRE(b.exited(0));
  auto exits = [](const std::string& log) {
    std::string s;
    for (size_t p = log.find("program exited with code"); p != std::string::npos;
         p = log.find("program exited with code", p + 1))
      s += log.substr(p, log.find('\n', p) - p) + "\n";
    return s;
  };
  CHECK_FALSE(exits(a.file("run.log")).empty());
  CHECK(exits(a.file("run.log")) == exits(b.file("run.log")));
}

TEST_CASE(
    "host.exec: a crash, an exit before MPI_Finalize, an unsupported call or MPI_Abort after MPI_Init end the "
    "run, stopping the other program and its child",
    "[integration][exec]") {
  // node1 starts a child and waits in MPI_Recv for node0, which never sends.
  check_failures({{"crash", "was killed by signal 11 (Segmentation fault) before MPI_Finalize"},
                  {"no-finalize", "exited with status 0 before MPI_Finalize"},
                  {"unsupported", "called MPI_Comm_dup, which the platform's MPI library does not implement"},
                  {"abort", "called MPI_Abort(MPI_COMM_WORLD, 7)"}},
                 "deadlock", 3);
}

TEST_CASE(
    "host.exec: two ranks that wait for each other forever are caught by the host watchdog, with each rank's "
    "pending call",
    "[integration][exec]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", exec_config(sb, kProbe, "deadlock", 2).string(), "--quiet"});
  INFO(r.describe());
  CHECK(r.exited(66));
  CHECK(!contains(r.err, "time limit"));
  CHECK(contains(r.err, "hosts deadlocked at "));
  for (int n = 0; n < 2; ++n) {
    const std::string peer = std::to_string(1 - n);
    CHECK(contains(r.err, "node" + std::to_string(n) + ".host: mpi_exec_probe (pid "));
    CHECK(contains(r.err, ") in MPI_Recv(source " + peer + ", tag 5, up to 4 bytes, MPI_COMM_WORLD)"));
  }
  const std::vector<int> pids = probe_pids(r.out_dir, 2);
  CHECK(pids.size() == 4);
  check_none_left(pids);
  CHECK(processes_in(r.out_dir).empty());
}

TEST_CASE("host.exec: a program that cannot be executed is named with the system's reason", "[integration][exec]") {
  Sandbox sb;
  const fs::path bad = sb.write("garbage.bin", "this is not an executable\n");
  fs::permissions(bad, fs::perms::owner_all);
  const SimResult r = sb.run({"run", exec_config(sb, "./garbage.bin", "").string(), "--quiet"});
  INFO(r.describe());
  CHECK(r.exited(65));
  CHECK(contains(r.err, "node0.host: program garbage.bin ("));
  CHECK(contains(r.err, "could not be started: cannot start "));
  CHECK(contains(r.err, "garbage.bin: Exec format error"));
}

TEST_CASE("host.exec: one host's program that cannot be executed next to another's that runs", "[integration][exec]") {
  // The failed start once left a dangling entry in the list of running
  // programs, read while the other one was awaited (a use after free that
  // the sanitized suite reports).
  Sandbox sb;
  const fs::path bad = sb.write("garbage.bin", "this is not an executable\n");
  fs::permissions(bad, fs::perms::owner_all);
  const fs::path cfg = exec_config(sb, kProbe, "clocks", 2, "node0:\n  host:\n    exec: ./garbage.bin\n");
  const SimResult r = sb.run({"run", cfg.string(), "--quiet"});
  INFO(r.describe());
  CHECK(r.exited(65));
  CHECK(contains(r.err, "garbage.bin: Exec format error"));
  CHECK(processes_in(r.out_dir).empty());
}

TEST_CASE("host.exec: a relative program path in a config given by a relative path", "[integration][exec]") {
  // The program starts in <out>/node<N>: its path is made absolute first.
  Sandbox sb;
  const fs::path copy = sb.dir() / "probe";
  fs::copy_file(kProbe, copy);
  fs::permissions(copy, fs::perms::owner_all);
  exec_config(sb, "./probe", "clocks", 2);
  const SimResult r = sb.run({"run", "exec.yaml", "--quiet"});  // the sandbox is the simulator's folder
  INFO(r.describe());
  CHECK(r.exited(0));  // before: "cannot start ./probe: No such file or directory" from node0/
  CHECK(contains(r.file("run.log"), "[node0.host] rank 0 of 2 (clocks)"));
}

TEST_CASE("host.exec: a program that exits leaving a child with its request socket ends at once",
          "[integration][exec]") {
  // A shell script's `cmd &` inherits fd 3: the simulator used to wait for
  // the socket to close, i.e. for the child (here 25 s per host, beyond the
  // sandbox's 30 s hang guard). The program's own exit is what counts.
  Sandbox sb;
  const SimResult r = run_script(sb, "bg.sh", "#!/bin/sh\nsleep 25 &\nexit 3\n");
  INFO(r.describe());
  CHECK(r.exited(65));
  CHECK(contains(r.err, "exited with status 3 without a call to its simulated host"));
  CHECK(processes_in(r.out_dir).empty());  // the sleep went with its program's process group
}

TEST_CASE("host.exec: a program that writes garbage on its request socket is named for it", "[integration][exec]") {
  Sandbox sb;
  const SimResult r = run_script(sb, "garbage.sh", "#!/bin/sh\nprintf 0123456789 >&3\nsleep 5\n");
  INFO(r.describe());
  CHECK(r.exited(65));
  CHECK(contains(r.err,
                 "sent a message of 10 bytes on its request socket (fd 3), where the platform's "
                 "libm2vp_exec.so sends requests of "));
  CHECK(processes_in(r.out_dir).empty());
}

TEST_CASE("host.exec: a message buffer filled once leaves the NI's message table whole", "[integration][exec]") {
  // mpi_exec_probe refill: each rank fills the other's message buffer, then
  // both exchange 400 empty messages. The MMP firmware's table lost its free
  // list when a first chunk found no room, and the exchange hung. (The
  // receiver sleeps 20 ms meanwhile: working on its own, which the watchdog
  // no longer takes for a stalled network.)
  Sandbox sb;
  const fs::path cfg = exec_config(sb, kProbe, "refill", 2);
  const SimResult r = sb.run({"run", cfg.string(), "--quiet", "--set", "sim.max_time_ms=2000"}, true, 120);
  INFO(r.describe());
  CHECK(r.exited(0));
  CHECK(contains(r.file("run.log"), "[node0.host] refill: 0 errors"));
  CHECK(contains(r.file("run.log"), "[node1.host] refill: 0 errors"));
}

TEST_CASE("host.exec: a zero-copy receive pins the message, not the whole receive buffer", "[integration][exec]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", exec_config(sb, kProbe, "bigbuf", 2).string(), "--quiet"}, true, 60);
  INFO(r.describe());
  REQUIRE(r.exited(0));
  double t[3] = {0, 0, 0};
  const std::string log = r.file("run.log");
  for (int i = 0; i < 3; i++) {
    std::smatch m;
    REQUIRE(std::regex_search(log, m, std::regex("bigbuf " + std::to_string(i) + R"(: ([0-9.]+) us)")));
    t[i] = std::stod(m[1]);
  }
  // The 4 MB buffer's receive (1) within 20% of the exact ones (0, 2); it
  // used to pin 1024 pages, about 100 times the transfer.
  CHECK(t[1] < 1.2 * t[0]);
  CHECK(t[1] < 1.2 * t[2]);
}

TEST_CASE("host.exec: a program's own lines that look like result rows stay its output", "[integration][exec]") {
  Sandbox sb;
  const SimResult r = run_script(sb, "rows.sh", "#!/bin/sh\necho '@columns x y'\necho '@row 1 2'\nexit 3\n");
  INFO(r.describe());
  CHECK(r.exited(65));
  CHECK(contains(r.file("run.log"), "[node0.host] @row 1 2"));
  CHECK_FALSE(contains(r.file("results.tsv"), "x\ty"));
}

TEST_CASE("host.exec: sleeping 'forever' ends at the time limit with the clocks intact", "[integration][exec]") {
  // sleep(UINT_MAX) is 136 years: once beyond SystemC's time range (a host
  // clock of 9.2e12 s). Charged up to the longest possible run, 1e6 s.
  Sandbox sb;
  const SimResult r = sb.run({"run", exec_config(sb, kProbe, "sleep-forever", 2).string(), "--quiet"});
  INFO(r.describe());
  CHECK(r.exited(66));
  CHECK(contains(r.err, "time limit sim.max_time_ms = 200 ms reached"));
  // The 1e15 ns cap on top of the 200 ms: the host's clock, in range.
  CHECK(contains(r.err, "running its own code at 1000000200000."));
}

TEST_CASE("host.exec: the program's own CPU time is charged through exec_cpu_scale", "[integration][exec]") {
  // 50 ms of CPU time: free at scale 0; at scale 10 at least 0.5 s of
  // simulated time (CPU time is never below what the program spun).
  auto spun = [](double scale) {
    Sandbox sb;
    const fs::path cfg = exec_config(sb, kProbe, "spin", 1);
    const SimResult r = sb.run({"run", cfg.string(), "--quiet", "--set", "sim.max_time_ms=5000", "--set",
                                "node*.host.exec_cpu_scale=" + std::to_string(scale)});
    INFO(r.describe());
    REQUIRE(r.exited(0));
    const std::string log = r.file("run.log");
    const size_t at = log.find("spin: ");
    REQUIRE(at != std::string::npos);
    return std::stod(log.substr(at + 6));
  };
  CHECK(spun(0) < 1e-4);
  const double s10 = spun(10);
  CHECK(s10 >= 0.5);
  CHECK(s10 < 5);
}

TEST_CASE("host.exec: after MPI_Init every clock of the program, MPI_Wtime included, reads its host's simulated time",
          "[integration][exec]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", exec_config(sb, kProbe, "clocks", 2).string(), "--quiet"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const std::string log = r.file("run.log");
  for (int n = 0; n < 2; ++n) {
    const std::string node = "[node" + std::to_string(n) + ".host] ";
    // "clocks WHEN: gettimeofday S.US realtime S.NS monotonic S.NS time S" -> the monotonic reading
    auto monotonic = [&](const std::string& when) {
      const size_t at = log.find(node + "clocks " + when + ": ");
      REQUIRE(at != std::string::npos);
      const size_t m = log.find("monotonic ", at);
      return std::stod(log.substr(m + 10));
    };
    const size_t w = log.find(node + "wtime ");
    REQUIRE(w != std::string::npos);
    std::istringstream in(log.substr(w + node.size() + 6));
    double w0 = 0, w1 = 0;
    in >> w0 >> w1;
    const double m0 = monotonic("after init"), m1 = monotonic("after barrier");
    INFO(node << "monotonic " << m0 << " wtime " << w0 << " " << w1 << " monotonic " << m1);
    // One clock read (host.syscall_ns = 1 us) apart; the barrier takes
    // simulated time (messages both ways over the network: over 5 us).
    CHECK(m0 > 0.001);
    CHECK(w0 == Approx(m0 + 1e-6).margin(1e-9));
    CHECK(w1 - w0 > 5e-6);
    CHECK(m1 == Approx(w1 + 3e-6).margin(1e-9));  // after two more reads: gettimeofday, realtime
  }
}
