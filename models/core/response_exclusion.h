// The response phase of the TLM-2.0 base protocol as an interconnect with
// several master ports plays it (the PCI bus, the switching bus): one
// response in its phase per port at a time (response exclusion, IEEE
// 1666-2011 15.2), the others queued in order; BEGIN_RESP on the port's
// backward path; the phase over when the master answers TLM_COMPLETED or
// TLM_UPDATED with END_RESP, or later sends END_RESP. A queued response goes
// when the one before it has ended, at that END_RESP's annotated time.
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>

namespace m2 {

class ResponseExclusion {
 public:
  // Sends BEGIN_RESP on `port`'s backward path and returns the master's answer.
  using Send = std::function<tlm::tlm_sync_enum(unsigned port, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                                sc_core::sc_time& delay)>;
  // The response phase of `t` is over: the interconnect lets it go.
  using Done = std::function<void(tlm::tlm_generic_payload& t)>;
  // A master broke the protocol: `what` the master sent or answered, and
  // `how` it was wrong (the interconnect names the master between them);
  // must not return.
  using Error = std::function<void(unsigned port, const std::string& what, const std::string& how)>;

  // Built during elaboration (it owns a payload event queue).
  ResponseExclusion(Send send, Done done, Error error);

  // `t`'s response is due now, on `port`.
  void respond(unsigned port, tlm::tlm_generic_payload& t);
  // The master's END_RESP for `t` on the forward path.
  void end_response(unsigned port, tlm::tlm_generic_payload& t, const sc_core::sc_time& delay);

 private:
  void begin(unsigned port, tlm::tlm_generic_payload& t);
  void ended(unsigned port, const sc_core::sc_time& delay);
  void due(tlm::tlm_generic_payload& t, const tlm::tlm_phase& phase);  // m_peq's callback
  void grow(unsigned port);

  Send m_send;
  Done m_done;
  Error m_error;
  std::vector<tlm::tlm_generic_payload*> m_in_response;  // per port; reserved for a queued one on its way
  std::vector<std::deque<tlm::tlm_generic_payload*>> m_queue;
  std::map<const tlm::tlm_generic_payload*, unsigned> m_due_port;
  tlm_utils::peq_with_cb_and_phase<ResponseExclusion> m_peq;
};

}  // namespace m2
