// An address-decoding interconnect (the NI's on-chip bus): initiators bind to
// `target`, targets are attached with their address range. It adds a fixed
// per-access latency, forwards DMI with address translation, and answers an
// address error where nothing is mapped.
// It answers both transport interfaces: b_transport, and nb_transport_fw
// forwarded with the same translation and latency (added to the BEGIN_REQ's
// annotation), its backward calls routed to the initiator that sent the
// transaction, the initiator's address restored with the response. It has no
// arbitration of its own: accesses of several masters do not wait for each
// other here (docs/models/router.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "core/address_map.h"
#include "core/module_log.h"
#include "core/params.h"
#include "cpu/iss.h"

namespace m2 {

class Router : public sc_core::sc_module {
 public:
  tlm_utils::multi_passthrough_target_socket<Router> target;
  tlm_utils::multi_passthrough_initiator_socket<Router> initiator;

  Param<double> latency_ns;

  explicit Router(sc_core::sc_module_name name);

  // Binds `socket` to the next initiator port and maps [base, base+size) to it.
  // Throws ConfigError when the range overlaps one already mapped.
  template <typename TargetSocket>
  void attach(TargetSocket& socket, uint64_t base, uint64_t size, const std::string& name) {
    m_map.add(base, size, name);
    initiator.bind(socket);
  }

  // Maps [base, base+size) as a second view of what is attached at
  // `target_base`; with dmi false every access through it is timed (a
  // cache-inhibited alias of a memory).
  void attach_view(uint64_t base, uint64_t size, const std::string& name, uint64_t target_base, bool dmi) {
    m_map.add_view(base, size, name, target_base, dmi);
  }

  // The address map, for initiators that map regions up front (the ISS).
  std::vector<iss::MemRegion> memory_map() const;

 private:
  void b_transport(int id, tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(int id, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  // An nb transaction on its way through: who sent it, where it went, and
  // the address to give back.
  struct Route {
    unsigned initiator_port, target_port;
    uint64_t address;
  };
  std::map<const tlm::tlm_generic_payload*, Route> m_routes;
  void end_route(tlm::tlm_generic_payload& t);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(int id, tlm::tlm_generic_payload& trans);
  void invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end);

  AddressMap m_map;
  ModuleLog m_log{this};
  sc_core::sc_time m_latency;
};

}  // namespace m2
