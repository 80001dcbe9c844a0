// Variants of the link between two MLX engines (models/link/link): the
// value of each parameter per variant, with where it comes from. "spec" is
// shared/spec/maestro2.md; everything else is an assumption, easy to change
// here or per run ("link0.cable_m: 2").
//
// Calibration (docs/experiments.md): the lvds values were checked against the
// published NI-level ping-pong and left unchanged (its rate sets the 2.5 ns/B
// per store-and-forward hop that shapes the curve up to 2 KB).
//
// A frame costs (docs/models/link.md):
//   [arbitration_ns, half duplex] + wire bytes x 8 / gbit_per_s
// and reaches the other side serializer_ns + cable_m x ns_per_m after its
// last bit left.
#pragma once

#include <vector>

#include "core/ip_variant.h"

namespace m2 {

inline const std::vector<IpVariant>& link_variants() {
  static const std::vector<IpVariant> table = {
      {"lvds",
       "Maestro2: parallel LVDS cable, 3.2 Gbit/s per direction, full duplex (spec)",
       {
           {"gbit_per_s", "3.2"},  // spec: 3.2 Gbit/s per direction (6.4 both ways)
           {"duplex", "full"},     // spec: full duplex
           // Assumption: a channel-link style serializer and deserializer,
           // about one 100 MHz clock each: 20 ns from the sender's last word
           // to the receiver's output.
           {"serializer_ns", "20"},
           {"cable_m", "5"},         // assumption: NI to switch box in a rack
           {"ns_per_m", "5"},        // assumption: copper pairs, ~0.67 c
           {"arbitration_ns", "0"},  // full duplex: each direction is always owned
       }},
      {"ieee1394",
       "the first Maestro: IEEE 1394 PHY, 400 Mbit/s, half duplex, fair arbitration "
       "after every burst (spec)",
       {
           {"gbit_per_s", "0.4"},  // spec: IEEE 1394 (S400)
           {"duplex", "half"},     // spec: half duplex, pseudo full duplex by arbitration
           // Assumption: PHY repeat and data-prefix latency of a 1394a PHY
           // (~100-150 ns).
           {"serializer_ns", "150"},
           {"cable_m", "4.5"},  // IEEE 1394: longest standard cable
           {"ns_per_m", "5"},   // assumption, as lvds
           // Assumption: PHY arbitration, data prefix and data end of each
           // burst, about a short 1394 subaction gap.
           {"arbitration_ns", "1000"},
       }},
  };
  return table;
}

}  // namespace m2
