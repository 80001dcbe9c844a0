// Unit tests for the shared byte-order and hex helpers (models/core/bytes.h).
#include <catch2/catch.hpp>

#include <cstdint>

#include "core/bytes.h"

TEST_CASE("bytes: big-endian loads and stores", "[core][bytes]") {
  const uint8_t in[4] = {0x12, 0x34, 0x56, 0x78};
  CHECK(m2::load_be32(in) == 0x12345678u);
  uint8_t out[4] = {};
  m2::store_be32(out, 0xCAFEF00Du);
  CHECK(out[0] == 0xCA);
  CHECK(out[1] == 0xFE);
  CHECK(out[2] == 0xF0);
  CHECK(out[3] == 0x0D);
  CHECK(m2::load_be32(out) == 0xCAFEF00Du);
}

TEST_CASE("bytes: hex with and without zero padding", "[core][bytes]") {
  CHECK(m2::hex(0x1f) == "0x1f");
  CHECK(m2::hex(0) == "0x0");
  CHECK(m2::hex(0x1f, 8) == "0x0000001f");
  CHECK(m2::hex(0xfff00100u, 8) == "0xfff00100");
  CHECK(m2::hex(0x123456789ull, 8) == "0x123456789");
}
