#include "core/paths.h"

#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace m2 {

namespace {

// A build folder next to the executable's (bin/../RELDIR), unless the
// environment variable `env_name` says where; `fallback` when neither is known.
std::string beside_executable(const char* env_name, const char* reldir, const char* fallback) {
  if (const char* env = std::getenv(env_name); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return fallback;
  return (exe.parent_path() / reldir).lexically_normal().string();
}

}  // namespace

std::string firmware_dir() { return beside_executable("M2VP_FIRMWARE_DIR", M2VP_FIRMWARE_RELDIR, "firmware"); }

std::string library_dir() { return beside_executable("M2VP_LIB_DIR", M2VP_LIBRARY_RELDIR, "lib"); }

std::string resolve_firmware(const std::string& value, const std::string& config_dir) {
  const bool is_path = value.find('/') != std::string::npos ||
                       (value.size() > 4 && value.compare(value.size() - 4, 4, ".elf") == 0);
  if (!is_path) return (fs::path(firmware_dir()) / (value + ".elf")).string();
  const fs::path p(value);
  if (p.is_absolute() || config_dir.empty()) return p.string();
  return (fs::path(config_dir) / p).lexically_normal().string();
}

}  // namespace m2
