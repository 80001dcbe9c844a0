// A fresh folder under the system's temporary folder for one test, removed
// with everything in it when the test ends (its name: prefix, pid, random).
#pragma once

#include <unistd.h>

#include <filesystem>
#include <random>
#include <sstream>
#include <string>
#include <system_error>

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "m2vp-test") {
    std::random_device rd;
    std::ostringstream name;
    name << prefix << "-" << ::getpid() << "-" << std::hex << rd() << rd();
    path = std::filesystem::temp_directory_path() / name.str();
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};
