// The measurement table of a run (results.tsv): experiments print
//   @columns bytes latency_us mbps
//   @row 32 4.21 60.8
// on their console (NI firmware) or with m2host_printf (host applications);
// the lines also stay in the log. One table per run: every @columns line
// must name the same columns, every row must have one value per column.
#pragma once

#include <string>
#include <vector>

namespace m2 {

class ResultTable {
 public:
  static ResultTable& instance();

  // Handles a console line; true if it was an @columns or @row line.
  bool take_line(const std::string& speaker, const std::string& line);

  const std::vector<std::string>& columns() const { return m_columns; }
  const std::vector<std::vector<std::string>>& rows() const { return m_rows; }
  bool empty() const { return m_rows.empty(); }
  // Aligned text for the end-of-run report.
  std::string format() const;

  void clear();  // tests

 private:
  std::vector<std::string> m_columns;
  std::vector<std::vector<std::string>> m_rows;
};

}  // namespace m2
