// Failure paths of a running platform (issue 14): what the user is told when
// the network cannot deliver, when firmware or a host stops answering, and
// what happens to data damaged after the link checksum.
#include <catch2/catch.hpp>

#include <cmath>
#include <regex>

#include "run_sim.h"

using namespace m2it;

namespace {

constexpr int EXIT_STALL = 66;
std::string config(const std::string& name) { return std::string(M2VP_SOURCE_DIR) + "/configs/" + name + ".yaml"; }

}  // namespace

TEST_CASE("failure: at bit error rate 1e-3 the stall report names the livelock, frame size and odds",
          "[integration][failure]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config("cluster-4"), "--set", "**.link.bit_error_rate=1e-3"}, true, 60);
  INFO(r.describe());
  CHECK(r.exited(EXIT_STALL));
  CHECK(contains(r.err, "network livelocked at "));
  CHECK(contains(r.err, "frames keep being resent but none has arrived intact"));
  // One line per sender: link, bit error rate, frame size, resends, odds.
  const std::regex line(R"((\S+) on (\S+\.link) \(bit error rate 0.001\): data frame seq \d+ on channel \d, (\d+) bytes on the wire, resent (\d+) times; one sending arrives intact with probability (\S+) \(1 in \d+\))");
  int lines = 0;
  for (auto it = std::sregex_iterator(r.err.begin(), r.err.end(), line); it != std::sregex_iterator(); ++it) {
    ++lines;
    const double bytes = std::stod((*it)[3]);
    CHECK(std::stoul((*it)[4]) >= 100);
    // The stated probability is (1 - 1e-3)^(8 * bytes).
    CHECK(std::stod((*it)[5]) == Approx(std::pow(1 - 1e-3, 8 * bytes)).epsilon(1e-4));
  }
  CHECK(lines >= 1);
  CHECK(contains(r.file("report.txt"), "network livelocked"));
}
