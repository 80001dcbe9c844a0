// Parameter values with units ("1600MB/s", "20ns", "3.2Gb/s"): converted to
// the declared unit, bare numbers in the declared unit, a unit of another
// dimension or an integer that does not fit refused with what was expected.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "core/params.h"
#include "core/units.h"

using Catch::Matchers::Contains;
using m2::ConfigError;
using m2::Param;
using m2::ParamRegistry;
using m2::Range;
using m2::ValueOrigin;

TEST_CASE("param units: a time converts to the declared ns, us and ms", "[params][units]") {
  Param<double> ns{"dev", "setup_ns", 100.0, "ns", "setup", Range<double>{0, 1e9}};
  Param<double> us{"dev", "poll_us", 1.0, "us", "poll", Range<double>{0, 1e9}};
  CHECK(ns.set_from_string("20ns").empty());
  CHECK(ns.get() == 20.0);
  CHECK(ns.set_from_string("1.5 us").empty());
  CHECK(ns.get() == 1500.0);
  CHECK(ns.set_from_string("2ms").empty());
  CHECK(ns.get() == 2e6);
  CHECK(ns.set_from_string("1s").empty());
  CHECK(ns.get() == 1e9);
  CHECK(ns.set_from_string("500ps").empty());
  CHECK(ns.get() == 0.5);
  CHECK(ns.set_from_string("1e3ns").empty());
  CHECK(ns.get() == 1000.0);
  // Smaller units divide by a whole ratio: exactly the decimal value.
  CHECK(us.set_from_string("20ns").empty());
  CHECK(us.get() == 0.02);
  CHECK(us.set_from_string("250µs").empty());
  CHECK(us.get() == 250.0);
}

TEST_CASE("param units: frequency, length and time per length", "[params][units]") {
  Param<double> clock{"cpu", "clock_mhz", 300.0, "MHz", "core clock", Range<double>{1, 2000}};
  Param<uint64_t> timebase{"cpu", "timebase_hz", 25000000, "Hz", "timebase"};
  Param<double> cable{"link", "cable_m", 5.0, "m", "cable length", Range<double>{0, 1000}};
  Param<double> per_m{"link", "ns_per_m", 5.0, "ns/m", "propagation", Range<double>{0, 100}};
  CHECK(clock.set_from_string("300MHz").empty());
  CHECK(clock.get() == 300.0);
  CHECK(clock.set_from_string("1.2GHz").empty());
  CHECK(clock.get() == 1200.0);
  CHECK(clock.set_from_string("66000 kHz").empty());
  CHECK(clock.get() == 66.0);
  CHECK(timebase.set_from_string("25MHz").empty());
  CHECK(timebase.get() == 25000000u);
  CHECK(cable.set_from_string("5m").empty());
  CHECK(cable.get() == 5.0);
  CHECK(cable.set_from_string("250cm").empty());
  CHECK(cable.get() == 2.5);
  CHECK(per_m.set_from_string("4.5ns/m").empty());
  CHECK(per_m.get() == 4.5);
}

TEST_CASE("param units: data sizes, decimal and binary, bits and bytes", "[params][units]") {
  Param<uint64_t> bytes{"mem", "size_bytes", 4096, "B", "size"};
  Param<uint64_t> bits{"bus", "width_bits", 32, "bits", "width", Range<uint64_t>{8, 1024}};
  CHECK(bytes.set_from_string("64KiB").empty());
  CHECK(bytes.get() == 65536u);
  CHECK(bytes.set_from_string("64KB").empty());
  CHECK(bytes.get() == 64000u);
  CHECK(bytes.set_from_string("16 MiB").empty());
  CHECK(bytes.get() == 16u * 1024 * 1024);
  CHECK(bytes.set_from_string("2GiB").empty());
  CHECK(bytes.get() == 2147483648u);
  CHECK(bytes.set_from_string("256 bytes").empty());
  CHECK(bytes.get() == 256u);
  CHECK(bytes.set_from_string("64bit").empty());
  CHECK(bytes.get() == 8u);
  CHECK(bits.set_from_string("8B").empty());
  CHECK(bits.get() == 64u);
  CHECK(bits.set_from_string("128 bit").empty());
  CHECK(bits.get() == 128u);
  // Binary into decimal: the ratio is not a short decimal and is kept whole.
  Param<double> gb{"disk", "size_gb", 1.0, "GB", "size"};
  CHECK(gb.set_from_string("1GiB").empty());
  CHECK(gb.get() == 1.073741824);
  CHECK(gb.set_from_string("1000MiB").empty());
  CHECK(gb.get() == Approx(1.048576).epsilon(1e-15));
}

TEST_CASE("param units: data rates in bytes and in bits", "[params][units]") {
  Param<double> mbyte{"dma", "rate_mbyte_per_s", 1600.0, "MB/s", "rate", Range<double>{1, 1e6}};
  Param<double> gbit{"link", "gbit_per_s", 3.2, "Gbit/s", "rate", Range<double>{0.001, 100}};
  CHECK(mbyte.set_from_string("1600MB/s").empty());
  CHECK(mbyte.get() == 1600.0);
  CHECK(mbyte.set_from_string("3.2Gb/s").empty());
  CHECK(mbyte.get() == 400.0);
  CHECK(mbyte.set_from_string("3.2 Gbit/s").empty());
  CHECK(mbyte.get() == 400.0);
  CHECK(mbyte.set_from_string("1.6GB/s").empty());
  CHECK(mbyte.get() == 1600.0);
  CHECK(mbyte.set_from_string("800Mbps").empty());
  CHECK(mbyte.get() == 100.0);
  CHECK(gbit.set_from_string("400MB/s").empty());
  CHECK(gbit.get() == 3.2);
  CHECK(gbit.set_from_string("2.5Gbps").empty());
  CHECK(gbit.get() == 2.5);
}

TEST_CASE("param units: a bare number keeps meaning the declared unit", "[params][units]") {
  Param<double> rate{"dma", "rate_mbyte_per_s", 1600.0, "MB/s", "rate", Range<double>{1, 1e6}};
  Param<uint64_t> bytes{"mem", "size_bytes", 4096, "B", "size"};
  Param<int64_t> offset{"dev", "offset_ns", 0, "ns", "offset"};
  CHECK(rate.set_from_string("800").empty());
  CHECK(rate.get() == 800.0);
  CHECK(bytes.set_from_string("0x1000").empty());
  CHECK(bytes.get() == 4096u);
  CHECK(bytes.set_from_string("1_024").empty());
  CHECK(bytes.get() == 1024u);
  CHECK(offset.set_from_string("-5us").empty());
  CHECK(offset.get() == -5000);
  // The declared unit itself, spelt as declared, for units the table lacks.
  Param<uint64_t> cycles{"bus", "setup_cycles", 2, "cycles", "setup"};
  CHECK(cycles.set_from_string("4 cycles").empty());
  CHECK(cycles.get() == 4u);
}

TEST_CASE("param units: a unit of another dimension names both and changes nothing", "[params][units]") {
  Param<double> rate{"dma", "rate_mbyte_per_s", 1600.0, "MB/s", "rate", Range<double>{1, 1e6}};
  const std::string err = rate.set_from_string("5ns");
  CHECK(err == "expected a number (double, MB/s) in 1..1000000, got '5ns': ns is a time, not a data rate like MB/s");
  CHECK(rate.get() == 1600.0);
  Param<double> cable{"link", "cable_m", 5.0, "m", "cable length"};
  CHECK_THAT(cable.set_from_string("5MHz"), Contains("got '5MHz': MHz is a frequency, not a length like m"));
  Param<uint64_t> bytes{"mem", "size_bytes", 4096, "B", "size"};
  CHECK_THAT(bytes.set_from_string("1MB/s"), Contains("MB/s is a data rate, not a data size like B"));
  CHECK_THAT(bytes.set_from_string("3 furlongs"), Contains("unknown unit 'furlongs' (expected a data size such as B)"));
  Param<uint64_t> cycles{"bus", "setup_cycles", 2, "cycles", "setup"};
  CHECK_THAT(cycles.set_from_string("20ns"), Contains("got '20ns': it takes a plain number of cycles, without a unit"));
  Param<uint64_t> port{"sim", "gdb_port", 0, "", "port"};
  CHECK(port.set_from_string("1234MHz") == "expected a non-negative integer (uint), got '1234MHz'");
  CHECK(bytes.get() == 4096u);
  CHECK(cycles.get() == 2u);
}

TEST_CASE("param units: converted values are range-checked, whole and within 64 bits", "[params][units]") {
  Param<double> clock{"cpu", "clock_mhz", 300.0, "MHz", "core clock", Range<double>{1, 2000}};
  CHECK(clock.set_from_string("3GHz") == "expected a number (double, MHz) in 1..2000, got '3GHz' (3000 MHz)");
  CHECK(clock.get() == 300.0);
  Param<uint64_t> bytes{"mem", "size_bytes", 4096, "B", "size"};
  CHECK_THAT(bytes.set_from_string("1bit"), Contains("got '1bit': not a whole number (0.125)"));
  CHECK_THAT(bytes.set_from_string("-1KB"), Contains("got '-1KB': negative"));
  CHECK_THAT(bytes.set_from_string("20000000000GB"), Contains("got '20000000000GB': too large for a 64-bit integer"));
  Param<int64_t> offset{"dev", "offset_ns", 0, "ns", "offset"};
  CHECK_THAT(offset.set_from_string("10000000000s"), Contains("too large for a 64-bit integer"));
  CHECK(bytes.set_from_string("16EiB") != "");  // no such unit: refused, not wrapped
  CHECK(bytes.get() == 4096u);
  // 2^64 bytes does not fit; 2^63 - 2^30 does.
  CHECK_THAT(bytes.set_from_string("17179869184GiB"), Contains("too large for a 64-bit integer"));
  CHECK(bytes.set_from_string("8589934591GiB").empty());
  CHECK(bytes.get() == 8589934591ull * 1024 * 1024 * 1024);
}

TEST_CASE("param units: a preset with a unit is converted, a wrong one names the key and the origin",
          "[params][units]") {
  auto& reg = ParamRegistry::instance();
  reg.preset("node0.ni.dma.rate_mbyte_per_s", "3.2Gb/s", ValueOrigin{"configs/x.yaml:7"});
  Param<double> rate{"node0.ni.dma", "rate_mbyte_per_s", 1600.0, "MB/s", "rate", Range<double>{1, 1e6}};
  CHECK(rate.get() == 400.0);
  CHECK(rate.origin().where == "configs/x.yaml:7");
  reg.preset("node0.link.cable_m", "20ns", ValueOrigin{"--set"});
  try {
    Param<double> cable{"node0.link", "cable_m", 5.0, "m", "cable length", Range<double>{0, 1000}};
    FAIL("a time for a length was accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()) ==
          "--set: key 'node0.link.cable_m': expected a number (double, m) in 0..1000, got '20ns': ns is a time, "
          "not a length like m");
  }
}

TEST_CASE("param units: splitting a value into number and unit", "[params][units]") {
  auto s = m2::split_unit(" 3.2 Gb/s ");
  REQUIRE(s);
  CHECK(s->number == "3.2");
  CHECK(s->unit == "Gb/s");
  s = m2::split_unit("1e-3s");
  REQUIRE(s);
  CHECK(s->number == "1e-3");
  CHECK(s->unit == "s");
  s = m2::split_unit("2e");  // no exponent digits: 'e' is the unit (unknown)
  REQUIRE(s);
  CHECK(s->unit == "e");
  CHECK_FALSE(m2::split_unit("ns"));
  CHECK_FALSE(m2::split_unit("42"));
}
