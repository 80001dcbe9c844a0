#include "host/netpipe_table.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/result_table.h"

namespace m2 {

std::string load_netpipe_table(const std::string& path, const std::string& speaker) {
  std::ifstream in(path);
  if (!in) return path + ": cannot be read";
  std::vector<std::string> rows;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    std::istringstream w(line);
    long long bytes = 0;
    double mbps = 0, seconds = 0;
    std::string extra;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (!(w >> bytes >> mbps >> seconds) || (w >> extra) || bytes < 0 || seconds <= 0)
      return path + " line " + std::to_string(n) + ": expected 'bytes Mbit/s seconds' (NetPIPE's np.out), got '" +
             line + "'";
    // NetPIPE's Mbit/s counts 2^20 bits; the table's mbps is 10^6 bits per
    // second as everywhere else in the platform (the netpipe app's): from
    // the size and the time.
    char row[128];
    std::snprintf(row, sizeof row, "@row %lld %.3f %.3f", bytes, seconds * 1e6, bytes * 8 / (seconds * 1e6));
    rows.push_back(row);
  }
  if (rows.empty()) return path + ": no measurements";
  ResultTable& t = ResultTable::instance();
  t.take_line(speaker, "@columns bytes latency_us mbps");
  for (const std::string& r : rows) t.take_line(speaker, r);
  return "";
}

}  // namespace m2
