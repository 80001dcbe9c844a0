// Exception entry of the 603e adapter (ppc603e_unicorn_core.h).
//
// Why: Unicorn reports exceptions to a hook with the PC already advanced and
// does not vector them, and it exposes no SPR registers. External,
// decrementer and system-call exceptions are therefore entered here, as the
// 603e does: SRR0/SRR1 written by a two-instruction stub run from a private
// page, MSR cleared to ME and IP, the PC set to the vector. The other
// exceptions are faults (ppc603e_unicorn_hooks.cpp).
#include <cstddef>

#include "cpu/ppc_decode.h"
#include "cpu/unicorn/ppc603e_unicorn_core.h"

namespace m2::iss {

namespace {

uint32_t enc_mtspr(unsigned spr, unsigned rs) {
  return (31u << 26) | (rs << 21) | ((spr & 31) << 16) | ((spr >> 5) << 11) | (467u << 1);
}
uint32_t enc_mfspr(unsigned rd, unsigned spr) {
  return (31u << 26) | (rd << 21) | ((spr & 31) << 16) | ((spr >> 5) << 11) | (339u << 1);
}

}  // namespace

// The private page's stubs (after ensure_mapped() has mapped the page).
void UnicornPpc603e::write_stubs() {
  // Each stub ends on a reserved illegal opcode rather than an `until`
  // address: every change of `until` costs Unicorn 2.0.1 ~0.5 ms.
  const uint32_t stubs[] = {enc_mtspr(ppc::SPR_SRR0, 3), enc_mtspr(ppc::SPR_SRR1, 4), STUB_END, 0,
                            enc_mfspr(3, ppc::SPR_SRR0), enc_mfspr(4, ppc::SPR_SRR1), STUB_END, 0};
  uint8_t bytes[sizeof stubs];
  for (size_t i = 0; i < sizeof stubs / 4; ++i)
    for (int b = 0; b < 4; ++b) bytes[4 * i + b] = static_cast<uint8_t>(stubs[i] >> (24 - 8 * b));
  check(uc_mem_write(m_uc, m_cfg.private_page, bytes, sizeof bytes), "write private stubs");
}

// Runs a stub from the private page with r3/r4 as arguments/results,
// in supervisor mode, without counting its instructions.
void UnicornPpc603e::run_stub(uint32_t offset, uint32_t& r3, uint32_t& r4) {
  const uint32_t save3 = read_reg(UC_PPC_REG_3), save4 = read_reg(UC_PPC_REG_4), save_msr = msr();
  write_reg(UC_PPC_REG_3, r3);
  write_reg(UC_PPC_REG_4, r4);
  write_reg(UC_PPC_REG_MSR, save_msr & ~(MSR_PR | MSR_EE));
  m_in_stub = true;
  uc_emu_start(m_uc, m_cfg.private_page + offset, UNTIL_NEVER, 0, 0);
  m_in_stub = false;
  r3 = read_reg(UC_PPC_REG_3);
  r4 = read_reg(UC_PPC_REG_4);
  write_reg(UC_PPC_REG_3, save3);
  write_reg(UC_PPC_REG_4, save4);
  write_reg(UC_PPC_REG_MSR, save_msr);
}

void UnicornPpc603e::read_srr(uint32_t& srr0, uint32_t& srr1) {
  if (!m_mapped) return;
  srr0 = srr1 = 0;
  run_stub(STUB_GET_SRR, srr0, srr1);
}

// Exception entry as the 603e does it for external, decrementer and sc.
void UnicornPpc603e::enter_exception(uint32_t vector, uint64_t return_pc) {
  m_exception_return = return_pc;
  const uint32_t old = msr();
  uint32_t srr0 = static_cast<uint32_t>(return_pc), srr1 = old & 0xFFFF;
  run_stub(STUB_SET_SRR, srr0, srr1);
  write_reg(UC_PPC_REG_MSR, old & (MSR_ME | MSR_IP));
  m_pc = (old & MSR_IP ? 0xFFF00000u : 0u) | vector;
}

void UnicornPpc603e::take_async_interrupt() {
  if (m_ext_level) {
    enter_exception(PPC_VEC_EXTERNAL, m_pc);
  } else if (m_timers.pending()) {
    m_timers.take();
    enter_exception(PPC_VEC_DECREMENTER, m_pc);
  }
}

}  // namespace m2::iss
