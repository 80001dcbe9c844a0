// A text as one cell of a markdown table (the generated tables of the
// docs/models pages: params_markdown.h, stats_markdown.h).
#pragma once

#include <string>

namespace m2 {

// A '|' of the text would end the cell: escaped.
inline std::string markdown_cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : std::string(1, c);
  return out;
}

}  // namespace m2
