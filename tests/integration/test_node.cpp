// Integration tests of the one-node platform (host + PCI bus + NI): the host
// application node_selftest and the NI firmware node_selftest exchange
// buffers by DMA in both directions (directly through SDRAM and through the
// network buffer in loopback), and the host verifies every byte and the
// bytes around the destination.
#include <catch2/catch.hpp>

#include <map>
#include <regex>
#include <string>

#include "run_sim.h"

using namespace m2it;

namespace {

const std::string kConfig = std::string(M2VP_SOURCE_DIR) + "/configs/node-selftest.yaml";

// "bytes N path P ..." lines: (N, P) -> microseconds.
std::map<std::pair<long, std::string>, double> transfer_times(const std::string& out) {
  std::map<std::pair<long, std::string>, double> t;
  const std::regex re(R"(\[node0\.host\] bytes (\d+) path (\w+) src\+\d+ dst\+\d+: ok in ([0-9.]+) us)");
  for (const std::string& line : split_lines(out)) {
    std::smatch m;
    if (std::regex_search(line, m, re)) t[{std::stol(m[1]), m[2]}] = std::stod(m[3]);
  }
  return t;
}

}  // namespace

TEST_CASE("host and NI exchange data by DMA both ways, every byte verified", "[integration][node]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", kConfig});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  CHECK_FALSE(contains(r.out, "CORRUPT"));
  CHECK(contains(r.out, "[node0.ni.cpu] node self-test firmware ready"));
  CHECK(contains(r.out, "[node0.host] 16 transfers verified, 0 failed"));
  // 8 sizes x 2 paths, odd sizes and misalignments on both sides.
  const auto t = transfer_times(r.out);
  CHECK(t.size() == 16);
  CHECK(r.result("node0.host", "transfers_ok") == std::optional<std::string>("16"));
  CHECK(r.result("node0.host", "transfers_failed") == std::optional<std::string>("0"));
  CHECK(r.result("node0.host", "bytes_ok") ==
        std::optional<std::string>(std::to_string(2 * (1 + 3 + 31 + 33 + 2047 + 2049 + 4097 + 65537))));
  CHECK(r.result("node0.ni.cpu", "fw_result0") == std::optional<std::string>("16"));
  // Every payload byte crossed the PCI bus twice (host -> NI, NI -> host), as
  // NI-mastered DMA, and nothing else did.
  CHECK(r.result_num("node0.pci", "ni.bytes") == 2.0 * 147596);
  CHECK(r.result_num("node0.bridge", "dma_bytes") == 2.0 * 147596);
  CHECK(r.result_num("node0.ni.dma", "errors") == 0.0);
  CHECK(r.result_num("node0.pci", "busy_us") > 0.0);
  // results.tsv is the measurement table the application printed.
  const std::vector<std::string> table = split_lines(r.file("results.tsv"));
  REQUIRE(table.size() == 17);
  CHECK(table[0] == "bytes\tpath\tround_trip_us");
  CHECK(table[1].rfind("1\tsdram\t", 0) == 0);
  CHECK(table[16].rfind("65537\tnetbuf\t", 0) == 0);
  CHECK(contains(r.file("report.txt"), "results:\n"));
  // Larger transfers take longer; the network-buffer path (chunked, two more
  // DMA hops) is slower than the direct one.
  CHECK(t.at({4097, "sdram"}) > t.at({2049, "sdram"}));
  CHECK(t.at({65537, "sdram"}) > 10 * t.at({4097, "sdram"}));
  CHECK(t.at({65537, "netbuf"}) > t.at({65537, "sdram"}));
  // A round trip of one byte: doorbell, two DMAs with interrupts, host
  // interrupt and wake-up: about 10 us, dominated by the host's 8 us wake-up.
  CHECK(t.at({1, "sdram"}) > 8.0);
  CHECK(t.at({1, "sdram"}) < 20.0);
}

TEST_CASE("the node self-test gives the same data and close timing in LT and AT", "[integration][node]") {
  Sandbox sb;
  const SimResult lt = sb.run({"run", kConfig, "--set", "sim.timing=lt"});
  const SimResult at = sb.run({"run", kConfig, "--set", "sim.timing=at"});
  INFO(lt.describe() << "\n" << at.describe());
  REQUIRE(lt.exited(0));
  REQUIRE(at.exited(0));
  const auto tl = transfer_times(lt.out), ta = transfer_times(at.out);
  REQUIRE(tl.size() == 16);
  REQUIRE(ta.size() == 16);
  // Tolerance: AT adds real waits for the bus (arbitration, posted writes
  // draining) that LT only books; per transfer the two agree within 1 us or
  // 2%, whichever is larger.
  for (const auto& [key, us] : tl) {
    INFO("bytes " << key.first << " path " << key.second << ": LT " << us << " us, AT " << ta.at(key) << " us");
    CHECK(std::abs(ta.at(key) - us) <= std::max(1.0, 0.02 * us));
  }
}

TEST_CASE("a host whose NI runs no firmware times out with a clear message", "[integration][node]") {
  Sandbox sb;
  const SimResult r =
      sb.run({"run", kConfig, "--set", "node0.ni.firmware=", "--set", "node0.host.args=--sizes 64 --path sdram"});
  INFO(r.describe());
  CHECK(r.exited(1));
  CHECK(contains(r.out, "[node0.host] bytes 64: no interrupt from the NI within 100 ms"));
  CHECK(contains(r.out, "[node0.host] 0 transfers verified, 1 failed"));
}

TEST_CASE("the trace option records every PCI transaction as CSV and Perfetto JSON", "[integration][node][trace]") {
  Sandbox sb;
  const SimResult r =
      sb.run({"run", kConfig, "--trace", "node*.pci", "--set", "node0.host.args=--sizes 33,2049 --path both"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const std::vector<std::string> rows = split_lines(r.file("transactions.csv"));
  REQUIRE(!rows.empty());
  CHECK(rows[0] == "binding,start_ps,end_ps,command,address,bytes,response,msg");
  size_t ni = 0, bridge = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    ni += rows[i].rfind("node0.pci.ni,", 0) == 0;
    bridge += rows[i].rfind("node0.pci.bridge,", 0) == 0;
  }
  // The tap saw exactly what the bus counted, per master.
  CHECK(static_cast<double>(ni) == r.result_num("node0.pci", "ni.transactions"));
  CHECK(static_cast<double>(bridge) == r.result_num("node0.pci", "bridge.transactions"));
  CHECK(ni + bridge == rows.size() - 1);
  // The JSON trace parses, has one track per binding (overlapping posted
  // writes in extra lanes of it, "node0.pci.bridge #2") and one slice per row.
  const std::string check =
      "python3 -c \"import json,sys; d=json.load(open(sys.argv[1])); e=d['traceEvents'];"
      " m={x['args']['name'].split(' #')[0] for x in e if x['ph']=='M' and x['name']=='thread_name'};"
      " s=[x for x in e if x['ph']=='X'];"
      " assert m=={'node0.pci.ni','node0.pci.bridge'}, m; assert all(x['dur']>=0 for x in s); print(len(s))\" " +
      (r.out_dir / "trace.json").string();
  FILE* p = popen(check.c_str(), "r");
  REQUIRE(p);
  char buf[64] = {};
  const bool got = fgets(buf, sizeof buf, p) != nullptr;
  const int rc = pclose(p);
  CHECK(rc == 0);
  CHECK(got);
  CHECK(std::atol(buf) == static_cast<long>(rows.size() - 1));
}
