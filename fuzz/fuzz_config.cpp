// libFuzzer target: a YAML config with its cases and --set overrides, as
// `m2vp-sim run CONFIG --set ...` reads them (platform/yaml_config,
// config_loader, config_cases, core/params, platform/topology).
// Input: the config text, then NUL-separated --set assignments.
// Every outcome must be success or m2::ConfigError; anything else (a crash,
// another exception, a sanitizer report, a hang) is a finding.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/params.h"
#include "platform/config_cases.h"
#include "platform/config_loader.h"
#include "platform/topology.h"

namespace {

std::string temp_config_path() {
  // One file per process, rewritten for each input (fast on tmpfs).
  return "/tmp/m2vp-fuzz-config-" + std::to_string(::getpid()) + ".yaml";
}

// Parameters of each type a config can set, so that presets meet
// set_from_string and the list check as in a real platform.
void declare_params(std::vector<std::unique_ptr<m2::ParamBase>>& out) {
  using namespace m2;
  out.push_back(std::make_unique<Param<std::string>>("", "platform", "single-ni", "platform",
                                                     std::vector<std::string>{"single-ni", "node", "cluster"}));
  out.push_back(
      std::make_unique<Param<double>>("sim", "max_time_ms", 1000.0, "ms", "limit", Range<double>{0.001, 1e9}));
  out.push_back(std::make_unique<Param<uint64_t>>("topology", "nodes", 2, "nodes", "nodes", Range<uint64_t>{1, 256}));
  out.push_back(std::make_unique<Param<uint64_t>>("topology", "switch_boxes", 0, "", "sbs", Range<uint64_t>{0, 64}));
  out.push_back(std::make_unique<Param<std::string>>("topology", "links", "", "", "cabling"));
  out.push_back(std::make_unique<Param<std::string>>("sim", "trace", "", "", "patterns"));
  out.push_back(std::make_unique<Param<bool>>("sim", "messages", false, "", "flag"));
  out.push_back(std::make_unique<Param<int64_t>>("node0.ni.cpu", "offset", 0, "", "signed", Range<int64_t>{-5, 5}));
  out.push_back(std::make_unique<Param<uint64_t>>("ni0.cpu", "gdb_port", 0, "", "port", Range<uint64_t>{0, 65535}));
}

void run_one(const std::string& path, const std::vector<std::string>& sets) {
  using namespace m2;
  ParamRegistry& reg = ParamRegistry::instance();
  reg.clear();
  load_config_presets(path, reg);
  const ConfigCases cases = load_config_cases(path);
  if (!cases.empty()) {
    apply_case_presets(cases.cases.front(), path, reg);
    find_config_case(cases, cases.cases.back().name, path);
    format_cases_table(cases);
  }
  for (const std::string& s : sets) apply_set_override(s, reg);
  std::vector<std::unique_ptr<ParamBase>> params;
  declare_params(params);
  auto* nodes = dynamic_cast<Param<uint64_t>*>(params[2].get());
  auto* sbs = dynamic_cast<Param<uint64_t>*>(params[3].get());
  auto* links = dynamic_cast<Param<std::string>*>(params[4].get());
  if (!links->get().empty() || sbs->get() > 0) {
    TopologySpec spec;
    spec.nodes = static_cast<int>(nodes->get());
    spec.switch_boxes = static_cast<int>(sbs->get());
    spec.links = links->get();
    spec.origin = path;
    Topology t(spec);
    t.describe();
  }
  reg.check_all_presets_used();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string yaml = input.substr(0, nul);
  std::vector<std::string> sets;
  if (nul != std::string::npos) {
    size_t at = nul + 1;
    while (at <= input.size()) {
      const size_t next = input.find('\0', at);
      sets.push_back(input.substr(at, next == std::string::npos ? std::string::npos : next - at));
      if (next == std::string::npos) break;
      at = next + 1;
    }
  }
  static const std::string path = temp_config_path();
  if (FILE* f = std::fopen(path.c_str(), "wb")) {
    std::fwrite(yaml.data(), 1, yaml.size(), f);
    std::fclose(f);
  }
  try {
    run_one(path, sets);
  } catch (const m2::ConfigError&) {
    // The expected answer to bad input.
  }
  m2::ParamRegistry::instance().clear();
  return 0;
}
