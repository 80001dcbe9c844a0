// Parameters: text syntax, ranges, presets and the registry.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/ip_variant.h"
#include "core/params.h"

using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using m2::ConfigError;
using m2::Param;
using m2::ParamRegistry;
using m2::Range;
using m2::ValueOrigin;

namespace {

// The core clock of the examples in params.h.
std::unique_ptr<Param<double>> make_clock() {
  return std::make_unique<Param<double>>("ni0.cpu", "clock_mhz", 300.0, "MHz", "core clock", Range<double>{1, 2000});
}

}  // namespace

TEST_CASE("param: hierarchical name metadata and default", "[params]") {
  auto& reg = ParamRegistry::instance();
  {
    auto clock = make_clock();
    Param<bool> verbose{"", "verbose", false, "", "log every access"};
    CHECK(clock->name() == "ni0.cpu.clock_mhz");
    CHECK(verbose.name() == "verbose");
    CHECK(clock->unit() == "MHz");
    CHECK(clock->description() == "core clock");
    CHECK(clock->type_name() == "double");
    CHECK(verbose.type_name() == "bool");
    CHECK(clock->get() == 300.0);
    CHECK(clock->value_string() == "300");
    CHECK(clock->default_string() == "300");
    CHECK(clock->range_string() == "1..2000");
    CHECK(verbose.range_string() == "");
    CHECK(clock->origin().where == "default");
    CHECK(reg.find("ni0.cpu.clock_mhz") == clock.get());
    CHECK(reg.find("verbose") == &verbose);
    CHECK(reg.find("clock_mhz") == nullptr);
    const double& as_ref = *clock;  // implicit read access
    CHECK(as_ref == 300.0);
  }
  // Destroyed parameters unregister themselves.
  CHECK(reg.find("ni0.cpu.clock_mhz") == nullptr);
  CHECK(reg.all().empty());
}

TEST_CASE("param: bool spellings", "[params]") {
  Param<bool> b{"dev", "enable", false, "", "enable"};
  for (const char* yes : {"true", "TRUE", "True", "yes", "YES", "on", "On", "1"}) {
    b.set(false);
    INFO(yes);
    CHECK(b.set_from_string(yes) == "");
    CHECK(b.get() == true);
  }
  for (const char* no : {"false", "False", "no", "NO", "off", "OFF", "0"}) {
    b.set(true);
    INFO(no);
    CHECK(b.set_from_string(no) == "");
    CHECK(b.get() == false);
  }
  b.set(true);
  CHECK(b.set_from_string("maybe") == "expected a boolean (true/false, yes/no, on/off, 1/0), got 'maybe'");
  CHECK_THAT(b.set_from_string(""), Contains("got ''"));
  CHECK(b.set_from_string("2") != "");
  CHECK(b.set_from_string("truex") != "");
  CHECK(b.get() == true);  // failed parses leave the value alone
  CHECK(b.value_string() == "true");
}

TEST_CASE("param: signed integers", "[params]") {
  Param<int64_t> i{"dev", "offset", 0, "", "offset"};
  CHECK(i.type_name() == "int");
  CHECK(i.set_from_string("42") == "");
  CHECK(i.get() == 42);
  CHECK(i.set_from_string("-17") == "");
  CHECK(i.get() == -17);
  CHECK(i.set_from_string("+5") == "");
  CHECK(i.get() == 5);
  CHECK(i.set_from_string("0x10") == "");
  CHECK(i.get() == 16);
  CHECK(i.set_from_string("0XfF") == "");
  CHECK(i.get() == 255);
  CHECK(i.set_from_string("-0x10") == "");
  CHECK(i.get() == -16);
  CHECK(i.set_from_string("1_000_000") == "");
  CHECK(i.get() == 1000000);
  CHECK(i.set_from_string(" 7 ") == "");
  CHECK(i.get() == 7);
  CHECK(i.set_from_string("9223372036854775807") == "");
  CHECK(i.get() == std::numeric_limits<int64_t>::max());
  CHECK(i.set_from_string("-9223372036854775808") == "");
  CHECK(i.get() == std::numeric_limits<int64_t>::min());

  i.set(3);
  for (const char* bad : {"", "12abc", "1.5", "abc", "0x", "0xg", "_1", "1_", "1__0", "0x_1", "--1", "+",
                          "9223372036854775808", "-9223372036854775809"}) {
    INFO("'" << bad << "'");
    CHECK(i.set_from_string(bad) == "expected an integer (int), got '" + std::string(bad) + "'");
  }
  CHECK(i.get() == 3);
  CHECK(i.value_string() == "3");
}

TEST_CASE("param: unsigned integers reject negatives", "[params]") {
  Param<uint64_t> u{"mem", "size", 4096, "bytes", "memory size"};
  CHECK(u.type_name() == "uint");
  CHECK(u.set_from_string("-1") == "expected a non-negative integer (uint, bytes), got '-1'");
  CHECK(u.set_from_string("-0") != "");
  CHECK(u.get() == 4096);
  CHECK(u.set_from_string("0xffff_ffff_ffff_ffff") == "");
  CHECK(u.get() == std::numeric_limits<uint64_t>::max());
  CHECK(u.set_from_string("18446744073709551616") != "");     // 2^64
  CHECK(u.set_from_string("0x1_0000_0000_0000_0000") != "");  // 2^64
  CHECK(u.get() == std::numeric_limits<uint64_t>::max());
  CHECK(u.set_from_string("64_KiB") != "");
}

TEST_CASE("param: doubles take decimal and scientific notation only", "[params]") {
  Param<double> d{"", "ratio", 1.0, "", "ratio"};
  CHECK(d.set_from_string("1.5") == "");
  CHECK(d.get() == 1.5);
  CHECK(d.set_from_string("1e3") == "");
  CHECK(d.get() == 1000.0);
  CHECK(d.set_from_string("-2.5E-3") == "");
  CHECK(d.get() == -0.0025);
  CHECK(d.set_from_string(".5") == "");
  CHECK(d.get() == 0.5);
  CHECK(d.set_from_string("+7.") == "");
  CHECK(d.get() == 7.0);
  CHECK(d.set_from_string("42") == "");
  CHECK(d.get() == 42.0);
  for (const char* bad : {"", "abc", "1.5x", "0x10", "inf", "nan", "1e", "e5", ".", "1e999", "1,5"}) {
    INFO("'" << bad << "'");
    CHECK(d.set_from_string(bad) == "expected a number (double), got '" + std::string(bad) + "'");
  }
  CHECK(d.get() == 42.0);
  d.set(0.1);
  CHECK(d.value_string() == "0.1");  // shortest round-trip text
  // Found by fuzz_config (sim.max_time_ms=5999...9): a value far beyond
  // int64_t was converted to one while it was printed (undefined behaviour).
  CHECK(d.set_from_string("5999999999999999999999999999999999999999999999999") == "");
  CHECK(d.value_string() == "6e+48");
  d.set(-1e300);
  CHECK(d.value_string() == "-1e+300");
  d.set(-12345);
  CHECK(d.value_string() == "-12345");
}

TEST_CASE("param: ranges are enforced with a clear message", "[params]") {
  auto clock = make_clock();
  CHECK(clock->set_from_string("abc") == "expected a number (double, MHz) in 1..2000, got 'abc'");
  CHECK(clock->set_from_string("3000") == "expected a number (double, MHz) in 1..2000, got '3000'");
  CHECK(clock->set_from_string("0.5") == "expected a number (double, MHz) in 1..2000, got '0.5'");
  CHECK(clock->get() == 300.0);
  CHECK(clock->set_from_string("2000") == "");  // bounds are inclusive
  CHECK(clock->set_from_string("1") == "");
  CHECK(clock->get() == 1.0);

  clock->set(500.0);
  CHECK(clock->get() == 500.0);
  CHECK_THROWS_AS(clock->set(2500.0), ConfigError);
  CHECK_THROWS_WITH(clock->set(2500.0),
                    "parameter 'ni0.cpu.clock_mhz': expected a number (double, MHz) in 1..2000, "
                    "got '2500'");
  CHECK(clock->get() == 500.0);

  Param<int64_t> temp{"", "temp", 0, "C", "temperature", Range<int64_t>{-5, 5}};
  CHECK(temp.set_from_string("6") == "expected an integer (int, C) in -5..5, got '6'");
  CHECK(temp.set_from_string("-5") == "");
  CHECK(temp.get() == -5);

  // A default outside its own range is a model bug.
  CHECK_THROWS_AS((Param<int64_t>{"", "bad", 9, "", "bad", Range<int64_t>{0, 5}}), std::logic_error);
  CHECK(ParamRegistry::instance().find("bad") == nullptr);
}

TEST_CASE("param: enumerations", "[params]") {
  Param<std::string> mode{"ni0.bus", "sync", "lt", "timing model", {"lt", "at"}};
  CHECK(mode.type_name() == "enum");
  CHECK(mode.range_string() == "lt|at");
  CHECK(mode.unit() == "");
  CHECK(mode.set_from_string("xx") == "expected one of lt|at, got 'xx'");
  CHECK(mode.set_from_string("") == "expected one of lt|at, got ''");
  CHECK(mode.set_from_string("LT") != "");  // names are case-sensitive
  CHECK(mode.get() == "lt");
  CHECK(mode.set_from_string("at") == "");
  CHECK(mode.get() == "at");
  CHECK_THROWS_WITH(mode.set("foo"), "parameter 'ni0.bus.sync': expected one of lt|at, got 'foo'");
  CHECK(mode.get() == "at");

  std::vector<std::string> choices{"a", "b", "c"};
  Param<std::string> three{"", "abc", "c", "three choices", choices};
  CHECK(three.range_string() == "a|b|c");
  CHECK_THROWS_AS((Param<std::string>{"", "bad", "z", "bad", {"x", "y"}}), std::logic_error);
}

TEST_CASE("param: plain strings take any text even empty", "[params]") {
  Param<std::string> s{"", "firmware", "hello.elf", "", "firmware image"};
  CHECK(s.type_name() == "string");
  CHECK(s.range_string() == "");
  CHECK(s.set_from_string("  spaced out ") == "");
  CHECK(s.get() == "  spaced out ");
  CHECK(s.set_from_string("") == "");
  CHECK(s.get() == "");
  CHECK(s.default_string() == "hello.elf");
}

TEST_CASE("param: hex printing of unsigned values", "[params]") {
  Param<uint64_t> base{"uart0", "base", 0x1000, "", "base address", Range<uint64_t>{0, 0xffffffff}};
  CHECK(base.value_string() == "4096");
  base.hex();
  CHECK(base.value_string() == "0x00001000");
  CHECK(base.default_string() == "0x00001000");
  CHECK(base.range_string() == "0x00000000..0xffffffff");
  base.set(0xdeadbeef);
  CHECK(base.value_string() == "0xdeadbeef");
  CHECK(base.set_from_string("0x1_0000_0000") ==
        "expected a non-negative integer (uint) in 0x00000000..0xffffffff, got '0x1_0000_0000'");

  Param<uint64_t> wide{"", "wide", 0, "", "wide address"};
  wide.hex().set(0x123456789aULL);
  CHECK(wide.value_string() == "0x123456789a");  // more than 8 digits when needed
}

TEST_CASE("param: presets are applied at construction with their origin", "[params]") {
  auto& reg = ParamRegistry::instance();
  reg.preset("ni0.cpu.clock_mhz", "450", ValueOrigin{"configs/hello.yaml:12"});
  CHECK(reg.has_preset("ni0.cpu.clock_mhz"));
  CHECK_FALSE(reg.has_preset("ni1.cpu.clock_mhz"));
  auto clock = make_clock();
  CHECK(clock->get() == 450.0);
  CHECK(clock->default_string() == "300");
  CHECK(clock->origin().where == "configs/hello.yaml:12");
  CHECK_NOTHROW(reg.check_all_presets_used());

  // A later preset replaces an earlier one: --set overrides the file.
  reg.preset("ni1.cpu.cores", "100", ValueOrigin{"configs/hello.yaml:14"});
  reg.preset("ni1.cpu.cores", "0x20", ValueOrigin{"--set"});
  Param<int64_t> cores{"ni1.cpu", "cores", 1, "", "cores"};
  CHECK(cores.get() == 32);
  CHECK(cores.origin().where == "--set");
}

TEST_CASE("param: the command line wins over the config file whatever the patterns", "[params]") {
  auto& reg = ParamRegistry::instance();
  // The config's longer pattern and exact key lose to a broader --set.
  reg.preset("node*.host.clock_mhz", "800", ValueOrigin{"configs/mmp-pingpong.yaml:17"});
  reg.preset("node1.host.clock_mhz", "900", ValueOrigin{"configs/mmp-pingpong.yaml:20"});
  reg.preset("**.clock_mhz", "500", ValueOrigin{"--set"});
  Param<double> c0{"node0.host", "clock_mhz", 1000.0, "MHz", "clock"};
  Param<double> c1{"node1.host", "clock_mhz", 1000.0, "MHz", "clock"};
  CHECK(c0.get() == 500.0);
  CHECK(c1.get() == 500.0);
  CHECK(c1.origin().where == "--set");
  // Within the config: an exact key beats a pattern, a longer pattern a shorter one.
  reg.preset("sb*.stations", "2", ValueOrigin{"f.yaml:1"});
  reg.preset("sb0.stations", "4", ValueOrigin{"f.yaml:2"});
  reg.preset("**.mode", "inorder", ValueOrigin{"f.yaml:3"});
  reg.preset("sb*.mode", "ooo", ValueOrigin{"f.yaml:4"});
  Param<int64_t> s0{"sb0", "stations", 8, "", "stations"}, s1{"sb1", "stations", 8, "", "stations"};
  Param<std::string> m0{"sb0", "mode", "x", "", "mode"};
  CHECK(s0.get() == 4);
  CHECK(s1.get() == 2);
  CHECK(m0.get() == "ooo");
  // Within the command line the same: an exact --set beats a --set pattern.
  reg.preset("**.gain", "1", ValueOrigin{"--set"});
  reg.preset("ni0.gain", "3", ValueOrigin{"--set"});
  Param<int64_t> g{"ni0", "gain", 0, "", "gain"};
  CHECK(g.get() == 3);
}

TEST_CASE("param: a bad preset names its origin key and expectation", "[params]") {
  auto& reg = ParamRegistry::instance();
  reg.preset("ni0.cpu.clock_mhz", "abc", ValueOrigin{"configs/hello.yaml:12"});
  CHECK_THROWS_WITH(make_clock(),
                    "configs/hello.yaml:12: key 'ni0.cpu.clock_mhz': expected a number (double, "
                    "MHz) in 1..2000, got 'abc'");
  // The half-built parameter did not stay registered.
  CHECK(reg.find("ni0.cpu.clock_mhz") == nullptr);

  reg.preset("ni0.bus.sync", "xx", ValueOrigin{"--set"});
  CHECK_THROWS_WITH((Param<std::string>{"ni0.bus", "sync", "lt", "timing", {"lt", "at"}}),
                    "--set: key 'ni0.bus.sync': expected one of lt|at, got 'xx'");
}

TEST_CASE("param: declaring a name twice is an error", "[params]") {
  auto& reg = ParamRegistry::instance();
  Param<int64_t> first{"dev", "x", 1, "", "first"};
  CHECK_THROWS_AS((Param<int64_t>{"dev", "x", 2, "", "second"}), ConfigError);
  CHECK_THROWS_WITH((Param<bool>{"dev", "x", true, "", "third"}), "parameter 'dev.x' declared twice");
  // The failed duplicate must not unregister the original.
  CHECK(reg.find("dev.x") == &first);
  CHECK(reg.all().size() == 1);
}

TEST_CASE("param: registry lists parameters sorted by name", "[params]") {
  Param<int64_t> p1{"b", "z", 0, "", ""};
  Param<int64_t> p2{"a", "y", 0, "", ""};
  Param<int64_t> p3{"b", "a", 0, "", ""};
  Param<int64_t> p4{"", "a", 0, "", ""};
  Param<int64_t> p5{"ni10", "x", 0, "", ""};
  Param<int64_t> p6{"ni2", "x", 0, "", ""};
  std::vector<std::string> names;
  for (const m2::ParamBase* p : ParamRegistry::instance().all()) names.push_back(p->name());
  CHECK(names == std::vector<std::string>{"a", "a.y", "b.a", "b.z", "ni10.x", "ni2.x"});
  CHECK(ParamRegistry::instance().all().front() == &p4);
}

TEST_CASE("param: nearest name suggestions", "[params]") {
  auto& reg = ParamRegistry::instance();
  auto clock = make_clock();
  Param<std::string> sync{"ni0.bus", "sync", "lt", "timing", {"lt", "at"}};
  Param<uint64_t> base{"ni0.uart0", "base", 0, "", "base"};
  CHECK(reg.nearest("ni0.cpu.clok_mhz") == "ni0.cpu.clock_mhz");
  CHECK(reg.nearest("ni0.cpu.clcok_mhz") == "ni0.cpu.clock_mhz");  // transposition
  CHECK(reg.nearest("ni0.cpu.clock_mhz") == "ni0.cpu.clock_mhz");
  // A right leaf under a missing or wrong hierarchy.
  CHECK(reg.nearest("clock_mhz") == "ni0.cpu.clock_mhz");
  CHECK(reg.nearest("cpu0.clock_mhz") == "ni0.cpu.clock_mhz");
  CHECK(reg.nearest("ni0.bus.synk") == "ni0.bus.sync");
  CHECK(reg.nearest("totally.unrelated_thing") == "");
  CHECK(reg.nearest("ni0.dma.enable") == "");

  // Platform-level keys read with take_preset() are valid names too.
  reg.preset("platform", "hello", ValueOrigin{"--set"});
  REQUIRE(reg.take_preset("platform"));
  CHECK(reg.nearest("platfrom") == "platform");
}

TEST_CASE("param: unused presets are reported together with suggestions", "[params]") {
  auto& reg = ParamRegistry::instance();
  reg.preset("ni0.cpu.clok_mhz", "300", ValueOrigin{"configs/hello.yaml:3"});
  reg.preset("zz.qq", "1", ValueOrigin{"--set"});
  reg.preset("ni0.cpu.clock_mhz", "200", ValueOrigin{"configs/hello.yaml:4"});
  reg.preset("platform", "hello", ValueOrigin{"configs/hello.yaml:1"});
  auto clock = make_clock();
  CHECK_THROWS_AS(reg.check_all_presets_used(), ConfigError);
  try {
    reg.check_all_presets_used();
  } catch (const ConfigError& e) {
    // "platform" was not taken yet; every unused key gets its own line.
    CHECK(std::string(e.what()) ==
          "configs/hello.yaml:3: unknown key 'ni0.cpu.clok_mhz' (did you mean 'ni0.cpu.clock_mhz'?)\n"
          "configs/hello.yaml:1: unknown key 'platform'\n"
          "--set: unknown key 'zz.qq'");
  }
  const auto platform = reg.take_preset("platform");
  REQUIRE(platform.has_value());
  CHECK(platform->text == "hello");
  CHECK(platform->origin.where == "configs/hello.yaml:1");
  CHECK(platform->used);
  CHECK_THROWS_WITH(reg.check_all_presets_used(),
                    "configs/hello.yaml:3: unknown key 'ni0.cpu.clok_mhz' (did you mean "
                    "'ni0.cpu.clock_mhz'?)\n--set: unknown key 'zz.qq'");
  CHECK_FALSE(reg.take_preset("absent").has_value());
}

TEST_CASE("param: a preset given after its parameter exists is reported", "[params]") {
  auto& reg = ParamRegistry::instance();
  auto clock = make_clock();
  reg.preset("ni0.cpu.clock_mhz", "400", ValueOrigin{"--set"});
  CHECK(clock->get() == 300.0);
  CHECK_THROWS_WITH(reg.check_all_presets_used(),
                    Contains("--set: key 'ni0.cpu.clock_mhz'") && Contains("after its parameter was created"));
}

TEST_CASE("param: clear forgets parameters and presets", "[params]") {
  auto& reg = ParamRegistry::instance();
  reg.preset("zz", "1", ValueOrigin{"--set"});
  auto clock = make_clock();
  reg.clear();
  CHECK(reg.find("ni0.cpu.clock_mhz") == nullptr);
  CHECK_FALSE(reg.has_preset("zz"));
  CHECK_NOTHROW(reg.check_all_presets_used());
  // The same name can be declared again; the forgotten object is harmless.
  auto again = make_clock();
  CHECK(reg.find("ni0.cpu.clock_mhz") == again.get());
  clock.reset();
  CHECK(reg.find("ni0.cpu.clock_mhz") == again.get());
}

// A block's variant parameter presets the parameters declared after it; one
// declared after a parameter it presets would leave that parameter at its
// default without a word, so building such a model is refused.
namespace {

const std::vector<m2::IpVariant> kToyVariants = {
    {"fast", "a toy", {{"clock_mhz", "200"}}},
    {"slow", "a toy", {{"clock_mhz", "50"}}},
};

struct VariantFirst {
  m2::VariantParam variant{"blk", "variant", "slow", "which toy", kToyVariants};
  Param<double> clock_mhz{"blk", "clock_mhz", 100.0, "MHz", "a clock"};
};

struct VariantLast {
  Param<double> clock_mhz{"blk", "clock_mhz", 100.0, "MHz", "a clock"};
  m2::VariantParam variant{"blk", "variant", "slow", "which toy", kToyVariants};
};

}  // namespace

TEST_CASE("params: a variant parameter declared after what it presets is refused, naming both") {
  ParamRegistry::instance().clear();
  {
    VariantFirst ok;
    CHECK(ok.clock_mhz.get() == 50.0);
  }
  ParamRegistry::instance().clear();
  try {
    VariantLast bad;
    FAIL("built");
  } catch (const std::logic_error& e) {
    CHECK_THAT(e.what(), Contains("blk's variant parameter is declared after blk.clock_mhz"));
  }
}
