// Integration tests of the MPI library over MMP (sw/host/mpi) on the cluster
// platform: the mpi_selftest application on 2 and 4 hosts and with other
// protocol settings, the mpi_pingpong application's latencies against MMP's
// and the protocols' mechanisms, and the loud failures (unimplemented
// function, MPI_Abort, hosts that disagree on the eager limit).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "run_sim.h"

using namespace m2it;

namespace {

std::string config(const std::string& name) { return std::string(M2VP_SOURCE_DIR) + "/configs/" + name + ".yaml"; }

// The self-test with these extra arguments, required to pass on every host.
void selftest(Sandbox& sb, int hosts, const std::vector<std::string>& extra) {
  std::vector<std::string> args{"run", config("mpi-selftest"), "--quiet", "--set",
                                "topology.nodes=" + std::to_string(hosts)};
  args.insert(args.end(), extra.begin(), extra.end());
  const SimResult r = sb.run(args, true, 120);
  std::string what;
  for (const auto& a : extra) what += a + " ";
  INFO(hosts << " hosts " << what << "\n" << r.describe());
  REQUIRE(r.exited(0));
  const std::string log = r.file("run.log");
  CHECK_FALSE(contains(log, "FAIL"));
  CHECK_FALSE(contains(log, "mmp: "));  // the firmware's complaints
  for (int h = 0; h < hosts; ++h) {
    const std::string host = "node" + std::to_string(h) + ".host";
    INFO(host);
    CHECK(r.result(host, "failures") == std::optional<std::string>("0"));
    CHECK(r.result_num(host, "checks") > 50);  // ranks beyond 1 take part in fewer checks
    CHECK(r.result_num("node" + std::to_string(h) + ".ni.dma", "errors") == 0.0);
  }
  std::smatch m;
  REQUIRE(
      std::regex_search(log, m, std::regex(R"(\[node0\.host\] mpi_selftest: (\d+) hosts, (\d+) checks, 0 failed)")));
  CHECK(std::stoi(m[1]) == hosts);
  CHECK(std::stoi(m[2]) > 100 * hosts);
}

// results.tsv of a ping-pong run as size -> one-way latency (us).
std::map<long, double> latencies(const SimResult& r) {
  std::map<long, double> lat;
  const auto tsv = read_tsv(r.out_dir / "results.tsv");
  REQUIRE(tsv.size() > 1);
  CHECK(tsv[0] == std::vector<std::string>{"bytes", "latency_us", "mbps"});
  for (size_t i = 1; i < tsv.size(); ++i) lat[std::stol(tsv[i][0])] = std::stod(tsv[i][1]);
  return lat;
}

// A ping-pong run (mmp-pingpong or mpi-pingpong) required to end well.
SimResult pingpong(Sandbox& sb, const std::string& name, const std::string& args,
                   const std::vector<std::string>& extra = {}) {
  std::vector<std::string> a{"run", config(name), "--quiet", "--set", "node*.host.args=" + args};
  a.insert(a.end(), extra.begin(), extra.end());
  SimResult r = sb.run(a, true, 120);
  INFO(name << " " << args << "\n" << r.describe());
  REQUIRE(r.exited(0));
  CHECK(r.result("node0.host", "payload_errors") == std::optional<std::string>("0"));
  CHECK(r.result("node1.host", "payload_errors") == std::optional<std::string>("0"));
  return r;
}

}  // namespace

TEST_CASE("MPI self-test on two hosts: every function, payloads, wildcards, order, collectives", "[integration][mpi]") {
  Sandbox sb;
  selftest(sb, 2, {});
}

TEST_CASE("MPI self-test on four hosts", "[integration][mpi]") {
  Sandbox sb;
  selftest(sb, 4, {});
}

TEST_CASE("MPI self-test with other protocol settings: small eager limit, pin-down cache, one slot per peer",
          "[integration][mpi]") {
  Sandbox sb;
  // 512-byte eager limit and zero copy from 4 KB with the pin-down cache;
  // then one posted control buffer per peer (the rest arrive into MMP's
  // message buffer) and an 8 KB eager limit; then AT timing.
  selftest(sb, 2,
           {"--set", "node*.host.mpi.eager_limit=512", "--set", "node*.host.mpi.zcopy_threshold=4096", "--set",
            "node*.host.mpi.pin_cache=true"});
  selftest(sb, 2, {"--set", "node*.host.mpi.eager_slots=1", "--set", "node*.host.mpi.eager_limit=8192"});
  // No eager messages at all: every send a rendezvous (a program that relied on
  // buffering would deadlock here).
  selftest(sb, 2, {"--set", "node*.host.mpi.eager_limit=0"});
  selftest(sb, 4, {"--set", "sim.timing=at", "--set", "node*.host.args=--sizes 0,1952,1953,70000"});
}

TEST_CASE("MPI: an unimplemented function ends the run naming it", "[integration][mpi]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config("mpi-selftest"), "--set", "node*.host.args=--unimplemented"});
  INFO(r.describe());
  CHECK_FALSE(r.exited(0));
  CHECK(r.exit_code != 0);
  CHECK(contains(r.out + r.err, "MPI_Comm_dup is not implemented by the platform's MPI library"));
  CHECK(std::regex_search(r.out + r.err, std::regex(R"(node[01]\.host)")));
  CHECK_FALSE(contains(r.file("run.log"), "FAIL: MPI_Comm_dup returned"));
}

TEST_CASE("MPI: a call before MPI_Init ends the run naming it", "[integration][mpi]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config("mpi-selftest"), "--set", "node*.host.args=--before-init"});
  INFO(r.describe());
  CHECK(r.exit_code > 0);
  CHECK(contains(r.out + r.err, "MPI_Send called before MPI_Init"));
  CHECK_FALSE(contains(r.file("run.log"), "FAIL: MPI_Send before MPI_Init returned"));
}

TEST_CASE("MPI_Abort ends the run with its error code", "[integration][mpi]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config("mpi-selftest"), "--set", "node*.host.args=--abort 7"});
  INFO(r.describe());
  CHECK(r.exited(7));
  CHECK(contains(r.out + r.err, "node1.host"));
  CHECK(contains(r.out + r.err, "MPI_Abort(errorcode 7)"));
}

TEST_CASE("MPI: hosts that disagree on the eager limit get an error naming the parameter", "[integration][mpi]") {
  Sandbox sb;
  const SimResult r = sb.run({"run", config("mpi-pingpong"), "--set", "node0.host.mpi.eager_limit=4096", "--set",
                              "node*.host.args=--sizes 3000 --iters 1 --warmup 0"});
  INFO(r.describe());
  CHECK(r.exited(64));  // a configuration error, found before the run
  CHECK(contains(r.err, "node*.host.mpi.eager_limit must be the same on every host"));
  CHECK(contains(r.err, "node0.host.mpi.eager_limit = 4096 B (--set), node1.host.mpi.eager_limit = 1952 B (default)"));
}

TEST_CASE("MPI ping-pong: above MMP at every size, the rendezvous step and the pin-down cost", "[integration][mpi]") {
  Sandbox sb;
  const std::string sizes = "--sizes 1,64,1k,1952,1953,8k,64k --iters 2 --warmup 1";
  const auto mmp = latencies(pingpong(sb, "mmp-pingpong", sizes));
  const SimResult per_message = pingpong(sb, "mpi-pingpong", sizes);
  const auto mpi = latencies(per_message);
  const auto cached = latencies(pingpong(sb, "mpi-pingpong", sizes, {"--set", "node*.host.mpi.pin_cache=true"}));
  REQUIRE(mmp.size() == 7);
  REQUIRE(mpi.size() == 7);
  REQUIRE(cached.size() == 7);
  for (const auto& [bytes, us] : mmp) {
    INFO(bytes << " bytes: MMP " << us << " us, MPI " << mpi.at(bytes) << " us, cached " << cached.at(bytes));
    CHECK(mpi.at(bytes) > us);
    CHECK(cached.at(bytes) > us);
  }
  // A small message costs MPI a header, a copy on each side and the calls:
  // under 3 us more than MMP on a PIII 800.
  CHECK(mpi.at(1) - mmp.at(1) < 3.0);
  // One byte over the eager limit adds the request-to-send / clear-to-send
  // round trip: about two small MMP messages (1.5 to 3 of them, the copies
  // of 1952 bytes into and out of the control buffers go away).
  const double step = mpi.at(1953) - mpi.at(1952);
  INFO("rendezvous step " << step << " us, MMP small message " << mmp.at(1) << " us");
  CHECK(step > 1.5 * mmp.at(1));
  CHECK(step < 3.0 * mmp.at(1));
  // 64 KB is zero copy: pinned and unpinned per message on both sides
  // (16 pages each, 130 + 10 us per page by default) unless the pin-down
  // cache keeps the buffers pinned. Some unpinning overlaps the peer's work.
  const double pin_cost = 2 * 16 * (130.0 + 10.0);
  const double saved = mpi.at(65536) - cached.at(65536);
  INFO("per-message pin-down cost " << saved << " us, predicted at most " << pin_cost);
  CHECK(saved > 0.85 * pin_cost);
  CHECK(saved <= pin_cost * 1.001);
  // With the cache, zero copy streams close to MMP (RTS/CTS and the calls on top).
  CHECK(cached.at(65536) < 1.15 * mmp.at(65536));
  // 8 KB is one copy on each side through pre-pinned buffers (below the
  // zero-copy threshold): at least the two copies at the host's 300 MB/s.
  CHECK(mpi.at(8192) - mmp.at(8192) > 2 * 8192 / 300.0);
}

TEST_CASE("MPI: the same config gives the same results", "[integration][mpi]") {
  Sandbox sb;
  const std::string sizes = "--sizes 1,3000,20000 --iters 2 --warmup 1";
  const SimResult a = pingpong(sb, "mpi-pingpong", sizes);
  const SimResult b = pingpong(sb, "mpi-pingpong", sizes);
  CHECK(a.file("results.tsv") == b.file("results.tsv"));
}

TEST_CASE("LogP of MMP and MPI: the table, the signature's slope, RTT/2 as the ping-pong's", "[integration][mpi]") {
  Sandbox sb;
  std::map<std::string, std::vector<double>> row;  // per layer: o_s, o_r, g, L, rtt2
  for (const char* layer : {"mmp", "mpi"}) {
    const SimResult r = sb.run({"run", config("logp"), "--quiet", "--case", std::string("layer=") + layer}, true, 120);
    INFO(layer << "\n" << r.describe());
    REQUIRE(r.exited(0));
    const auto tsv = read_tsv(r.out_dir / "results.tsv");
    REQUIRE(tsv.size() == 2);
    CHECK(tsv[0] == std::vector<std::string>{"o_s_us", "o_r_us", "g_us", "L_us", "rtt2_us"});
    for (const auto& v : tsv[1]) row[layer].push_back(std::stod(v));
    // The signature: once delta dominates, the interval per request grows
    // with slope 1 (interval - delta constant), which is what o_r is read from.
    const auto sig = read_tsv(r.out_dir / "signature.tsv");
    REQUIRE(sig.size() == 22);
    CHECK(sig[0] == std::vector<std::string>{"delta_us", "interval_us"});
    const double excess_last = std::stod(sig[21][1]) - std::stod(sig[21][0]);
    for (size_t i = 16; i < 21; ++i) CHECK(std::abs(std::stod(sig[i][1]) - std::stod(sig[i][0]) - excess_last) < 0.05);
    CHECK(std::stod(sig[1][1]) > 1.0);
  }
  const auto& mmp = row.at("mmp");
  const auto& mpi = row.at("mpi");
  REQUIRE(mmp.size() == 5);
  REQUIRE(mpi.size() == 5);
  for (const auto* v : {&mmp, &mpi}) {
    CHECK((*v)[0] > 0.05);  // o_s: a send call costs at least its PIO request
    CHECK((*v)[1] > 0.05);
    CHECK((*v)[2] > (*v)[0]);  // a 1952-byte message's gap exceeds a minimum-size send call
    CHECK((*v)[3] > 3.0);      // L: DMA, link, switch box, DMA at least
    CHECK(std::abs((*v)[0] + (*v)[1] + (*v)[3] - (*v)[4]) < 0.01);
  }
  // MPI's calls do more than MMP's (header, matching, copies, channel polls).
  CHECK(mpi[0] > mmp[0]);
  CHECK(mpi[1] > mmp[1]);
  CHECK(mpi[4] > mmp[4]);
  // MMP's RTT/2 is the MMP ping-pong's one-byte latency (same hosts, same path).
  const auto pp = latencies(pingpong(sb, "mmp-pingpong", "--sizes 1 --iters 10 --warmup 1"));
  CHECK(std::abs(mmp[4] - pp.at(1)) < 0.2);
}

TEST_CASE("MPI: a built-in application's deadlock names what each host waits for", "[integration][mpi]") {
  Sandbox sb;
  // Rank 1 expects a third round that rank 0 never sends.
  const SimResult r = sb.run({"run", config("mpi-pingpong"), "--set", "node0.host.args=--sizes 1 --iters 2", "--set",
                              "node1.host.args=--sizes 1 --iters 3", "--set", "sim.max_time_ms=200"});
  INFO(r.describe());
  CHECK(r.exited(66));
  CHECK(contains(r.err, "hosts deadlocked at "));
  CHECK(contains(r.err,
                 "node0.host: running mpi_pingpong, in MPI, waiting for a message from rank 1: polling host memory"));
  CHECK(contains(r.err,
                 "node1.host: running mpi_pingpong, in MPI, waiting for a message from rank 0: polling host memory"));
}
