// What travels inside the switch box between its units: a message header as
// the analyzers extract it, and a switching request as the firmware writes it
// and the switch controller carries it out.
#pragma once

#include <cstdint>

#include <systemc>

#include <ip/mlx.h>

#include "trace/message_tag.h"

namespace m2 {

// A header buffer entry.
struct SbHeader {
  unsigned port = 0, channel = 0;
  uint32_t word0 = 0, word1 = 0;  // as in ip/mlx.h
  uint64_t position = 0;          // byte offset of the message in its RX channel's stream
  sc_core::sc_time seen;          // when it entered the header buffer
  MessageId msg = 0;              // the traced message it starts (tracing only)
  uint32_t bytes() const { return MLX_HEADER_BYTES + MLX_HDR_LEN(word1); }
};

// A switching request: move the next message of (port, channel) to the same
// channel of every port in dest_mask, or consume it (discard).
struct SbRequest {
  uint64_t id = 0;  // order of acceptance, from 1
  unsigned port = 0, channel = 0;
  uint32_t dest_mask = 0;
  uint32_t bytes = 0;  // message size on the channel: header + payload
  bool discard = false;
  uint32_t word0 = 0, word1 = 0;  // the message's header (diagnostics)
  MessageId msg = 0;              // the traced message (from its header; tracing only)
  // Progress, kept by the switch controller.
  uint32_t moved = 0;
  bool started = false;
  uint64_t stalls = 0;
  sc_core::sc_time accepted, fetched;
};

}  // namespace m2
