#include "ni/mlx_packets.h"

#include <algorithm>
#include <cstring>

#include "core/bytes.h"

namespace m2 {

MlxHeader MlxHeader::read(const uint8_t* p) { return {load_be32(p), load_be32(p + 4)}; }

unsigned MlxPacketizer::ready(const uint8_t* data, size_t avail, unsigned max, size_t* bytes) const {
  uint64_t left = m_left;
  size_t off = 0;
  unsigned n = 0;
  while (n < max) {
    if (left == 0) {
      if (avail - off < MLX_HEADER_BYTES) break;  // the next message's length is not known yet
      left = MlxHeader::read(data + off).total_bytes();
    }
    const uint64_t take = std::min<uint64_t>(left, MLX_PACKET_BYTES);
    if (avail - off < take) break;
    off += take;
    left -= take;
    ++n;
  }
  if (bytes) *bytes = off;
  return n;
}

size_t MlxPacketizer::cut(const uint8_t* data, unsigned n, uint8_t* out, std::vector<MlxHeader>* starts,
                          std::vector<unsigned>* start_packets) {
  size_t off = 0;
  for (unsigned i = 0; i < n; ++i) {
    if (m_left == 0) {
      const MlxHeader h = MlxHeader::read(data + off);
      m_left = h.total_bytes();
      if (starts) starts->push_back(h);
      if (start_packets) start_packets->push_back(i);
    }
    const size_t take = static_cast<size_t>(std::min<uint64_t>(m_left, MLX_PACKET_BYTES));
    uint8_t* p = out + size_t(i) * MLX_PACKET_BYTES;
    std::memcpy(p, data + off, take);
    std::memset(p + take, 0, MLX_PACKET_BYTES - take);
    off += take;
    m_left -= take;
  }
  return off;
}

unsigned MlxDepacketizer::take(const uint8_t* packet) {
  if (m_left == 0) m_left = MlxHeader::read(packet).total_bytes();
  const unsigned n = static_cast<unsigned>(std::min<uint64_t>(m_left, MLX_PACKET_BYTES));
  m_left -= n;
  return n;
}

size_t MlxDepacketizer::payload_bytes(const uint8_t* packets, unsigned n) const {
  MlxDepacketizer d = *this;
  size_t total = 0;
  for (unsigned i = 0; i < n; ++i) total += d.take(packets + size_t(i) * MLX_PACKET_BYTES);
  return total;
}

}  // namespace m2
