// Platforms by name: a config's `platform:` key picks the builder that
// creates and connects the models (string-keyed factory). Each platform
// exposes its processors and consoles for the report and the tests.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/run_control.h"
#include "core/timing_style.h"
#include "cpu/processor.h"
#include "core/text_output.h"
#include "host/host_cpu.h"
#include "platform/signal_probes.h"

namespace m2 {

struct PlatformContext {
  std::string config_dir;  // resolves relative paths in the config
  RunControl& run;
  TimingStyle timing = TimingStyle::LT;  // sim.timing
};

// One figure of what a model did in a run (bus occupancy, bytes moved ...),
// for the end-of-run report and results.tsv.
struct Statistic {
  std::string source;  // the model instance ("node0.pci")
  std::string key;     // "busy_us", "ni.bytes" ...
  double value;
  bool always_decimals = false;  // six decimals even when whole (StatFormat::Decimals)
};

// The statistics model `model` declared (core/stats.h), in its order, those
// it reports in this run, appended to `out`.
void append_statistics_of(const std::string& model, std::vector<Statistic>& out);

class Platform {
 public:
  virtual ~Platform() = default;
  virtual std::vector<Processor*> processors() = 0;
  virtual std::vector<TextOutput*> consoles() = 0;
  // Host CPUs running host software (none on NI-only platforms).
  virtual std::vector<HostCpu*> hosts() { return {}; }
  // The models whose declared statistics (core/stats.h) a run reports after
  // the CPUs' and the results (stats.tsv, the report), in this order.
  virtual std::vector<std::string> statistics_models() { return {}; }
  // What those models did (collected at the end of the run).
  std::vector<Statistic> statistics();
  // Said at the end of the run: what the run was asked to do and did not
  // (e.g. a fault injection that found nothing to act on).
  virtual std::vector<std::string> end_of_run_warnings() { return {}; }
  // The network as built (a cluster: nodes, switch boxes, cables and each
  // box's routes; the first line a summary), for topology.txt; "" if none.
  virtual std::string network_description() const { return ""; }
  // Signals the VCD output can show (see signal_probes.h).
  virtual void add_signals(SignalProbes& out) { (void)out; }
};

using PlatformBuilder = std::function<std::unique_ptr<Platform>(PlatformContext&)>;

std::vector<std::string> platform_names();
// Throws ConfigError listing the known names when `name` is unknown.
std::unique_ptr<Platform> build_platform(const std::string& name, PlatformContext& ctx);

}  // namespace m2
