// `m2vp-sim stats --list CONFIG`: every statistic the models of a platform
// declare, with unit and description, and the same names as a run's stats.tsv.
#include <catch2/catch.hpp>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "run_sim.h"

using namespace m2it;

namespace {

constexpr int EXIT_CONFIG = 64;

std::string config(const std::string& name) { return std::string(M2VP_SOURCE_DIR) + "/configs/" + name + ".yaml"; }

// name -> the rest of its line (unit and description), the header left out.
std::map<std::string, std::string> listed(const std::string& out) {
  std::map<std::string, std::string> r;
  const std::vector<std::string> lines = split_lines(out);
  for (size_t i = 1; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    const size_t sp = lines[i].find(' ');
    r[lines[i].substr(0, sp)] = sp == std::string::npos ? "" : lines[i].substr(sp);
  }
  return r;
}

bool only_when_nonzero(const std::string& name) {
  return std::regex_search(name, std::regex(R"(\.(damaged|damage_missed)$)"));
}

}  // namespace

TEST_CASE("stats --list names every model statistic a run writes to stats.tsv, with unit and description",
          "[integration]") {
  Sandbox sb;
  const SimResult l = sb.run({"stats", "--list", config("mmp-pingpong")}, false);
  INFO(l.describe());
  REQUIRE(l.exited(0));
  CHECK(l.err.empty());
  const std::vector<std::string> lines = split_lines(l.out);
  REQUIRE_FALSE(lines.empty());
  CHECK(std::regex_match(lines[0], std::regex(R"(name +unit +description)")));
  const auto stats = listed(l.out);
  // One declared by a model's header, one declared per PCI master once bound, a CPU's.
  REQUIRE(stats.count("node0.ni.dma.descriptors"));
  CHECK(std::regex_match(stats.at("node0.ni.dma.descriptors"), std::regex(R"( +count +descriptors completed.*)")));
  REQUIRE(stats.count("node1.pci.bridge.busy_us"));
  CHECK(std::regex_match(stats.at("node1.pci.bridge.busy_us"), std::regex(R"( +us +time master bridge held.*)")));
  REQUIRE(stats.count("node0.link.ab.damaged"));
  REQUIRE(stats.count("sb0.cpu.idle_us"));
  CHECK(std::regex_match(stats.at("sb0.cpu.idle_us"), std::regex(R"( +us +time dozing.*)")));
  // LT: no grant waiting.
  CHECK_FALSE(stats.count("node0.pci.bridge.waiting_us"));
  // Every statistic has a unit and a description.
  for (const auto& [name, rest] : stats) {
    INFO(name << ":" << rest);
    CHECK(std::regex_match(rest, std::regex(R"( +[a-z]+ +\S.*)")));
  }

  // A run's stats.tsv has a row for each (but the damage ones, written only when
  // the run injects damage), and no model row the list does not name.
  const SimResult r = sb.run({"run", config("mmp-pingpong"), "--quiet"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  const auto rows = read_tsv(r.out_dir / "stats.tsv");
  REQUIRE(rows.size() > 10);
  std::set<std::string> written;
  for (const auto& row : rows)
    if (row.size() == 3) written.insert(row[0] + "." + row[1]);
  for (const auto& [name, rest] : stats) {
    INFO("listed statistic " << name);
    CHECK(written.count(name) == (only_when_nonzero(name) ? 0u : 1u));
  }
  // The models' rows (the run's own and the firmware's results are not a model's).
  for (const auto& row : rows) {
    if (row.size() != 3 ||
        !std::regex_match(
            row[0],
            std::regex(
                R"((node\d+\.(pci|bridge|ni\.dma|ni\.mlcx|ni\.cpu|link)|sb\d+|sb\d+\.cpu|sb\d+\.port\d+\.mlx))")))
      continue;
    if (std::regex_match(row[1], std::regex(R"(fw_result\d+)"))) continue;  // the firmware's, not a model's
    INFO("stats.tsv row " << row[0] << " " << row[1]);
    CHECK(stats.count(row[0] + "." + row[1]) == 1);
  }
}

TEST_CASE("stats --list follows the timing style, and asks for --list", "[integration]") {
  Sandbox sb;
  const SimResult at = sb.run({"stats", "--list", config("mmp-pingpong"), "--set", "sim.timing=at"}, false);
  INFO(at.describe());
  REQUIRE(at.exited(0));
  const auto stats = listed(at.out);
  CHECK(stats.count("node0.pci.bridge.waiting_us"));
  CHECK(stats.count("node0.pci.ni.waiting_us"));

  const SimResult bare = sb.run({"stats", config("mmp-pingpong")}, false);
  INFO(bare.describe());
  CHECK(bare.exited(EXIT_CONFIG));
  CHECK(contains(bare.err, "stats needs --list"));
  CHECK(bare.out.empty());

  const SimResult typo = sb.run({"stats", "--list", config("mmp-pingpong"), "--set", "sim.timming=at"}, false);
  INFO(typo.describe());
  CHECK(typo.exited(EXIT_CONFIG));
  CHECK(contains(typo.err, "unknown key 'sim.timming'"));
}

TEST_CASE("stats --list of the single-NI platform names what its stats.tsv reports: the CPU's", "[integration]") {
  Sandbox sb;
  const SimResult l = sb.run({"stats", "--list", config("hello")}, false);
  INFO(l.describe());
  REQUIRE(l.exited(0));
  const auto stats = listed(l.out);
  CHECK(stats.size() == 3);
  const SimResult r = sb.run({"run", config("hello"), "--quiet"});
  INFO(r.describe());
  REQUIRE(r.exited(0));
  std::set<std::string> written;
  for (const auto& row : read_tsv(r.out_dir / "stats.tsv"))
    if (row.size() == 3 && row[0] != "source" && row[0] != "run" &&
        !std::regex_match(row[1], std::regex(R"(fw_result\d+)")))
      written.insert(row[0] + "." + row[1]);
  std::set<std::string> names;
  for (const auto& [name, rest] : stats) names.insert(name);
  CHECK(names == written);
  CHECK(names == std::set<std::string>{"ni0.cpu.instructions", "ni0.cpu.idle_us", "ni0.cpu.io_syncs_skipped"});
}

TEST_CASE("stats --markdown prints one model's statistics as its docs page's table, in declaration order",
          "[integration]") {
  Sandbox sb;
  const SimResult md = sb.run({"stats", "--markdown", "node*.ni.dma", config("mmp-pingpong")}, false);
  INFO(md.describe());
  REQUIRE(md.exited(0));
  CHECK(md.out ==
        "| Name | Unit | Description | Reset after warm-up |\n|------|------|-------------|------|\n"
        "| `descriptors` | count | descriptors completed without error | yes |\n"
        "| `errors` | count | descriptors failed (LEN 0 included) | yes |\n"
        "| `bytes` | bytes | bytes moved by completed descriptors | yes |\n"
        "| `partial_transactions` | count | host transactions charged misalign_penalty_ns (not whole aligned words) | "
        "yes |\n");

  // Names local to the model (a PCI master's), and the note of one reported only when non-zero.
  const SimResult pci = sb.run({"stats", "--markdown", "node0.pci", config("mmp-pingpong")}, false);
  REQUIRE(pci.exited(0));
  CHECK(contains(pci.out, "\n| `bridge.busy_us` | us | time master bridge held"));
  const SimResult link = sb.run({"stats", "--markdown", "node0.link", config("mmp-pingpong")}, false);
  REQUIRE(link.exited(0));
  CHECK(std::regex_search(
      link.out, std::regex(R"(\n\| `ab\.damaged` \| count \| [^|]*\(reported only when non-zero\) \| yes \|\n)")));

  const SimResult none = sb.run({"stats", "--markdown", "node0.ni.dmaa", config("mmp-pingpong")}, false);
  INFO(none.describe());
  CHECK(none.exited(EXIT_CONFIG));
  CHECK(contains(none.err,
                 "--markdown 'node0.ni.dmaa': no model with statistics has that name (did you mean "
                 "'node0.ni.dma'?)"));
  CHECK(none.out.empty());

  const SimResult both = sb.run({"stats", "--list", "--markdown", "node0.ni.dma", config("mmp-pingpong")}, false);
  CHECK(both.exited(EXIT_CONFIG));
  CHECK(contains(both.err, "stats takes --list or --markdown MODULE, not both"));
}
