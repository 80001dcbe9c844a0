// Variants of the MLX protocol engine (models/ni/mlx_engine): MLC-X in the
// NI, the MLX module of each switch-box port. "spec" is
// shared/spec/maestro2.md (Link layer); everything else is an assumption,
// easy to change here or per run ("ni0.mlcx.burst_packets: 32").
//
// The variants differ in the network burst only; the frame format and the
// FPGA timing are the same assumed values for both (docs/models/mlx-engine.md).
//
// Calibration (docs/experiments.md, NI-level ping-pong): these values were
// checked against the published curve and left as they are. Its slope up to
// 2 KB is two store-and-forward hops of whole frames at 2.5 ns/B, and its
// 2.4 Gbit/s peak the wait, after each channel-sized frame, for the
// receiving NI to free its RX channel and send credit; neither needed a
// change here. (The data-frame latencies include the netbuf's packet access,
// 30 ns with the calibrated 128-bit port.)
#pragma once

#include <vector>

#include "core/ip_variant.h"

namespace m2 {

inline const std::vector<IpVariant>& mlcx_variants() {
  static const std::vector<IpVariant> table = [] {
    const std::vector<IpVariantValue> common = {
        // Assumption: two 32-bit words (kind, channel, sequence number, first
        // burst length, an ack and a credit field per channel, header check),
        // i.e. two clocks of a 32-bit, 100 MHz LVDS path.
        {"header_bytes", "8"},
        {"checksum_bytes", "4"},  // assumption: CRC-32 over the packets, one word
        {"continue_bytes", "4"},  // assumption: one word: command and next burst length
        // Assumption: a 4-bit burst length field: 16 packets (512 B) per
        // header or continue command.
        {"burst_packets", "16"},
        // Assumption: a 2 KB retransmission buffer per channel (one netbuf channel).
        {"max_frame_packets", "64"},
        {"clock_mhz", "100"},  // assumption: Virtex-II logic at the netbuf's 100 MHz
        {"tx_cycles", "4"},    // assumption: choose the frame, build the header, start the serializer
        {"rx_cycles", "4"},    // assumption: compare the checksum, take acks and credits
        // Assumption: longer than the longest frame a peer may send at
        // 400 Mbit/s (64 packets: 41 us) plus arbitration and latencies, so
        // that an ack is never late on either link variant.
        {"ack_timeout_ns", "100000"},
        // Assumption: a credit update once 8 packets (256 B, one DMA burst)
        // were freed.
        {"credit_update_packets", "8"},
    };
    auto with = [&](std::vector<IpVariantValue> v) {
      v.insert(v.end(), common.begin(), common.end());
      return v;
    };
    return std::vector<IpVariant>{
        {"maestro2", "Maestro2's MLC-X: continuous network burst, continue commands keep the link (spec)",
         with({{"continuous", "true"}})},  // spec: new in Maestro2
        {"plain",
         "network burst only: a frame is one burst and waits for its acknowledge "
         "(the first Maestro; Maestro2 with continuation off) (spec)",
         with({{"continuous", "false"}})},  // spec: can be switched off for comparison
    };
  }();
  return table;
}

}  // namespace m2
