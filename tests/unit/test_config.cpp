// YAML config files and --set overrides as parameter presets.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/params.h"
#include "platform/config_loader.h"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using m2::ConfigError;
using m2::Param;
using m2::ParamRegistry;
using m2::Range;

namespace {

namespace fs = std::filesystem;

// A uniquely named file in the system temp dir, removed when done: tests may
// run in parallel processes.
std::string unique_temp_path(const std::string& suffix) {
  static int counter = 0;
  const std::string name = "m2vp-test-config-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + suffix;
  return (fs::temp_directory_path() / name).string();
}

class TempYaml {
 public:
  explicit TempYaml(const std::string& text) : m_path(unique_temp_path(".yaml")) { std::ofstream(m_path) << text; }
  ~TempYaml() {
    std::error_code ec;
    fs::remove(m_path, ec);
  }
  TempYaml(const TempYaml&) = delete;
  TempYaml& operator=(const TempYaml&) = delete;
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

// What load_config_presets throws for `file`, "" if it succeeds.
std::string load_error(const TempYaml& file) {
  try {
    m2::load_config_presets(file.path(), ParamRegistry::instance());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("config: nested mappings flatten to dotted keys with line origins", "[config]") {
  auto& reg = ParamRegistry::instance();
  TempYaml file(
      "# hello world on two NIs\n"      // 1
      "platform: hello\n"               // 2
      "ni0:\n"                          // 3
      "  cpu:\n"                        // 4
      "    clock_mhz: 350\n"            // 5
      "  bus.sync: at\n"                // 6
      "ni1.cpu.clock_mhz: 250.5\n"      // 7
      "ni1:\n"                          // 8
      "  uart0: {base: 0x8000_1000}\n"  // 9
      "  enable: yes\n"                 // 10
      "  name: \"\"\n");                // 11
  m2::load_config_presets(file.path(), reg);

  const auto platform = reg.take_preset("platform");
  REQUIRE(platform);
  CHECK(platform->text == "hello");
  CHECK(platform->origin.where == file.path() + ":2");

  Param<double> clock0{"ni0.cpu", "clock_mhz", 300.0, "MHz", "core clock", Range<double>{1, 2000}};
  Param<double> clock1{"ni1.cpu", "clock_mhz", 300.0, "MHz", "core clock", Range<double>{1, 2000}};
  Param<std::string> sync{"ni0.bus", "sync", "lt", "timing model", {"lt", "at"}};
  Param<uint64_t> base{"ni1.uart0", "base", 0, "", "base address"};
  Param<bool> enable{"ni1", "enable", false, "", "enable"};
  Param<std::string> name{"ni1", "name", "default", "", "name"};
  CHECK(clock0.get() == 350.0);
  CHECK(clock0.origin().where == file.path() + ":5");
  CHECK(clock1.get() == 250.5);
  CHECK(clock1.origin().where == file.path() + ":7");
  CHECK(sync.get() == "at");
  CHECK(sync.origin().where == file.path() + ":6");
  CHECK(base.get() == 0x80001000);
  CHECK(base.origin().where == file.path() + ":9");
  CHECK(enable.get() == true);
  CHECK(enable.origin().where == file.path() + ":10");
  CHECK(name.get() == "");  // quoted empty string is a value, not null
  CHECK_NOTHROW(reg.check_all_presets_used());
}

TEST_CASE("config: sequences of scalars become comma-joined text", "[config]") {
  auto& reg = ParamRegistry::instance();
  TempYaml file(
      "trace: [cpu, bus, uart]\n"  // 1
      "ni0:\n"                     // 2
      "  cores:\n"                 // 3
      "    - 0\n"                  // 4
      "    - 1\n"                  // 5
      "    - 2\n"                  // 6
      "none: []\n");               // 7
  m2::load_config_presets(file.path(), reg);
  const auto trace = reg.take_preset("trace");
  REQUIRE(trace);
  CHECK(trace->text == "cpu,bus,uart");
  CHECK(trace->origin.where == file.path() + ":1");
  const auto cores = reg.take_preset("ni0.cores");
  REQUIRE(cores);
  CHECK(cores->text == "0,1,2");
  CHECK(cores->origin.where == file.path() + ":4");
  const auto none = reg.take_preset("none");
  REQUIRE(none);
  CHECK(none->text == "");
}

TEST_CASE("config: --set overrides a config file value", "[config]") {
  auto& reg = ParamRegistry::instance();
  TempYaml file("ni0:\n  cpu:\n    clock_mhz: 350\n    trace: on\n");
  m2::load_config_presets(file.path(), reg);
  m2::apply_set_override("ni0.cpu.clock_mhz=500", reg);
  m2::apply_set_override("ni0.cpu.label=a=b", reg);  // only the first '=' splits
  m2::apply_set_override("ni0.cpu.note=", reg);
  Param<double> clock{"ni0.cpu", "clock_mhz", 300.0, "MHz", "core clock", Range<double>{1, 2000}};
  Param<bool> trace{"ni0.cpu", "trace", false, "", "trace"};
  Param<std::string> label{"ni0.cpu", "label", "", "", "label"};
  Param<std::string> note{"ni0.cpu", "note", "x", "", "note"};
  CHECK(clock.get() == 500.0);
  CHECK(clock.origin().where == "--set");
  CHECK(trace.get() == true);
  CHECK(trace.origin().where == file.path() + ":4");
  CHECK(label.get() == "a=b");
  CHECK(note.get() == "");
  CHECK_NOTHROW(reg.check_all_presets_used());

  // An empty value is stored; a non-string parameter then rejects it.
  m2::apply_set_override("ni0.cpu.cycles=", reg);
  CHECK_THROWS_WITH((Param<int64_t>{"ni0.cpu", "cycles", 0, "", "cycles"}),
                    "--set: key 'ni0.cpu.cycles': expected an integer (int), got ''");
}

TEST_CASE("config: malformed --set", "[config]") {
  auto& reg = ParamRegistry::instance();
  CHECK_THROWS_WITH(m2::apply_set_override("noequals", reg), "--set 'noequals': expected NAME=VALUE");
  CHECK_THROWS_WITH(m2::apply_set_override("=5", reg), "--set '=5': expected NAME=VALUE");
  CHECK_THROWS_WITH(m2::apply_set_override("a b=1", reg), "--set 'a b=1': expected NAME=VALUE");
  CHECK_THROWS_AS(m2::apply_set_override("a..b=1", reg), ConfigError);
  CHECK_THROWS_AS(m2::apply_set_override("", reg), ConfigError);
  CHECK_FALSE(reg.has_preset("a b"));
  CHECK_FALSE(reg.has_preset(""));
}

TEST_CASE("config: unknown key names its line and the nearest parameter", "[config]") {
  auto& reg = ParamRegistry::instance();
  TempYaml file(
      "ni0:\n"                  // 1
      "  cpu:\n"                // 2
      "    clok_mhz: 300\n"     // 3
      "ni0.dma.enabel: on\n");  // 4
  m2::load_config_presets(file.path(), reg);
  Param<double> clock{"ni0.cpu", "clock_mhz", 300.0, "MHz", "core clock", Range<double>{1, 2000}};
  Param<bool> dma{"ni0.dma", "enable", false, "", "DMA on"};
  CHECK_THROWS_WITH(reg.check_all_presets_used(), file.path() +
                                                      ":3: unknown key 'ni0.cpu.clok_mhz' (did you mean "
                                                      "'ni0.cpu.clock_mhz'?)\n" +
                                                      file.path() +
                                                      ":4: unknown key 'ni0.dma.enabel' (did you mean "
                                                      "'ni0.dma.enable'?)");
}

TEST_CASE("config: a bad value names the file line key and expectation", "[config]") {
  TempYaml file("platform: hello\nni0.cpu.clock_mhz: fast\n");
  m2::load_config_presets(file.path(), ParamRegistry::instance());
  CHECK_THROWS_WITH((Param<double>{"ni0.cpu", "clock_mhz", 300.0, "MHz", "core clock", Range<double>{1, 2000}}),
                    file.path() +
                        ":2: key 'ni0.cpu.clock_mhz': expected a number (double, MHz) in 1..2000, "
                        "got 'fast'");
}

TEST_CASE("config: duplicate keys also after flattening", "[config]") {
  auto& reg = ParamRegistry::instance();
  TempYaml same("a: 1\nb: 2\na: 3\n");
  CHECK(load_error(same) == same.path() + ":3: key 'a' given twice (first at line 1)");

  TempYaml flattened(
      "x: 0\n"      // 1
      "a:\n"        // 2
      "  b: 1\n"    // 3
      "a.b: 2\n");  // 4
  CHECK(load_error(flattened) == flattened.path() + ":4: key 'a.b' given twice (first at line 3)");
  // A file with an error presets nothing.
  CHECK_FALSE(reg.has_preset("x"));
  CHECK_FALSE(reg.has_preset("a.b"));
}

TEST_CASE("config: YAML syntax errors give line and column", "[config]") {
  TempYaml file(
      "a: 1\n"      // 1
      "b: 2\n"      // 2
      "  c: 3\n");  // 3: indented under a scalar
  const std::string err = load_error(file);
  CHECK_THAT(err, StartsWith(file.path() + ":3:"));
  CHECK_THAT(err, Contains("YAML syntax error: "));

  TempYaml unclosed("a: 1\nb: [1, 2\n");
  CHECK_THAT(load_error(unclosed),
             StartsWith(unclosed.path() + ":") && Contains("YAML syntax error: end of sequence flow not found"));
}

// Found by fuzz_config (fuzz/): yaml-cpp's LoadAll looped forever, allocating,
// on a ',' that starts a document.
TEST_CASE("config: a comma that starts a document is a syntax error, not an endless loop", "[config][fuzz]") {
  TempYaml lone(",a\n");
  CHECK(load_error(lone) ==
        lone.path() + ":1:1: YAML syntax error: unexpected ',' (it starts no key, value or list item)");
  TempYaml after("a: 1\n---\n'x' ,b\n");
  CHECK(load_error(after) ==
        after.path() + ":3:5: YAML syntax error: unexpected ',' (it starts no key, value or list item)");
}

TEST_CASE("config: a missing file is named in the error", "[config]") {
  const std::string missing = unique_temp_path("-missing.yaml");
  CHECK_THROWS_WITH(m2::load_config_presets(missing, ParamRegistry::instance()),
                    missing + ": cannot open config file: " + std::strerror(ENOENT));

  const std::string dir = unique_temp_path("-dir");
  fs::create_directory(dir);
  CHECK_THROWS_WITH(m2::load_config_presets(dir, ParamRegistry::instance()),
                    dir + ": cannot open config file: " + std::strerror(EISDIR));
  fs::remove(dir);
}

TEST_CASE("config: the top level must be a mapping", "[config]") {
  TempYaml list("- a\n- b\n");
  CHECK_THAT(load_error(list), StartsWith(list.path() + ":1: the top level must be a mapping"));
  TempYaml scalar("\n\nhello\n");
  CHECK_THAT(load_error(scalar), StartsWith(scalar.path() + ":3: the top level must be a mapping"));
  TempYaml two_docs("a: 1\n---\nb: 2\n");
  CHECK(load_error(two_docs) == two_docs.path() + ":3: only one YAML document is allowed");

  // Empty and comment-only files are valid and change nothing.
  TempYaml empty("");
  TempYaml comments("# nothing to change\n");
  CHECK(load_error(empty) == "");
  CHECK(load_error(comments) == "");
  CHECK_NOTHROW(ParamRegistry::instance().check_all_presets_used());
}

TEST_CASE("config: keys without a value", "[config]") {
  TempYaml bare(
      "c: 1\n"    // 1
      "a:\n"      // 2
      "  b:\n"    // 3
      "d: 2\n");  // 4
  CHECK(load_error(bare) == bare.path() + ":3: key 'a.b' has no value");
  TempYaml tilde("x: 1\ny: ~\n");
  CHECK(load_error(tilde) == tilde.path() + ":2: key 'y' has no value");
  TempYaml null_word("z: null\n");
  CHECK(load_error(null_word) == null_word.path() + ":1: key 'z' has no value");
}

TEST_CASE("config: lists must hold plain values and keys must be names", "[config]") {
  TempYaml nested(
      "a:\n"            // 1
      "  - 1\n"         // 2
      "  - {b: 2}\n");  // 3
  const std::string err = load_error(nested);
  CHECK_THAT(err, StartsWith(nested.path() + ":3: key 'a': list items must be plain values"));

  TempYaml spaced("ni0:\n  clock mhz: 3\n");
  CHECK_THAT(load_error(spaced), StartsWith(spaced.path() + ":2: bad key 'clock mhz' (under 'ni0')"));
}

TEST_CASE("config: config name is the file stem", "[config]") {
  CHECK(m2::config_name_of("configs/hello.yaml") == "hello");
  CHECK(m2::config_name_of("hello.yaml") == "hello");
  CHECK(m2::config_name_of("a/b/two.dots.yml") == "two.dots");
  CHECK(m2::config_name_of("configs/plain") == "plain");
}
