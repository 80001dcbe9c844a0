// The PCI bus in AT: the TLM-2.0 base protocol (IEEE 1666-2011, 15.2).
//
// Master side (target socket, one port per master):
//   BEGIN_REQ  master -> bus   the master asserts REQ#; it enters the
//                              arbitration at its annotated time (a payload
//                              event queue) and is answered TLM_ACCEPTED.
//   END_REQ    bus -> master   the grant: the master owns the bus (after the
//                              arbitration clocks when the bus was idle; at
//                              the previous owner's release when it waited).
//   BEGIN_RESP bus -> master   the last data phase of the last burst is over.
//   END_RESP   master -> bus   (or TLM_COMPLETED on BEGIN_RESP) the master took
//                              the response; the port's next response may go.
// A master that calls b_transport goes through the same sequence, waiting
// inside the call.
// Target side (initiator socket), on the first burst of a transaction:
//   BEGIN_REQ  bus -> target   annotated with the time the target is to act
//                              (a read at once, a write when its data phases
//                              are through: PciBus::target_time).
//   END_REQ / BEGIN_RESP       the target's response time beyond that is its
//                              initial latency: wait states, the bus is held.
//                              The bus takes the response at once (returns
//                              TLM_COMPLETED), or sends END_RESP when the
//                              target answered TLM_UPDATED with BEGIN_RESP.
// Between bursts the owner releases the bus and asks again behind the
// waiting masters (round-robin by port), so a long transfer lets others in
// at every latency-timer boundary.
// One SC_THREAD (sequencer) runs the bus: the bus is one resource, so its
// tenures are a sequence. A target may answer b_transport only: the
// standard's sockets (tlm_utils::simple_target_socket) convert.
#include <algorithm>
#include <string>

#include "pci/pci_bus.h"

#include "core/tlm_phase_name.h"

namespace m2 {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

void PciBus::protocol_error(const std::string& what) const {
  throw std::logic_error(std::string(name()) + ": base protocol violated: " + what);
}

PciBus::AtTransaction* PciBus::admit(unsigned port, tlm::tlm_generic_payload& t, bool blocking) {
  // First: while it is in flight its address is the target's, not the master's.
  if (m_at.count(&t))
    protocol_error("BEGIN_REQ of a transaction that is still in flight on the bus (master " + stats(port).name +
                   "): a transaction object is not reused before its response (IEEE 1666-2011, 14.5)");
  const AddressMap::Range* r = m_map.decode_access(t.get_address(), t.get_data_length());
  if (!r) {
    // A master abort: no target claims the address.
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return nullptr;
  }
  if (t.get_command() == tlm::TLM_IGNORE_COMMAND) {  // no PCI cycle
    sc_time none = SC_ZERO_TIME;
    AddressMap::b_transport(*initiator[r->port], *r, t, none);
    return nullptr;
  }
  const Plan p = plan(t.is_read(), t.get_address(), t.get_data_length());
  MasterStats& s = stats(port);
  s.transactions++;
  s.bytes += t.get_data_length();
  s.bursts += p.bursts;
  auto x = std::make_unique<AtTransaction>();
  x->t = &t;
  x->port = port;
  x->range = r;
  x->phases_left = p.data_phases;
  x->blocking = blocking;
  x->seq = m_next_seq++;        // kept across its bursts: one port's transactions stay in order
  if (t.has_mm()) t.acquire();  // the bus holds it until its response is taken
  AtTransaction* raw = x.get();
  m_at[&t] = std::move(x);
  return raw;
}

void PciBus::b_transport_at(unsigned port, tlm::tlm_generic_payload& t, sc_time& delay) {
  // The caller's local time becomes SystemC time.
  if (delay != SC_ZERO_TIME) sc_core::wait(delay);
  delay = SC_ZERO_TIME;
  AtTransaction* x = admit(port, t, true);
  if (!x) return;
  request_bus(x);
  sc_core::wait(x->done);
  finish(x);
}

tlm::tlm_sync_enum PciBus::nb_transport_fw(int id, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_time& delay) {
  const unsigned port = static_cast<unsigned>(id);
  if (phase == tlm::BEGIN_REQ) {
    if (m_request_open.size() <= port) m_request_open.resize(port + 1, nullptr);
    if (m_request_open[port] && !m_at.count(&t))  // (a payload sent again: admit() names that)
      protocol_error("request exclusion: BEGIN_REQ from master " + stats(port).name +
                     " while its previous request has had no END_REQ (IEEE 1666-2011, 15.2.6)");
    AtTransaction* x = admit(port, t, false);
    if (!x) return tlm::TLM_COMPLETED;  // answered at once, status set
    m_request_open[port] = x;
    m_request_peq.notify(t, phase, delay);
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

// m_request_peq: a master's request reaches the bus.
void PciBus::request_arrived(tlm::tlm_generic_payload& t, const tlm::tlm_phase&) { request_bus(m_at.at(&t).get()); }

void PciBus::request_bus(AtTransaction* x) {
  // A master that finds the bus busy arbitrates during the owner's burst.
  x->waited = m_owned || !m_requests.empty();
  x->asked = sc_core::sc_time_stamp();
  m_requests.push_back(x);
  m_request_event.notify();
}

PciBus::AtTransaction* PciBus::next_owner(unsigned after) {
  // A request that found the bus idle and nobody asking has it at once
  // (it can only be the first in line).
  if (!m_requests.front()->waited) {
    AtTransaction* x = m_requests.front();
    m_requests.pop_front();
    return x;
  }
  // Round-robin: the next port after the last owner's, cyclically; one
  // port's own requests in order of asking. The last owner comes last.
  const uint64_t n = std::max<uint64_t>(target.size(), 1);
  auto rank = [&](const AtTransaction* x) { return std::make_pair((x->port + n - after - 1) % n, x->seq); };
  auto next = std::min_element(m_requests.begin(), m_requests.end(),
                               [&](const AtTransaction* a, const AtTransaction* b) { return rank(a) < rank(b); });
  AtTransaction* x = *next;
  m_requests.erase(next);
  return x;
}

void PciBus::sequencer() {
  for (;;) {
    while (m_requests.empty()) sc_core::wait(m_request_event);
    AtTransaction* x = next_owner(m_last_owner);
    m_owned = true;
    const sc_time start = sc_core::sc_time_stamp();
    stats(x->port).waiting += start - x->asked;
    const sc_time arbitration = x->waited ? SC_ZERO_TIME : clocks(arbitration_clocks.get());
    const bool read = x->t->is_read();
    const uint64_t phases = std::min(x->phases_left, max_burst_phases(read));
    x->phases_left -= phases;
    sc_time hold = clocks(burst_overhead(read) + phases);
    // Booked now, before any wait: a sampler reads the log as time passes.
    if (m_busy_log.enabled()) m_busy_log.add(start, start + arbitration + hold);
    if (arbitration != SC_ZERO_TIME) sc_core::wait(arbitration);
    const bool first = x->bursts_done == 0;
    if (first && !x->blocking) {
      m_request_open[x->port] = nullptr;  // the port may send its next request
      tlm::tlm_phase phase = tlm::END_REQ;
      sc_time d = SC_ZERO_TIME;
      if (target[x->port]->nb_transport_bw(*x->t, phase, d) != tlm::TLM_ACCEPTED)
        protocol_error("master " + stats(x->port).name + " did not answer END_REQ with TLM_ACCEPTED");
    }
    // The data moves when the master first owns the bus; a target that takes
    // longer than that holds the bus meanwhile (wait states).
    if (first) {
      const sc_time waits = call_target(*x, target_time(*x->t, hold));
      if (m_busy_log.enabled()) m_busy_log.add(start + arbitration + hold, start + arbitration + hold + waits);
      hold += waits;
    }
    x->bursts_done++;
    const sc_time end = start + arbitration + hold;
    if (end > sc_core::sc_time_stamp()) sc_core::wait(end - sc_core::sc_time_stamp());
    stats(x->port).busy += arbitration + hold;
    m_busy += arbitration + hold;
    m_owned = false;
    m_last_owner = x->port;
    // A target abort ends the transfer after its first burst.
    if (x->phases_left > 0 && x->t->is_response_ok()) request_bus(x);
    else respond(x);
  }
}

sc_time PciBus::call_target(AtTransaction& x, const sc_time& at_target) {
  tlm::tlm_generic_payload& t = *x.t;
  const AddressMap::Range& r = *x.range;
  const uint64_t address = t.get_address();
  t.set_address(address - r.base + r.offset);
  m_at_target = &t;
  m_target_responded = false;
  const sc_time called = sc_core::sc_time_stamp();
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_time d = at_target;
  switch (initiator[r.port]->nb_transport_fw(t, phase, d)) {
    case tlm::TLM_COMPLETED:  // early completion: the response is at the annotated time
      m_target_responded = true;
      m_target_response_at = called + d;
      break;
    case tlm::TLM_UPDATED:
      if (phase == tlm::BEGIN_RESP) {
        m_target_responded = true;
        m_target_response_at = called + d;
        tlm::tlm_phase end = tlm::END_RESP;
        sc_time end_at = d;
        initiator[r.port]->nb_transport_fw(t, end, end_at);
      } else if (phase != tlm::END_REQ) {
        protocol_error(std::string("target ") + r.name + " answered BEGIN_REQ with TLM_UPDATED and " +
                       phase_name(phase) + " (END_REQ or BEGIN_RESP expected)");
      }
      break;
    case tlm::TLM_ACCEPTED:
      break;
  }
  while (!m_target_responded) sc_core::wait(m_target_event);
  m_at_target = nullptr;
  t.set_address(address);
  const sc_time acted = called + at_target;
  return m_target_response_at > acted ? m_target_response_at - acted : SC_ZERO_TIME;
}

tlm::tlm_sync_enum PciBus::nb_transport_bw(int, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_time& delay) {
  if (&t != m_at_target)
    protocol_error(std::string(phase_name(phase)) + " from a target for a transaction the bus has not sent it");
  if (phase == tlm::END_REQ) return tlm::TLM_ACCEPTED;
  if (phase != tlm::BEGIN_RESP)
    protocol_error(std::string(phase_name(phase)) +
                   " from a target on the backward path: END_REQ or BEGIN_RESP expected");
  m_target_responded = true;
  m_target_response_at = sc_core::sc_time_stamp() + delay;
  m_target_event.notify();
  return tlm::TLM_COMPLETED;  // the bus takes the response at once
}

void PciBus::respond(AtTransaction* x) {
  if (x->blocking) x->done.notify();
  else m_responses.respond(x->port, *x->t);  // BEGIN_RESP now, or after the port's current response
}

void PciBus::finish(AtTransaction* x) {
  tlm::tlm_generic_payload* t = x->t;
  m_at.erase(t);  // x is gone from here on
  if (t->has_mm()) t->release();
}

}  // namespace m2
