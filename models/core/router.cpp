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
  target.register_nb_transport_fw(this, &Router::nb_transport_fw);
  initiator.register_nb_transport_bw(this, &Router::nb_transport_bw);
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

tlm::tlm_sync_enum Router::nb_transport_fw(int id, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                           sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) {
    const AddressMap::Range* r = m_map.decode_access(t.get_address(), t.get_data_length());
    if (!r) {
      t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return tlm::TLM_COMPLETED;  // early completion: nothing is there
    }
    m_routes[&t] = {static_cast<unsigned>(id), r->port, t.get_address()};
    t.set_address(t.get_address() - r->base + r->offset);
    delay += m_latency;
  }
  auto it = m_routes.find(&t);
  if (it == m_routes.end()) {
    // Reported, the payload left alone: its transaction may be over already.
    m_log.error("a forward call for a transaction the bus has not routed (no BEGIN_REQ)");
    return tlm::TLM_COMPLETED;
  }
  const tlm::tlm_sync_enum s = initiator[it->second.target_port]->nb_transport_fw(t, phase, delay);
  if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP)) t.set_address(it->second.address);
  if (s == tlm::TLM_COMPLETED) end_route(t);
  return s;
}

tlm::tlm_sync_enum Router::nb_transport_bw(int, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                           sc_core::sc_time& delay) {
  auto it = m_routes.find(&t);
  if (it == m_routes.end()) {
    m_log.error("a backward call for a transaction the bus has not routed");
    return tlm::TLM_COMPLETED;
  }
  if (phase == tlm::BEGIN_RESP) t.set_address(it->second.address);  // the initiator's own, with the response
  const unsigned port = it->second.initiator_port;
  const tlm::tlm_sync_enum s = target[port]->nb_transport_bw(t, phase, delay);
  if (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && phase == tlm::END_RESP)) end_route(t);
  return s;
}

void Router::end_route(tlm::tlm_generic_payload& t) {
  auto it = m_routes.find(&t);
  if (it == m_routes.end()) return;
  t.set_address(it->second.address);  // however it ended, the initiator's own address
  m_routes.erase(it);
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
