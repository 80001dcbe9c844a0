// MPI over TCP (node*.host.mpi.device: tcp, issue 27 part 4): the MPI
// self-test on 2 and 4 hosts with every check passing and its traffic on the
// eth driver; Debian's NPmpich2 unmodified over TCP, slower than NPtcp alone
// at every size (MPI's header, device copy and calls on top of the same
// stack); experiment 8's ping-ping over MPI over TCP with every payload
// checked; and a host without TCP/IP named when MPI asks for it.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "run_sim.h"

using namespace m2it;

namespace {

const std::string kConfigs = std::string(M2VP_SOURCE_DIR) + "/configs/";

}  // namespace

TEST_CASE("MPI over TCP: the MPI self-test passes on 2 and 4 hosts, its traffic on the eth driver", "[mpi-tcp]") {
  for (const char* nodes : {"2", "4"}) {
    Sandbox sb;
    const SimResult r = sb.run({"run", kConfigs + "mpi-selftest.yaml", "--quiet", "--set", "node*.ni.firmware=eth",
                                "--set", "node*.host.mpi.device=tcp", "--set", std::string("topology.nodes=") + nodes},
                               true, 300);
    INFO(r.describe());
    REQUIRE(r.exited(0));
    const std::string log = r.file("run.log");
    CHECK(log.find(std::string("mpi_selftest: ") + nodes + " hosts") != std::string::npos);
    CHECK(log.find(" 0 failed") != std::string::npos);
    // Every host sent and received over its driver: MPI went over TCP/IP.
    for (int n = 0; n < std::stoi(nodes); ++n) {
      const std::string eth = "node" + std::to_string(n) + ".eth";
      CHECK(r.result_num(eth, "tx_packets") > 10);
      CHECK(r.result_num(eth, "rx_packets") > 10);
    }
  }
}

TEST_CASE("MPI over TCP: NPmpich2 unmodified, slower than NPtcp at every size", "[mpi-tcp]") {
  Sandbox sb;
  const SimResult mpi = sb.run(
      {"run", kConfigs + "netpipe-mpi-tcp.yaml", "--quiet", "--set", "node*.host.args=-n 5 -p 0 -u 16384 -o np.out"},
      true, 300);
  INFO(mpi.describe());
  REQUIRE(mpi.exited(0));
  const SimResult tcp =
      sb.run({"run", kConfigs + "netpipe-tcp.yaml", "--quiet", "--set", "node0.host.args=-h node1 -n 5 -p 0 -u 16384",
              "--set", "node1.host.args=-p 0 -u 16384"},
             true, 300);
  INFO(tcp.describe());
  REQUIRE(tcp.exited(0));
  const auto over_mpi = latency_by_size(mpi.out_dir / "results.tsv");
  const auto over_tcp = latency_by_size(tcp.out_dir / "results.tsv");
  REQUIRE(over_mpi.size() > 20);
  REQUIRE(over_mpi.size() == over_tcp.size());
  for (const auto& [bytes, us] : over_mpi) {
    INFO(bytes << " bytes: MPI over TCP " << us << " us, TCP " << over_tcp.at(bytes) << " us");
    CHECK(us > over_tcp.at(bytes));
  }
}

TEST_CASE("MPI over TCP: experiment 8's ping-ping through an out-of-order switch box, payloads checked", "[mpi-tcp]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", kConfigs + "pingping-mpi-tcp.yaml", "--quiet", "--case", "hosts=4,switch=ooo4",
                              "--set", "node*.host.args=--sizes 1,4k,64k --iters 3 --warmup 1"},
                             true, 300);
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const auto rows = read_tsv(r.out_dir / "results.tsv");
  REQUIRE(rows.size() == 4);
  REQUIRE(rows[0] == std::vector<std::string>{"bytes", "time_us", "mbps", "min_pair_mbps"});
  double last_mbps = 0;
  for (size_t k = 1; k < rows.size(); ++k) {
    const double mbps = std::stod(rows[k][2]);
    CHECK(mbps > last_mbps);  // throughput grows with the message size
    last_mbps = mbps;
  }
  for (int n = 0; n < 4; ++n) CHECK(r.result_num("node" + std::to_string(n) + ".host", "payload_errors") == 0);
}

TEST_CASE("MPI over TCP on a host whose NI runs MMP: the run ends naming the missing stack", "[mpi-tcp]") {
  Sandbox sb;
  const SimResult r =
      sb.run({"run", kConfigs + "mpi-selftest.yaml", "--quiet", "--set", "node*.host.mpi.device=tcp"}, true, 120);
  INFO(r.describe());
  CHECK_FALSE(r.exited(0));
  CHECK(r.err.find("has no TCP/IP stack") != std::string::npos);
  CHECK(r.err.find("node*.ni.firmware: eth") != std::string::npos);
}
