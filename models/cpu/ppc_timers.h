// The 603e's timebase and decrementer, independent of any ISS: both count
// ticks since reset (simulated time x timebase_hz, which the core supplies).
// The timebase reads the ticks plus what TBL/TBU writes added; the
// decrementer is a counter of its own (a timebase write leaves it alone): it
// counts down from the value last written (0xFFFFFFFF at reset) and its
// exception becomes pending each time it passes from 0 to -1, every 2^32
// ticks after the first.
#pragma once

#include <cstdint>

namespace m2::ppc {

class Timers {
 public:
  static constexpr uint64_t kDecPeriod = 1ull << 32;

  void reset(uint64_t ticks) {
    m_tb_offset = 0;
    m_dec_base = ticks;
    m_dec_base_value = 0xFFFFFFFFu;
    m_dec_next = ticks + kDecPeriod;
    m_pending = false;
  }

  uint64_t timebase(uint64_t ticks) const { return ticks + m_tb_offset; }
  void write_tbl(uint64_t ticks, uint32_t v) {
    const uint64_t tb = timebase(ticks);
    m_tb_offset += (tb & ~0xFFFFFFFFull) + v - tb;
  }
  void write_tbu(uint64_t ticks, uint32_t v) {
    const uint64_t tb = timebase(ticks);
    m_tb_offset += (uint64_t(v) << 32 | (tb & 0xFFFFFFFFull)) - tb;
  }

  uint32_t decrementer(uint64_t ticks) const { return static_cast<uint32_t>(m_dec_base_value - (ticks - m_dec_base)); }
  void write_decrementer(uint64_t ticks, uint32_t v) {
    m_dec_base = ticks;
    m_dec_base_value = v;
    m_dec_next = ticks + uint64_t(v) + 1;  // when it passes from 0 to -1
    m_pending = false;
  }

  // Marks the exception pending if DEC passed 0 -> -1 by `ticks`.
  void update(uint64_t ticks) {
    if (ticks < m_dec_next) return;
    m_pending = true;
    // The next pass after `ticks`, one period after the last (computed: a
    // far jump of time must not loop).
    m_dec_next += ((ticks - m_dec_next) / kDecPeriod + 1) * kDecPeriod;
  }
  bool pending() const { return m_pending; }
  void take() { m_pending = false; }  // the exception is entered
  // The tick at which the exception becomes pending next (meaningless while
  // one is pending).
  uint64_t next_exception_tick() const { return m_dec_next; }

 private:
  uint64_t m_tb_offset = 0;                          // what TBL/TBU writes added to the ticks
  uint64_t m_dec_base = 0, m_dec_next = kDecPeriod;  // in ticks: last DEC write, next pass 0 -> -1
  uint32_t m_dec_base_value = 0xFFFFFFFFu;
  bool m_pending = false;
};

}  // namespace m2::ppc
