#include "core/address_map.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "core/params.h"

namespace m2 {

void AddressMap::check_free(uint64_t base, uint64_t size, const std::string& name) const {
  for (const Range& r : m_ranges) {
    if (base < r.base + r.size && r.base < base + size) {
      char msg[256];
      std::snprintf(msg, sizeof msg,
                    "%s: '%s' at 0x%08" PRIx64 "+0x%" PRIx64 " overlaps '%s' at 0x%08" PRIx64 "+0x%" PRIx64,
                    m_owner.c_str(), name.c_str(), base, size, r.name.c_str(), r.base, r.size);
      throw ConfigError(msg);
    }
  }
}

unsigned AddressMap::add(uint64_t base, uint64_t size, const std::string& name) {
  check_free(base, size, name);
  const unsigned port = m_ports++;
  m_ranges.push_back({base, size, name, port});
  return port;
}

void AddressMap::add_view(uint64_t base, uint64_t size, const std::string& name, uint64_t target_base, bool dmi) {
  const Range* t = decode(target_base);
  if (!t || size > t->size - (target_base - t->base)) {
    char msg[256];
    std::snprintf(msg, sizeof msg, "%s: view '%s' of 0x%08" PRIx64 "+0x%" PRIx64 ": no single range holds it",
                  m_owner.c_str(), name.c_str(), target_base, size);
    throw ConfigError(msg);
  }
  const Range target = *t;
  check_free(base, size, name);
  m_ranges.push_back({base, size, name, target.port, target.offset + (target_base - target.base), dmi});
}

const AddressMap::Range* AddressMap::decode(uint64_t addr) const {
  for (const Range& r : m_ranges)
    if (addr >= r.base && addr - r.base < r.size) return &r;
  return nullptr;
}

const AddressMap::Range* AddressMap::decode_access(uint64_t addr, uint64_t len) const {
  const Range* r = decode(addr);
  if (!r || len > r->size - (addr - r->base)) return nullptr;
  return r;
}

void AddressMap::b_transport(tlm::tlm_fw_transport_if<>& out, const Range& r, tlm::tlm_generic_payload& t,
                             sc_core::sc_time& delay) {
  const uint64_t addr = t.get_address();
  t.set_address(addr - r.base + r.offset);
  out.b_transport(t, delay);
  t.set_address(addr);
}

bool AddressMap::get_direct_mem_ptr(tlm::tlm_fw_transport_if<>& out, const Range& r, tlm::tlm_generic_payload& t,
                                    tlm::tlm_dmi& dmi) {
  if (!r.dmi) return false;
  const uint64_t addr = t.get_address();
  t.set_address(addr - r.base + r.offset);
  const bool ok = out.get_direct_mem_ptr(t, dmi);
  t.set_address(addr);
  // Clip the granted local range to the window, then translate to bus addresses.
  const uint64_t ls = dmi.get_start_address(), le = dmi.get_end_address();
  const uint64_t cs = std::max(ls, r.offset), ce = std::min<uint64_t>(le, r.offset + r.size - 1);
  if (cs > ce) return false;
  dmi.set_dmi_ptr(dmi.get_dmi_ptr() + (cs - ls));
  dmi.set_start_address(r.base + (cs - r.offset));
  dmi.set_end_address(r.base + (ce - r.offset));
  return ok;
}

unsigned AddressMap::transport_dbg(tlm::tlm_fw_transport_if<>& out, const Range& r, tlm::tlm_generic_payload& t) {
  const uint64_t addr = t.get_address();
  const unsigned len = t.get_data_length();
  const uint64_t room = r.size - (addr - r.base);
  t.set_address(addr - r.base + r.offset);
  if (len > room) t.set_data_length(static_cast<unsigned>(room));
  const unsigned n = out.transport_dbg(t);
  t.set_address(addr);
  t.set_data_length(len);
  return n;
}

std::vector<std::pair<uint64_t, uint64_t>> AddressMap::invalidation(unsigned port, uint64_t start, uint64_t end) const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const Range& r : m_ranges) {
    if (r.port != port || !r.dmi || end < r.offset || start - std::min(start, r.offset) >= r.size) continue;
    // Targets often invalidate [0, ~0]: clip to the window before adding the base.
    const uint64_t lo = std::max(start, r.offset) - r.offset, hi = std::min<uint64_t>(end - r.offset, r.size - 1);
    out.emplace_back(r.base + lo, r.base + hi);
  }
  return out;
}

}  // namespace m2
