#include "core/register_bank.h"

#include "core/read_hint.h"

#include <cstdio>
#include <stdexcept>

#include "core/bytes.h"
#include "core/log.h"

namespace m2 {

void RegisterBank::insert(uint32_t offset, const std::string& name, ReadFn read, CheckedWriteFn write) {
  auto [it, added] = m_regs.try_emplace(offset, Reg{name, std::move(read), std::move(write), std::nullopt});
  if (!added)
    throw std::logic_error(m_owner + ": registers " + it->second.name + " and " + name + " both at offset " +
                           hex(offset));
}

void RegisterBank::add(uint32_t offset, const std::string& name, ReadFn read, WriteFn write) {
  CheckedWriteFn checked;
  if (write)
    checked = [w = std::move(write)](uint32_t v) {
      w(v);
      return tlm::TLM_OK_RESPONSE;
    };
  insert(offset, name, std::move(read), std::move(checked));
}

void RegisterBank::add_checked(uint32_t offset, const std::string& name, ReadFn read, CheckedWriteFn write) {
  insert(offset, name, std::move(read), std::move(write));
}

void RegisterBank::set_reset_value(uint32_t offset, uint32_t value) {
  auto it = m_regs.find(offset);
  if (it == m_regs.end() || !it->second.write)
    throw std::logic_error(m_owner + ": reset value for offset " + hex(offset) + ", where no writable register is");
  it->second.reset = value;
}

void RegisterBank::reset() {
  for (auto& [offset, reg] : m_regs)
    if (reg.reset) reg.write(*reg.reset);
}

void RegisterBank::access(tlm::tlm_generic_payload& t) {
  const uint64_t off = t.get_address();
  auto fail = [&](const char* why) {
    char msg[200];
    std::snprintf(msg, sizeof msg, "%u-byte %s at offset 0x%llx: %s", t.get_data_length(),
                  t.is_read() ? "read" : "write", static_cast<unsigned long long>(off), why);
    m_last_error = m_owner + ": " + msg;
    m_log.warning(msg);
    t.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
  };
  if (t.get_command() == tlm::TLM_IGNORE_COMMAND) {
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  if (t.get_data_length() != 4 || (off & 3)) return fail("registers take aligned 32-bit accesses only");
  auto it = m_regs.find(static_cast<uint32_t>(off));
  if (it == m_regs.end()) return fail("no register at this offset");
  uint8_t* d = t.get_data_ptr();
  // Bit position of data byte i within the 32-bit value.
  auto shift = [this](unsigned i) { return m_order == ByteOrder::Big ? 24 - 8 * i : 8 * i; };
  if (t.is_read()) {
    if (!it->second.read) return fail(("register " + it->second.name + " is write-only").c_str());
    const uint32_t v = it->second.read();
    for (unsigned i = 0; i < 4; ++i) d[i] = uint8_t(v >> shift(i));
    mark_side_effect_free(t);  // getters only look at state
  } else {
    if (!it->second.write) return fail(("register " + it->second.name + " is read-only").c_str());
    uint32_t v = 0;
    for (unsigned i = 0; i < 4; ++i) v |= uint32_t(d[i]) << shift(i);
    // A refused write leaves its status; the callback said why.
    t.set_response_status(it->second.write(v));
    return;
  }
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

unsigned RegisterBank::debug_read(tlm::tlm_generic_payload& t) const {
  if (!t.is_read()) return 0;
  const uint64_t start = t.get_address();
  const unsigned len = t.get_data_length();
  uint8_t* d = t.get_data_ptr();
  unsigned done = 0;
  while (done < len) {
    const uint64_t at = start + done, word = at & ~3ull;
    auto it = word <= UINT32_MAX ? m_regs.find(static_cast<uint32_t>(word)) : m_regs.end();
    if (it == m_regs.end()) break;
    // A write-only register reads 0 here, so that a debugger's dump of a
    // block goes on across it (its own accesses still refuse a read).
    const uint32_t v = it->second.read ? it->second.read() : 0;
    for (uint64_t b = at - word; b < 4 && done < len; ++b, ++done)
      d[done] = uint8_t(v >> (m_order == ByteOrder::Big ? 24 - 8 * b : 8 * b));
  }
  return done;
}

}  // namespace m2
