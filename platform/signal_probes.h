// Signals for the VCD file: what the platform can show over time (buffer fill
// levels, credits, busy flags, station occupancy, CPU idle), as named probes
// read by the signal sampler. A "busy" probe is 1 when the resource's busy
// time grew since the previous sample.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace m2 {

class NiNode;
class PciBus;
class Link;
class SwitchBox;
class MlxEngine;

struct SignalProbe {
  std::string name;  // dotted: node0.ni.netbuf.tx0_used
  unsigned width;    // bits
  std::function<uint64_t()> read;
  std::function<void()> enable;  // if set: called once when the signal is chosen for sampling
};
using SignalProbes = std::vector<SignalProbe>;

void add_ni_signals(NiNode& ni, SignalProbes& out);
void add_pci_signals(PciBus& pci, SignalProbes& out);
void add_link_signals(Link& link, SignalProbes& out);
void add_mlx_signals(MlxEngine& e, const std::string& name, SignalProbes& out);
void add_switch_box_signals(SwitchBox& sb, SignalProbes& out);

}  // namespace m2
