// The run log, written to a file of its own while a test runs, for the test
// to read back what a model logged.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/log.h"

namespace m2test {

struct LogCapture {
  std::filesystem::path path;
  explicit LogCapture(const std::string& name)
      : path(std::filesystem::temp_directory_path() / (name + "." + std::to_string(::getpid()) + ".log")) {
    m2::Log::instance().open_file(path.string());
  }
  ~LogCapture() {
    m2::Log::instance().close_file();
    std::filesystem::remove(path);
  }
  std::string text() const {
    std::ifstream f(path);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
};

}  // namespace m2test
