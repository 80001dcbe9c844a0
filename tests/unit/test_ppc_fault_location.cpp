// Fault location (models/cpu/ppc_fault_location.h): the instruction of a
// block that made a faulting data access, found from the address and the
// registers, and the exception vector a PC lies in.
#include <catch2/catch.hpp>

#include <map>

#include "cpu/ppc_fault_location.h"

namespace {

constexpr uint32_t lwz(unsigned rd, int16_t d, unsigned ra) { return 32u << 26 | rd << 21 | ra << 16 | uint16_t(d); }
constexpr uint32_t stw(unsigned rs, int16_t d, unsigned ra) { return 36u << 26 | rs << 21 | ra << 16 | uint16_t(d); }
constexpr uint32_t addi(unsigned rd, unsigned ra, int16_t v) { return 14u << 26 | rd << 21 | ra << 16 | uint16_t(v); }

struct Block {
  std::map<uint64_t, uint32_t> words;
  std::map<unsigned, uint32_t> gprs;
  m2::ppc::LocatedAccess find(bool store, uint64_t addr) const {
    return m2::ppc::locate_access(
        0x4000, 0x4000 + 4 * words.size(), store, addr, [this](uint64_t a) { return words.at(a); },
        [this](unsigned r) { return gprs.count(r) ? gprs.at(r) : 0u; });
  }
};

}  // namespace

TEST_CASE("fault location: the load or store whose effective address faulted", "[model][iss]") {
  Block b;
  b.words = {{0x4000, addi(3, 0, 1)}, {0x4004, lwz(5, 8, 4)}, {0x4008, stw(5, -4, 6)}, {0x400c, lwz(7, 0, 6)}};
  b.gprs = {{4, 0x1000}, {6, 0x2000}};

  const auto load = b.find(false, 0x1008);
  CHECK(load.matches == 1);
  CHECK(load.pc == 0x4004);
  CHECK(load.what == " by 'lwz' (insn 0x80a40008)");

  const auto store = b.find(true, 0x1ffc);
  CHECK(store.matches == 1);
  CHECK(store.pc == 0x4008);
  CHECK(store.what.find("'stw'") != std::string::npos);

  // A byte inside the word counts; a store is not a load.
  CHECK(b.find(false, 0x100a).pc == 0x4004);
  CHECK(b.find(true, 0x1008).matches == 0);

  // Nothing fits: the block's start, not exact, no description.
  const auto none = b.find(false, 0x9999000);
  CHECK(none.matches == 0);
  CHECK(none.pc == 0x4000);
  CHECK(none.what.empty());

  // Two loads of one address: the first, but not exact.
  b.gprs[6] = 0x1008;
  const auto two = b.find(false, 0x1008);
  CHECK(two.matches == 2);
  CHECK(two.pc == 0x4004);
}

TEST_CASE("fault location: a PC in an exception vector is named, elsewhere nothing", "[model][iss]") {
  CHECK(m2::ppc::describe_exception_vector(0x700) == " (in the program exception vector: is a handler installed?)");
  CHECK(m2::ppc::describe_exception_vector(0x904) == " (in the decrementer exception vector: is a handler installed?)");
  CHECK(m2::ppc::describe_exception_vector(0xFFF00300) == " (in the DSI exception vector: is a handler installed?)");
  CHECK(m2::ppc::describe_exception_vector(0x1000).empty());  // no vector there
  CHECK(m2::ppc::describe_exception_vector(0x3700).empty());  // .text, not a vector
}
