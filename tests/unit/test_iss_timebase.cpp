// The 603e core's timebase and decrementer under firmware that writes the
// timebase (mttbl/mttbu): the timebase reads what was written and counts on,
// the decrementer is a separate counter that the write leaves alone, and a
// timebase near 2^64 is no reason to stop (it once looped forever there).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "iss_bare_core.h"

namespace {

constexpr uint64_t kTbHz = 25'000'000;  // iss_bare_core.h's core
constexpr uint64_t kSecond = 1'000'000'000'000ull;
constexpr uint64_t kCode = 0x1000;

uint32_t mfspr(unsigned rd, unsigned spr) { return 0x7C0002A6u | rd << 21 | (spr & 31) << 16 | (spr >> 5) << 11; }
uint32_t mtspr(unsigned spr, unsigned rs) { return 0x7C0003A6u | rs << 21 | (spr & 31) << 16 | (spr >> 5) << 11; }
uint32_t mftb(unsigned rd, unsigned tbr) { return 0x7C0002E6u | rd << 21 | (tbr & 31) << 16 | (tbr >> 5) << 11; }
uint32_t li(unsigned rd, int16_t v) { return 0x38000000u | rd << 21 | static_cast<uint16_t>(v); }
constexpr unsigned DEC = 22, TBL_W = 284, TBU_W = 285, TBL_R = 268, TBU_R = 269;

// A bare core (no firmware image) running `code` at kCode, one instruction
// per step, at simulated time `ps`.
struct TimerCore {
  m2test::BareEnv env;
  std::unique_ptr<m2::iss::Core> core;
  explicit TimerCore(const std::vector<uint32_t>& code, uint64_t ps) {
    core = m2::iss::make_core("ppc603e", env, {"test.cpu", kTbHz, NI_ISS_PRIVATE_BASE});
    std::vector<uint32_t> all = code;
    all.push_back(0x48000000u);  // b .
    for (size_t i = 0; i < all.size(); ++i)
      for (unsigned b = 0; b < 4; ++b) env.ram[kCode + 4 * i + b] = uint8_t(all[i] >> (24 - 8 * b));
    core->code_changed(kCode, 4 * all.size());
    core->reset(kCode);
    env.ps = ps;
  }
  void steps(unsigned n) {
    for (unsigned i = 0; i < n; ++i) REQUIRE(core->single_step() == m2::iss::StopReason::Budget);
  }
  uint32_t r(unsigned i) { return static_cast<uint32_t>(core->read_register(i)); }
};

}  // namespace

TEST_CASE("iss timebase: writing the timebase leaves the decrementer and its exception time alone", "[model][iss]") {
  // At 1 s: DEC has counted 25,000,000 ticks down from 0xFFFFFFFF.
  TimerCore c(
      {mfspr(4, DEC), li(3, 0), mtspr(TBL_W, 3), mtspr(TBU_W, 3), mfspr(5, DEC), mftb(6, TBL_R), mftb(7, TBU_R)},
      kSecond);
  const auto exception_at = c.core->next_timer_event_ps();
  REQUIRE(exception_at);
  c.steps(7);
  CHECK(c.r(4) == 0xFFFFFFFFu - 25'000'000u);
  CHECK(c.r(5) == c.r(4));  // same simulated time: the same DEC
  CHECK(c.r(6) == 0u);      // the timebase reads what was written
  CHECK(c.r(7) == 0u);
  CHECK(c.core->next_timer_event_ps() == exception_at);
  // DEC reaches -1 2^32 ticks after reset: 171.798... s at 25 MHz.
  CHECK(*exception_at == (uint64_t(1) << 32) * (kSecond / kTbHz));
}

TEST_CASE("iss timebase: the timebase counts on from a written value", "[model][iss]") {
  TimerCore c({li(3, 1000), mtspr(TBL_W, 3), li(3, 0), mtspr(TBU_W, 3), mftb(6, TBL_R)}, kSecond);
  c.steps(4);
  c.env.ps = kSecond + kSecond / 1000;  // 1 ms later: 25,000 ticks
  c.steps(1);
  CHECK(c.r(6) == 1000u + 25'000u);
}

TEST_CASE("iss timebase: a timebase written near 2^64 neither hangs nor moves the decrementer", "[model][iss]") {
  TimerCore c({li(3, -1), mtspr(TBU_W, 3), mtspr(TBL_W, 3), mfspr(5, DEC), mftb(6, TBL_R), mftb(7, TBU_R)}, kSecond);
  const auto exception_at = c.core->next_timer_event_ps();
  c.steps(6);  // used to loop forever in the decrementer's update at the first of them
  CHECK(c.r(5) == 0xFFFFFFFFu - 25'000'000u);
  CHECK(c.r(6) == 0xFFFFFFFFu);
  CHECK(c.r(7) == 0xFFFFFFFFu);
  CHECK(c.core->next_timer_event_ps() == exception_at);
}

TEST_CASE("iss timebase: the decrementer's exception is due once after several periods, then one period on",
          "[model][iss]") {
  // mtdec 0: -1 after one tick, then every 2^32 ticks. 3.5 periods later
  // one exception is pending and the next is due in the following period.
  TimerCore c({li(3, 0), mtspr(DEC, 3), mfspr(5, DEC)}, kSecond);
  c.steps(2);
  const uint64_t period_ps = (uint64_t(1) << 32) * (kSecond / kTbHz);
  REQUIRE(c.core->next_timer_event_ps() == kSecond + kSecond / kTbHz);  // one tick after the write
  c.env.ps = kSecond + 3 * period_ps + period_ps / 2;
  CHECK_FALSE(c.core->interrupt_deliverable());  // MSR[EE] is off: pending, not taken
  CHECK_FALSE(c.core->next_timer_event_ps());    // pending: no next time until it is taken
  c.steps(1);
  CHECK(c.r(5) == 0x80000000u);  // 3.5 x 2^32 ticks below 0
}
