// Helpers for the integration tests: run the m2vp-sim executable as a
// subprocess in a private temporary folder and capture what it produced.
//
//   Sandbox sb;                                   // <tmp>/m2vp-it-<pid>-<n>/
//   auto cfg = sb.config("hello");                // minimal single-ni config
//   SimResult r = sb.run({"run", cfg.string()});  // adds --out <sandbox>/out<k>
//   CHECK(r.exited(0));
//   r.result("ni0.cpu", "fw_result0");            // from stats.tsv
//   auto p = sb.start({"run", cfg.string()});     // in the background ...
//   SimResult r2 = p.wait(30);                    // ... collected later
//
// Compile definitions (tests/CMakeLists.txt): M2VP_SIM, M2VP_SOURCE_DIR,
// M2VP_TEST_FIRMWARE_DIR. Set M2VP_IT_KEEP=1 to keep the temporary folders.
#pragma once

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

extern char** environ;

// Wall-clock hang guards (never a measured result) are multiplied by this:
// the sanitized build (M2VP_SANITIZE, tests/CMakeLists.txt) runs several
// times slower, and a guard must not fire on a run that is merely slow.
#ifndef M2VP_WALL_SCALE
#define M2VP_WALL_SCALE 1
#endif
inline constexpr double kWallScale = M2VP_WALL_SCALE;

namespace m2it {

namespace fs = std::filesystem;

inline std::string read_text(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return "";
  std::ostringstream os;
  os << f.rdbuf();
  return os.str();
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string cur;
  std::istringstream is(text);
  while (std::getline(is, cur)) {
    if (!cur.empty() && cur.back() == '\r') cur.pop_back();
    lines.push_back(cur);
  }
  return lines;
}

// The fields of one line separated by `sep` (empty fields kept).
inline std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> cols;
  size_t start = 0;
  for (;;) {
    const size_t at = line.find(sep, start);
    cols.push_back(line.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return cols;
    start = at + 1;
  }
}

inline std::vector<std::string> split_tabs(const std::string& line) { return split(line, '\t'); }

// Processes (other than zombies) whose working folder lies in `dir`: the
// outside programs of a run (host.exec), and whatever they started there.
inline std::vector<std::string> processes_in(const fs::path& dir) {
  std::vector<std::string> found;
  const std::string want = fs::weakly_canonical(dir).string();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    std::error_code lec;
    const fs::path cwd = fs::read_symlink(e.path() / "cwd", lec);
    if (!lec && cwd.string().rfind(want, 0) == 0) found.push_back(e.path().filename().string() + " in " + cwd.string());
  }
  return found;
}

// A TSV file as rows of columns, header included (empty when missing).
inline std::vector<std::vector<std::string>> read_tsv(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  for (const std::string& line : split_lines(read_text(p)))
    if (!line.empty()) rows.push_back(split_tabs(line));
  return rows;
}

// A NetPIPE-style results.tsv (bytes, latency_us, mbps): the largest latency
// per size (sizes measured more than once keep their slowest). Fails the test
// when the file is missing or has other columns.
inline std::map<long long, double> latency_by_size(const fs::path& tsv) {
  const auto rows = read_tsv(tsv);
  REQUIRE(!rows.empty());
  REQUIRE(rows[0] == std::vector<std::string>{"bytes", "latency_us", "mbps"});
  std::map<long long, double> m;
  for (size_t k = 1; k < rows.size(); ++k) {
    const long long b = std::stoll(rows[k][0]);
    const double us = std::stod(rows[k][1]);
    if (!m.count(b) || us > m[b]) m[b] = us;
  }
  return m;
}

struct SimResult {
  int exit_code = -1;   // exit status when the process exited normally, else -1
  int term_signal = 0;  // signal that ended the process (0: it exited)
  bool timed_out = false;
  double wall_seconds = 0;
  std::string out, err;  // captured stdout and stderr
  fs::path out_dir;      // the --out folder ("" when none was passed)
  std::string command;   // the command line, for messages

  // Exited normally (no signal, no timeout) with exactly this status.
  bool exited(int code) const { return !timed_out && term_signal == 0 && exit_code == code; }

  std::string file(const std::string& name) const { return out_dir.empty() ? "" : read_text(out_dir / name); }

  // A value of stats.tsv (columns source, key, value).
  std::optional<std::string> result(const std::string& source, const std::string& key) const {
    if (out_dir.empty()) return std::nullopt;
    for (const auto& row : read_tsv(out_dir / "stats.tsv"))
      if (row.size() == 3 && row[0] == source && row[1] == key) return row[2];
    return std::nullopt;
  }
  // The same as a number; NaN when missing or not a number.
  double result_num(const std::string& source, const std::string& key) const {
    const auto v = result(source, key);
    if (!v || v->empty()) return std::nan("");
    char* end = nullptr;
    const double d = std::strtod(v->c_str(), &end);
    return end && *end == '\0' ? d : std::nan("");
  }

  // Everything about the run, for INFO() so that a failure explains itself.
  std::string describe() const {
    std::string s = "command: " + command + "\n";
    if (timed_out) s += "TIMED OUT (killed)\n";
    if (term_signal) s += "killed by signal " + std::to_string(term_signal) + " (" + strsignal(term_signal) + ")\n";
    else s += "exit code: " + std::to_string(exit_code) + "\n";
    s += "wall time: " + std::to_string(wall_seconds) + " s\n";
    s += "---- stdout ----\n" + out + "---- stderr ----\n" + err + "----------------";
    return s;
  }
};

inline std::atomic<int> g_sandbox_counter{0};

// A private temporary folder: <tmp>/m2vp-it-<pid>-<counter>, removed on
// destruction unless M2VP_IT_KEEP is set.
class Sandbox {
 public:
  Sandbox() {
    m_dir = fs::temp_directory_path() /
            ("m2vp-it-" + std::to_string(::getpid()) + "-" + std::to_string(g_sandbox_counter++));
    std::error_code ec;
    fs::remove_all(m_dir, ec);  // a stale folder of an earlier process with the same pid
    fs::create_directories(m_dir);
  }
  ~Sandbox() {
    const char* keep = std::getenv("M2VP_IT_KEEP");
    if (keep && *keep) return;
    std::error_code ec;
    fs::remove_all(m_dir, ec);
  }
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;

  const fs::path& dir() const { return m_dir; }

  fs::path write(const std::string& name, const std::string& text) const {
    const fs::path p = m_dir / name;
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) throw std::runtime_error("cannot write " + p.string());
    return p;
  }

  // A minimal single-NI config running `firmware`, plus `extra` YAML lines
  // (top level) at the end.
  fs::path config(const std::string& firmware, const std::string& extra = "",
                  const std::string& name = "test.yaml") const {
    return write(name, "platform: single-ni\nni0:\n  firmware: " + firmware + "\n" + extra);
  }

  // Runs m2vp-sim with `args`. For the "run" command an output folder
  // <sandbox>/out<k> is added with --out unless `add_out` is false.
  SimResult run(const std::vector<std::string>& args, bool add_out = true, double timeout_s = 30) {
    return start(args, add_out).wait(timeout_s);
  }

  // A child process running in the background; wait() collects it.
  class Process {
   public:
    // Waits for the exit, killing the process after `timeout_s`.
    SimResult wait(double timeout_s = 30) {
      SimResult r = std::move(m_result);
      int status = 0;
      for (;;) {
        const pid_t w = ::waitpid(m_pid, &status, WNOHANG);
        if (w == m_pid) break;
        if (w < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count() > timeout_s * kWallScale) {
          r.timed_out = true;
          ::kill(m_pid, SIGKILL);
          while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
          }
          break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      m_pid = -1;
      r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
      if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
      else if (WIFSIGNALED(status)) r.term_signal = WTERMSIG(status);
      r.out = read_text(m_out_file);
      r.err = read_text(m_err_file);
      return r;
    }
    pid_t pid() const { return m_pid; }
    // What the process has written to stdout so far.
    std::string out_so_far() const { return read_text(m_out_file); }
    Process(Process&& o) noexcept
        : m_pid(std::exchange(o.m_pid, -1)),
          m_t0(o.m_t0),
          m_out_file(std::move(o.m_out_file)),
          m_err_file(std::move(o.m_err_file)),
          m_result(std::move(o.m_result)) {}
    Process& operator=(Process&&) = delete;
    // Never leaves a child behind, even when a check threw.
    ~Process() {
      if (m_pid > 0) {
        ::kill(m_pid, SIGKILL);
        int status;
        while (::waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
        }
      }
    }

   private:
    friend class Sandbox;
    Process() = default;
    pid_t m_pid = -1;
    std::chrono::steady_clock::time_point m_t0;
    fs::path m_out_file, m_err_file;
    SimResult m_result;
  };

  // Starts m2vp-sim with `args` in the background (see run()).
  Process start(const std::vector<std::string>& args, bool add_out = true) {
    std::vector<std::string> full{M2VP_SIM};
    full.insert(full.end(), args.begin(), args.end());
    fs::path out_dir;
    if (add_out && !args.empty() && args[0] == "run") {
      out_dir = m_dir / ("out" + std::to_string(m_runs));
      full.push_back("--out");
      full.push_back(out_dir.string());
    }
    return start_program(full, out_dir);
  }

  // Starts any program (argv[0] is its path) in the sandbox folder, with
  // the environment m2vp-sim gets, stdin from /dev/null.
  Process start_program(std::vector<std::string> full, const fs::path& out_dir = {}) {
    const int k = m_runs++;
    Process p;
    p.m_result.out_dir = out_dir;
    for (const std::string& a : full) p.m_result.command += (p.m_result.command.empty() ? "" : " ") + a;

    std::vector<std::string> env_strings;
    for (char** e = environ; e && *e; ++e) {
      const std::string s = *e;
      if (s.rfind("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=", 0) == 0 || s.rfind("M2VP_FIRMWARE_DIR=", 0) == 0) continue;
      env_strings.push_back(s);
    }
    env_strings.push_back("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1");
    env_strings.push_back(std::string("M2VP_FIRMWARE_DIR=") + M2VP_TEST_FIRMWARE_DIR);
    std::vector<char*> argv, envp;
    for (std::string& a : full) argv.push_back(a.data());
    argv.push_back(nullptr);
    for (std::string& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);

    p.m_out_file = m_dir / ("run" + std::to_string(k) + ".stdout");
    p.m_err_file = m_dir / ("run" + std::to_string(k) + ".stderr");
    const int out_fd = ::open(p.m_out_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int err_fd = ::open(p.m_err_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int in_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (out_fd < 0 || err_fd < 0 || in_fd < 0)
      throw std::runtime_error("cannot create capture files in " + m_dir.string() + ": " + std::strerror(errno));
    const std::string cwd = m_dir.string();

    p.m_t0 = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
    if (pid == 0) {
      // Child: only async-signal-safe calls from here on.
      if (::dup2(in_fd, 0) < 0 || ::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) ::_exit(126);
      // Run inside the sandbox, so nothing (e.g. a default traces/ folder)
      // lands in the source tree.
      if (::chdir(cwd.c_str()) != 0) ::_exit(126);
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
    ::close(out_fd);
    ::close(err_fd);
    ::close(in_fd);
    p.m_pid = pid;
    return p;
  }

 private:
  fs::path m_dir;
  int m_runs = 0;
};

}  // namespace m2it
