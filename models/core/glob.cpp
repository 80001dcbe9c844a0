#include "core/glob.h"

namespace m2 {

bool glob_match(const char* p, const char* s) {
  for (; *p; ++p, ++s) {
    if (*p == '*') {
      const bool any = p[1] == '*';  // "**" crosses dots, "*" does not
      const char* rest = any ? p + 2 : p + 1;
      for (const char* t = s;; ++t) {
        if (glob_match(rest, t)) return true;
        if (!*t || (!any && *t == '.')) return false;
      }
    }
    if (!*s || *p != *s) return false;
  }
  return !*s;
}

}  // namespace m2
