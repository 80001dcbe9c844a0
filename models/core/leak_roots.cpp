#include "core/leak_roots.h"

#ifdef M2VP_SANITIZED
#include <sanitizer/lsan_interface.h>

#include <cstdint>
#include <cstdio>
#endif

namespace m2 {

#ifdef M2VP_SANITIZED
void keep_stack_as_leak_root() {
  // The mapping that holds this frame is the calling coroutine's stack
  // (SystemC maps each one on its own, behind a guard page).
  const char here = 0;
  const auto at = reinterpret_cast<std::uintptr_t>(&here);
  std::FILE* maps = std::fopen("/proc/self/maps", "r");
  if (!maps) return;
  unsigned long lo = 0, hi = 0;
  char line[512];
  while (std::fgets(line, sizeof line, maps)) {
    if (std::sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo <= at && at < hi) {
      __lsan_register_root_region(reinterpret_cast<void*>(lo), hi - lo);
      break;
    }
  }
  std::fclose(maps);
}
#else
void keep_stack_as_leak_root() {}
#endif

}  // namespace m2
