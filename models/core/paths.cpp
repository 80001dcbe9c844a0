#include "core/paths.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "core/params.h"

namespace fs = std::filesystem;

namespace m2 {

namespace {

// A build folder next to the executable's (bin/../RELDIR), unless the
// environment variable `env_name` says where; `fallback` when neither is known.
std::string beside_executable(const char* env_name, const char* reldir, const char* fallback) {
  // Absolute: outside programs run in their own working folder and load
  // from library_dir() (a relative one would silently miss there).
  std::error_code ec;
  if (const char* env = std::getenv(env_name); env && *env) {
    const fs::path a = fs::absolute(env, ec);
    return (ec ? fs::path(env) : a).lexically_normal().string();
  }
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return fallback;
  return (exe.parent_path() / reldir).lexically_normal().string();
}

}  // namespace

std::string firmware_dir() { return beside_executable("M2VP_FIRMWARE_DIR", M2VP_FIRMWARE_RELDIR, "firmware"); }

std::string library_dir() { return beside_executable("M2VP_LIB_DIR", M2VP_LIBRARY_RELDIR, "lib"); }

std::string resolve_firmware(const std::string& value, const std::string& config_dir) {
  const bool is_path =
      value.find('/') != std::string::npos || (value.size() > 4 && value.compare(value.size() - 4, 4, ".elf") == 0);
  if (!is_path) return (fs::path(firmware_dir()) / (value + ".elf")).string();
  const fs::path p(value);
  if (p.is_absolute() || config_dir.empty()) return p.string();
  return (fs::path(config_dir) / p).lexically_normal().string();
}

std::string missing_firmware_hint(const std::string& value, const std::string& config_dir) {
  std::error_code ec;
  const std::string path = resolve_firmware(value, config_dir);
  if (fs::exists(path, ec)) return "";
  const std::string dir = firmware_dir();
  if (value.find('/') != std::string::npos || fs::path(value).extension() == ".elf") {
    if (fs::path(value).is_absolute()) return "";
    return " (a firmware path is relative to the config file's folder, " +
           (config_dir.empty() ? std::string(".") : config_dir) + "; a bare name such as 'hello' is looked up in " +
           dir + ")";
  }
  std::vector<std::string> names;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".elf") names.push_back(it->path().stem().string());
  std::sort(names.begin(), names.end());
  if (names.empty()) return " (" + dir + " holds no firmware: is the tree built? ./m2vp builds it)";
  const std::string best = closest_name(value, names);
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return " (" + (best.empty() ? std::string() : "did you mean '" + best + "'? ") + "firmware in " + dir + ": " + list +
         ")";
}

}  // namespace m2
