// Variants of the switch box (models/switchbox/switch_box): the value of each
// parameter per variant, with where it comes from. "spec" is
// shared/spec/maestro2.md (Switch box); everything else is an assumption, easy
// to change here or per run ("sb0.bus_width_bits: 64").
#pragma once

#include <vector>

#include "core/ip_variant.h"

namespace m2 {

// Calibration (docs/experiments.md): maestro2's values and the routing
// firmware's cost (about 1 us from a header in the port's RX channel to the
// first packet on the output link, most of it the 603e waking and routing)
// were checked against the published NI-level ping-pong and left unchanged.
inline const std::vector<IpVariant>& sb_variants() {
  // Assumption shared by the Maestro2 variants: a 128-bit switching bus at
  // 100 MHz (1.6 GB/s) in the Virtex-II, enough for four ports receiving at
  // the link's 400 MB/s at once; 2 clocks to select source and destinations.
  static const std::vector<IpVariant> table = {
      {"maestro2",
       "Maestro2's switch box: 8 ports (spec), out-of-order switching (spec: new in Maestro2), "
       "8 reservation stations (assumption: the largest build, spec: only ~10% more logic than 1)",
       {
           {"ports", "8"},
           {"mode", "out-of-order"},
           {"stations", "8"},
           {"bus_width_bits", "128"},
           {"bus_clock_mhz", "100"},
           {"bus_setup_cycles", "2"},
       }},
      {"inorder",
       "Maestro2's switch box with in-order switching: 8 ports, 8 stations (prefetch only)",
       {
           {"ports", "8"},
           {"mode", "in-order"},
           {"stations", "8"},
           {"bus_width_bits", "128"},
           {"bus_clock_mhz", "100"},
           {"bus_setup_cycles", "2"},
       }},
      {"ooo1",
       "Maestro2's switch box, out-of-order with 1 reservation station",
       {{"ports", "8"},
        {"mode", "out-of-order"},
        {"stations", "1"},
        {"bus_width_bits", "128"},
        {"bus_clock_mhz", "100"},
        {"bus_setup_cycles", "2"}}},
      {"ooo2",
       "Maestro2's switch box, out-of-order with 2 reservation stations",
       {{"ports", "8"},
        {"mode", "out-of-order"},
        {"stations", "2"},
        {"bus_width_bits", "128"},
        {"bus_clock_mhz", "100"},
        {"bus_setup_cycles", "2"}}},
      {"ooo4",
       "Maestro2's switch box, out-of-order with 4 reservation stations",
       {{"ports", "8"},
        {"mode", "out-of-order"},
        {"stations", "4"},
        {"bus_width_bits", "128"},
        {"bus_clock_mhz", "100"},
        {"bus_setup_cycles", "2"}}},
      {"ooo8",
       "Maestro2's switch box, out-of-order with 8 reservation stations (as maestro2)",
       {{"ports", "8"},
        {"mode", "out-of-order"},
        {"stations", "8"},
        {"bus_width_bits", "128"},
        {"bus_clock_mhz", "100"},
        {"bus_setup_cycles", "2"}}},
      {"maestro1",
       "the first Maestro's switch box: 4 ports, in-order switch (spec); 1 station, 32-bit bus at "
       "50 MHz (assumption: 200 MB/s, ample for its IEEE 1394 links)",
       {
           {"ports", "4"},
           {"mode", "in-order"},
           {"stations", "1"},
           {"bus_width_bits", "32"},
           {"bus_clock_mhz", "50"},
           {"bus_setup_cycles", "2"},
       }},
  };
  return table;
}

}  // namespace m2
