// libFuzzer target: the MLX receive-side decoding (models/ni/mlx_packets) on
// bytes as they come off a link: 32-byte packets whose message headers carry
// lengths the receiver trusts to drop the sender's padding. Any bytes must
// decode without reading past a packet, and the look-ahead (payload_bytes)
// must agree with packet-by-packet decoding.
#include <cstdint>
#include <cstring>
#include <vector>

#include <ip/mlx.h>

#include "ni/mlx_packets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const size_t n = size / MLX_PACKET_BYTES;
  if (n == 0) return 0;
  // A heap copy of exactly n packets: ASan sees any read beyond them.
  std::vector<uint8_t> packets(data, data + n * MLX_PACKET_BYTES);
  m2::MlxDepacketizer rx;
  const size_t ahead = rx.payload_bytes(packets.data(), static_cast<unsigned>(n));
  size_t taken = 0;
  for (size_t i = 0; i < n; ++i) {
    const unsigned t = rx.take(packets.data() + i * MLX_PACKET_BYTES);
    if (t > MLX_PACKET_BYTES) __builtin_trap();
    taken += t;
  }
  if (taken != ahead) __builtin_trap();
  // The sender's side on the same bytes as a channel's stream: what it cuts
  // must decode back to exactly the bytes it took.
  m2::MlxPacketizer tx;
  size_t bytes = 0;
  const unsigned ready = tx.ready(packets.data(), packets.size(), 64, &bytes);
  if (ready > 0) {
    std::vector<uint8_t> out(size_t(ready) * MLX_PACKET_BYTES);
    const size_t cut = tx.cut(packets.data(), ready, out.data());
    if (cut != bytes) __builtin_trap();
    m2::MlxDepacketizer back;
    size_t got = 0;
    std::vector<uint8_t> stream;
    for (unsigned i = 0; i < ready; ++i) {
      const unsigned t = back.take(out.data() + size_t(i) * MLX_PACKET_BYTES);
      stream.insert(stream.end(), out.begin() + long(i) * MLX_PACKET_BYTES,
                    out.begin() + long(i) * MLX_PACKET_BYTES + t);
      got += t;
    }
    if (got != cut || std::memcmp(stream.data(), packets.data(), got) != 0) __builtin_trap();
  }
  return 0;
}
