// The cases a config file declares (platform/config_cases.h).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/params.h"
#include "platform/config_cases.h"
#include "platform/config_loader.h"

using Catch::Matchers::Contains;
using m2::ConfigError;
using m2::ParamRegistry;

namespace {

namespace fs = std::filesystem;

class CasesYaml {
 public:
  explicit CasesYaml(const std::string& text) {
    static int counter = 0;
    m_path = (fs::temp_directory_path() /
              ("m2vp-test-cases-" + std::to_string(::getpid()) + "-" + std::to_string(++counter) + ".yaml"))
                 .string();
    std::ofstream(m_path) << text;
  }
  ~CasesYaml() {
    std::error_code ec;
    fs::remove(m_path, ec);
  }
  CasesYaml(const CasesYaml&) = delete;
  CasesYaml& operator=(const CasesYaml&) = delete;
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

std::string cases_error(const std::string& text) {
  CasesYaml file(text);
  try {
    m2::load_config_cases(file.path());
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    // Every error names the file and a line.
    CHECK(what.rfind(file.path() + ":", 0) == 0);
    return what.substr(file.path().size());
  }
  return "";
}

const char* const kTwoAxes =
    "platform: cluster\n"                                    // 1
    "node*.ni.firmware: mmp\n"                               // 2
    "cases:\n"                                               // 3
    "  show: latency_us\n"                                   // 4
    "  vary:\n"                                              // 5
    "    channels:\n"                                        // 6
    "      \"1\": {node*.ni.simctrl.args: \"0,1\"}\n"        // 7
    "      \"2\":\n"                                         // 8
    "        node*:\n"                                       // 9
    "          ni.simctrl.args: [0, 2]\n"                    // 10
    "    burst:\n"                                           // 11
    "      continuous: {node*.ni.mlcx.variant: maestro2}\n"  // 12
    "      plain: {node*.ni.mlcx.variant: plain}\n"          // 13
    "      default:\n";                                      // 14

}  // namespace

TEST_CASE("config cases: the cross product of the axes' levels, first axis slowest", "[config][cases]") {
  CasesYaml file(kTwoAxes);
  const m2::ConfigCases cases = m2::load_config_cases(file.path());
  CHECK(cases.show == "latency_us");
  CHECK(cases.axes == std::vector<std::string>{"channels", "burst"});
  REQUIRE(cases.cases.size() == 6);
  CHECK(cases.cases[0].name == "channels=1,burst=continuous");
  CHECK(cases.cases[0].dir == "channels-1_burst-continuous");
  CHECK(cases.cases[1].name == "channels=1,burst=plain");
  CHECK(cases.cases[2].name == "channels=1,burst=default");
  CHECK(cases.cases[5].name == "channels=2,burst=default");
  const m2::ConfigCase& c = cases.cases[4];
  CHECK(c.levels == std::vector<std::pair<std::string, std::string>>{{"channels", "2"}, {"burst", "plain"}});
  REQUIRE(c.settings.size() == 2);
  CHECK(c.settings[0].key == "node*.ni.simctrl.args");
  CHECK(c.settings[0].text == "0,2");
  CHECK(c.settings[0].line == 10);
  CHECK(c.settings[1].key == "node*.ni.mlcx.variant");
  CHECK(c.settings[1].text == "plain");
  CHECK(cases.cases[5].settings.size() == 1);  // a level without settings
  CHECK(
      m2::format_cases_table(cases).rfind(
          "#show\tlatency_us\ncase\tdir\tchannels\tburst\nchannels=1,burst=continuous\tchannels-1_burst-continuous\t1\t"
          "continuous\n",
          0) == 0);
}

TEST_CASE("config cases: a case's settings win over the file, --set wins over the case", "[config][cases]") {
  auto& reg = ParamRegistry::instance();
  CasesYaml file(
      "a.speed: 1\n"                          // 1
      "a.mode: x\n"                           // 2
      "cases:\n"                              // 3
      "  vary:\n"                             // 4
      "    fast:\n"                           // 5
      "      yes: {a.speed: 9, a.mode: y}\n"  // 6
      "      no: {}\n");                      // 7
  // The presets of the file leave `cases` out.
  m2::load_config_presets(file.path(), reg);
  CHECK_FALSE(reg.has_preset("cases.vary.fast.yes.a.speed"));
  const m2::ConfigCases cases = m2::load_config_cases(file.path());
  const m2::ConfigCase& yes = m2::find_config_case(cases, "fast-yes", file.path());  // by folder name
  CHECK(&yes == &m2::find_config_case(cases, "fast=yes", file.path()));
  m2::apply_case_presets(yes, file.path(), reg);
  m2::apply_set_override("a.mode=z", reg);
  m2::Param<double> speed{"a", "speed", 0.0, "", "speed"};
  m2::Param<std::string> mode{"a", "mode", "", "", "mode"};
  CHECK(speed.get() == 9.0);
  CHECK(speed.origin().where == file.path() + ":6, case fast=yes");
  CHECK(mode.get() == "z");
  CHECK_NOTHROW(reg.check_all_presets_used());
  CHECK_THROWS_WITH(m2::find_config_case(cases, "fast=maybe", file.path()),
                    Contains("no case 'fast=maybe'") && Contains("fast=yes") && Contains("fast=no"));
}

TEST_CASE("config cases: a config without cases declares none", "[config][cases]") {
  CasesYaml plain("platform: cluster\nnode*.ni.firmware: mmp\n");
  CHECK(m2::load_config_cases(plain.path()).empty());
  CasesYaml empty("# nothing\n");
  CHECK(m2::load_config_cases(empty.path()).empty());
}

TEST_CASE("config cases: malformed declarations name the line and what was expected", "[config][cases]") {
  CHECK_THAT(cases_error("cases: [a, b]\n"), Contains(":1: 'cases' must be a mapping"));
  CHECK_THAT(cases_error("cases:\n  show: mbps\n"), Contains(":1: cases: 'vary' is missing"));
  CHECK_THAT(cases_error("cases:\n  vary: {x: {a: {}}}\n  colour: red\n"), Contains(":3: cases: unknown key 'colour'"));
  CHECK_THAT(cases_error("cases:\n  show: [a]\n  vary: {x: {a: {}}}\n"), Contains(":2: cases.show: expected"));
  CHECK_THAT(cases_error("cases:\n  vary: []\n"), Contains(":2: cases.vary: expected axes"));
  CHECK_THAT(cases_error("cases:\n  vary:\n    bad axis: {a: {}}\n"),
             Contains(":3: cases.vary: bad axis name 'bad axis'"));
  CHECK_THAT(cases_error("cases:\n  vary:\n    x: [1, 2]\n"),
             Contains(":3: cases.vary.x: expected one or more levels"));
  CHECK_THAT(cases_error("cases:\n  vary:\n    x:\n      a/b: {}\n"),
             Contains(":4: cases.vary.x: bad level name 'a/b'"));
  CHECK_THAT(cases_error("cases:\n  vary:\n    x:\n      a: 3\n"),
             Contains(":4: cases.vary.x.a: expected a mapping of settings"));
  CHECK_THAT(cases_error("cases:\n  vary:\n    x:\n      a: {k: }\n"), Contains(":4: key 'k' has no value"));
  CHECK_THAT(cases_error("cases:\n  vary:\n    x: {a: {k: 1}}\n    y: {b: {j: 1}, c: {k: 2}}\n"),
             Contains(":4: cases.vary.y.c: key 'k' is also set by axis 'x'"));
  CHECK_THAT(cases_error("cases:\n  vary:\n    x: {a: {cases.vary.z: 1}}\n"), Contains("a case cannot declare cases"));
  CHECK_THAT(cases_error("cases.vary.x.a.k: 1\n"), Contains(":1: key 'cases.vary.x.a.k': declare cases as one nested"));
  // 2^9 = 512 cases
  std::string many = "cases:\n  vary:\n";
  for (int i = 0; i < 9; i++) many += "    a" + std::to_string(i) + ": {x: {}, y: {}}\n";
  CHECK_THAT(cases_error(many), Contains(":1: cases: the axes give more than 256 cases"));
}
