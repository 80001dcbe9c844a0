// Integration tests of experiments 3 and 4 (docs/experiments.md) and of the
// cases a config declares (platform/config_cases.h, traces/cases.py): the
// experiment configs run as `./m2vp run` runs them, with fewer sizes and
// rounds, and their merged tables show what the model predicts.
#include <catch2/catch.hpp>

#include <map>
#include <string>
#include <vector>

#include "run_sim.h"

using namespace m2it;

namespace {

std::string config(const std::string& name) { return std::string(M2VP_SOURCE_DIR) + "/configs/" + name + ".yaml"; }

// The merged tables of a cases run, keyed by the case's levels ("2/plain").
struct CasesRun {
  SimResult sim;
  std::map<std::string, int> exit;                                              // case name -> exit code
  std::map<std::string, std::map<double, std::map<std::string, double>>> rows;  // levels -> bytes -> column -> value
  std::vector<std::string> header;                                              // of the merged results.tsv

  double at(const std::string& levels, double bytes, const std::string& column) const {
    const auto c = rows.find(levels);
    if (c == rows.end()) return -1;
    const auto b = c->second.find(bytes);
    if (b == c->second.end()) return -1;
    const auto v = b->second.find(column);
    return v == b->second.end() ? -1 : v->second;
  }
};

// Runs traces/cases.py on `cfg` (what `./m2vp run` does for a config with cases).
CasesRun run_cases(Sandbox& sb, const std::string& cfg, size_t n_axes, const std::vector<std::string>& extra) {
  const fs::path out = sb.dir() / "cases";
  std::vector<std::string> cmd{fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3",
                               std::string(M2VP_SOURCE_DIR) + "/traces/cases.py",
                               "--sim",
                               M2VP_SIM,
                               cfg,
                               "--out",
                               out.string(),
                               "--jobs",
                               "2"};
  cmd.insert(cmd.end(), extra.begin(), extra.end());
  CasesRun r;
  r.sim = sb.start_program(cmd, out).wait(120);
  for (const auto& row : read_tsv(out / "cases.tsv"))
    if (row.size() >= 3 && row[0] != "case") r.exit[row[0]] = std::stoi(row[2]);
  const auto merged = read_tsv(out / "results.tsv");
  if (merged.empty()) return r;
  r.header = merged[0];
  for (size_t i = 1; i < merged.size(); ++i) {
    const auto& row = merged[i];
    std::string levels;
    for (size_t a = 0; a < n_axes; ++a) levels += (a ? "/" : "") + row.at(a);
    std::map<std::string, double> values;
    for (size_t c = n_axes; c < row.size() && c < r.header.size(); ++c) values[r.header[c]] = std::stod(row[c]);
    r.rows[levels][values.at("bytes")] = values;
  }
  return r;
}

}  // namespace

TEST_CASE("cases: m2vp-sim lists them, runs one with --case, and says how to run them all", "[integration][cases]") {
  Sandbox sb;
  const std::string cfg = config("burst");
  const SimResult list = sb.run({"cases", cfg}, false);
  INFO(list.describe());
  REQUIRE(list.exited(0));
  const auto lines = split_lines(list.out);
  REQUIRE(lines.size() == 6);
  CHECK(lines[0] == "#show\tlatency_us");
  CHECK(lines[1] == "case\tdir\tchannels\tburst");
  CHECK(lines[2] == "channels=1,burst=continuous\tchannels-1_burst-continuous\t1\tcontinuous");
  CHECK(lines[5] == "channels=2,burst=plain\tchannels-2_burst-plain\t2\tplain");

  // Without --case the simulator runs nothing and says what to do instead.
  const SimResult all = sb.run({"run", cfg});
  CHECK(all.exited(64));
  CHECK(contains(all.err, "declares 4 cases"));
  CHECK(contains(all.err, "./m2vp run CONFIG"));
  CHECK(contains(all.err, "--case NAME"));
  const SimResult unknown = sb.run({"run", cfg, "--case", "channels=3,burst=plain"});
  CHECK(unknown.exited(64));
  CHECK(contains(unknown.err, "no case 'channels=3,burst=plain'"));
  const SimResult none = sb.run({"run", config("mmp-pingpong"), "--case", "x"});
  CHECK(none.exited(64));
  CHECK(contains(none.err, "declares no cases"));
  // Nothing on stdout for a config without cases: ./m2vp then runs it as it is.
  const SimResult no_list = sb.run({"cases", config("mmp-pingpong")}, false);
  CHECK(no_list.exited(0));
  CHECK(no_list.out.empty());

  // params: the first case unless --case names another.
  const SimResult first = sb.run({"params", cfg}, false);
  REQUIRE(first.exited(0));
  CHECK(contains(first.err, "the parameters of the first, channels=1,burst=continuous"));
  CHECK(contains(first.out, "case channels=1,burst=continuous"));
  const SimResult other = sb.run({"params", cfg, "--case", "channels-2_burst-plain"}, false);
  REQUIRE(other.exited(0));
  CHECK(contains(other.out, "case channels=2,burst=plain"));

  // One case runs like any config; its settings are recorded with their case.
  const SimResult one = sb.run({"run", cfg, "--case", "channels=2,burst=plain", "--quiet", "--set",
                                "node*.host.args=--sizes 1k --iters 1 --warmup 0"});
  INFO(one.describe());
  REQUIRE(one.exited(0));
  const std::string params = one.file("params.tsv");
  CHECK(contains(params, "node0.ni.simctrl.args\t0,2\t\t\t" + cfg + ":"));
  CHECK(contains(params, ", case channels=2,burst=plain\n"));
  CHECK(contains(params, "sb0.port1.mlx.variant\tplain\t"));
  CHECK(read_tsv(one.out_dir / "results.tsv").size() == 2);
}

TEST_CASE("clear-output: what traces/cases.py clears first goes by the run's own rules", "[integration][cases]") {
  Sandbox sb;
  const fs::path out = sb.dir() / "reused";
  fs::create_directories(out / "node0");
  for (const char* f : {"run.log", "node0/out.txt", "mine.txt"}) std::ofstream(out / f) << "x\n";
  std::ofstream(out / ".m2vp-run-files") << "run.log\nnode0/out.txt\n";
  // mine.txt is no run's: refused as a run would be, nothing removed ...
  const SimResult refused = sb.run({"clear-output", out.string()}, false);
  CHECK(refused.exited(64));
  CHECK(contains(refused.err, out.string() + ": the output folder holds what no run wrote (mine.txt)"));
  CHECK(fs::exists(out / "run.log"));
  // ... unless told to go on.
  const SimResult r = sb.run({"clear-output", out.string(), "--out-force"}, false);
  INFO(r.describe());
  REQUIRE(r.exited(0));
  CHECK_FALSE(fs::exists(out / "run.log"));
  CHECK_FALSE(fs::exists(out / "node0"));  // an outside program's file, and its folder left empty
  CHECK(fs::exists(out / "mine.txt"));     // not the run's
  CHECK(fs::exists(out / ".m2vp-run-files"));
  CHECK(read_text(out / ".m2vp-run-files").empty());  // a fresh manifest for what comes next
  // A folder from before manifests loses the simulator's fixed names only.
  const fs::path old_run = sb.dir() / "old";
  fs::create_directories(old_run);
  for (const char* f : {"results.tsv", "report.txt", "notes.txt"}) std::ofstream(old_run / f) << "x\n";
  REQUIRE(sb.run({"clear-output", "--out-force", old_run.string()}, false).exited(0));  // either order
  CHECK_FALSE(fs::exists(old_run / "results.tsv"));
  CHECK_FALSE(fs::exists(old_run / "report.txt"));
  CHECK(fs::exists(old_run / "notes.txt"));
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"clear-output"}, {"clear-output", "--out-force"}, {"clear-output", "a", "b"}}) {
    const SimResult bad = sb.run(args, false);
    CHECK(bad.exited(64));
    CHECK(contains(bad.err, "clear-output takes one folder"));
  }
  CHECK_FALSE(fs::exists(sb.dir() / "--out-force"));
}

TEST_CASE("experiment 3: double buffering beats one channel, the burst mode hardly matters behind the host's DMA",
          "[integration][experiments]") {
  Sandbox sb;
  const CasesRun r =
      run_cases(sb, config("burst"), 2, {"--set", "node*.host.args=--sizes 1k,4k,16k --iters 3 --warmup 1"});
  INFO(r.sim.describe());
  REQUIRE(r.sim.exited(0));  // every case exited 0: both hosts checked every payload byte
  CHECK(r.header == std::vector<std::string>{"channels", "burst", "bytes", "latency_us", "mbps"});
  REQUIRE(r.exit.size() == 4);
  for (const auto& [name, code] : r.exit) CHECK(code == 0);
  for (const char* c : {"1/continuous", "1/plain", "2/continuous", "2/plain"}) {
    INFO(c);
    REQUIRE(r.rows.count(c));
    CHECK(r.rows.at(c).size() == 3);
  }
  for (const char* burst : {"continuous", "plain"}) {
    INFO(burst);
    // Several chunks: one fills a channel while the link empties the other.
    CHECK(r.at(std::string("2/") + burst, 16384, "latency_us") <
          0.9 * r.at(std::string("1/") + burst, 16384, "latency_us"));
    CHECK(r.at(std::string("2/") + burst, 4096, "latency_us") <
          0.95 * r.at(std::string("1/") + burst, 4096, "latency_us"));
    // One chunk: the second channel is not used (the firmware's loop still
    // looks at it, about 0.2 us more per pass, and the 3 rounds meet the loop
    // at other phases: 5 %).
    CHECK(r.at(std::string("2/") + burst, 1024, "latency_us") ==
          Approx(r.at(std::string("1/") + burst, 1024, "latency_us")).epsilon(0.05));
  }
  // The host DMA fills the network buffer at about half the link's rate, so a
  // frame rarely has a full burst ready: continuation almost never happens.
  for (const char* ch : {"1", "2"})
    for (double bytes : {1024.0, 4096.0, 16384.0}) {
      INFO(ch << " channel(s), " << bytes << " bytes");
      CHECK(r.at(std::string(ch) + "/plain", bytes, "latency_us") ==
            Approx(r.at(std::string(ch) + "/continuous", bytes, "latency_us")).epsilon(0.03));
    }
  const std::string summary = read_text(sb.dir() / "cases" / "summary.tsv");
  CHECK(contains(summary, "bytes\t1/continuous\t1/plain\t2/continuous\t2/plain\n"));
  CHECK(contains(r.sim.out, "latency_us per size (rows) and case (columns: channels/burst)"));
}

TEST_CASE("experiment 3 at the NI level: plain bursts cut latency, continuous ones raise the double-buffered peak",
          "[integration][experiments]") {
  Sandbox sb;
  // configs/burst-ni.yaml with sizes 1 KB .. 256 KB and 3 repetitions.
  std::string text = read_text(config("burst-ni"));
  for (const char* ch : {"1", "2"}) {
    const std::string from = std::string("\"10,32,1048576,") + ch + ",0,1\"";
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), std::string("\"3,1024,262144,") + ch + ",0,1\"");
  }
  const CasesRun r = run_cases(sb, sb.write("burst-ni.yaml", text).string(), 2, {});
  INFO(r.sim.describe());
  REQUIRE(r.sim.exited(0));  // node 0 checked every byte of every reply
  REQUIRE(r.rows.size() == 4);
  for (const char* ch : {"1", "2"}) {
    INFO(ch << " channel(s)");
    // A frame is delivered whole after its checksum: 512-byte plain frames
    // pipeline through the two hops, 2 KB continuous ones do not.
    CHECK(r.at(std::string(ch) + "/plain", 1024, "latency_us") <
          0.85 * r.at(std::string(ch) + "/continuous", 1024, "latency_us"));
    CHECK(r.at(std::string(ch) + "/plain", 2048, "latency_us") <
          0.8 * r.at(std::string(ch) + "/continuous", 2048, "latency_us"));
  }
  // Both channels loaded: the link is the bottleneck, and continue commands
  // save the acknowledge wait after every 512 bytes.
  CHECK(r.at("2/continuous", 262144, "mbps") > 1.03 * r.at("2/plain", 262144, "mbps"));
  CHECK(r.at("2/continuous", 262144, "mbps") > 1.15 * r.at("1/continuous", 262144, "mbps"));
}

TEST_CASE("experiment 4: out-of-order switching with two or more stations speeds up ping-ping of a few KB",
          "[integration][experiments]") {
  Sandbox sb;
  const CasesRun r =
      run_cases(sb, config("pingping"), 2, {"--set", "node*.host.args=--sizes 1k,4k,64k --iters 5 --warmup 1"});
  INFO(r.sim.describe());
  REQUIRE(r.sim.exited(0));  // every host of every case checked every payload byte
  CHECK(r.header == std::vector<std::string>{"hosts", "switch", "bytes", "time_us", "mbps", "min_pair_mbps"});
  REQUIRE(r.exit.size() == 10);
  for (const char* hosts : {"2", "4"})
    for (const char* sw : {"inorder", "ooo1", "ooo2", "ooo4", "ooo8"}) {
      const std::string c = std::string(hosts) + "/" + sw;
      INFO(c);
      REQUIRE(r.rows.count(c));
      REQUIRE(r.rows.at(c).size() == 3);
      // Both directions of every pair count; the slowest pair bounds the rest.
      const double pairs = std::stod(hosts) / 2;
      for (double bytes : {1024.0, 4096.0, 65536.0}) {
        const double slowest = 2 * bytes * 8 / r.at(c, bytes, "time_us");  // Mbit/s of the slowest pair
        CHECK(r.at(c, bytes, "min_pair_mbps") == Approx(slowest).epsilon(0.001));
        CHECK(r.at(c, bytes, "mbps") >= pairs * slowest * 0.9999);  // time_us is rounded
        if (pairs == 1) CHECK(r.at(c, bytes, "mbps") == Approx(slowest).epsilon(0.001));
      }
    }
  // One station cannot overtake: the same as in-order.
  for (const char* hosts : {"2", "4"})
    CHECK(r.at(std::string(hosts) + "/ooo1", 4096, "mbps") ==
          Approx(r.at(std::string(hosts) + "/inorder", 4096, "mbps")).epsilon(0.05));
  // A message's header is switched before its payload arrives from the host:
  // in order, every other message waits behind that payload. (The NI
  // firmware's own work per request, ip/mmp_fit.h, now takes much of a 4 KB
  // message's time: the gain is a few per cent on two hosts, 5-15% on four.)
  CHECK(r.at("2/ooo2", 4096, "mbps") > 1.02 * r.at("2/inorder", 4096, "mbps"));
  CHECK(r.at("4/ooo8", 4096, "mbps") > 1.05 * r.at("4/inorder", 4096, "mbps"));
  CHECK(r.at("4/ooo4", 4096, "mbps") > 1.05 * r.at("4/inorder", 4096, "mbps"));
  // Large messages: the network buffers hide the waits and the NIs set the pace.
  for (const char* hosts : {"2", "4"})
    for (const char* sw : {"ooo1", "ooo2", "ooo4", "ooo8"})
      CHECK(r.at(std::string(hosts) + "/" + sw, 65536, "mbps") ==
            Approx(r.at(std::string(hosts) + "/inorder", 65536, "mbps")).epsilon(0.02));
  // Two pairs on four hosts move about twice what one pair moves.
  CHECK(r.at("4/ooo8", 65536, "mbps") == Approx(2 * r.at("2/ooo8", 65536, "mbps")).epsilon(0.05));
}

TEST_CASE("experiment 4 across two switch boxes: in-order and 1 station deadlock, 2 or more stations carry both pairs",
          "[integration][experiments]") {
  Sandbox sb;
  const CasesRun r = run_cases(sb, config("pingping-cascade"), 1,
                               {"--set", "node*.host.args=--sizes 4k,8k,64k --iters 5 --warmup 1 --pairing across"});
  INFO(r.sim.describe());
  CHECK(r.sim.exited(66));  // the first failing case's code: a network stall
  REQUIRE(r.exit.size() == 5);
  // Requests into the cascade link wait for room that only the other switch
  // box can make, and it waits the same way: the transfer unit (in order) or
  // the one station is held.
  for (const char* sw : {"inorder", "ooo1"}) {
    INFO(sw);
    CHECK(r.exit.at(std::string("switch=") + sw) == 66);
    CHECK(r.rows.count(sw) == 1);
    CHECK(r.at(sw, 65536, "mbps") < 0);  // never got there
  }
  CHECK(contains(r.sim.out, "case switch=inorder: exit code 66: error: network stalled"));
  // With 2 or more stations one is kept for traffic that does not go up the
  // tree (docs/models/switchbox.md, deadlock avoidance): both pairs get through.
  for (const char* sw : {"ooo2", "ooo4", "ooo8"}) {
    INFO(sw);
    CHECK(r.exit.at(std::string("switch=") + sw) == 0);  // payloads verified
    CHECK(r.rows.at(sw).size() == 3);
  }
  // Two stations: the up traffic has one, and it waits for the link; four are enough.
  CHECK(r.at("ooo4", 65536, "mbps") > 1.15 * r.at("ooo2", 65536, "mbps"));
  CHECK(r.at("ooo8", 65536, "mbps") == Approx(r.at("ooo4", 65536, "mbps")).epsilon(0.02));
  CHECK(r.at("ooo4", 4096, "mbps") > 1.1 * r.at("inorder", 4096, "mbps"));
}

TEST_CASE("pingping: bad arguments and an odd number of hosts end the run cleanly with exit code 2",
          "[integration][experiments]") {
  Sandbox sb;
  const std::string cfg = config("pingping");
  const SimResult bad =
      sb.run({"run", cfg, "--case", "hosts=2,switch=ooo8", "--quiet", "--set", "node*.host.args=--pairing sideways"});
  INFO(bad.describe());
  CHECK(bad.exited(2));
  CHECK(contains(bad.file("run.log"), "pingping: bad arguments"));
  const SimResult odd = sb.run({"run", cfg, "--case", "hosts=2,switch=ooo8", "--quiet", "--set", "topology.nodes=3"});
  INFO(odd.describe());
  CHECK(odd.exited(2));  // --set wins over the case's topology.nodes
  CHECK(contains(odd.file("run.log"), "pingping: needs an even number of hosts"));
}
