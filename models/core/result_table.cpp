#include "core/result_table.h"

#include <algorithm>
#include <sstream>

#include "core/log.h"

namespace m2 {
namespace {

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> w;
  std::istringstream in(text);
  for (std::string s; in >> s;) w.push_back(s);
  return w;
}

}  // namespace

ResultTable& ResultTable::instance() {
  static ResultTable t;
  return t;
}

bool ResultTable::take_line(const std::string& speaker, const std::string& line) {
  if (line.rfind("@columns ", 0) == 0) {
    const std::vector<std::string> cols = words(line.substr(9));
    if (m_columns.empty()) m_columns = cols;
    else if (cols != m_columns)
      Log::instance().warning(speaker + ": '" + line + "' names other columns than the table's; ignored");
    return true;
  }
  if (line.rfind("@row ", 0) == 0) {
    std::vector<std::string> row = words(line.substr(5));
    if (m_columns.empty() || row.size() != m_columns.size()) {
      Log::instance().warning(speaker + ": '" + line + "' does not match the table's columns (" +
                              std::to_string(m_columns.size()) + "); row dropped");
      return true;
    }
    m_rows.push_back(std::move(row));
    return true;
  }
  return false;
}

std::string ResultTable::format() const {
  std::vector<size_t> width(m_columns.size());
  for (size_t c = 0; c < m_columns.size(); ++c) {
    width[c] = m_columns[c].size();
    for (const auto& r : m_rows) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t c = 0; c < cells.size(); ++c)
      s += std::string(width[c] - cells[c].size() + (c ? 2 : 0), ' ') + cells[c];
    return s + "\n";
  };
  std::string out = line(m_columns);
  for (const auto& r : m_rows) out += line(r);
  return out;
}

void ResultTable::clear() {
  m_columns.clear();
  m_rows.clear();
}

}  // namespace m2
