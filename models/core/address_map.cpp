#include "core/address_map.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "core/params.h"

namespace m2 {

unsigned AddressMap::add(uint64_t base, uint64_t size, const std::string& name) {
  for (const Range& r : m_ranges) {
    if (base < r.base + r.size && r.base < base + size) {
      char msg[256];
      std::snprintf(msg, sizeof msg, "%s: '%s' at 0x%08" PRIx64 "+0x%" PRIx64 " overlaps '%s' at 0x%08" PRIx64 "+0x%" PRIx64,
                    m_owner.c_str(), name.c_str(), base, size, r.name.c_str(), r.base, r.size);
      throw ConfigError(msg);
    }
  }
  const unsigned port = static_cast<unsigned>(m_ranges.size());
  m_ranges.push_back({base, size, name, port});
  return port;
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
  t.set_address(addr - r.base);
  out.b_transport(t, delay);
  t.set_address(addr);
}

bool AddressMap::get_direct_mem_ptr(tlm::tlm_fw_transport_if<>& out, const Range& r, tlm::tlm_generic_payload& t,
                                    tlm::tlm_dmi& dmi) {
  const uint64_t addr = t.get_address();
  t.set_address(addr - r.base);
  const bool ok = out.get_direct_mem_ptr(t, dmi);
  t.set_address(addr);
  // Translate back to bus addresses and clip to the mapped window.
  const uint64_t start = dmi.get_start_address() + r.base, end = dmi.get_end_address() + r.base;
  dmi.set_start_address(std::max(start, r.base));
  dmi.set_end_address(std::min(end, r.base + r.size - 1));
  if (start < r.base) dmi.set_dmi_ptr(dmi.get_dmi_ptr() + (r.base - start));
  return ok;
}

unsigned AddressMap::transport_dbg(tlm::tlm_fw_transport_if<>& out, const Range& r, tlm::tlm_generic_payload& t) {
  const uint64_t addr = t.get_address();
  const unsigned len = t.get_data_length();
  const uint64_t room = r.size - (addr - r.base);
  t.set_address(addr - r.base);
  if (len > room) t.set_data_length(static_cast<unsigned>(room));
  const unsigned n = out.transport_dbg(t);
  t.set_address(addr);
  t.set_data_length(len);
  return n;
}

std::vector<std::pair<uint64_t, uint64_t>> AddressMap::invalidation(unsigned port, uint64_t start,
                                                                     uint64_t end) const {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const Range& r : m_ranges) {
    if (r.port != port || start >= r.size) continue;
    // Targets often invalidate [0, ~0]: clip before adding the base.
    out.emplace_back(r.base + start, r.base + std::min<uint64_t>(end, r.size - 1));
  }
  return out;
}

}  // namespace m2
