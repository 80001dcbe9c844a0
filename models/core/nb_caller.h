// An AT initiator for a module whose own logic is sequential (a bridge's
// write thread, a CPU read, a DMA side): transport() runs one transaction
// through the base protocol's four phases on nb_transport_fw and returns once
// the response has arrived, in the calling SC_THREAD.
//  - BEGIN_REQ carries the caller's delay as its annotation; the target's
//    payload event queue, not the caller, turns it into SystemC time.
//  - Request exclusion: the callers sharing one socket send their BEGIN_REQs
//    one at a time, each after the previous one's END_REQ (or its response,
//    which implies it).
//  - The response is taken at once: BEGIN_RESP is answered TLM_COMPLETED.
//  - A payload without a memory manager gets this one for the call (IEEE
//    1666-2011 14.5: a payload passed through nb_transport has one), held
//    by a reference until the response; transport() returns once every
//    component has released it, and gives the payload back without one.
// The owning module registers nb_transport_bw() on its socket (a one-line
// forwarder: simple_initiator_socket wants a member of the owner).
#pragma once

#include <map>
#include <string>

#include <systemc>
#include <tlm>

namespace m2 {

class NbCaller : private tlm::tlm_mm_interface {
 public:
  explicit NbCaller(std::string owner) : m_owner(std::move(owner)) {}

  // From an SC_THREAD. `delay` is the caller's local time offset; it returns
  // zero (the caller's time is SystemC time afterwards).
  void transport(tlm::tlm_fw_transport_if<>& target, tlm::tlm_generic_payload& t, sc_core::sc_time& delay);

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_core::sc_time& delay);

 private:
  struct InFlight {
    bool request_ended = false;
    bool responded = false;
    sc_core::sc_time response_at;
    sc_core::sc_event event;
  };
  void end_request(InFlight& f, const sc_core::sc_time& at);
  void free(tlm::tlm_generic_payload* t) override;  // the last reference went
  [[noreturn]] void protocol_error(const std::string& what) const;

  std::string m_owner;
  std::map<tlm::tlm_generic_payload*, InFlight*> m_in_flight;
  bool m_request_open = false;  // a BEGIN_REQ awaits its END_REQ
  sc_core::sc_time m_request_free_at;
  sc_core::sc_event m_request_free;
  sc_core::sc_event m_payload_freed;
};

}  // namespace m2
