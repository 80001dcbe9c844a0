// Platform-wide settings of a run (top-level config keys and "sim.*").
#pragma once

#include <string>

#include "core/params.h"
#include "core/timing_style.h"
#include "platform/platform.h"

namespace m2 {

struct SimSettings {
  Param<std::string> platform{"", "platform", "single-ni", "which platform to build", platform_names()};
  Param<std::string> description{"", "description", "", "", "free text describing the configuration"};
  // 1 us keeps interrupt and DMA-completion latency errors below the 1 us
  // resolution of the published measurements; see docs/models/processor.md.
  Param<double> quantum_ns{"sim",
                           "quantum_ns",
                           1000.0,
                           "ns",
                           "global quantum: how far a CPU may run ahead of SystemC time",
                           Range<double>{1, 1e9}};
  Param<std::string> timing{
      "sim",
      "timing",
      "lt",
      "timing style: lt (loosely timed, fast) or at (approximately timed: the shared buses speak the "
      "TLM-2.0 base protocol's phases and contend; docs/usage.md, LT and AT)",
      {"lt", "at"}};
  TimingStyle timing_style() const { return timing.get() == "at" ? TimingStyle::AT : TimingStyle::LT; }
  Param<bool> check_protocol{
      "sim", "check_protocol", false, "",
      "put the project's TLM-2.0 base-protocol checker on the bindings of the PCI buses and the "
      "switching buses (the four phases in AT); a broken rule stops the run naming the rule, the "
      "binding and the transaction; results unchanged"};
  Param<std::string> trace{"sim", "trace", "", "",
                           "bindings to trace, name patterns with * (node*.pci, node0.ni.dma); empty: none"};
  Param<double> trace_from_us{
      "sim", "trace_from_us", 0.0, "us", "start of the traced time window", Range<double>{0, 1e12}};
  Param<double> trace_to_us{
      "sim", "trace_to_us", 0.0, "us", "end of the traced time window (0: end of run)", Range<double>{0, 1e12}};
  Param<bool> messages{"sim", "messages", false, "",
                       "per-message timing breakdown: messages.csv, a stage table in the report, message tracks "
                       "and flow arrows in trace.json (docs/models/message-breakdown.md)"};
  Param<std::string> log{"sim", "log", "", "",
                         "log levels per module: PATTERN=LEVEL, comma-separated (levels error, warning, info, "
                         "debug; default info; the last matching pattern decides): node0.ni.*=debug"};
  Param<std::string> vcd{"sim", "vcd", "", "",
                         "signals for signals.vcd, name patterns with * (node0.ni.netbuf, sb*); empty: none"};
  Param<double> vcd_sample_ns{
      "sim", "vcd_sample_ns", 100.0, "ns", "sampling period of the VCD signals", Range<double>{1, 1e9}};
  Param<uint64_t> gdb_port{"sim",
                           "gdb_port",
                           0,
                           "",
                           "TCP port on 127.0.0.1 of one GDB connection for all CPUs, each a thread (0: none); "
                           "--gdb-all PORT sets it",
                           Range<uint64_t>{0, 65535}};
  Param<bool> gdb_wait{"sim", "gdb_wait", true, "",
                       "with sim.gdb_port: halt all CPUs before the first instruction until GDB connects"};
  Param<double> perturb_ns{"sim",
                           "perturb_ns",
                           0.0,
                           "ns",
                           "period of a process that wakes and does nothing (0: none); it changes only the order in "
                           "which SystemC runs same-time wake-ups: results that move with it are sensitive to that "
                           "order (docs/speed.md)",
                           Range<double>{0, 1e12}};
  Param<double> max_time_ms{"sim",
                            "max_time_ms",
                            1000.0,
                            "ms",
                            "simulated time limit; reaching it before all firmware exits is an error",
                            Range<double>{1e-6, 1e9}};
};

}  // namespace m2
