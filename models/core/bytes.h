// Byte-order and number-formatting helpers shared by the models: the
// PowerPC, the firmware's registers and the wire formats are big-endian,
// and messages print addresses and values in hexadecimal.
#pragma once

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <string>

namespace m2 {

// The 32-bit big-endian value at p[0..3].
inline uint32_t load_be32(const uint8_t* p) {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}

// Stores v big-endian at p[0..3].
inline void store_be32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24);
  p[1] = uint8_t(v >> 16);
  p[2] = uint8_t(v >> 8);
  p[3] = uint8_t(v);
}

// "0x" and v in lower-case hexadecimal, padded with zeros to at least
// `digits` digits (hex(0x1f) "0x1f", hex(0x1f, 8) "0x0000001f").
inline std::string hex(uint64_t v, int digits = 0) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%0*" PRIx64, digits, v);
  return b;
}

}  // namespace m2
