// Debian's NetPIPE 3.7.2 TCP module (NPtcp of netpipe-tcp) runs unmodified on
// two simulated hosts over each host's TCP/IP stack and the eth firmware
// (configs/netpipe-tcp.yaml): its own np.out is parsed, results.tsv carries
// the same measurements, TCP's one-way time lies above MMP's alone
// (configs/netpipe.yaml) at every size, and the same run twice gives
// byte-identical results.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "run_sim.h"

using namespace m2it;

namespace {

const std::string kConfigs = std::string(M2VP_SOURCE_DIR) + "/configs/";

}  // namespace

TEST_CASE("NPtcp (Debian netpipe-tcp) runs unmodified over TCP/IP up to 64 KB, TCP latency above MMP latency",
          "[netpipe-tcp]") {
  REQUIRE(access("/usr/bin/NPtcp", X_OK) == 0);  // ./m2vp installs netpipe-tcp
  Sandbox sb;
  const std::vector<std::string> args = {
      "run",   kConfigs + "netpipe-tcp.yaml", "--quiet", "--set", "node0.host.args=-h node1 -n 10 -u 65536 -o np.out",
      "--set", "node1.host.args=-u 65536"};
  const SimResult tcp = sb.run(args, true, 300);
  INFO(tcp.describe());
  REQUIRE(tcp.exited(0));
  CHECK(processes_in(tcp.out_dir).empty());

  // NetPIPE's own file, in the transmitter's (node0's) working folder.
  std::istringstream np(tcp.file("node0/np.out"));
  size_t lines = 0;
  long long last = 0;
  for (std::string line; std::getline(np, line); ++lines) {
    std::istringstream w(line);
    double mbps = 0, seconds = 0;
    REQUIRE((w >> last >> mbps >> seconds));
    CHECK(mbps == Approx(last * 8 / (seconds * 1048576)).epsilon(0.01));  // NetPIPE's Mbit is 2^20 bits
  }
  CHECK(lines > 50);
  CHECK(last == 65539);

  const SimResult mmp =
      sb.run({"run", kConfigs + "netpipe.yaml", "--quiet", "--set", "node*.host.args=--max 64k"}, true, 120);
  INFO(mmp.describe());
  REQUIRE(mmp.exited(0));
  const auto over_mmp = latency_by_size(mmp.out_dir / "results.tsv");
  const auto over_tcp = latency_by_size(tcp.out_dir / "results.tsv");
  REQUIRE(over_tcp.size() > 50);
  for (const auto& [bytes, us] : over_tcp) {
    INFO(bytes << " bytes: TCP " << us << " us, MMP " << over_mmp.at(bytes) << " us");
    REQUIRE(over_mmp.count(bytes) == 1);
    CHECK(us > over_mmp.at(bytes));
  }

  // The same config again: byte-identical results.
  const SimResult again = sb.run(args, true, 300);
  REQUIRE(again.exited(0));
  CHECK(read_text(again.out_dir / "results.tsv") == read_text(tcp.out_dir / "results.tsv"));
}
