// The switching bus in AT: the TLM-2.0 base protocol (IEEE 1666-2011, 15.2).
//
//   BEGIN_REQ  master -> bus   the master asks for the bus; it enters the
//                              arbitration at its annotated time (at once
//                              when that is now, else through a payload
//                              event queue) and is answered TLM_ACCEPTED.
//   END_REQ    bus -> master   the grant: at once when the bus was idle and
//                              nobody asked, else when the previous transfer
//                              ends (round-robin by master port).
//   BEGIN_RESP bus -> master   setup + ceil(n / width) clocks after the grant:
//                              the transfer is over, the data may be written.
//   END_RESP   master -> bus   (or TLM_COMPLETED / TLM_UPDATED on BEGIN_RESP)
//                              the master took the response; the port's next
//                              response may go.
// A master that calls b_transport goes through the same sequence, waiting
// inside the call. One SC_THREAD (sequencer) runs the bus: one transfer holds
// it at a time, so its tenures are a sequence.
//
// The timing is that of the blocking model this replaces, delta cycles
// included: a request that finds the bus idle has it in the same delta, the
// grant to a waiting master comes in the delta its predecessor's transfer
// ends, and BEGIN_RESP reaches the master in that delta too.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "switchbox/switching_bus.h"

#include "core/tlm_phase_name.h"

namespace m2 {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

void SwitchingBus::protocol_error(const std::string& what) const {
  throw std::logic_error(std::string(name()) + ": base protocol violated: " + what);
}

bool SwitchingBus::request_open(unsigned port) const {
  for (const auto& [t, x] : m_at)
    if (x->port == port && !x->blocking && !x->granted) return true;
  return false;
}

SwitchingBus::AtTransfer* SwitchingBus::admit(unsigned port, tlm::tlm_generic_payload& t, bool blocking) {
  if (m_at.count(&t))
    protocol_error("a transaction of master " + stats(port).name +
                   " sent again while in flight on the bus: a transaction object is not reused before its "
                   "response (IEEE 1666-2011, 14.5)");
  if (!blocking && request_open(port))
    protocol_error("BEGIN_REQ from master " + stats(port).name +
                   " while its previous request awaits END_REQ: one request phase per socket at a time "
                   "(IEEE 1666-2011, 15.2.6)");
  auto x = std::make_unique<AtTransfer>();
  x->t = &t;
  x->port = port;
  x->blocking = blocking;
  if (t.has_mm()) t.acquire();  // the bus holds it until its response is taken
  AtTransfer* raw = x.get();
  m_at[&t] = std::move(x);
  return raw;
}

void SwitchingBus::b_transport_at(unsigned port, tlm::tlm_generic_payload& t, sc_time& delay) {
  // The caller's local time becomes SystemC time.
  if (delay != SC_ZERO_TIME) sc_core::wait(delay);
  delay = SC_ZERO_TIME;
  if (refuse(t)) return;
  AtTransfer* x = admit(port, t, true);
  request_bus(x);
  sc_core::wait(x->done);
  finish(x);
}

tlm::tlm_sync_enum SwitchingBus::nb_transport_fw_at(unsigned port, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                                    sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) {
    if (refuse(t)) return tlm::TLM_COMPLETED;  // answered at once, status set
    AtTransfer* x = admit(port, t, false);
    // A request annotated with no delay asks now: through the queue it would
    // ask a delta later, behind a transfer ending now.
    if (delay == SC_ZERO_TIME) request_bus(x);
    else m_peq.notify(t, phase, delay);
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::END_RESP) {
    if (!m_at.count(&t))
      protocol_error("END_RESP from master " + stats(port).name + " for a transaction not on the bus");
    m_responses.end_response(port, t, delay);
    return tlm::TLM_COMPLETED;
  }
  protocol_error(std::string(phase_name(phase)) + " from master " + stats(port).name +
                 " on the forward path: a master sends BEGIN_REQ and END_RESP only");
}

// m_peq: a late request reaches the bus.
void SwitchingBus::peq_arrived(tlm::tlm_generic_payload& t, const tlm::tlm_phase&) { request_bus(m_at.at(&t).get()); }

void SwitchingBus::request_bus(AtTransfer* x) {
  x->asked = sc_core::sc_time_stamp();
  x->seq = m_next_seq++;
  if (!m_owner && m_requests.empty()) {
    // Idle and nobody asking: the bus is this master's at once.
    m_owner = x;
    m_request_event.notify();
    return;
  }
  m_requests.push_back(x);
}

SwitchingBus::AtTransfer* SwitchingBus::next_owner(unsigned after) {
  // Round-robin: the next port after the last owner's, cyclically; one
  // port's own requests in order of asking. The last owner comes last.
  const uint64_t n = std::max<size_t>(m_stats.size(), 1);
  auto rank = [&](const AtTransfer* x) { return std::make_pair((x->port + n - after - 1) % n, x->seq); };
  auto next = std::min_element(m_requests.begin(), m_requests.end(),
                               [&](const AtTransfer* a, const AtTransfer* b) { return rank(a) < rank(b); });
  AtTransfer* x = *next;
  m_requests.erase(next);
  return x;
}

void SwitchingBus::sequencer() {
  for (;;) {
    while (!m_owner) sc_core::wait(m_request_event);
    AtTransfer* x = m_owner;
    const sc_time start = sc_core::sc_time_stamp();
    stats(x->port).waiting += start - x->asked;
    x->granted = true;
    if (!x->blocking) {
      tlm::tlm_phase phase = tlm::END_REQ;
      sc_time d = SC_ZERO_TIME;
      if (target[x->port]->nb_transport_bw(*x->t, phase, d) != tlm::TLM_ACCEPTED)
        protocol_error("master " + stats(x->port).name + " did not answer END_REQ with TLM_ACCEPTED");
    }
    const uint64_t bytes = x->t->get_data_length();
    const sc_time time = transfer_time(bytes);
    if (m_busy_log.enabled()) m_busy_log.add(start, start + time);
    sc_core::wait(time);
    count(x->port, bytes, time);
    // The hand-over comes before the response: the bus stays owned, so that
    // no newcomer (the master just answered among them) slips in.
    m_owner = m_requests.empty() ? nullptr : next_owner(x->port);
    respond(x);
  }
}

void SwitchingBus::respond(AtTransfer* x) {
  x->t->set_response_status(tlm::TLM_OK_RESPONSE);
  if (x->blocking) x->done.notify();         // the caller resumes in this delta
  else m_responses.respond(x->port, *x->t);  // BEGIN_RESP now, or after the port's current response
}

void SwitchingBus::finish(AtTransfer* x) {
  tlm::tlm_generic_payload* t = x->t;
  m_at.erase(t);  // x is gone from here on
  if (t->has_mm()) t->release();
}

}  // namespace m2
