#include "core/paths.h"

#include <cstdlib>
#include <filesystem>

namespace fs = std::filesystem;

namespace m2 {

std::string firmware_dir() {
  if (const char* env = std::getenv("M2VP_FIRMWARE_DIR"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "firmware";
  return (exe.parent_path() / M2VP_FIRMWARE_RELDIR).lexically_normal().string();
}

std::string library_dir() {
  if (const char* env = std::getenv("M2VP_LIB_DIR"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "lib";
  return (exe.parent_path() / M2VP_LIBRARY_RELDIR).lexically_normal().string();
}

std::string resolve_firmware(const std::string& value, const std::string& config_dir) {
  const bool is_path = value.find('/') != std::string::npos ||
                       (value.size() > 4 && value.compare(value.size() - 4, 4, ".elf") == 0);
  if (!is_path) return (fs::path(firmware_dir()) / (value + ".elf")).string();
  const fs::path p(value);
  if (p.is_absolute() || config_dir.empty()) return p.string();
  return (fs::path(config_dir) / p).lexically_normal().string();
}

}  // namespace m2
