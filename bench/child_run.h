// Benchmarks measure each platform run in a child process of their own
// (SystemC elaborates once per process). run_self: the child is this
// executable again and prints one result line starting with "child ";
// everything else it prints is passed through. run_measured: any program,
// with its wall time and peak resident memory.
#pragma once

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace m2bench {

// Runs this executable again with `args` (already shell-quoted). Returns the
// child's result line, or nullopt if it could not start, failed or printed none.
inline std::optional<std::string> run_self(const std::string& args) {
  std::error_code ec;
  const std::string self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return std::nullopt;
  std::fflush(stdout);
  FILE* p = popen(("'" + self + "' " + args).c_str(), "r");
  if (!p) return std::nullopt;
  std::optional<std::string> result;
  char line[512];
  while (std::fgets(line, sizeof line, p)) {
    if (std::string(line).rfind("child ", 0) == 0) result = line;
    else std::fputs(line, stdout);
  }
  if (pclose(p) != 0) return std::nullopt;
  return result;
}

// What run_measured saw of a child process.
struct ChildUsage {
  int exit_code = -1;     // its exit status; -1 when it did not start or was killed
  double wall_s = 0;      // from fork to exit
  double max_rss_mb = 0;  // peak resident set (getrusage ru_maxrss of that child alone)
};

// Runs argv[0] (a path) with its arguments, stdout and stderr into `log`,
// and waits for it with wait4 so that its own peak memory is known. `env`:
// NAME=VALUE settings added to the child's environment.
inline ChildUsage run_measured(const std::vector<std::string>& argv, const std::filesystem::path& log,
                               const std::vector<std::string>& env = {}) {
  ChildUsage u;
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return u;
  std::fflush(stdout);
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::dup2(fd, 1) < 0 || ::dup2(fd, 2) < 0) ::_exit(126);
    for (const std::string& e : env) ::putenv(const_cast<char*>(e.c_str()));
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(fd);
  if (pid < 0) return u;
  int status = 0;
  struct rusage ru {};
  while (::wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  u.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  u.max_rss_mb = static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux: kilobytes
  if (WIFEXITED(status)) u.exit_code = WEXITSTATUS(status);
  return u;
}

}  // namespace m2bench
