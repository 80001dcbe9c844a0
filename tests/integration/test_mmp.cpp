// Integration tests of MMP on the cluster platform: the host library
// (sw/host/mmp) and the NI firmware (sw/firmware/mmp) under the applications
// mmp_pingpong, mmp_selftest and netpipe (sw/apps), two hosts on one switch box.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <cmath>
#include <regex>
#include <string>
#include <vector>

#include "run_sim.h"

using namespace m2it;

namespace {

std::string config(const std::string& name) { return std::string(M2VP_SOURCE_DIR) + "/configs/" + name + ".yaml"; }

// Both hosts and both NI firmwares ended well.
void check_clean(const SimResult& r) {
  CHECK(r.result_num("node0.ni.dma", "errors") == 0.0);
  CHECK(r.result_num("node1.ni.dma", "errors") == 0.0);
  CHECK(r.result("node0.ni.cpu", "fw_result4") == std::optional<std::string>("0"));  // firmware errors
  CHECK(r.result("node1.ni.cpu", "fw_result4") == std::optional<std::string>("0"));
  // --quiet keeps host and firmware lines off stdout; run.log has them.
  const std::string log = r.file("run.log");
  CHECK_FALSE(contains(log, "FAIL"));
  CHECK_FALSE(contains(log, "mmp: "));  // the firmware's complaints
}

// The MMP ping-pong with these application arguments, required to end well.
SimResult pingpong(Sandbox& sb, const std::string& args) {
  SimResult r = sb.run({"run", config("mmp-pingpong"), "--quiet", "--set", "node*.host.args=" + args});
  INFO(args << "\n" << r.describe());
  REQUIRE(r.exited(0));
  check_clean(r);
  return r;
}

// results.tsv as (bytes, latency_us, mbps) rows after checking its header.
std::vector<std::vector<double>> table(const SimResult& r) {
  std::vector<std::vector<double>> rows;
  const auto tsv = read_tsv(r.out_dir / "results.tsv");
  REQUIRE(!tsv.empty());
  CHECK(tsv[0] == std::vector<std::string>{"bytes", "latency_us", "mbps"});
  for (size_t i = 1; i < tsv.size(); ++i) {
    REQUIRE(tsv[i].size() == 3);
    rows.push_back({std::stod(tsv[i][0]), std::stod(tsv[i][1]), std::stod(tsv[i][2])});
  }
  return rows;
}

}  // namespace

TEST_CASE("MMP ping-pong: odd sizes and alignments arrive intact both ways", "[integration][mmp]") {
  Sandbox sb;
  const std::string args = "--sizes 1,3,31,33,2047,2049,4097,65537 --iters 2 --warmup 1 --offset 3";
  const SimResult r = pingpong(sb, args);
  INFO(r.describe());
  for (const char* host : {"node0.host", "node1.host"}) {
    INFO(host);
    CHECK(r.result(host, "payload_errors") == std::optional<std::string>("0"));
    CHECK(r.result(host, "failures") == std::optional<std::string>("0"));
  }
  const auto rows = table(r);
  REQUIRE(rows.size() == 8);
  const double sizes[] = {1, 3, 31, 33, 2047, 2049, 4097, 65537};
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(rows[i][0] == sizes[i]);
    CHECK(std::abs(rows[i][2] - rows[i][0] * 8 / rows[i][1]) <= 0.01 * rows[i][2] + 0.01);
    if (i > 0) CHECK(rows[i][1] >= rows[i - 1][1] - 0.5);
  }
  // A byte takes a few microseconds one way (PIO request, DMA, link, switch
  // box, DMA, completion record, poll); 64 KB streams at more than 1 Gbit/s.
  CHECK(rows[0][1] > 2.0);
  CHECK(rows[0][1] < 20.0);
  CHECK(rows[7][2] > 1000.0);
  // Every message was a receive posted in time (zero copy): 3 rounds x 8
  // sizes each way, plus the two barrier messages.
  CHECK(r.result_num("node0.ni.cpu", "fw_result1") >= 24);
  CHECK(r.result_num("node1.ni.cpu", "fw_result1") >= 24);
}

TEST_CASE("MMP ping-pong through unpinned buffers: heap (bounce copy) and physical (per-message pin-down)",
          "[integration][mmp]") {
  Sandbox sb;
  for (const std::string kind : {"heap", "phys"}) {
    const std::string args = "--sizes 1,2049,65537 --iters 1 --warmup 1 --offset 5 --buffers " + kind;
    const SimResult r = pingpong(sb, args);
    INFO(kind << "\n" << r.describe());
    CHECK(r.result("node0.host", "payload_errors") == std::optional<std::string>("0"));
    CHECK(r.result("node1.host", "payload_errors") == std::optional<std::string>("0"));
    CHECK(table(r).size() == 3);
  }
}

// --phase-spread: the rounds meet the NI firmware's polling loop at spread
// phases instead of one (docs/experiments.md, host-level calibration). The
// small-message latency then moves, by less than the loop's period, and the
// payloads stay intact; a negative spread is refused.
TEST_CASE("MMP ping-pong: --phase-spread averages over the firmware loop's phase", "[integration][mmp]") {
  Sandbox sb;
  const SimResult fixed = pingpong(sb, "--sizes 32,1k --iters 20 --warmup 1");
  const SimResult spread = pingpong(sb, "--sizes 32,1k --iters 20 --warmup 1 --phase-spread 1000");
  CHECK(spread.result("node0.host", "payload_errors") == std::optional<std::string>("0"));
  CHECK(spread.result("node1.host", "payload_errors") == std::optional<std::string>("0"));
  const auto f = table(fixed), s = table(spread);
  REQUIRE(f.size() == 2);
  REQUIRE(s.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    INFO(f[i][0] << " bytes: fixed phase " << f[i][1] << " us, spread " << s[i][1] << " us");
    CHECK(s[i][1] != f[i][1]);  // the phases really differ
    // By less than the loop's period: about 0.9 us idle, more while it does
    // a request's work (ip/mmp_fit.h).
    CHECK(std::abs(s[i][1] - f[i][1]) < 1.0);
  }
  const SimResult bad =
      sb.run({"run", config("mmp-pingpong"), "--quiet", "--set", "node*.host.args=--phase-spread -5"});
  CHECK(bad.exited(2));
  CHECK(contains(bad.file("run.log"), "--phase-spread 0 to 1000000 ns"));
}

TEST_CASE("two-host applications on one host, or with a --peer that is not there, say so and exit 2",
          "[integration][mmp]") {
  Sandbox sb;
  const SimResult one = sb.run({"run", config("mmp-pingpong"), "--set", "topology.nodes=1"});
  INFO(one.describe());
  CHECK(one.exited(2));
  CHECK(contains(one.out, "mmp_pingpong: needs two hosts, this platform has 1 (topology.nodes: 2 or more)"));
  CHECK(contains(one.out + one.err, "node0.host's program exited with a non-zero code (exit code 2)"));
  CHECK_FALSE(contains(one.out + one.err, "deadlock"));
  const SimResult np = sb.run({"run", config("netpipe"), "--set", "node*.host.args=--peer 7"});
  INFO(np.describe());
  CHECK(np.exited(2));
  CHECK(contains(np.out, "netpipe: --peer 7: expected another host, 0 to 1 except 0"));
  const SimResult mpi = sb.run({"run", config("mpi-pingpong"), "--set", "topology.nodes=1"});
  INFO(mpi.describe());
  CHECK(mpi.exited(2));
  CHECK(contains(mpi.out, "mpi_pingpong: needs two ranks, MPI_COMM_WORLD has 1"));
  // More hosts than the pair, without --peer: the others say so (they used
  // to wait for host 0, which only answers host 1, until the host check).
  const SimResult four = sb.run(
      {"run", config("mmp-pingpong"), "--set", "topology.nodes=4", "--set", "node*.host.args=--sizes 1 --iters 1"});
  INFO(four.describe());
  CHECK(four.exited(2));
  CHECK(contains(four.out, "mmp_pingpong: host 2 has no partner: the ping-pong runs between hosts 0 and 1"));
  CHECK_FALSE(contains(four.out + four.err, "deadlock"));
}

TEST_CASE("the default run is the MMP ping-pong and takes a few seconds", "[integration][mmp]") {
  CHECK(contains(read_text(fs::path(M2VP_SOURCE_DIR) / "m2vp"), "DEFAULT_CONFIG=\"$ROOT/configs/mmp-pingpong.yaml\""));
  Sandbox sb;
  const SimResult r = sb.run({"run", config("mmp-pingpong"), "--quiet"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  check_clean(r);
  const auto rows = table(r);
  CHECK(rows.size() >= 10);
  // "A few seconds" of wall time, measured without the clock (tests must not
  // depend on it): under 0.2 s simulated and 40 M firmware instructions in
  // all, which the simulator runs in about 2 s (bench/speed.cpp measures it).
  CHECK(r.result_num("run", "sim_time_us") < 200e3);
  CHECK(r.result_num("node0.ni.cpu", "instructions") + r.result_num("node1.ni.cpu", "instructions") < 40e6);
}

TEST_CASE("MMP self-test: error paths, unexpected messages, truncation, many sends, tags and order",
          "[integration][mmp]") {
  Sandbox sb;
  // Default firmware settings; then the CPU bypass for small payloads, one
  // channel and small chunks; then AT timing.
  const std::vector<std::vector<std::string>> variants = {
      {},
      {"--set", "node*.ni.simctrl.args=100,1,512"},
      {"--set", "sim.timing=at"},
  };
  for (const auto& extra : variants) {
    std::vector<std::string> args{"run", config("mmp-selftest"), "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    const SimResult r = sb.run(args);
    INFO(r.describe());
    REQUIRE(r.exited(0));
    check_clean(r);
    for (const char* host : {"node0.host", "node1.host"}) {
      INFO(host);
      CHECK(r.result(host, "failures") == std::optional<std::string>("0"));
      CHECK(r.result_num(host, "checks") > 100);
    }
    const std::string log = r.file("run.log");
    CHECK(std::regex_search(log, std::regex(R"(\[node0\.host\] mmp_selftest: \d+ checks, 0 failed)")));
    CHECK(std::regex_search(log, std::regex(R"(\[node1\.host\] mmp_selftest: \d+ checks, 0 failed)")));
    // Messages were kept by the NI before their receive was posted.
    CHECK(r.result_num("node0.ni.cpu", "fw_result2") >= 5);
  }
}

TEST_CASE("MMP: an NI without the MMP firmware makes MMP_initialize fail cleanly", "[integration][mmp]") {
  Sandbox sb;
  const SimResult r =
      sb.run({"run", config("mmp-pingpong"), "--set", "node*.ni.firmware=", "--set", "node*.host.args=--sizes 1"});
  INFO(r.describe());
  CHECK(r.exited(3));
  CHECK(contains(r.out, "[node0.host] MMP_initialize: no MMP firmware answers on the NI"));
  CHECK(contains(r.out, "[node0.host] mmp_pingpong: MMP_initialize failed: the NI did not answer"));
}

TEST_CASE("NetPIPE over MMP writes NetPIPE's np.out and the measurement table", "[integration][mmp][netpipe]") {
  Sandbox sb;
  const SimResult r =
      sb.run({"run", config("netpipe"), "--quiet", "--set", "node*.host.args=--max 4096 --trials 2 --verify"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  check_clean(r);
  CHECK(r.result("node1.host", "payload_errors") == std::optional<std::string>("0"));
  // Block sizes 1, 2, 3, 4, 6, 8, 12, ... 4096 (24 of them), each as c-3, c,
  // c+3 where c-3 >= 1: 24 * 3 - 3 measurements.
  const std::vector<std::string> lines = split_lines(r.file("np.out"));
  REQUIRE(lines.size() == 69);
  const std::regex re(R"(^ *(\d+) +(\d+\.\d+) +(\d+\.\d+)$)");
  const auto rows = table(r);
  REQUIRE(rows.size() == lines.size());
  std::vector<long> sizes;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    INFO("np.out line " << i + 1 << ": '" << lines[i] << "'");
    REQUIRE(std::regex_match(lines[i], m, re));
    const long bytes = std::stol(m[1]);
    const double mbps = std::stod(m[2]), seconds = std::stod(m[3]);
    sizes.push_back(bytes);
    // Mbit/s is bytes * 8 / time; the table has the same measurement in us.
    CHECK(std::abs(mbps - bytes * 8 / seconds / 1e6) <= 0.002 * mbps + 1e-3);
    CHECK(rows[i][0] == bytes);
    CHECK(std::abs(rows[i][1] - seconds * 1e6) <= 0.0015 + 1e-6 * rows[i][1]);
  }
  const std::vector<long> first{1, 4, 2, 5, 3, 6, 1, 4, 7, 3, 6, 9, 5, 8, 11};
  CHECK(std::vector<long>(sizes.begin(), sizes.begin() + 15) == first);
  CHECK(sizes.back() == 4099);
  // One-way time grows with the size.
  CHECK(rows.back()[1] > rows.front()[1]);
}

TEST_CASE("NetPIPE refuses an output file outside the run folder", "[integration][mmp][netpipe]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config("netpipe"), "--set", "node*.host.args=--max 16 --out ../np.out"});
  INFO(r.describe());
  CHECK(r.exited(5));
  CHECK(contains(r.out, "[node0.host] netpipe: cannot write ../np.out in the run's output folder"));
  CHECK_FALSE(fs::exists(sb.dir() / "np.out"));
}

TEST_CASE("MMP ping-pong gives close figures in LT and AT", "[integration][mmp]") {
  Sandbox sb;
  const std::string args = "node*.host.args=--sizes 1,4k,64k --iters 3 --warmup 1";
  const SimResult lt = sb.run({"run", config("mmp-pingpong"), "--quiet", "--set", args, "--set", "sim.timing=lt"});
  const SimResult at = sb.run({"run", config("mmp-pingpong"), "--quiet", "--set", args, "--set", "sim.timing=at"});
  INFO(lt.describe() << "\n" << at.describe());
  REQUIRE(lt.exited(0));
  REQUIRE(at.exited(0));
  const auto tl = table(lt), ta = table(at);
  REQUIRE(tl.size() == 3);
  REQUIRE(ta.size() == 3);
  // Tolerance: AT makes PIO and DMA wait for each other on the PCI bus where
  // LT only books it: within 0.5 us or 5% per size.
  for (size_t i = 0; i < tl.size(); ++i) {
    INFO(tl[i][0] << " bytes: LT " << tl[i][1] << " us, AT " << ta[i][1] << " us");
    CHECK(std::abs(ta[i][1] - tl[i][1]) <= std::max(0.5, 0.05 * tl[i][1]));
  }
}

// Mean of one messages.csv column over the messages of `bytes` bytes.
static double mean_stage(const SimResult& r, const std::string& column, int bytes) {
  const std::vector<std::string> lines = split_lines(r.file("messages.csv"));
  REQUIRE(!lines.empty());
  const std::vector<std::string> head = split(lines[0], ',');
  const auto col = std::find(head.begin(), head.end(), column) - head.begin();
  const auto size_col = std::find(head.begin(), head.end(), "bytes") - head.begin();
  REQUIRE(col < static_cast<long>(head.size()));
  double sum = 0;
  int n = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    const std::vector<std::string> v = split(lines[i], ',');
    if (v.size() != head.size() || std::stoi(v[size_col]) != bytes) continue;
    sum += std::stod(v[col]);
    ++n;
  }
  REQUIRE(n > 0);
  return sum / n;
}

TEST_CASE("MMP ping-pong: a slower PCI bus slows the request and the data, in LT as in AT", "[integration][mmp]") {
  // The host's request and doorbell cross PCI: at 32 bit / 33 MHz the request
  // stage (posted writes until the doorbell acts) is longer, and in LT the
  // doorbell interrupt is raised when the write is through, not when it is
  // posted. A 1-byte message's end-to-end time need not show it: the NI
  // firmware is often still finishing the previous message's completion when
  // the next request arrives. 1 KB moves its data twice over the slower bus.
  Sandbox sb;
  const std::string args = "node*.host.args=--sizes 1,1k --iters 3 --warmup 1";
  double request[2][2] = {}, one_kb[2][2] = {};  // [timing][variant]
  const char* timings[] = {"lt", "at"};
  const char* variants[] = {"pci64-66", "pci32-33"};
  for (int tm = 0; tm < 2; ++tm)
    for (int v = 0; v < 2; ++v) {
      const SimResult r =
          sb.run({"run", config("mmp-pingpong"), "--quiet", "--set", args, "--set", "sim.messages=true", "--set",
                  std::string("sim.timing=") + timings[tm], "--set", std::string("node*.pci.variant=") + variants[v]});
      INFO(r.describe());
      REQUIRE(r.exited(0));
      const auto t = table(r);
      REQUIRE(t.size() == 2);
      request[tm][v] = mean_stage(r, "request_us", 1);
      one_kb[tm][v] = t[1][1];
    }
  for (int tm = 0; tm < 2; ++tm) {
    INFO(timings[tm] << ": request stage pci64-66 " << request[tm][0] << " us, pci32-33 " << request[tm][1]
                     << " us; 1 KB " << one_kb[tm][0] << " vs " << one_kb[tm][1] << " us");
    // Nine write transactions (descriptor words and doorbell), each slower.
    CHECK(request[tm][1] - request[tm][0] >= 0.3);
    CHECK(request[tm][1] - request[tm][0] <= 2.0);
    // 1 KB over 132 instead of 528 MB/s, out of host memory and into it: 2 x 5.8 us.
    CHECK(one_kb[tm][1] - one_kb[tm][0] >= 8.0);
  }
  CHECK(std::abs(request[0][1] - request[1][1]) <= 0.5);  // LT and AT agree
}

// The host level's calibration (docs/experiments.md, "Host-level
// calibration"; ./m2vp bench calibration prints the same): the published MMP
// NetPIPE curve's bands, 1 us below 256 B and 10% from 256 B, 5% for the
// peak over 512 KB - 2 MB.
namespace {

std::map<unsigned, double> published_mmp_curve() {
  std::map<unsigned, double> published;
  for (const auto& row : read_tsv(std::filesystem::path(M2VP_SOURCE_DIR) / "bench/data/mmp-netpipe-published.tsv"))
    if (row.size() == 2 && !row[0].empty() && std::isdigit(static_cast<unsigned char>(row[0][0])))
      published[static_cast<unsigned>(std::stoul(row[0]))] = std::stod(row[1]);
  REQUIRE(published.size() == 8);
  return published;
}

// NetPIPE's method up to 4 KB: one-way latency per size (the c row of a
// size measured more than once: its last).
std::map<unsigned, double> netpipe_latencies(Sandbox& sb) {
  const SimResult r = sb.run({"run", config("netpipe"), "--quiet", "--set", "node*.host.args=--max 4k"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  std::map<unsigned, double> us;
  for (const auto& row : table(r)) us[static_cast<unsigned>(row[0])] = row[1];
  return us;
}

bool in_band(unsigned bytes, double model_us, double published_us) {
  return bytes < 256 ? std::abs(model_us - published_us) <= 1.0
                     : std::abs(model_us - published_us) <= 0.10 * published_us;
}

}  // namespace

// NetPIPE's own method is the published measurement's: every size in band,
// which is what the fit of ip/mmp_fit.h achieved.
TEST_CASE("NetPIPE over MMP (host level): every published size within its band", "[integration][mmp][calibration]") {
  const auto published = published_mmp_curve();
  Sandbox sb;
  const auto model = netpipe_latencies(sb);
  for (const auto& [bytes, pub] : published) {
    REQUIRE(model.count(bytes));
    INFO(bytes << " B: model " << model.at(bytes) << " us, published " << pub << " us");
    CHECK(in_band(bytes, model.at(bytes), pub));
  }
}

// mmp_pingpong posts each round's receive before it starts the clock (and
// the echoing host posts it after its send), so the sender's NI has one
// request less ahead of each send than in NetPIPE's loop: faster than
// NetPIPE's method at every size by about one request's handling (the
// fetch's share and ip/mmp_fit.h's work), so in band where that is inside
// the band (below 512 B, 4 KB) and the peak.
TEST_CASE(
    "MMP ping-pong (host level): below NetPIPE's method by one request, in band below 512 B, at 4 KB and the peak",
    "[integration][mmp][calibration]") {
  const auto published = published_mmp_curve();
  Sandbox sb;
  const auto by_netpipe = netpipe_latencies(sb);
  const SimResult r = pingpong(sb, "--sizes 32,64,128,256,512,1k,2k,4k,512k,1M,2M --iters 3 --warmup 1");
  INFO(r.describe());
  const auto rows = table(r);
  REQUIRE(rows.size() == 11);
  double peak = 0;
  for (const auto& row : rows) {
    const auto bytes = static_cast<unsigned>(row[0]);
    INFO(bytes << " B: " << row[1] << " us, " << row[2] << " Mbit/s");
    if (bytes >= 512 * 1024) peak = std::max(peak, row[2]);
    if (!published.count(bytes)) continue;
    REQUIRE(by_netpipe.count(bytes));
    CHECK(row[1] < by_netpipe.at(bytes));
    CHECK(by_netpipe.at(bytes) - row[1] < 2.5);
    if (bytes < 512 || bytes == 4096) CHECK(in_band(bytes, row[1], published.at(bytes)));
  }
  INFO("peak " << peak << " Mbit/s, published 1875");
  CHECK(std::abs(peak - 1875) <= 0.05 * 1875);
}

// The firmware's fitted work comes from ip/mmp_fit.h as built: a run prints
// the counts it uses, and they are the header's.
TEST_CASE("MMP firmware: the fitted counts of ip/mmp_fit.h are what it runs with", "[integration][mmp][calibration]") {
  std::ifstream h(std::filesystem::path(M2VP_SOURCE_DIR) / "ip/mmp_fit.h");
  REQUIRE(h);
  unsigned request = ~0u, chunk = ~0u;
  for (std::string line; std::getline(h, line);) {
    std::sscanf(line.c_str(), "#define MMP_REQUEST_INSNS_DEFAULT %uu", &request);
    std::sscanf(line.c_str(), "#define MMP_CHUNK_INSNS_DEFAULT %uu", &chunk);
  }
  REQUIRE(request != ~0u);
  REQUIRE(chunk != ~0u);
  Sandbox sb;
  const SimResult r = pingpong(sb, "--sizes 32 --iters 1 --warmup 0");
  INFO(r.describe());
  CHECK(contains(r.file("run.log"),
                 std::to_string(request) + " + " + std::to_string(chunk) + " instructions per request + chunk"));
  // A run's own counts (firmware arguments 5 and 6) win.
  const SimResult o = sb.run({"run", config("mmp-pingpong"), "--set", "node*.host.args=--sizes 32 --iters 1 --warmup 0",
                              "--set", "node*.ni.simctrl.args=0,2,2048,0,0,7,8"});
  CHECK(contains(o.out, "7 + 8 instructions per request + chunk"));
}
