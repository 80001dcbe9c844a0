// Cutting a channel's byte stream into MLX packets and back (ip/mlx.h).
// In a network-buffer channel messages follow each other without gaps; on
// the link each message starts on a packet boundary and its last packet is
// padded. Both ends read the length from each message's 8-byte header, so
// the receiver drops exactly the padding the sender added.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <ip/mlx.h>

namespace m2 {

// The header words of a message (big-endian in the stream).
struct MlxHeader {
  uint32_t word0 = 0, word1 = 0;
  uint64_t total_bytes() const { return MLX_HEADER_BYTES + MLX_HDR_LEN(word1); }
  static MlxHeader read(const uint8_t* p);
};

// Sender side. A packet is ready when its 32 bytes are in the channel, or
// when it is a message's last (partial) packet and the whole rest of that
// message is in the channel.
class MlxPacketizer {
 public:
  // Packets (at most `max`) ready in the `avail` bytes at `data` (the
  // channel's oldest bytes); `bytes` gets the bytes they take.
  unsigned ready(const uint8_t* data, size_t avail, unsigned max, size_t* bytes = nullptr) const;
  // Cuts n ready packets from `data` into `out` (n x 32 bytes, padding
  // zero) and returns the bytes taken; the header of each message that
  // starts is appended to `starts`, the index of its first packet in `out`
  // to `start_packets`, when given.
  size_t cut(const uint8_t* data, unsigned n, uint8_t* out, std::vector<MlxHeader>* starts = nullptr,
             std::vector<unsigned>* start_packets = nullptr);
  // Bytes of the current message not cut yet (0: the next byte starts a message).
  uint64_t message_left() const { return m_left; }

 private:
  uint64_t m_left = 0;
};

// Receiver side: how many bytes of each packet belong to the stream.
class MlxDepacketizer {
 public:
  // Bytes of `packet` to deliver (from its start); the rest is padding.
  unsigned take(const uint8_t* packet);
  // What take() would return for n packets in a row, without changing state.
  size_t payload_bytes(const uint8_t* packets, unsigned n) const;
  uint64_t message_left() const { return m_left; }

 private:
  uint64_t m_left = 0;
};

}  // namespace m2
