// Unit tests for the per-module logger and its levels
// (models/core/module_log.*, models/core/log_levels.*).
#include <catch2/catch.hpp>

#include <string>

#include "core/log_levels.h"
#include "core/module_log.h"
#include "core/params.h"
#include "log_capture.h"

using Catch::Matchers::Contains;

namespace {

struct LevelsReset {
  ~LevelsReset() { m2::LogLevels::instance().clear(); }
};

}  // namespace

TEST_CASE("module log: messages carry the module's name, debug only where a pattern enables it", "[core][log]") {
  LevelsReset reset;
  m2test::LogCapture cap("module_log");
  m2::ModuleLog dma("node0.ni.dma"), other("node1.ni.dma");
  dma.warning("CTRL START refused");
  dma.debug("not shown: info is the default");
  CHECK_FALSE(dma.debug_enabled());
  m2::LogLevels::instance().configure("node0.ni.*=debug", "test: key 'sim.log'");
  CHECK(dma.debug_enabled());
  CHECK_FALSE(other.debug_enabled());
  dma.debug("descriptor queued");
  other.debug("not shown: another module");
  dma.info("a note");
  const std::string text = cap.text();
  CHECK_THAT(text, Contains("warning: node0.ni.dma: CTRL START refused\n"));
  CHECK_THAT(text, Contains("debug: node0.ni.dma: descriptor queued\n"));
  CHECK_THAT(text, Contains("node0.ni.dma: a note\n"));
  CHECK(text.find("not shown") == std::string::npos);
}

TEST_CASE("module log: error silences a module's warnings, the last matching pattern decides", "[core][log]") {
  LevelsReset reset;
  m2::LogLevels& levels = m2::LogLevels::instance();
  levels.configure("**=error, sb0.**=warning", "test");
  CHECK(levels.level_of("node3.ni.mlcx") == m2::LogLevel::Error);
  CHECK(levels.level_of("sb0.port3.mlx") == m2::LogLevel::Warning);
  m2test::LogCapture cap("module_log_error");
  m2::ModuleLog mlx("node3.ni.mlcx");
  mlx.warning("dropped");
  mlx.error("the link refused frame");
  CHECK(cap.text().find("dropped") == std::string::npos);
  CHECK_THAT(cap.text(), Contains("error: node3.ni.mlcx: the link refused frame"));
  levels.configure("", "test");
  CHECK(levels.level_of("node3.ni.mlcx") == m2::LogLevel::Info);
}

TEST_CASE("module log: bad sim.log entries are refused naming the key and the entry", "[core][log]") {
  LevelsReset reset;
  m2::LogLevels& levels = m2::LogLevels::instance();
  const std::string key = "run.yaml:3: key 'sim.log'";
  CHECK_THROWS_WITH(levels.configure("node0.*=verbose", key),
                    Contains(key) && Contains("'verbose'") && Contains("error, warning, info, debug"));
  CHECK_THROWS_WITH(levels.configure("node0.*", key), Contains(key) && Contains("PATTERN=LEVEL"));
  CHECK_THROWS_WITH(levels.configure("=debug", key), Contains(key) && Contains("not a module name pattern"));
  CHECK_THROWS_WITH(levels.configure("node0/ni=debug", key), Contains("'node0/ni'"));
  CHECK_THROWS_WITH(levels.configure("a=debug,,b=info", key), Contains("empty entry"));
  // A refused setting leaves the table as it was.
  levels.configure("node0.*=debug", key);
  CHECK_THROWS(levels.configure("node0.*=loud", key));
  CHECK(levels.level_of("node0.cpu") == m2::LogLevel::Debug);
}
