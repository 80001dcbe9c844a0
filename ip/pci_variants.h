// Variants of the host PCI bus (models/pci/pci_bus): the value of each
// parameter per variant, with where it comes from. "spec" is
// shared/spec/maestro2.md (Host side); "PCI 2.2" the PCI Local Bus
// Specification; everything else is an assumption, easy to change here or
// per run ("node0.pci.read_initial_clocks: 12").
//
// Clock counts of one transaction burst (docs/models/pci-bus.md):
//   arbitration + address + initial latency + data phases + turnaround.
#pragma once

#include <vector>

#include "core/ip_variant.h"

namespace m2 {

inline const std::vector<IpVariant>& pci_variants() {
  static const std::vector<IpVariant> table = {
      {"pci64-66",
       "Maestro2's host bus: 64-bit PCI at 66 MHz, 528 MB/s peak (spec)",
       {
           {"clock_mhz", "66"},   // spec: 66 MHz (528 MB/s = 8 B x 66 MHz)
           {"width_bits", "64"},  // spec: 64-bit
           // Assumption: bus idle and parked elsewhere: one clock REQ# to
           // GNT#, one clock for the master to see GNT# with the bus idle.
           {"arbitration_clocks", "2"},
           {"address_clocks", "1"},  // PCI 2.2: one address phase (32-bit addresses, no DAC)
           // Assumption: medium DEVSEL decode (2 clocks, covering the read
           // turnaround) plus ~120 ns for the target to fetch the first data
           // (FPGA PCI core / host bridge fetching from memory): 2 + 8
           // clocks. PCI 2.2 allows at most 16.
           {"read_initial_clocks", "10"},
           // Assumption: medium DEVSEL decode; the target takes the data into
           // a write FIFO without further wait states.
           {"write_initial_clocks", "2"},
           // Assumption: Linux 2.4's pcibios_set_master() sets 64 when the
           // BIOS left a master's latency timer below 16.
           {"latency_timer_clocks", "64"},
           {"turnaround_clocks", "1"},  // PCI 2.2: one idle clock between transactions
       }},
      {"pci32-33",
       "the first Maestro's host bus: 32-bit PCI at 33 MHz, 132 MB/s peak (spec)",
       {
           {"clock_mhz", "33"},          // spec: 33 MHz (132 MB/s = 4 B x 33 MHz)
           {"width_bits", "32"},         // spec: 32-bit
           {"arbitration_clocks", "2"},  // assumption, as pci64-66
           {"address_clocks", "1"},      // PCI 2.2
           // Assumption: the same ~120 ns fetch as pci64-66 is 4 clocks at
           // 33 MHz: 2 (medium decode) + 4.
           {"read_initial_clocks", "6"},
           {"write_initial_clocks", "2"},   // assumption, as pci64-66
           {"latency_timer_clocks", "64"},  // assumption, as pci64-66 (same Linux 2.4)
           {"turnaround_clocks", "1"},      // PCI 2.2
       }},
  };
  return table;
}

}  // namespace m2
