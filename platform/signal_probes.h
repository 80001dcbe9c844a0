// Signals for the VCD file: what the platform can show over time (buffer fill
// levels, credits, busy flags, station occupancy, CPU idle), as named probes
// read by the signal sampler. Every model declares its own (core/signals.h);
// the functions below only name, per kind of component, the models whose
// signals a run can show and their order in the VCD (the data path's).
#pragma once

#include <string>

#include "core/signals.h"

namespace m2 {

class NiNode;
class PciBus;
class Link;
class SwitchBox;
class MlxEngine;

// The signals `model` declared (core/signals.h), in its order.
void add_declared_signals(const std::string& model, SignalProbes& out);
void add_ni_signals(NiNode& ni, SignalProbes& out);
void add_pci_signals(PciBus& pci, SignalProbes& out);
void add_link_signals(Link& link, SignalProbes& out);
void add_mlx_signals(MlxEngine& e, SignalProbes& out);
void add_switch_box_signals(SwitchBox& sb, SignalProbes& out);

}  // namespace m2
