// Integration tests of the per-message breakdown (sim.messages,
// docs/models/message-breakdown.md) on MMP: messages.csv's stages add up to
// each message's end-to-end time in integer picoseconds and match the
// latency the application measures itself; the counts match what the
// application sent; larger messages spend longer in the DMA stages;
// cascaded switch boxes; trace.json's flow arrows are well formed; turning
// it on changes no result.
#include <catch2/catch.hpp>

#include <algorithm>

#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "run_sim.h"

using namespace m2it;

namespace {

std::string config(const std::string& name) { return std::string(M2VP_SOURCE_DIR) + "/configs/" + name + ".yaml"; }

// "12.345678" (us with six decimals) in integer picoseconds; -1 if malformed.
long long ps(const std::string& us) {
  const size_t dot = us.find('.');
  if (dot == std::string::npos || us.size() - dot != 7 || us.empty() || us[0] == '-') return -1;
  const std::string digits = us.substr(0, dot) + us.substr(dot + 1);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoll(digits);
}

// messages.csv: the header, and each row by column name.
struct Messages {
  std::vector<std::string> columns, stages;  // stages: the *_us columns but start/end/total
  std::vector<std::map<std::string, std::string>> rows;
};

Messages read_messages(const SimResult& r) {
  Messages m;
  const std::vector<std::string> lines = split_lines(r.file("messages.csv"));
  REQUIRE(!lines.empty());
  m.columns = split(lines[0], ',');
  for (const std::string& c : m.columns)
    if (c.size() > 3 && c.compare(c.size() - 3, 3, "_us") == 0 && c != "start_us" && c != "end_us" && c != "total_us")
      m.stages.push_back(c);
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const std::vector<std::string> v = split(lines[i], ',');
    REQUIRE(v.size() == m.columns.size());
    std::map<std::string, std::string> row;
    for (size_t k = 0; k < v.size(); ++k) row[m.columns[k]] = v[k];
    m.rows.push_back(row);
  }
  return m;
}

// Every row: stages non-negative, adding up to total_us = end_us - start_us,
// exactly (in picoseconds).
void check_sums(const Messages& m) {
  for (const auto& row : m.rows) {
    INFO("message " << row.at("msg"));
    long long sum = 0;
    for (const std::string& s : m.stages) {
      const long long v = ps(row.at(s));
      CHECK(v >= 0);
      sum += v;
    }
    CHECK(sum == ps(row.at("total_us")));
    CHECK(ps(row.at("end_us")) - ps(row.at("start_us")) == ps(row.at("total_us")));
    CHECK(ps(row.at("total_us")) > 0);
  }
}

double mean(const std::vector<std::map<std::string, std::string>>& rows, const std::string& column) {
  double s = 0;
  for (const auto& r : rows) s += std::stod(r.at(column));
  return rows.empty() ? 0 : s / static_cast<double>(rows.size());
}

// trace.json: every flow has one start and one end, each of its events lies
// inside a slice of its track, and its events never go back in time;
// prints "<flows> <slices> <track names>".
const char* kCheckJson = R"PY(
import json, sys, collections
e = json.load(open(sys.argv[1]))['traceEvents']
slices = collections.defaultdict(list)
for x in e:
    if x['ph'] == 'X':
        assert x['dur'] >= 0, x
        slices[(x['pid'], x['tid'])].append((x['ts'], x['ts'] + x['dur']))
flows = collections.defaultdict(list)
for x in e:
    if x['ph'] in ('s', 't', 'f'):
        flows[x['id']].append(x)
for fid, ev in flows.items():
    ph = [x['ph'] for x in ev]
    assert ph.count('s') == 1 and ph.count('f') == 1, (fid, ph)
    for x in ev:
        assert any(a <= x['ts'] <= b for a, b in slices[(x['pid'], x['tid'])]), x
    start = [x['ts'] for x in ev if x['ph'] == 's'][0]
    end = [x['ts'] for x in ev if x['ph'] == 'f'][0]
    assert all(start <= x['ts'] <= end for x in ev), fid
    ts = [x['ts'] for x in ev]
    assert all(a <= b for a, b in zip(ts, ts[1:])), ('backwards', fid, ts)
names = sorted({x['args']['name'] for x in e if x['ph'] == 'M' and x['name'] == 'thread_name'})
print(len(flows), sum(len(v) for v in slices.values()), ' '.join(names))
)PY";

std::string check_json(Sandbox& sb, const SimResult& r) {
  const fs::path script = sb.write("check_trace.py", kCheckJson);
  const std::string cmd = "python3 '" + script.string() + "' '" + (r.out_dir / "trace.json").string() + "' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  std::string out;
  char buf[4096];
  while (fgets(buf, sizeof buf, p)) out += buf;
  const int rc = pclose(p);
  INFO(out);
  CHECK(rc == 0);
  return out;
}

}  // namespace

TEST_CASE(
    "messages: the MMP ping-pong's stages add up to each message's time, which is the latency the "
    "application measures, DMA grows with size and nothing else changes",
    "[integration][mmp][messages]") {
  Sandbox sb;
  const std::vector<long> sizes = {1, 1024, 16384, 65536};
  const int iters = 3, warmup = 1;
  const std::string args = "--sizes 1,1k,16k,64k --iters 3 --warmup 1";
  auto run = [&](bool on) {
    return sb.run({"run", config("mmp-pingpong"), "--quiet", "--set", "node*.host.args=" + args, "--set",
                   std::string("sim.messages=") + (on ? "true" : "false")});
  };
  const SimResult off = run(false), on = run(true);
  INFO(on.describe());
  REQUIRE(off.exited(0));
  REQUIRE(on.exited(0));
  CHECK(on.file("results.tsv") == off.file("results.tsv"));
  CHECK(on.result("run", "sim_time_us") == off.result("run", "sim_time_us"));
  CHECK(off.file("messages.csv").empty());

  const Messages m = read_messages(on);
  const std::vector<std::string> head = {"msg",   "src",      "dst",    "bytes",   "tag",
                                         "phase", "start_us", "end_us", "total_us"};
  REQUIRE(m.columns.size() > head.size());
  CHECK(std::vector<std::string>(m.columns.begin(), m.columns.begin() + 9) == head);
  CHECK(m.stages.size() == m.columns.size() - head.size());  // every other column is a stage
  CHECK(m.stages.front() == "host_send_us");
  CHECK(m.stages.back() == "host_recv_us");
  // Both ranks send every round of every size; the library's barrier
  // messages are not the application's.
  REQUIRE(m.rows.size() == sizes.size() * (iters + warmup) * 2);
  check_sums(m);
  std::set<std::string> ids;
  for (const auto& row : m.rows) {
    ids.insert(row.at("msg"));
    CHECK(row.at("src") != row.at("dst"));
    CHECK(row.at("tag") == "0");
    CHECK(ps(row.at("sb_bus_us")) > 0);    // every message crosses the switching bus ...
    CHECK(ps(row.at("sb_link_us")) == 0);  // ... of the one switch box
  }
  CHECK(ids.size() == m.rows.size());

  // Per size: the mean end-to-end time of the timed rounds is the one-way
  // latency the application measured itself (half its round trip).
  const auto table = read_tsv(on.out_dir / "results.tsv");
  REQUIRE(table.size() == sizes.size() + 1);
  double last_dma = -1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    INFO("bytes " << sizes[i]);
    std::vector<std::map<std::string, std::string>> rows;
    for (const auto& row : m.rows)
      if (std::stol(row.at("bytes")) == sizes[i]) rows.push_back(row);
    REQUIRE(rows.size() == static_cast<size_t>(2 * (iters + warmup)));
    // The application names its rounds (m2host_msg_phase): the warm-up ones
    // first, then the timed ones, whose mean it reports.
    for (size_t k = 0; k < rows.size(); ++k)
      CHECK(rows[k].at("phase") == (k < static_cast<size_t>(2 * warmup) ? "warmup" : "timed"));
    rows.erase(std::remove_if(rows.begin(), rows.end(), [](const auto& r) { return r.at("phase") != "timed"; }),
               rows.end());
    REQUIRE(rows.size() == static_cast<size_t>(2 * iters));
    CHECK(std::abs(mean(rows, "total_us") - std::stod(table[i + 1][1])) <= 0.0015);
    const double dma = mean(rows, "dma_send_us") + mean(rows, "dma_recv_us");
    CHECK(dma > last_dma);
    last_dma = dma;
  }

  const std::string report = on.file("report.txt");
  CHECK(contains(report, "Message breakdown (sim.messages, messages.csv): " + std::to_string(m.rows.size()) +
                             " messages sent in the window, " + std::to_string(m.rows.size()) + " complete"));
  for (const std::string& s : m.stages) CHECK(contains(report, "  " + s + " "));

  // One flow per message, through tracks of both nodes and the switch box.
  const std::string json = check_json(sb, on);
  CHECK(json.rfind(std::to_string(m.rows.size()) + " ", 0) == 0);
  for (const char* track : {"node0.host", "node0.ni.cpu", "node0.ni.dma", "node1.ni.dma", "sb0.switching_bus"})
    CHECK(contains(json, std::string(" ") + track));
}

TEST_CASE("messages: through cascaded switch boxes, with firmware trace marks, transaction taps and a time window",
          "[integration][mmp][messages]") {
  Sandbox sb;
  // Two switch boxes; the MMP firmware's trace marks on (5th argument).
  const std::vector<std::string> common = {"run",
                                           config("mmp-pingpong"),
                                           "--quiet",
                                           "--set",
                                           "node*.host.args=--sizes 1,4k --iters 2 --warmup 0",
                                           "--set",
                                           "topology.switch_boxes=2",
                                           "--set",
                                           "node*.ni.simctrl.args=0,2,2048,0,1",
                                           "--set",
                                           "sim.messages=true"};
  std::vector<std::string> traced = common;
  for (const char* a : {"--trace", "node*.pci.ni", "--trace", "**.link"}) traced.push_back(a);
  const SimResult r = sb.run(traced);
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const Messages m = read_messages(r);
  REQUIRE(m.rows.size() == 8);
  check_sums(m);
  for (const auto& row : m.rows) {
    INFO("message " << row.at("msg"));
    CHECK(ps(row.at("sb_link_us")) > 0);  // the link between the two switch boxes
    CHECK(ps(row.at("link_recv_us")) > 0);
  }
  // The taps name the messages of DMA transactions and frames.
  size_t tagged = 0;
  std::set<std::string> known;
  for (const auto& row : m.rows) known.insert(row.at("msg"));
  const std::vector<std::string> rows = split_lines(r.file("transactions.csv"));
  REQUIRE(!rows.empty());
  CHECK(rows[0] == "binding,start_ps,end_ps,command,address,bytes,response,msg");
  for (size_t i = 1; i < rows.size(); ++i) {
    const std::string msg = split(rows[i], ',').back();
    if (msg.empty()) continue;
    ++tagged;
    for (const std::string& id : split(msg, ' ')) CHECK(known.count(id) == 1);
  }
  CHECK(tagged > 8);
  const std::string json = check_json(sb, r);
  CHECK(contains(json, " sb1.switching_bus"));
  CHECK(contains(json, " sb0.port0.mlx.link"));
  // The marks split the sender's firmware stage: waking up, then its work.
  const std::string text = r.file("trace.json");
  CHECK(std::regex_search(text,
                          std::regex(R"("name":"wake-up","ts":[0-9.]+,"dur":[0-9.]+,"args":\{"stage":"fw_send_us")")));

  // A window: only the messages sent in it, and the same (nothing else changes).
  const double from = std::stod(m.rows[2].at("start_us")), to = std::stod(m.rows[5].at("start_us"));
  std::vector<std::string> windowed = common;
  for (const std::string& a :
       {"sim.trace_from_us=" + std::to_string(from - 0.001), "sim.trace_to_us=" + std::to_string(to + 0.001)}) {
    windowed.push_back("--set");
    windowed.push_back(a);
  }
  const SimResult w = sb.run(windowed);
  REQUIRE(w.exited(0));
  const Messages mw = read_messages(w);
  REQUIRE(mw.rows.size() == 4);
  for (size_t i = 0; i < 4; ++i) CHECK(mw.rows[i] == m.rows[i + 2]);
}

TEST_CASE("messages: NetPIPE's messages all complete and add up", "[integration][mmp][messages]") {
  Sandbox sb;
  const SimResult r =
      sb.run({"run", config("netpipe"), "--quiet", "--set", "node*.host.args=--max 4k", "--set", "sim.messages=true"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const Messages m = read_messages(r);
  CHECK(m.rows.size() > 100);
  check_sums(m);
  CHECK(contains(r.file("report.txt"), std::to_string(m.rows.size()) + " complete, 0 not complete"));
}

TEST_CASE("messages: 16 nodes on cascaded switch boxes, eight ping-pong pairs at once",
          "[integration][mmp][messages]") {
  Sandbox sb;
  std::vector<std::string> args = {"run",
                                   config("cluster-16"),
                                   "--quiet",
                                   "--set",
                                   "node*.ni.firmware=mmp",
                                   "--set",
                                   "node*.ni.simctrl.args=",
                                   "--set",
                                   "node*.host.app=mmp_pingpong",
                                   "--set",
                                   "sim.messages=true"};
  for (int n = 0; n < 16; ++n) {
    args.push_back("--set");
    args.push_back("node" + std::to_string(n) + ".host.args=--sizes 1,4k --iters 1 --warmup 0 --peer " +
                   std::to_string(15 - n));
  }
  const SimResult r = sb.run(args);
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const Messages m = read_messages(r);
  REQUIRE(m.rows.size() == 16 * 2);
  check_sums(m);
  size_t cascaded = 0;
  for (const auto& row : m.rows) cascaded += ps(row.at("sb_link_us")) > 0;
  CHECK(cascaded > 0);
  const std::string json = check_json(sb, r);
  CHECK(json.rfind("32 ", 0) == 0);
  for (const char* track : {" sb0.switching_bus", " sb1.switching_bus", " sb2.switching_bus", " node15.host"})
    CHECK(contains(json, track));
}
