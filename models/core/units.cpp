// Unit symbols and conversions of parameter values (see units.h).
#include "core/units.h"

#include <cctype>
#include <cmath>
#include <map>
#include <vector>

namespace m2 {

namespace {

// Data sizes in bytes, with the spellings users write.
const std::vector<std::pair<std::vector<std::string>, double>>& data_sizes() {
  static const std::vector<std::pair<std::vector<std::string>, double>> sizes = {
      {{"B", "byte", "bytes"}, 1.0},
      {{"KB", "kB"}, 1e3},
      {{"MB"}, 1e6},
      {{"GB"}, 1e9},
      {{"KiB"}, 1024.0},
      {{"MiB"}, 1024.0 * 1024},
      {{"GiB"}, 1024.0 * 1024 * 1024},
      {{"b", "bit", "bits"}, 1.0 / 8},
      {{"Kb", "kb", "Kbit", "kbit"}, 1e3 / 8},
      {{"Mb", "Mbit"}, 1e6 / 8},
      {{"Gb", "Gbit"}, 1e9 / 8},
  };
  return sizes;
}

const std::map<std::string, Unit>& units() {
  static const std::map<std::string, Unit> table = [] {
    std::map<std::string, Unit> t;
    const std::vector<std::pair<std::string, double>> times = {{"ps", 1e-12}, {"ns", 1e-9}, {"us", 1e-6},
                                                               {"µs", 1e-6},  {"ms", 1e-3}, {"s", 1.0}};
    for (const auto& [sym, scale] : times) {
      t[sym] = {"time", scale};
      // Propagation delay per length: "ns/m".
      t[sym + "/m"] = {"time per length", scale};
    }
    for (const auto& [sym, scale] : std::vector<std::pair<std::string, double>>{
             {"Hz", 1.0}, {"kHz", 1e3}, {"KHz", 1e3}, {"MHz", 1e6}, {"GHz", 1e9}})
      t[sym] = {"frequency", scale};
    for (const auto& [sym, scale] :
         std::vector<std::pair<std::string, double>>{{"mm", 1e-3}, {"cm", 1e-2}, {"m", 1.0}, {"km", 1e3}})
      t[sym] = {"length", scale};
    for (const auto& [symbols, scale] : data_sizes()) {
      for (const std::string& sym : symbols) {
        t[sym] = {"data size", scale};
        t[sym + "/s"] = {"data rate", scale};
      }
    }
    // The usual abbreviations of bit rates.
    t["Kbps"] = t["kbps"] = {"data rate", 1e3 / 8};
    t["Mbps"] = {"data rate", 1e6 / 8};
    t["Gbps"] = {"data rate", 1e9 / 8};
    return t;
  }();
  return table;
}

// "a time", "a data rate": for messages.
std::string with_article(const std::string& dimension) {
  return std::string("aeiou").find(dimension[0]) == std::string::npos ? "a " + dimension : "an " + dimension;
}

}  // namespace

std::optional<Unit> find_unit(const std::string& symbol) {
  const auto it = units().find(symbol);
  if (it == units().end()) return std::nullopt;
  return it->second;
}

std::optional<ValueWithUnit> split_unit(const std::string& text) {
  // The number: sign, digits with '.', and an exponent only where digits
  // follow the 'e' ("1e3ns"); the rest, after optional blanks, is the unit.
  size_t i = 0;
  const size_t n = text.size();
  while (i < n && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const size_t start = i;
  if (i < n && (text[i] == '+' || text[i] == '-')) ++i;
  size_t digits = 0;
  while (i < n && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) {
    if (text[i] != '.') ++digits;
    ++i;
  }
  if (digits == 0) return std::nullopt;
  if (i + 1 < n && (text[i] == 'e' || text[i] == 'E')) {
    size_t j = i + 1;
    if (j < n && (text[j] == '+' || text[j] == '-')) ++j;
    if (j < n && std::isdigit(static_cast<unsigned char>(text[j]))) {
      while (j < n && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
      i = j;
    }
  }
  const std::string number = text.substr(start, i - start);
  while (i < n && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  size_t end = n;
  while (end > i && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  if (i == end) return std::nullopt;
  return ValueWithUnit{number, text.substr(i, end - i)};
}

std::string convert_unit(double value, const std::string& from, const std::string& to, double& out) {
  if (from == to) {
    out = value;
    return "";
  }
  const auto target = find_unit(to);
  if (to.empty()) return "it takes a plain number, without a unit";
  if (!target) return "it takes a plain number of " + to + ", without a unit";
  const auto given = find_unit(from);
  if (!given)
    return "unknown unit '" + from + "' (expected " + with_article(target->dimension) + " such as " + to + ")";
  if (given->dimension != target->dimension)
    return from + " is " + with_article(given->dimension) + ", not " + with_article(target->dimension) + " like " + to;
  // Multiplying or dividing by a ratio >= 1 snapped to its short decimal
  // (1000, not 1000.0000000000001; 0.001 is no exact double) keeps "20ns" in
  // us exactly 0.02.
  const double ratio = given->scale / target->scale;
  const auto snapped = [](double r) {
    const double s = std::round(r * 1e6) / 1e6;
    return std::fabs(s - r) <= 1e-12 * r ? s : r;
  };
  if (ratio >= 1) out = value * snapped(ratio);
  else out = value / snapped(target->scale / given->scale);
  return "";
}

}  // namespace m2
