#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <systemc>

#include "core/params.h"

namespace {

// Every run through a test case's body (once per leaf SECTION) starts with an
// empty parameter registry: no parameter or preset of an earlier test case or
// section leaks into it. Nested sections fire sectionStarting too; only the
// outermost one, the test case itself, clears (depth 0), so presets set at
// the top of a body survive into its sections.
class FreshParamRegistry : public Catch::TestEventListenerBase {
 public:
  using TestEventListenerBase::TestEventListenerBase;
  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    m_depth = 0;  // whatever an aborted earlier test case left
    TestEventListenerBase::testCaseStarting(info);
  }
  void sectionStarting(const Catch::SectionInfo& info) override {
    if (m_depth++ == 0) m2::ParamRegistry::instance().clear();
    TestEventListenerBase::sectionStarting(info);
  }
  void sectionEnded(const Catch::SectionStats& stats) override {
    --m_depth;
    TestEventListenerBase::sectionEnded(stats);
  }

 private:
  int m_depth = 0;
};

}  // namespace

CATCH_REGISTER_LISTENER(FreshParamRegistry)

int sc_main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }
