// Units a parameter's value may carry ("1600MB/s", "3.2Gbit/s", "5m", "20ns",
// "300MHz", "64KiB"): each known unit symbol has a dimension and its size in
// that dimension's base unit, so a value is converted to the parameter's
// declared unit and a value of another dimension is refused.
//
// Decimal prefixes are decimal (1 KB = 1000 B, 1 MB/s = 10^6 B/s, as SI and
// the calibration's MB/s), binary sizes are spelt KiB, MiB, GiB. "B" is a
// byte and "b" or "bit" a bit (1 B = 8 bit).
#pragma once

#include <optional>
#include <string>

namespace m2 {

struct Unit {
  std::string dimension;  // "time", "frequency", "length", "data size", "data rate", "time per length"
  double scale;           // in the dimension's base unit: s, Hz, m, byte, byte/s, s/m
};

// The unit a symbol names ("ns", "MB/s", "Gbit/s"), nullopt when unknown.
std::optional<Unit> find_unit(const std::string& symbol);

// A value split into its number and its unit: "3.2 Gb/s" -> {"3.2", "Gb/s"};
// nullopt when the text is not a decimal number followed by a unit.
struct ValueWithUnit {
  std::string number, unit;
};
std::optional<ValueWithUnit> split_unit(const std::string& text);

// `value` given in `from`, expressed in `to` (a parameter's declared unit).
// Returns "" and sets `out`, or what is wrong ("ns is a time, not a data rate
// like MB/s"; "unknown unit 'furlong'").
std::string convert_unit(double value, const std::string& from, const std::string& to, double& out);

}  // namespace m2
