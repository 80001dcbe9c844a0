// Wildcard matching of names: `*` matches any text (also none). Used for
// parameter keys that set many parameters at once ("node*.ni.firmware") and
// for trace patterns.
#pragma once

#include <string>

namespace m2 {

bool glob_match(const char* pattern, const char* text);
inline bool glob_match(const std::string& pattern, const std::string& text) {
  return glob_match(pattern.c_str(), text.c_str());
}

}  // namespace m2
