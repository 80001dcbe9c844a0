// Timing style of a run, chosen per run in the config (sim.timing) and handed
// to the models that model contention by the platform layer.
//  - LT: loosely timed. b_transport with temporal decoupling; a shared
//    resource adds its transfer time to the caller's delay but callers do not
//    wait for each other. Fast; the same data, close timing.
//  - AT: approximately timed in the TLM-2.0 sense. Shared resources speak
//    the base protocol's four phases (nb_transport; the PCI bus, its masters
//    and targets) and transfers really wait for each other in SystemC time,
//    so contention and occupancy show. docs/usage.md, "LT and AT".
#pragma once

#include <string>

namespace m2 {

enum class TimingStyle { LT, AT };

inline const char* to_string(TimingStyle s) { return s == TimingStyle::LT ? "lt" : "at"; }

}  // namespace m2
