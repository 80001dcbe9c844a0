#include "core/glob.h"

namespace m2 {

bool glob_match(const char* p, const char* s) {
  for (; *p; ++p, ++s) {
    if (*p == '*') {
      for (const char* t = s;; ++t) {
        if (glob_match(p + 1, t)) return true;
        if (!*t) return false;
      }
    }
    if (!*s || *p != *s) return false;
  }
  return !*s;
}

}  // namespace m2
