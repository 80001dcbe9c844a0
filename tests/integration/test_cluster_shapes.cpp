// Integration tests of the switch-box shapes (topology.shape, issue 29): experiment
// 6's application (sw/apps/scale.c) over MMP on 64 nodes cabled as a fat tree, a tree
// and the chain: every message arrives with its payload checked (a 32-node chain's
// 4 KB all-to-all too, which used to stall), and the shapes' latencies rank as their
// cabling says.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "run_sim.h"

using namespace m2it;

namespace {

const std::string kConfig = std::string(M2VP_SOURCE_DIR) + "/configs/cluster-64.yaml";

struct Row {
  double nodes, messages, p50, p99;
};

// results.tsv keyed by (pattern, bytes), after checking its header.
std::map<std::pair<std::string, int>, Row> rows_of(const SimResult& r) {
  const auto tsv = read_tsv(r.out_dir / "results.tsv");
  REQUIRE(!tsv.empty());
  REQUIRE(tsv[0] == std::vector<std::string>{"pattern", "nodes", "bytes", "messages", "min_us", "mean_us", "p50_us",
                                             "p99_us", "max_us", "mbps", "mbps_min"});
  std::map<std::pair<std::string, int>, Row> rows;
  for (size_t i = 1; i < tsv.size(); ++i) {
    REQUIRE(tsv[i].size() == 11);
    rows[{tsv[i][0], std::stoi(tsv[i][2])}] = {std::stod(tsv[i][1]), std::stod(tsv[i][3]), std::stod(tsv[i][6]),
                                               std::stod(tsv[i][7])};
  }
  return rows;
}

// Exit 0 (the application fails on a wrong byte or a missing message), and
// node 0, which gathers every node's records, found none missing or wrong; a
// few nodes' own counts (`nodes`, spread over the switch boxes) are zero too.
void check_every_message_intact(const SimResult& r, const std::vector<int>& nodes = {0, 1, 37, 63}) {
  REQUIRE(r.exited(0));
  CHECK(r.result("node0.host", "missing") == std::optional<std::string>("0"));
  CHECK(r.result("node0.host", "payload_errors_all") == std::optional<std::string>("0"));
  for (int n : nodes) {
    INFO("node" << n);
    CHECK(r.result("node" + std::to_string(n) + ".host", "payload_errors") == std::optional<std::string>("0"));
    CHECK(r.result("node" + std::to_string(n) + ".host", "failures") == std::optional<std::string>("0"));
  }
}

SimResult run_shape(Sandbox& sb, const std::string& shape, const std::string& args) {
  return sb.run({"run", kConfig, "--quiet", "--set", "topology.shape=" + shape, "--set", "node*.host.args=" + args},
                true, 300);
}

}  // namespace

TEST_CASE("cluster shapes: 64 nodes on a fat tree run experiment 6's patterns with every payload checked",
          "[integration][scale][topology]") {
  Sandbox sb;
  const SimResult r = run_shape(sb, "fat-tree", "--sizes 16,256 --msgs 1");
  INFO(r.describe());
  check_every_message_intact(r);
  const auto rows = rows_of(r);
  REQUIRE(rows.size() == 6);
  // Messages per phase: all-to-all 64 x 63, the ring 64 x 2, the hot spot 63 senders.
  const std::map<std::string, double> messages{{"alltoall", 64 * 63}, {"neighbour", 128}, {"hotspot", 63}};
  for (const auto& [key, row] : rows) {
    INFO(key.first << " " << key.second << " bytes");
    REQUIRE(messages.count(key.first) == 1);
    CHECK(row.nodes == 64);
    CHECK(row.messages == messages.at(key.first));
    CHECK(row.p50 <= row.p99);
    CHECK(row.p50 > 3.0);  // through NIs, links and at least one switch box
  }
  // A ring neighbour is on the same leaf or a few boxes away, an all-to-all
  // message queues behind 62 others at its NIs.
  for (int bytes : {16, 256}) CHECK(rows.at({"neighbour", bytes}).p99 < rows.at({"alltoall", bytes}).p50);
}

TEST_CASE("cluster shapes: on 64 nodes the fat tree beats the tree, and the tree the chain",
          "[integration][topology]") {
  Sandbox sb;
  std::map<std::string, std::map<std::pair<std::string, int>, Row>> rows;
  for (const std::string shape : {"fat-tree", "tree", "chain"}) {
    const SimResult r = run_shape(sb, shape, "--patterns alltoall,neighbour --sizes 256 --msgs 1");
    INFO(shape << ": " << r.describe());
    check_every_message_intact(r);
    rows[shape] = rows_of(r);
    REQUIRE(rows[shape].size() == 2);
    CHECK(rows[shape].at({"alltoall", 256}).messages == 64 * 63);
  }
  const auto a2a = [&](const std::string& shape) { return rows[shape].at({"alltoall", 256}).p50; };
  const auto ring_tail = [&](const std::string& shape) { return rows[shape].at({"neighbour", 256}).p99; };
  // All-to-all: the chain's middle cables carry every message between its
  // halves, the tree's root cables those between its two middle boxes, the
  // fat tree has a cable per node at every level.
  CHECK(a2a("fat-tree") * 2 < a2a("tree"));
  CHECK(a2a("tree") < a2a("chain"));
  // The ring's slowest messages cross the chain's middle (node 63 to node 0
  // and back cross all of it: 39-42 us, against 25-30 us for the trees' p99).
  // The margin was twice until issue 29's fix of scale.c: the other nodes'
  // records reached node 0 during the ring and held 63 -> 0 in its NI (106 us).
  CHECK(ring_tail("fat-tree") * 1.25 < ring_tail("chain"));
  CHECK(ring_tail("tree") * 1.25 < ring_tail("chain"));
}

// Issue 29: the chain's 4 KB all-to-all stalled (network watchdog, exit 66)
// from 32 nodes up (at 28 ms on 32 nodes, 38 ms on 64). The routing firmware
// reserved request-buffer entries only for channels with no request in a
// station either, so second requests took the entries that channels need once
// their station's request completes: two boxes filled their buffers with
// requests for the cascade links while a link's RX channel had no request
// (docs/experiments.md, "The chain's 4 KB all-to-all deadlock"; switchbox.md,
// rule 3). Of 16, 24, 32, 48 and 64 nodes, 32 (six boxes) is the smallest that
// stalled, within seconds.
TEST_CASE("cluster shapes: the 32-node chain's 4 KB all-to-all completes with every payload checked",
          "[integration][scale][topology]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", kConfig, "--quiet", "--set", "topology.shape=chain", "--set", "topology.nodes=32",
                              "--set", "node*.host.args=--patterns alltoall --sizes 4k --msgs 1"},
                             true, 300);
  INFO(r.describe());
  CHECK_FALSE(contains(r.err + r.out, "network stalled"));
  check_every_message_intact(r, {0, 1, 17, 31});
  const auto rows = rows_of(r);
  REQUIRE(rows.size() == 1);
  REQUIRE(rows.count({"alltoall", 4096}) == 1);
  CHECK(rows.at({"alltoall", 4096}).nodes == 32);
  CHECK(rows.at({"alltoall", 4096}).messages == 32 * 31);
}

// A 9-node chain of 2-station (ooo2) boxes stalls in the 4 KB all-to-all with
// the mmp firmware (exit 66 at 21 ms; 12 nodes stall too). A chunk on channel 1
// that overtook its message's first chunk waits in its NI's full RX channel for
// the first to create the message's entry; the first is queued on channel 0
// behind up traffic, which waits for a station held by a channel 1 transfer to
// such a full RX channel. The mmp-early image enters the overtaking chunk's
// message into the message buffer at once and completes; the mmp image keeps
// the wait, since the calibrated runs overtake too (docs/models/switchbox.md,
// deadlock avoidance, "What the NIs must do"; docs/mmp.md, wire format).
namespace {

const std::vector<std::string> kOoo2Chain = {"--set", "topology.shape=chain",
                                             "--set", "sb*.variant=ooo2",
                                             "--set", "node*.host.args=--patterns alltoall --sizes 4k --msgs 2"};

std::vector<std::string> ooo2_chain_args(const std::string& nodes, const std::string& firmware) {
  std::vector<std::string> args{
      "run", kConfig, "--quiet", "--set", "topology.nodes=" + nodes, "--set", "node*.ni.firmware=" + firmware};
  args.insert(args.end(), kOoo2Chain.begin(), kOoo2Chain.end());
  return args;
}

}  // namespace

TEST_CASE("cluster shapes: with the mmp firmware a 9-node chain of 2-station boxes stalls in the 4 KB all-to-all",
          "[integration][scale][topology]") {
  Sandbox sb;
  const SimResult r = sb.run(ooo2_chain_args("9", "mmp"), true, 60);
  INFO(r.describe());
  CHECK(r.exited(66));
  const std::string text = r.err + r.out;
  CHECK(contains(text, "network stalled at 21 ms"));
  // sb0's station for node 4 (port 4) and sb1's for node 5 (port 0) wait for
  // room in those nodes' channel 1, which their NIs do not drain.
  CHECK(contains(text, "2/2 stations occupied"));
  CHECK(contains(text,
                 "-> ports 0x10, 32/2048 bytes; waits for: room: port 4 ch 1 TX has 0 of the 32 bytes needed free"));
  CHECK(
      contains(text, "-> ports 0x1, 32/2048 bytes; waits for: room: port 0 ch 1 TX has 0 of the 32 bytes needed free"));
}

TEST_CASE("cluster shapes: with the mmp-early firmware chains of 2-station boxes complete the 4 KB all-to-all",
          "[integration][scale][topology]") {
  Sandbox sb;
  for (const char* nodes : {"9", "12"}) {
    INFO(nodes << " nodes");
    const SimResult r = sb.run(ooo2_chain_args(nodes, "mmp-early"), true, 120);
    INFO(r.describe());
    CHECK_FALSE(contains(r.err + r.out, "network stalled"));
    const int n = std::stoi(nodes);
    check_every_message_intact(r, {0, 4, 5, n - 1});
    const auto rows = rows_of(r);
    REQUIRE(rows.size() == 1);
    REQUIRE(rows.count({"alltoall", 4096}) == 1);
    CHECK(rows.at({"alltoall", 4096}).nodes == n);
    CHECK(rows.at({"alltoall", 4096}).messages == 2 * n * (n - 1));
  }
}

TEST_CASE("cluster shapes: what a shape cannot build ends the run before simulation, naming the key",
          "[integration][topology][bad-input]") {
  Sandbox sb;
  const SimResult unknown = sb.run({"run", kConfig, "--quiet", "--set", "topology.shape=ring"});
  INFO(unknown.describe());
  CHECK(unknown.exited(64));
  CHECK(contains(unknown.err + unknown.out, "key 'topology.shape': expected one of chain|tree|fat-tree, got 'ring'"));
  const SimResult links = sb.run(
      {"run", kConfig, "--quiet", "--set", "topology.nodes=2", "--set", "topology.links=node0:sb0.0 node1:sb0.1"});
  INFO(links.describe());
  CHECK(links.exited(64));
  CHECK(contains(links.err + links.out, "cluster-64.yaml"));
  CHECK(contains(links.err + links.out,
                 "topology.shape: fat-tree: the shape cables the switch boxes itself; "
                 "topology.links (explicit cabling) cannot be given with it"));
  const SimResult ports = sb.run({"run", kConfig, "--quiet", "--set", "sb*.ports=5"});
  INFO(ports.describe());
  CHECK(ports.exited(64));
  CHECK(contains(ports.err + ports.out, "a fat tree needs an even number of ports per switch box, at least 4"));
  CHECK(contains(ports.err + ports.out, "these have 5 (sb*.ports)"));
}

// What the builder made of topology.shape is in the run folder: the summary
// in run.log, the cables and every box's routes in topology.txt.
TEST_CASE("cluster shapes: a run writes the network as built into topology.txt", "[integration][cluster]") {
  Sandbox sb;
  const std::string cfg = std::string(M2VP_SOURCE_DIR) + "/configs/scale-16.yaml";
  const SimResult r = sb.run({"run", cfg, "--quiet", "--set", "topology.shape=tree", "--set",
                              "node*.host.args=--sizes 16 --msgs 1 --patterns neighbour"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const std::string summary = "16 nodes, 4 switch box(es) of 8 ports, shape tree, root sb3";
  CHECK(contains(r.file("run.log"), "topology: " + summary + " (cables and routes: topology.txt)"));
  const std::string t = r.file("topology.txt");
  CHECK(t.rfind(summary + "\n", 0) == 0);
  size_t cables = 0, routes = 0;
  for (size_t p = 0; (p = t.find("\n  cable ", p)) != std::string::npos; ++p) ++cables;
  for (size_t p = 0; (p = t.find(" unicast:", p)) != std::string::npos; ++p) ++routes;
  CHECK(cables == 16 + 3);  // every node's, and the three boxes' to the root
  CHECK(routes == 4);
  CHECK(contains(t, "  cable node0 - sb0.0\n"));
  // A platform without a network writes none.
  const SimResult one = sb.run({"run", std::string(M2VP_SOURCE_DIR) + "/configs/hello.yaml", "--quiet"});
  REQUIRE(one.exited(0));
  CHECK(one.file("topology.txt").empty());
}
