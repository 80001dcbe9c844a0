// Integration tests of experiment 1, the NI-level ping-pong
// (configs/ni-pingpong.yaml, firmware ni_pingpong): it runs, every payload
// byte comes back intact (node 0 checks each returned message), and the
// calibrated model stays within the bands of the published values
// (bench/data/ni-pingpong-published.tsv): 0.6 us below 256 B, 10% from 256 B
// up, peak throughput 2.4 Gbit/s within 10%.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <string>

#include "run_sim.h"

using namespace m2it;

namespace {

const std::string kConfig = std::string(M2VP_SOURCE_DIR) + "/configs/ni-pingpong.yaml";

// results.tsv as bytes -> (latency_us, mbps); header checked.
std::map<unsigned, std::pair<double, double>> table(const SimResult& r) {
  std::map<unsigned, std::pair<double, double>> t;
  const auto rows = read_tsv(r.out_dir / "results.tsv");
  REQUIRE(!rows.empty());
  CHECK(rows[0] == std::vector<std::string>{"bytes", "latency_us", "mbps"});
  for (size_t i = 1; i < rows.size(); ++i) {
    REQUIRE(rows[i].size() == 3);
    t[static_cast<unsigned>(std::stoul(rows[i][0]))] = {std::stod(rows[i][1]), std::stod(rows[i][2])};
  }
  return t;
}

// Both nodes measured `sizes` sizes and found no wrong header or payload byte.
void check_intact(const SimResult& r, int sizes) {
  for (const char* cpu : {"node0.ni.cpu", "node1.ni.cpu"}) {
    INFO(cpu);
    CHECK(r.result(cpu, "fw_result0") == std::optional<std::string>(std::to_string(sizes)));
    CHECK(r.result(cpu, "fw_result1") == std::optional<std::string>("0"));
  }
  CHECK_FALSE(contains(r.out, "expected"));
}

}  // namespace

// The NI level's calibration holds in both timing styles (issue 26: the bands
// are measured in LT and in AT).
TEST_CASE("ni-pingpong: 32 B to 4 KB, payloads intact, latency within the published bands, LT and AT",
          "[integration][ni-pingpong]") {
  Sandbox sb;
  for (const std::string timing : {"lt", "at"}) {
    INFO("sim.timing=" << timing);
    // 3 timed round trips per size, 32..4096 B, one channel (the config's).
    const SimResult r =
        sb.run({"run", kConfig, "--set", "node*.ni.simctrl.args=3,32,4096,1,0,1", "--set", "sim.timing=" + timing});
    INFO(r.describe());
    REQUIRE(r.exited(0));
    check_intact(r, 8);
    const auto t = table(r);
    REQUIRE(t.size() == 8);
    // Published one-way latencies (us) and their bands.
    const std::map<unsigned, double> published = {{32, 3}, {256, 5}, {2048, 16}};
    for (const auto& [bytes, pub] : published) {
      INFO(bytes << " B: model " << t.at(bytes).first << " us, published " << pub << " us");
      const double band = bytes < 256 ? 0.6 : 0.1 * pub;
      CHECK(std::abs(t.at(bytes).first - pub) <= band);
    }
    // Throughput is the payload over the one-way time.
    for (const auto& [bytes, row] : t) CHECK(row.second == Approx(bytes * 8 / row.first).epsilon(0.002));
  }
}

TEST_CASE("ni-pingpong: the peak throughput (1 MB in channel-sized chunks) is 2.4 Gbit/s within 10%, LT and AT",
          "[integration][ni-pingpong]") {
  Sandbox sb;
  for (const std::string timing : {"lt", "at"}) {
    INFO("sim.timing=" << timing);
    const SimResult r = sb.run(
        {"run", kConfig, "--set", "node*.ni.simctrl.args=2,1048576,1048576,1,0,1", "--set", "sim.timing=" + timing});
    INFO(r.describe());
    REQUIRE(r.exited(0));
    check_intact(r, 1);
    const auto t = table(r);
    REQUIRE(t.count(1048576));
    CHECK(std::abs(t.at(1048576).second - 2400) <= 240);
  }
}

TEST_CASE("ni-pingpong: double buffering on both channels delivers every chunk intact and is faster",
          "[integration][ni-pingpong]") {
  Sandbox sb;
  const SimResult one = sb.run({"run", kConfig, "--set", "node*.ni.simctrl.args=2,65536,65536,1,0,1"});
  const SimResult two = sb.run({"run", kConfig, "--set", "node*.ni.simctrl.args=2,65536,65536,2,0,1"});
  INFO(one.describe() << "\n" << two.describe());
  REQUIRE(one.exited(0));
  REQUIRE(two.exited(0));
  check_intact(two, 1);
  CHECK(table(two).at(65536).first < table(one).at(65536).first);
}

// Experiment 5's LogP row of the NI level (firmware ni_logp, case layer=ni
// of configs/logp.yaml): the same path as the ping-pong above, measured by the
// Berkeley method. Its RTT/2 is the ping-pong's 4-byte one-way latency; a
// 1952-byte message's gap is at least its frame's time on the wire and less
// than its one-way latency (the NI pipelines); the signature grows with slope
// 1 once delta dominates; L = RTT/2 - o_s - o_r is positive.
TEST_CASE("ni-logp: LogP of the NI level, RTT/2 as the NI ping-pong, gap between wire time and latency",
          "[integration][ni-pingpong][logp]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", std::string(M2VP_SOURCE_DIR) + "/configs/logp.yaml", "--case", "layer=ni"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const auto tsv = read_tsv(r.out_dir / "results.tsv");
  REQUIRE(tsv.size() == 2);
  REQUIRE(tsv[0] == std::vector<std::string>{"o_s_us", "o_r_us", "g_us", "L_us", "rtt2_us"});
  std::vector<double> v;
  for (const auto& c : tsv[1]) v.push_back(std::stod(c));
  const double o_s = v[0], o_r = v[1], g = v[2], L = v[3], rtt2 = v[4];
  CHECK(o_s > 0.1);  // two header stores and four DMA register writes at least
  CHECK(o_r > 0.1);
  CHECK(L > 0.5);
  CHECK(std::abs(o_s + o_r + L - rtt2) < 0.01);
  // The signature, node 0's "signature DELTA INTERVAL" lines.
  std::map<int, double> sig;
  for (const std::string& line : split_lines(r.out)) {
    const size_t p = line.find("] signature ");
    if (p == std::string::npos) continue;
    const auto w = split(line.substr(p + 12), ' ');
    REQUIRE(w.size() == 2);
    sig[std::stoi(w[0])] = std::stod(w[1]);
  }
  REQUIRE(sig.size() == 11);
  for (int d = 16; d <= 36; d += 4) CHECK(std::abs((sig.at(d) - d) - (sig.at(40) - 40)) < 0.05);
  CHECK(std::abs(sig.at(40) - 40 - o_s - o_r) < 0.002);
  // The ping-pong's 4-byte and 2 KB one-way latencies on the same path.
  const SimResult pp = sb.run({"run", kConfig, "--set", "node*.ni.simctrl.args=10,4,2048,1,0,1"});
  INFO(pp.describe());
  REQUIRE(pp.exited(0));
  const auto t = table(pp);
  CHECK(std::abs(rtt2 - t.at(4).first) < 0.05 * t.at(4).first);
  const double wire_us = (1952 + 8) * 8 / 3.2e3;  // frame bytes at the link's 3.2 Gbit/s
  CHECK(g > wire_us);
  CHECK(g < t.at(2048).first);
}
