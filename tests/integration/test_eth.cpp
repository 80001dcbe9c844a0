// Integration tests of the Ethernet emulation: the NI firmware eth
// (sw/firmware/eth) and the host's driver model (models/host/tcpip/
// eth_driver.*) under the application eth_selftest (sw/apps), which uses the
// driver through IpPacketPort as the TCP/IP stack does and checks every
// byte, size and the order of what arrives.
#include <catch2/catch.hpp>

#include <string>

#include "run_sim.h"

using namespace m2it;

namespace {

std::string config() { return std::string(M2VP_SOURCE_DIR) + "/configs/eth-selftest.yaml"; }

// A run of configs/eth-selftest.yaml with these --set assignments, required
// to end well.
SimResult run_eth(Sandbox& sb, const std::vector<std::string>& sets, double timeout_s = 120) {
  std::vector<std::string> args{"run", config(), "--quiet"};
  for (const std::string& s : sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  SimResult r = sb.run(args, true, timeout_s * kWallScale);
  INFO(r.describe());
  REQUIRE(r.exited(0));
  return r;
}

// Node `n` received `packets` packets of `bytes` bytes in all, each intact
// and where it belonged, and neither firmware complained.
void check_received(const SimResult& r, int n, int packets, long bytes) {
  const std::string host = "node" + std::to_string(n) + ".host";
  INFO(host);
  CHECK(r.result_num(host, "packets_received") == packets);
  CHECK(r.result_num(host, "bytes_received") == bytes);
  CHECK(r.result_num(host, "payload_errors") == 0);
  CHECK(r.result_num(host, "size_errors") == 0);
  CHECK(r.result_num("node" + std::to_string(n) + ".ni.cpu", "fw_result4") == 0);  // firmware errors
  CHECK(r.result_num("node" + std::to_string(n) + ".eth", "rx_packets") == packets);
  CHECK_FALSE(contains(r.file("run.log"), "FAIL"));
  CHECK_FALSE(contains(r.file("run.log"), "eth: "));  // the firmware's complaints
}

// MLX messages (chunks) a frame of `len` bytes takes with the default
// 2048-byte chunk: 32 bytes of headers and up to 2016 payload bytes each.
int chunks(long len) { return static_cast<int>((len + 2015) / 2016); }

}  // namespace

TEST_CASE("eth: 1 MB crosses intact as 65000-byte packets, counted by driver, NI and switch box",
          "[integration][eth]") {
  Sandbox sb;
  const SimResult r = run_eth(sb, {});
  INFO(r.describe());
  const long total = 1L << 20;
  const int packets = 17;  // 16 of 65000 bytes and one of 8576
  check_received(r, 1, packets, total);
  CHECK(r.result_num("node0.host", "packets_sent") == packets);
  CHECK(r.result_num("node0.eth", "tx_packets") == packets);
  CHECK(r.result_num("node0.eth", "tx_bytes") == total);
  CHECK(r.result_num("node1.eth", "rx_bytes") == total);
  CHECK(r.result_num("node1.eth", "interrupts") >= 1);
  CHECK(r.result_num("node1.eth", "interrupts") <= packets);
  // The firmware's own counts: frames and payload bytes out of node 0, in at node 1.
  CHECK(r.result_num("node0.ni.cpu", "fw_result0") == packets);
  CHECK(r.result_num("node0.ni.cpu", "fw_result2") == total);
  CHECK(r.result_num("node1.ni.cpu", "fw_result1") == packets);
  CHECK(r.result_num("node1.ni.cpu", "fw_result3") == total);
  CHECK(r.result_num("node0.ni.cpu", "fw_result1") == 0);
  // Every chunk crossed the switch box as one MLX message.
  CHECK(r.result_num("sb0", "messages") == 16 * chunks(65000) + chunks(total - 16 * 65000));
  // 1 MB at the link's rate takes milliseconds, not microseconds or seconds.
  const double t_us = r.result_num("node1.host", "last_rx_ns") / 1e3;
  CHECK(t_us > 1000.0);
  CHECK(t_us < 100000.0);
}

TEST_CASE("eth: every size of the ranges arrives intact and in order, both ways at once", "[integration][eth]") {
  Sandbox sb;
  // Sizes around the chunk payload (2016) and its multiples, and the MTU.
  const std::string sizes = "1-70,2014-2018,4030-4034,6046-6050,64500-64512,64990-65000";
  const int packets = 70 + 5 * 3 + 13 + 11;
  long bytes = 70 * 71 / 2;
  for (long a : {2014L, 4030L, 6046L}) bytes += 5 * a + 10;
  bytes += 13 * 64500 + 78 + 11 * 64990 + 55;
  const SimResult r = run_eth(sb, {"node*.host.args=--sizes " + sizes});
  INFO(r.describe());
  for (int n : {0, 1}) {
    check_received(r, n, packets, bytes);
    CHECK(r.result_num("node" + std::to_string(n) + ".host", "packets_sent") == packets);
  }
}

TEST_CASE("eth: full rings hold the sender back and lose nothing", "[integration][eth]") {
  Sandbox sb;
  // Two receive slots and a slow receiver: the NI waits for slots, the
  // network backs up, the sender's two transmit slots fill.
  const SimResult r = run_eth(sb, {"node*.eth.rx_slots=2", "node*.eth.tx_slots=2",
                                   "node*.host.args=--stream 400k --size 8000 --one-way --rx-delay-us 100"});
  INFO(r.describe());
  const int packets = (400 * 1024 + 7999) / 8000;
  check_received(r, 1, packets, 400 * 1024);
  CHECK(r.result_num("node1.ni.cpu", "fw_result5") > 0);  // waits for a receive slot
  CHECK(r.result_num("node0.eth", "tx_ring_full") > 0);
}

TEST_CASE("eth: four nodes across two switch boxes, each sending to the next", "[integration][eth]") {
  Sandbox sb;
  const SimResult r =
      run_eth(sb, {"topology.nodes=4", "topology.switch_boxes=2", "node*.host.args=--stream 200k --size 65000"});
  INFO(r.describe());
  for (int n = 0; n < 4; ++n) check_received(r, n, 4, 200 * 1024);
  CHECK(r.result_num("sb0", "messages") > 0);
  CHECK(r.result_num("sb1", "messages") > 0);
}

TEST_CASE("eth: the same run twice gives identical statistics", "[integration][eth]") {
  Sandbox sb;
  const std::vector<std::string> sets{"node*.host.args=--sizes 1-40,65000 --repeat 2"};
  const SimResult a = run_eth(sb, sets);
  const SimResult b = run_eth(sb, sets);
  const std::string sa = a.file("stats.tsv"), sb_ = b.file("stats.tsv");
  REQUIRE_FALSE(sa.empty());
  CHECK(contains(sa, "last_rx_ns"));
  CHECK(sa == sb_);
}

TEST_CASE("eth: a host without the eth firmware has no network device, and says so", "[integration][eth]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config(), "--quiet", "--set", "node*.ni.firmware=mmp"});
  INFO(r.describe());
  CHECK_FALSE(r.exited(0));
  CHECK(contains(r.out + r.err + r.file("run.log"), "has no network device (set its ni.firmware to eth)"));
}

TEST_CASE("eth: bad firmware arguments end the run with the firmware's message", "[integration][eth]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config(), "--quiet", "--set", "node*.ni.simctrl.args=100"});
  INFO(r.describe());
  CHECK(r.exited(3));
  CHECK(contains(r.file("run.log"),
                 "eth: bad arguments: chunk 100 bytes (a multiple of 32 above 32, at most the "
                 "2048-byte channel)"));
  // The hosts say what they wait in.
  CHECK(contains(r.file("run.log"), "waiting for the interface to come up"));
}
