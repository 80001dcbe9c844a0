// Integration tests of the cluster platform: NIs, links, MLX engines and
// switch boxes running their routing firmware, built from the topology. The
// net_alltoall firmware checks every payload byte and the order of each
// sender's messages at the receiver.
#include <catch2/catch.hpp>

#include <algorithm>
#include <regex>
#include <string>

#include "run_sim.h"

using namespace m2it;

namespace {

std::string config(int nodes) {
  return std::string(M2VP_SOURCE_DIR) + "/configs/cluster-" + std::to_string(nodes) + ".yaml";
}

// Every node reports (nodes-1)*rounds messages received and no error.
void check_alltoall(const SimResult& r, int nodes, int rounds) {
  for (int n = 0; n < nodes; ++n) {
    const std::string cpu = "node" + std::to_string(n) + ".ni.cpu";
    INFO(cpu);
    CHECK(r.result(cpu, "fw_result0") == std::optional<std::string>(std::to_string((nodes - 1) * rounds)));
    CHECK(r.result(cpu, "fw_result1") == std::optional<std::string>("0"));
  }
  CHECK_FALSE(contains(r.out, "expected"));
}

}  // namespace

TEST_CASE("cluster: 16 nodes on cascaded switch boxes, all to all, every payload intact and in order",
          "[integration][cluster]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config(16), "--quiet"}, true, 120);
  INFO(r.describe());
  REQUIRE(r.exited(0));
  check_alltoall(r, 16, 4);
  // Three switch boxes in a chain; traffic between the ends crossed the middle one.
  CHECK(r.result_num("sb1", "messages") > 0);
  CHECK(r.result_num("sb2", "messages") > 0);
}

TEST_CASE("cluster: explicit cabling without a switch-box count builds the boxes the cables name",
          "[integration][cluster]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config(4), "--quiet", "--set",
                              "topology.links=node0:sb0.0 node1:sb0.1 node2:sb1.0 node3:sb1.1 sb0.7:sb1.7"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  check_alltoall(r, 4, 4);
  CHECK(r.result_num("sb1", "messages") > 0);  // the second box carries traffic
}

TEST_CASE("cluster: bit errors on every link are repaired by retransmission, no message lost",
          "[integration][cluster]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config(4), "--quiet", "--set", "**.link.bit_error_rate=2e-5", "--set",
                              "**.link.seed=7", "--set", "sim.max_time_ms=500"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  check_alltoall(r, 4, 4);
  double corrupted = 0, repeats = 0;
  for (int n = 0; n < 4; ++n) {
    const std::string link = "node" + std::to_string(n) + ".link";
    corrupted += r.result_num(link, "ab.corrupted") + r.result_num(link, "ba.corrupted");
    repeats += r.result_num("node" + std::to_string(n) + ".ni.mlcx", "retransmissions") +
               r.result_num("sb0.port" + std::to_string(n) + ".mlx", "retransmissions");
  }
  CHECK(corrupted > 0);
  CHECK(repeats > 0);
  // Deterministic: the same seed gives the same run.
  const SimResult again = sb.run({"run", config(4), "--quiet", "--set", "**.link.bit_error_rate=2e-5", "--set",
                                  "**.link.seed=7", "--set", "sim.max_time_ms=500"});
  CHECK(again.result("run", "sim_time_us") == r.result("run", "sim_time_us"));
}

TEST_CASE("cluster: LT and AT deliver the same data with close timing", "[integration][cluster]") {
  Sandbox sb;
  const SimResult lt = sb.run({"run", config(8), "--quiet", "--set", "sim.timing=lt"});
  const SimResult at = sb.run({"run", config(8), "--quiet", "--set", "sim.timing=at"});
  INFO(lt.describe() << "\n" << at.describe());
  REQUIRE(lt.exited(0));
  REQUIRE(at.exited(0));
  check_alltoall(lt, 8, 4);
  check_alltoall(at, 8, 4);
  // Tolerance: AT adds real waits where transfers meet on the switching bus
  // and the links; the all-to-all completes within 10% of the LT time.
  const double tl = lt.result_num("run", "sim_time_us"), ta = at.result_num("run", "sim_time_us");
  CHECK(std::abs(ta - tl) <= 0.10 * tl);
}

TEST_CASE("cluster: the first Maestro's IP (1394 links, plain burst, in-order 4-port switch) works and is slower",
          "[integration][cluster]") {
  Sandbox sb;
  const SimResult m2 = sb.run({"run", config(4), "--quiet"});
  const SimResult m1 =
      sb.run({"run", config(4), "--quiet", "--set", "**.link.variant=ieee1394", "--set", "node*.ni.mlcx.variant=plain",
              "--set", "sb*.port*.mlx.variant=plain", "--set", "sb0.variant=maestro1"});
  INFO(m2.describe() << "\n" << m1.describe());
  REQUIRE(m2.exited(0));
  REQUIRE(m1.exited(0));
  check_alltoall(m1, 4, 4);
  // This all-to-all is mostly firmware time (building and checking payloads),
  // so the run is only somewhat longer; the wires themselves are busy about
  // eight times longer (400 Mbit/s against 3.2 Gbit/s).
  CHECK(m1.result_num("run", "sim_time_us") > 1.1 * m2.result_num("run", "sim_time_us"));
  double busy1 = 0, busy2 = 0;
  for (int n = 0; n < 4; ++n) {
    const std::string link = "node" + std::to_string(n) + ".link";
    busy1 += m1.result_num(link, "ab.busy_us") + m1.result_num(link, "ba.busy_us");
    busy2 += m2.result_num(link, "ab.busy_us") + m2.result_num(link, "ba.busy_us");
  }
  CHECK(busy1 > 6 * busy2);
}

TEST_CASE("cluster: impossible topologies are configuration errors before simulation", "[integration][cluster]") {
  Sandbox sb;
  const SimResult too_many =
      sb.run({"run", config(4), "--set", "topology.nodes=9", "--set", "topology.switch_boxes=1"});
  CHECK(too_many.exited(64));
  CHECK(contains(too_many.err + too_many.out, "impossible topology: 9 nodes but 1 switch box(es) of 8 ports"));
  const SimResult twice =
      sb.run({"run", config(2), "--set", "topology.switch_boxes=1", "--set", "topology.links=node0:sb0.3 node1:sb0.3"});
  CHECK(twice.exited(64));
  CHECK(contains(twice.err + twice.out, "port sb0.3 is used twice"));
  // 2-port boxes leave a chain no port for nodes: the limit and the way out named.
  const SimResult narrow = sb.run({"run", config(4), "--set", "sb*.ports=2"});
  CHECK(narrow.exited(64));
  CHECK(contains(narrow.err + narrow.out,
                 "impossible topology: 4 nodes on 2-port switch boxes need more than 64 boxes as a chain (a middle box "
                 "gives 0 ports to nodes, each end box 1); use topology.shape: tree or fat-tree"));
}

TEST_CASE("cluster: a receiver that stops reading stalls the network and the watchdog reports its state",
          "[integration][cluster]") {
  Sandbox sb;
  // node1 expects nothing and exits at once; node0 keeps sending to it.
  const SimResult r = sb.run(
      {"run", config(2), "--set", "node0.ni.simctrl.args=2,20,1000,1", "--set", "node1.ni.simctrl.args=2,0,1000,1"});
  INFO(r.describe());
  CHECK(r.exited(66));
  const std::string log = r.file("run.log");
  CHECK(contains(log, "network stalled at 6 ms: messages are pending but no byte has moved for 5 x 1000 us"));
  // The state names the full buffers, the exhausted credit and the waiting station.
  CHECK(contains(log, "stalled on credit"));
  CHECK(contains(log, "waits for: room: port 1 ch 1 TX"));
  CHECK(std::regex_search(log, std::regex(R"(port 0: RX0 0/2048 TX0 0/2048 RX1 20\d\d/2048)")));
}

TEST_CASE("cluster: broadcast reaches every other node and multicast only the group, across cascaded switch boxes",
          "[integration][cluster]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config(16), "--quiet", "--set", "node*.ni.firmware=net_broadcast", "--set",
                              "node*.ni.simctrl.args=16,5,500", "--set", "topology.groups=1=1,3,5,7,9,11,13,15"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  for (int n = 1; n < 16; ++n) {
    const std::string cpu = "node" + std::to_string(n) + ".ni.cpu";
    INFO(cpu);
    // 5 broadcasts everywhere, 5 multicasts at the odd nodes; nothing else arrives.
    CHECK(r.result(cpu, "fw_result0") == std::optional<std::string>(n % 2 ? "10" : "5"));
    CHECK(r.result(cpu, "fw_result1") == std::optional<std::string>("0"));
  }
}

TEST_CASE("cluster: link bindings can be traced: one row per frame an engine sends", "[integration][cluster][trace]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config(4), "--quiet", "--trace", "node1.ni.mlcx", "--trace", "sb0.port1"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  size_t from_ni = 0, from_sb = 0, info_from_ni = 0, info_from_sb = 0;
  for (const std::string& row : split_lines(r.file("transactions.csv"))) {
    // binding,start_ps,end_ps,command,address,bytes,...: an info frame carries no packet bytes.
    const bool ni = row.rfind("node1.ni.mlcx.link,", 0) == 0, sbp = row.rfind("sb0.port1.mlx.link,", 0) == 0;
    size_t comma = 0;
    for (int field = 0; field < 5 && comma != std::string::npos; ++field) comma = row.find(',', comma + 1);
    const bool info = comma != std::string::npos && row.compare(comma + 1, 2, "0,") == 0;
    from_ni += ni, from_sb += sbp;
    info_from_ni += ni && info, info_from_sb += sbp && info;
  }
  // Side A of node1.link is the NI, side B the switch-box port.
  CHECK(static_cast<double>(from_ni) == r.result_num("node1.link", "ab.frames"));
  CHECK(static_cast<double>(from_sb) == r.result_num("node1.link", "ba.frames"));
  CHECK(static_cast<double>(info_from_ni) == r.result_num("node1.link", "ab.info_frames"));
  CHECK(static_cast<double>(info_from_sb) == r.result_num("node1.link", "ba.info_frames"));
  CHECK(from_ni > 0);
  CHECK(info_from_ni > 0);
  CHECK(info_from_ni < from_ni);  // data frames too
}

TEST_CASE("cluster: tracing every binding changes nothing in the simulation", "[integration][cluster][trace]") {
  Sandbox sb;
  const SimResult plain = sb.run({"run", config(4), "--quiet"});
  const SimResult traced = sb.run({"run", config(4), "--quiet", "--trace", "*"});
  INFO(plain.describe() << "\n" << traced.describe());
  REQUIRE(plain.exited(0));
  REQUIRE(traced.exited(0));
  check_alltoall(traced, 4, 4);
  CHECK(traced.result("run", "sim_time_us") == plain.result("run", "sim_time_us"));
  CHECK(split_lines(traced.file("transactions.csv")).size() > 100);
}

TEST_CASE("cluster: VCD signals for chosen components open with GTKWave's vcd2fst, with a save file grouping them",
          "[integration][cluster][trace]") {
  Sandbox sb;
  const SimResult r =
      sb.run({"run", config(2), "--quiet", "--set", "sim.vcd=node0.ni sb0.controller.stations* node0.link", "--set",
              "sim.trace_from_us=20", "--set", "sim.trace_to_us=80"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const std::string vcd = r.file("signals.vcd");
  REQUIRE(!vcd.empty());
  // A channel's level is as wide as its capacity needs: 2048 B, 12 bits.
  CHECK(contains(vcd, "$var wire 12 "));
  CHECK(contains(vcd, " tx0_used $end"));
  CHECK(contains(vcd, "$var wire 32 "));  // the MLX credits: the peer's channel may be larger
  CHECK(contains(vcd, " stations_occupied $end"));
  CHECK(contains(vcd, " ab_busy $end"));
  CHECK_FALSE(contains(vcd, "$scope module node1 $end"));  // not chosen
  // Only the window: the first and last time stamps lie within 20..80 us.
  std::vector<uint64_t> stamps;
  for (const std::string& l : split_lines(vcd))
    if (!l.empty() && l[0] == '#') stamps.push_back(std::stoull(l.substr(1)));
  REQUIRE(!stamps.empty());
  CHECK(stamps.front() >= 20000000u);
  CHECK(stamps.back() <= 80000000u);
  // The GTKWave save file next to it: every trace names a signal of the VCD,
  // groups open and close in pairs, the view starts at the window.
  const std::string gtkw = r.file("signals.gtkw");
  REQUIRE(!gtkw.empty());
  CHECK(contains(gtkw, "[dumpfile] \"signals.vcd\"\n"));
  CHECK(contains(gtkw, "[timestart] 20000000\n"));
  std::vector<std::string> scopes, vars;
  for (const std::string& l : split_lines(vcd)) {
    std::smatch m;
    if (std::regex_match(l, m, std::regex(R"(\$scope module (\S+) \$end)"))) scopes.push_back(m[1]);
    else if (l == "$upscope $end") scopes.pop_back();
    else if (std::regex_match(l, m, std::regex(R"(\$var wire \d+ \S+ (\S+) \$end)"))) {
      std::string full;
      for (const auto& sc : scopes) full += sc + ".";
      vars.push_back(full + m[1].str());
    }
  }
  unsigned traces = 0, depth = 0;
  std::string flags, last_group;
  for (const std::string& l : split_lines(gtkw)) {
    if (!l.empty() && l[0] == '@') flags = l;
    std::smatch m;
    if (std::regex_match(l, m, std::regex(R"(\+\{(\w+)\} (\S+))"))) {
      INFO(l);
      CHECK(depth == 1);
      CHECK(std::find(vars.begin(), vars.end(), m[2].str()) != vars.end());
      CHECK(m[2].str().substr(m[2].str().rfind('.') + 1) == m[1].str());
      ++traces;
    } else if (!l.empty() && l[0] == '-') {
      if (flags == "@800200") {
        depth++;
        last_group = l;
      } else if (flags == "@1000200") {
        CHECK(l == last_group);
        depth--;
      }
    }
  }
  CHECK(depth == 0);
  CHECK(traces == vars.size());
  // Data-path order: node0's NI before its link, the link before the switch box.
  CHECK(gtkw.find("-node0.ni.netbuf") < gtkw.find("-node0.link"));
  CHECK(gtkw.find("-node0.link") < gtkw.find("-sb0"));
  const std::string fst = (r.out_dir / "signals.fst").string();
  const int rc =
      std::system(("vcd2fst '" + (r.out_dir / "signals.vcd").string() + "' '" + fst + "' > /dev/null 2>&1").c_str());
  CHECK(rc == 0);
  CHECK(fs::exists(fst));
}

// At the longest cable (10 km: 50 us each way) the default ack timeout
// (100 us) is shorter than an ack's round trip: said before the run, naming
// the keys; the default 5 m says nothing.
TEST_CASE("cluster: an ack timeout shorter than the link's round trip is warned about", "[integration][cluster]") {
  Sandbox sb;
  const std::string mmp = std::string(M2VP_SOURCE_DIR) + "/configs/mmp-pingpong.yaml";
  const SimResult far = sb.run(
      {"run", mmp, "--quiet", "--set", "node*.host.args=--sizes 1k --iters 2", "--set", "node0.link.cable_m=10000"});
  INFO(far.describe());
  CHECK(far.exited(0));
  CHECK(contains(far.err,
                 "warning: node0.ni.mlcx.ack_timeout_ns = 100000 ns (variant maestro2) is not longer than "
                 "an ack's round trip on node0.link (105250 ns with node0.link.cable_m = 10000 m"));
  CHECK(contains(far.err, "warning: sb0.port0.mlx.ack_timeout_ns = 100000 ns"));
  CHECK_FALSE(contains(far.err, "node1.link"));  // its cable is the default 5 m
  const SimResult near = sb.run({"run", mmp, "--quiet", "--set", "node*.host.args=--sizes 1k --iters 2"});
  CHECK(near.exited(0));
  CHECK_FALSE(contains(near.err, "ack_timeout_ns"));
}

// The VCD's busy signals against the transactions that make them busy
// (tests/integration/check_vcd_busy.py): the first sample after a PCI
// transaction or a frame starts is 1, and every 1 has a transaction in its
// period, in LT and AT. (Busy signals once followed a busy-time counter that
// a transfer moved in one step: a 1 us burst showed as one 100 ns sample.)
TEST_CASE("cluster: VCD busy signals are 1 in every sample period a transfer overlaps",
          "[integration][cluster][trace]") {
  Sandbox sb;
  const std::string mmp = std::string(M2VP_SOURCE_DIR) + "/configs/mmp-pingpong.yaml";
  const std::string check = std::string(M2VP_SOURCE_DIR) + "/tests/integration/check_vcd_busy.py";
  for (const char* timing : {"lt", "at"}) {
    INFO(timing);
    const SimResult r =
        sb.run({"run", mmp, "--quiet", "--set", std::string("sim.timing=") + timing, "--set",
                "node*.host.args=--sizes 1,64k --iters 1 --warmup 0", "--set", "sim.vcd=node0.pci node0.link",
                "--trace", "node0.pci", "--trace", "node0.ni.mlcx.link"});
    INFO(r.describe());
    REQUIRE(r.exited(0));
    const SimResult pci =
        sb.start_program({"/usr/bin/python3", check, r.out_dir.string(), "node0.pci.busy", "100000", "node0.pci."})
            .wait(60);
    INFO(pci.out);
    CHECK(pci.exited(0));
    CHECK(contains(pci.out, "0 transactions missed, 0 busy samples without a transaction"));
    const SimResult link = sb.start_program({"/usr/bin/python3", check, r.out_dir.string(), "node0.link.ab_busy",
                                             "100000", "node0.ni.mlcx.link"})
                               .wait(60);
    INFO(link.out);
    CHECK(link.exited(0));
    CHECK(contains(link.out, "0 transactions missed, 0 busy samples without a transaction"));
  }
}
