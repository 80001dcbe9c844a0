// Wildcard matching of hierarchical names ("sb0.port3.mlx.variant"):
// `*` matches any text within one part of the name (never a '.'), so
// "sb*.variant" selects the switch boxes' variants and not their ports'
// engines'; `**` matches any text, dots included ("**.link.variant": every
// link, under a node or under a switch-box port). Used for parameter keys
// that set many parameters at once ("node*.ni.firmware") and for trace and
// signal patterns.
#pragma once

#include <string>

namespace m2 {

bool glob_match(const char* pattern, const char* text);
inline bool glob_match(const std::string& pattern, const std::string& text) {
  return glob_match(pattern.c_str(), text.c_str());
}

}  // namespace m2
