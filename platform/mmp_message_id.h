// How a chunk's wire header names its MMP message (ip/mmp_protocol.h): the
// MLX header's source node and the MMP header's SEQ, the number the sender's
// library gave the message. The message ledger's identifier on platforms
// running MMP (docs/models/message-breakdown.md).
#pragma once

#include <cstddef>
#include <cstdint>

#include "trace/message_tag.h"

namespace m2 {

// The message whose chunk starts with the n bytes at `data`; 0 when they
// are not a whole MMP wire header (another protocol, a short message).
MessageId mmp_message_id(const uint8_t* data, size_t n);

}  // namespace m2
