// Signals for the VCD file: what the platform can show over time (buffer fill
// levels, credits, busy flags, station occupancy, CPU idle), as named probes
// read by the signal sampler. A "busy" probe is 1 when the resource's busy
// time grew since the previous sample. Models that declare their signals
// (core/signals.h: the PCI bus, links) need only their name here; the others'
// are still listed below, a function per kind of model.
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
void add_mlx_signals(MlxEngine& e, const std::string& name, SignalProbes& out);
void add_switch_box_signals(SwitchBox& sb, SignalProbes& out);

}  // namespace m2
