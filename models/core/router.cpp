#include "core/router.h"

#include <cinttypes>
#include <cstdio>

namespace m2 {

Router::Router(sc_core::sc_module_name name)
    : sc_module(name),
      target("target"),
      initiator("initiator"),
      latency_ns(this->name(), "latency_ns", 20.0, "ns",
                 "cost of one access crossing the bus (assumed: 60x bus, 2 cycles at 100 MHz)",
                 m2::Range<double>{0, 1e6}) {
  m_latency = sc_core::sc_time(latency_ns.get(), sc_core::SC_NS);
  target.register_b_transport(this, &Router::b_transport);
  target.register_get_direct_mem_ptr(this, &Router::get_direct_mem_ptr);
  target.register_transport_dbg(this, &Router::transport_dbg);
  initiator.register_invalidate_direct_mem_ptr(this, &Router::invalidate_direct_mem_ptr);
}

void Router::add_range(uint64_t base, uint64_t size, const std::string& name) {
  for (const Range& r : m_ranges) {
    if (base < r.base + r.size && r.base < base + size) {
      char msg[256];
      std::snprintf(msg, sizeof msg, "%s: '%s' at 0x%08" PRIx64 "+0x%" PRIx64 " overlaps '%s' at 0x%08" PRIx64 "+0x%" PRIx64,
                    this->name(), name.c_str(), base, size, r.name.c_str(), r.base, r.size);
      throw ConfigError(msg);
    }
  }
  m_ranges.push_back({base, size, name, static_cast<unsigned>(m_ranges.size())});
}

std::vector<iss::MemRegion> Router::memory_map() const {
  std::vector<iss::MemRegion> map;
  for (const Range& r : m_ranges) map.push_back({r.base, r.size, r.name});
  return map;
}

const Router::Range* Router::decode(uint64_t addr) const {
  for (const Range& r : m_ranges)
    if (addr >= r.base && addr - r.base < r.size) return &r;
  return nullptr;
}

void Router::b_transport(int, tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  const uint64_t addr = t.get_address();
  const Range* r = decode(addr);
  if (!r || t.get_data_length() > r->size - (addr - r->base)) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  delay += m_latency;
  t.set_address(addr - r->base);
  initiator[r->port]->b_transport(t, delay);
  t.set_address(addr);
}

bool Router::get_direct_mem_ptr(int, tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
  const uint64_t addr = t.get_address();
  const Range* r = decode(addr);
  if (!r) return false;
  t.set_address(addr - r->base);
  const bool ok = initiator[r->port]->get_direct_mem_ptr(t, dmi);
  t.set_address(addr);
  // Translate back to this bus's addresses and clip to the mapped window.
  const uint64_t start = dmi.get_start_address() + r->base, end = dmi.get_end_address() + r->base;
  dmi.set_start_address(std::max(start, r->base));
  dmi.set_end_address(std::min(end, r->base + r->size - 1));
  if (start < r->base) dmi.set_dmi_ptr(dmi.get_dmi_ptr() + (r->base - start));
  dmi.set_read_latency(dmi.get_read_latency() + m_latency);
  dmi.set_write_latency(dmi.get_write_latency() + m_latency);
  return ok;
}

unsigned int Router::transport_dbg(int, tlm::tlm_generic_payload& t) {
  const uint64_t addr = t.get_address();
  const Range* r = decode(addr);
  if (!r) return 0;
  const unsigned len = t.get_data_length();
  t.set_address(addr - r->base);
  if (len > r->size - (addr - r->base)) t.set_data_length(static_cast<unsigned>(r->size - (addr - r->base)));
  const unsigned n = initiator[r->port]->transport_dbg(t);
  t.set_address(addr);
  t.set_data_length(len);
  return n;
}

void Router::invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end) {
  for (const Range& r : m_ranges) {
    if (r.port != static_cast<unsigned>(port)) continue;
    if (start >= r.size) continue;
    // Targets often invalidate [0, ~0]: clip before adding the base.
    const uint64_t s = r.base + start, e = r.base + std::min<uint64_t>(end, r.size - 1);
    for (unsigned i = 0; i < target.size(); ++i) target[i]->invalidate_direct_mem_ptr(s, e);
  }
}

}  // namespace m2
