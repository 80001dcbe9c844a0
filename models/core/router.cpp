#include "core/router.h"

namespace m2 {

Router::Router(sc_core::sc_module_name name)
    : sc_module(name),
      target("target"),
      initiator("initiator"),
      latency_ns(this->name(), "latency_ns", 20.0, "ns",
                 "cost of one access crossing the bus (assumed: 60x bus, 2 cycles at 100 MHz)",
                 m2::Range<double>{0, 1e6}),
      m_map(this->name()) {
  m_latency = sc_core::sc_time(latency_ns.get(), sc_core::SC_NS);
  target.register_b_transport(this, &Router::b_transport);
  target.register_get_direct_mem_ptr(this, &Router::get_direct_mem_ptr);
  target.register_transport_dbg(this, &Router::transport_dbg);
  initiator.register_invalidate_direct_mem_ptr(this, &Router::invalidate_direct_mem_ptr);
}

std::vector<iss::MemRegion> Router::memory_map() const {
  std::vector<iss::MemRegion> map;
  for (const AddressMap::Range& r : m_map.ranges()) map.push_back({r.base, r.size, r.name});
  return map;
}

void Router::b_transport(int, tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  const AddressMap::Range* r = m_map.decode_access(t.get_address(), t.get_data_length());
  if (!r) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  delay += m_latency;
  AddressMap::b_transport(*initiator[r->port], *r, t, delay);
}

bool Router::get_direct_mem_ptr(int, tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
  const AddressMap::Range* r = m_map.decode(t.get_address());
  if (!r) return false;
  const bool ok = AddressMap::get_direct_mem_ptr(*initiator[r->port], *r, t, dmi);
  dmi.set_read_latency(dmi.get_read_latency() + m_latency);
  dmi.set_write_latency(dmi.get_write_latency() + m_latency);
  return ok;
}

unsigned int Router::transport_dbg(int, tlm::tlm_generic_payload& t) {
  const AddressMap::Range* r = m_map.decode(t.get_address());
  return r ? AddressMap::transport_dbg(*initiator[r->port], *r, t) : 0;
}

void Router::invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end) {
  for (const auto& [s, e] : m_map.invalidation(static_cast<unsigned>(port), start, end))
    for (unsigned i = 0; i < target.size(); ++i) target[i]->invalidate_direct_mem_ptr(s, e);
}

}  // namespace m2
