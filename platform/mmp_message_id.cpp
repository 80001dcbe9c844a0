#include "platform/mmp_message_id.h"

#include <ip/mlx.h>
#include <ip/mmp_protocol.h>

#include "core/bytes.h"

namespace m2 {

MessageId mmp_message_id(const uint8_t* data, size_t n) {
  if (!data || n < MMP_WIRE_HEADER_BYTES) return 0;
  const uint8_t* mmp = data + MLX_HEADER_BYTES;
  const uint32_t kind = load_be32(mmp + MMP_HDR_KIND);
  if ((kind >> 16) != MMP_WIRE_MAGIC || ((kind >> 8) & 0xFFu) != MMP_KIND_DATA) return 0;
  if (MLX_HDR_LEN(load_be32(data + 4)) < MMP_HDR_BYTES) return 0;
  return make_message_id(MLX_HDR_SRC(load_be32(data)), load_be32(mmp + MMP_HDR_SEQ));
}

}  // namespace m2
