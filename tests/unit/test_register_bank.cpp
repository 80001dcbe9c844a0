// Unit tests for the memory-mapped register helper (models/core/register_bank.*):
// big-endian (or, for a little-endian bank, byte-swapped) 32-bit accesses
// reach the callbacks; every other access is a
// TLM_GENERIC_ERROR_RESPONSE whose last_error() names owner, offset and reason.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <tlm>

#include "core/params.h"
#include "core/register_bank.h"

using Catch::Matchers::Contains;

namespace {

struct Access {
  tlm::tlm_generic_payload t;
  uint8_t data[8] = {};
  Access(tlm::tlm_command cmd, uint64_t off, unsigned len = 4) {
    t.set_command(cmd);
    t.set_address(off);
    t.set_data_ptr(data);
    t.set_data_length(len);
    t.set_streaming_width(len);
    t.set_byte_enable_ptr(nullptr);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  }
};

struct Dev {
  m2::RegisterBank regs{"top.dev"};
  uint32_t ctrl = 0;
  std::vector<uint32_t> writes;
  int reads = 0;
  Dev() {
    regs.add(
        0x00, "CTRL",
        [this] {
          ++reads;
          return ctrl;
        },
        [this](uint32_t v) {
          ctrl = v;
          writes.push_back(v);
        });
    regs.add(
        0x04, "STATUS",
        [this] {
          ++reads;
          return 0xCAFEF00Du;
        },
        nullptr);
    regs.add(0x08, "TXDATA", nullptr, [this](uint32_t v) { writes.push_back(v); });
    regs.add(
        0x100, "FAR", [] { return 0x01020304u; }, nullptr);
  }
};

}  // namespace

TEST_CASE("register bank: writes are big-endian", "[model][register_bank]") {
  Dev d;
  Access a(tlm::TLM_WRITE_COMMAND, 0x00);
  a.data[0] = 0x12, a.data[1] = 0x34, a.data[2] = 0x56, a.data[3] = 0x78;
  d.regs.access(a.t);
  CHECK(a.t.get_response_status() == tlm::TLM_OK_RESPONSE);
  REQUIRE(d.writes.size() == 1);
  CHECK(d.writes[0] == 0x12345678u);
  CHECK(d.ctrl == 0x12345678u);

  Access b(tlm::TLM_WRITE_COMMAND, 0x08);
  b.data[0] = 0x80, b.data[1] = 0x00, b.data[2] = 0x00, b.data[3] = 0x41;
  d.regs.access(b.t);
  CHECK(b.t.is_response_ok());
  REQUIRE(d.writes.size() == 2);
  CHECK(d.writes[1] == 0x80000041u);
}

TEST_CASE("register bank: reads are big-endian", "[model][register_bank]") {
  Dev d;
  d.ctrl = 0xA1B2C3D4;
  Access a(tlm::TLM_READ_COMMAND, 0x00);
  d.regs.access(a.t);
  CHECK(a.t.get_response_status() == tlm::TLM_OK_RESPONSE);
  CHECK(a.data[0] == 0xA1);
  CHECK(a.data[1] == 0xB2);
  CHECK(a.data[2] == 0xC3);
  CHECK(a.data[3] == 0xD4);

  Access s(tlm::TLM_READ_COMMAND, 0x04);
  d.regs.access(s.t);
  CHECK(s.t.is_response_ok());
  CHECK(s.data[0] == 0xCA);
  CHECK(s.data[3] == 0x0D);

  Access f(tlm::TLM_READ_COMMAND, 0x100);
  d.regs.access(f.t);
  CHECK(f.t.is_response_ok());
  CHECK(f.data[0] == 0x01);
  CHECK(f.data[3] == 0x04);
  CHECK(d.regs.last_error().empty());
}

TEST_CASE("register bank: read of a write-only register is an error naming it", "[model][register_bank]") {
  Dev d;
  Access a(tlm::TLM_READ_COMMAND, 0x08);
  a.data[0] = 0x77;
  d.regs.access(a.t);
  CHECK(a.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK(a.data[0] == 0x77);  // untouched
  const std::string e = d.regs.last_error();
  CHECK_THAT(
      e, Contains("top.dev") && Contains("0x8") && Contains("TXDATA") && Contains("write-only") && Contains("read"));
}

TEST_CASE("register bank: write of a read-only register is an error naming it", "[model][register_bank]") {
  Dev d;
  Access a(tlm::TLM_WRITE_COMMAND, 0x04);
  d.regs.access(a.t);
  CHECK(a.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK(d.reads == 0);
  CHECK(d.writes.empty());
  CHECK_THAT(d.regs.last_error(), Contains("top.dev") && Contains("0x4") && Contains("STATUS") &&
                                      Contains("read-only") && Contains("write"));
}

TEST_CASE("register bank: missing offset is an error", "[model][register_bank]") {
  Dev d;
  Access a(tlm::TLM_READ_COMMAND, 0x0C);
  d.regs.access(a.t);
  CHECK(a.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK_THAT(d.regs.last_error(), Contains("top.dev") && Contains("0xc") && Contains("no register"));
  Access w(tlm::TLM_WRITE_COMMAND, 0xFFC);
  d.regs.access(w.t);
  CHECK(w.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK_THAT(d.regs.last_error(), Contains("top.dev") && Contains("0xffc") && Contains("no register"));
  CHECK(d.writes.empty());
}

TEST_CASE("register bank: unaligned and non-32-bit accesses are errors", "[model][register_bank]") {
  Dev d;
  SECTION("unaligned 4-byte read") {
    Access a(tlm::TLM_READ_COMMAND, 0x02);
    d.regs.access(a.t);
    CHECK(a.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK_THAT(d.regs.last_error(), Contains("top.dev") && Contains("0x2") && Contains("aligned 32-bit"));
  }
  SECTION("unaligned 4-byte write") {
    Access a(tlm::TLM_WRITE_COMMAND, 0x01);
    d.regs.access(a.t);
    CHECK(a.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(d.writes.empty());
    CHECK_THAT(d.regs.last_error(), Contains("top.dev") && Contains("0x1") && Contains("aligned 32-bit"));
  }
  SECTION("1-byte write at a register offset") {
    Access a(tlm::TLM_WRITE_COMMAND, 0x08, 1);
    d.regs.access(a.t);
    CHECK(a.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(d.writes.empty());
    CHECK_THAT(d.regs.last_error(),
               Contains("top.dev") && Contains("1-byte write") && Contains("0x8") && Contains("aligned 32-bit"));
  }
  SECTION("1-byte read") {
    Access a(tlm::TLM_READ_COMMAND, 0x04, 1);
    d.regs.access(a.t);
    CHECK(a.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(d.reads == 0);
    CHECK_THAT(d.regs.last_error(), Contains("1-byte read") && Contains("0x4"));
  }
  SECTION("8-byte read") {
    Access a(tlm::TLM_READ_COMMAND, 0x00, 8);
    d.regs.access(a.t);
    CHECK(a.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(d.reads == 0);
    CHECK_THAT(d.regs.last_error(), Contains("8-byte read"));
  }
  SECTION("2-byte write") {
    Access a(tlm::TLM_WRITE_COMMAND, 0x00, 2);
    d.regs.access(a.t);
    CHECK(a.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
    CHECK(d.writes.empty());
  }
}

TEST_CASE("register bank: an error is followed by a clean access", "[model][register_bank]") {
  Dev d;
  Access bad(tlm::TLM_READ_COMMAND, 0x0C);
  d.regs.access(bad.t);
  REQUIRE(bad.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
  Access good(tlm::TLM_WRITE_COMMAND, 0x00);
  good.data[3] = 7;
  d.regs.access(good.t);
  CHECK(good.t.get_response_status() == tlm::TLM_OK_RESPONSE);
  CHECK(d.ctrl == 7);
}

TEST_CASE("register bank: TLM_IGNORE_COMMAND calls no callback", "[model][register_bank]") {
  Dev d;
  Access a(tlm::TLM_IGNORE_COMMAND, 0x00);
  a.data[3] = 0x55;
  d.regs.access(a.t);
  // TLM-2.0 (IEEE 1666 14.17): an ignore command neither reads nor writes.
  CHECK(d.writes.empty());
  CHECK(d.ctrl == 0);
  CHECK(d.reads == 0);
}

TEST_CASE("register bank: a little-endian bank swaps bytes both ways", "[model][register_bank]") {
  m2::RegisterBank regs{"top.le", m2::ByteOrder::Little};
  uint32_t value = 0xA1B2C3D4;
  regs.add(
      0x10, "DATA", [&] { return value; }, [&](uint32_t v) { value = v; });
  Access r(tlm::TLM_READ_COMMAND, 0x10);
  regs.access(r.t);
  CHECK(r.t.get_response_status() == tlm::TLM_OK_RESPONSE);
  CHECK(r.data[0] == 0xD4);
  CHECK(r.data[1] == 0xC3);
  CHECK(r.data[2] == 0xB2);
  CHECK(r.data[3] == 0xA1);

  Access w(tlm::TLM_WRITE_COMMAND, 0x10);
  w.data[0] = 0x78, w.data[1] = 0x56, w.data[2] = 0x34, w.data[3] = 0x12;
  regs.access(w.t);
  CHECK(w.t.get_response_status() == tlm::TLM_OK_RESPONSE);
  CHECK(value == 0x12345678u);

  // The same access rules as a big-endian bank.
  Access bad(tlm::TLM_READ_COMMAND, 0x12);
  regs.access(bad.t);
  CHECK(bad.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
  CHECK_THAT(regs.last_error(), Contains("top.le") && Contains("aligned 32-bit"));
}

TEST_CASE("register bank: a debugger reads registers by their getters, any length, up to a hole",
          "[model][register_bank]") {
  Dev d;
  d.ctrl = 0x11223344;
  // Eight bytes from the middle of CTRL: its last two bytes, STATUS, then
  // the write-only TXDATA, which reads 0 (so that a dump of a register block
  // goes on across it), without its write side being called.
  Access r(tlm::TLM_READ_COMMAND, 0x02, 8);
  CHECK(d.regs.debug_read(r.t) == 8);
  CHECK(r.data[0] == 0x33);
  CHECK(r.data[1] == 0x44);
  CHECK(r.data[2] == 0xCA);
  CHECK(r.data[5] == 0x0D);
  CHECK(r.data[6] == 0);
  CHECK(r.data[7] == 0);
  CHECK(d.reads == 2);
  CHECK(d.writes.empty());
  Access one(tlm::TLM_READ_COMMAND, 0x103, 1);
  CHECK(d.regs.debug_read(one.t) == 1);
  CHECK(one.data[0] == 0x04);
  Access hole(tlm::TLM_READ_COMMAND, 0x20, 4);
  CHECK(d.regs.debug_read(hole.t) == 0);
  // A debugger's write would act on the device: refused, nothing called.
  Access w(tlm::TLM_WRITE_COMMAND, 0x00, 4);
  w.data[3] = 7;
  CHECK(d.regs.debug_read(w.t) == 0);
  CHECK(d.ctrl == 0x11223344u);
  CHECK(d.writes.empty());
}

TEST_CASE("register bank: a checked write may refuse with a response status", "[model][register_bank]") {
  m2::ParamRegistry::instance().clear();
  m2::RegisterBank regs("top.dev");
  std::vector<uint32_t> taken;
  regs.add_checked(0x0C, "PUSH", nullptr, [&taken](uint32_t v) {
    if (v == 0) return tlm::TLM_GENERIC_ERROR_RESPONSE;  // the device cannot take it
    taken.push_back(v);
    return tlm::TLM_OK_RESPONSE;
  });
  Access ok(tlm::TLM_WRITE_COMMAND, 0x0C);
  ok.data[3] = 5;
  regs.access(ok.t);
  CHECK(ok.t.get_response_status() == tlm::TLM_OK_RESPONSE);
  Access refused(tlm::TLM_WRITE_COMMAND, 0x0C);
  regs.access(refused.t);
  CHECK(refused.t.get_response_status() == tlm::TLM_GENERIC_ERROR_RESPONSE);
  REQUIRE(taken.size() == 1);
  CHECK(taken[0] == 5u);
  // The refusal is the device's: the bank's own error text is untouched.
  CHECK(regs.last_error().empty());
}

TEST_CASE("register bank: two registers at one offset are refused, naming both", "[model][register_bank]") {
  m2::ParamRegistry::instance().clear();
  m2::RegisterBank regs("top.dev");
  regs.add(
      0x10, "CTRL", [] { return 0u; }, nullptr);
  CHECK_THROWS_WITH(regs.add(
                        0x10, "STATUS", [] { return 1u; }, nullptr),
                    Contains("top.dev") && Contains("CTRL") && Contains("STATUS") && Contains("0x10"));
  CHECK_THROWS_WITH(regs.add_checked(0x10, "PUSH", nullptr, [](uint32_t) { return tlm::TLM_OK_RESPONSE; }),
                    Contains("PUSH") && Contains("0x10"));
  // The first register is still there.
  Access r(tlm::TLM_READ_COMMAND, 0x10);
  r.data[3] = 0xFF;
  regs.access(r.t);
  CHECK(r.t.get_response_status() == tlm::TLM_OK_RESPONSE);
  CHECK(r.data[3] == 0);
}

TEST_CASE("register bank: reset() writes the declared reset values", "[model][register_bank]") {
  m2::ParamRegistry::instance().clear();
  Dev d;
  d.regs.set_reset_value(0x00, 0x80000001u);
  CHECK_THROWS_WITH(d.regs.set_reset_value(0x04, 1), Contains("top.dev") && Contains("0x4"));  // read-only
  CHECK_THROWS_WITH(d.regs.set_reset_value(0x40, 1), Contains("0x40"));                        // no register
  d.ctrl = 7;
  d.regs.reset();
  CHECK(d.ctrl == 0x80000001u);
  // Only CTRL declared one: TXDATA was not written.
  REQUIRE(d.writes.size() == 1);
  CHECK(d.writes[0] == 0x80000001u);
}
