// Benchmarks measure each platform run in a child process of their own
// (SystemC elaborates once per process). The child prints one result line
// starting with "child "; everything else it prints is passed through.
#pragma once

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

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

}  // namespace m2bench
