#include "platform/mmp_message_id.h"

#include <ip/mlx.h>
#include <ip/mmp_protocol.h>

namespace m2 {

namespace {

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }

}  // namespace

MessageId mmp_message_id(const uint8_t* data, size_t n) {
  if (!data || n < MMP_WIRE_HEADER_BYTES) return 0;
  const uint8_t* mmp = data + MLX_HEADER_BYTES;
  const uint32_t kind = be32(mmp + MMP_HDR_KIND);
  if ((kind >> 16) != MMP_WIRE_MAGIC || ((kind >> 8) & 0xFFu) != MMP_KIND_DATA) return 0;
  if (MLX_HDR_LEN(be32(data + 4)) < MMP_HDR_BYTES) return 0;
  return make_message_id(MLX_HDR_SRC(be32(data)), be32(mmp + MMP_HDR_SEQ));
}

}  // namespace m2
