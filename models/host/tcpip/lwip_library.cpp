#include "host/tcpip/lwip_library.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <system_error>

#include "core/paths.h"

namespace fs = std::filesystem;

namespace m2 {

std::string LwipLibrary::default_path() { return (fs::path(library_dir()) / "libm2lwip.so").string(); }

LwipLibrary::LwipLibrary(const std::string& library, const std::string& output_dir, int node) {
  std::error_code ec;
  if (!fs::is_regular_file(library, ec)) {
    throw std::runtime_error("the TCP/IP stack's library '" + library +
                             "' does not exist (built as libm2lwip.so into the build's lib folder by ./m2vp)");
  }
  const fs::path base = output_dir.empty() ? fs::temp_directory_path() : fs::path(output_dir);
  std::string pattern = (base / ".tcpip-XXXXXX").string();
  if (!mkdtemp(pattern.data())) {
    throw std::runtime_error("cannot make a temporary folder in '" + base.string() + "' for node" +
                             std::to_string(node) +
                             "'s copy of the TCP/IP stack: " + std::system_category().message(errno));
  }
  const fs::path folder = pattern;
  const fs::path copy = folder / ("lwip-node" + std::to_string(node) + ".so");
  std::string error;
  fs::copy_file(library, copy, ec);
  if (ec) {
    error = "cannot copy '" + library + "' to '" + copy.string() + "': " + ec.message();
  } else {
    m_handle = dlopen(copy.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!m_handle) {
      const char* why = dlerror();
      error = "cannot load '" + copy.string() + "' (a copy of '" + library + "'): " + (why ? why : "unknown error");
    }
  }
  // The loaded copy stays mapped: the file and its folder can go now.
  fs::remove_all(folder, ec);
  if (!error.empty()) throw std::runtime_error(error);
  using Entry = const m2lwip_api* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(m_handle, "m2lwip_get_api"));
  if (!entry) {
    dlclose(m_handle);
    throw std::runtime_error("'" + library + "' has no m2lwip_get_api: not the project's lwIP library");
  }
  m_api = entry();
}

// The copy stays loaded until the process ends (no dlclose): what lwIP still
// holds (its timeout list, buffers) stays reachable for LeakSanitizer, and no
// code of it is unmapped while anything might still point into it.
LwipLibrary::~LwipLibrary() = default;

}  // namespace m2
