// One loaded copy of the lwIP library (libm2lwip.so) for one simulated host.
// lwIP keeps its state in globals, and loading the same file twice shares
// them, so each host loads a copy of the file of its own: the copy is made in
// a temporary folder inside the run's output folder, loaded with
// RTLD_NOW | RTLD_LOCAL, and removed at once (the mapping stays), so a run
// leaves nothing behind and writes nothing outside its folder. A loaded copy
// is never unloaded: it lives until the process ends.
#pragma once

#include <string>

#include "host/tcpip/lwip/lwip_stack_api.h"

namespace m2 {

class LwipLibrary {
 public:
  // Where the build puts the library: library_dir()/libm2lwip.so.
  static std::string default_path();

  // Loads a private copy of `library` for node `node`, copied into a
  // temporary folder inside `output_dir` (the system's temporary folder when
  // empty). Throws std::runtime_error naming the file and what went wrong.
  LwipLibrary(const std::string& library, const std::string& output_dir, int node);
  ~LwipLibrary();
  LwipLibrary(const LwipLibrary&) = delete;
  LwipLibrary& operator=(const LwipLibrary&) = delete;

  const m2lwip_api& api() const { return *m_api; }

 private:
  void* m_handle = nullptr;
  const m2lwip_api* m_api = nullptr;
};

}  // namespace m2
