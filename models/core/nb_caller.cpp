#include "core/nb_caller.h"

#include <stdexcept>

namespace m2 {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

void NbCaller::protocol_error(const std::string& what) const {
  throw std::logic_error(m_owner + ": base protocol violated: " + what);
}

void NbCaller::end_request(InFlight& f, const sc_time& at) {
  if (f.request_ended) return;
  f.request_ended = true;
  m_request_open = false;
  m_request_free_at = at;
  m_request_free.notify(at - sc_core::sc_time_stamp());
}

void NbCaller::transport(tlm::tlm_fw_transport_if<>& target, tlm::tlm_generic_payload& t, sc_time& delay) {
  // Request exclusion: one request phase open on the socket at a time.
  while (m_request_open || sc_core::sc_time_stamp() < m_request_free_at) {
    if (m_request_open) sc_core::wait(m_request_free);
    else sc_core::wait(m_request_free_at - sc_core::sc_time_stamp());
  }
  if (m_in_flight.count(&t)) protocol_error("a transaction object sent again while in flight");
  const bool lent_mm = !t.has_mm();
  if (lent_mm) t.set_mm(this);
  if (t.has_mm()) t.acquire();
  InFlight f;
  m_in_flight[&t] = &f;
  m_request_open = true;
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  tlm::tlm_phase phase = tlm::BEGIN_REQ;
  sc_time d = delay;
  delay = SC_ZERO_TIME;
  switch (target.nb_transport_fw(t, phase, d)) {
    case tlm::TLM_COMPLETED:
      end_request(f, sc_core::sc_time_stamp() + d);
      f.responded = true;
      f.response_at = sc_core::sc_time_stamp() + d;
      break;
    case tlm::TLM_UPDATED:
      if (phase == tlm::END_REQ) {
        end_request(f, sc_core::sc_time_stamp() + d);
      } else if (phase == tlm::BEGIN_RESP) {
        end_request(f, sc_core::sc_time_stamp() + d);
        f.responded = true;
        f.response_at = sc_core::sc_time_stamp() + d;
        tlm::tlm_phase end = tlm::END_RESP;
        sc_time end_at = d;
        target.nb_transport_fw(t, end, end_at);
      } else {
        m_in_flight.erase(&t);
        protocol_error("BEGIN_REQ answered TLM_UPDATED with a phase other than END_REQ or BEGIN_RESP");
      }
      break;
    case tlm::TLM_ACCEPTED:
      break;
  }
  while (!f.responded) sc_core::wait(f.event);
  m_in_flight.erase(&t);
  if (f.response_at > sc_core::sc_time_stamp()) sc_core::wait(f.response_at - sc_core::sc_time_stamp());
  t.release();  // ours; with our manager, free() when it was the last
  if (lent_mm) {
    while (t.get_ref_count() > 0) sc_core::wait(m_payload_freed);
    t.set_mm(nullptr);
  }
}

void NbCaller::free(tlm::tlm_generic_payload*) {
  // The payload is the caller's: nothing to give back but the news.
  m_payload_freed.notify();
}

tlm::tlm_sync_enum NbCaller::nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_time& delay) {
  auto it = m_in_flight.find(&t);
  if (it == m_in_flight.end()) protocol_error("a backward call for a transaction not in flight");
  InFlight& f = *it->second;
  const sc_time at = sc_core::sc_time_stamp() + delay;
  if (phase == tlm::END_REQ) {
    end_request(f, at);
    return tlm::TLM_ACCEPTED;
  }
  if (phase == tlm::BEGIN_RESP) {
    end_request(f, at);  // BEGIN_RESP implies END_REQ
    f.responded = true;
    f.response_at = at;
    f.event.notify();
    return tlm::TLM_COMPLETED;  // response taken at once
  }
  protocol_error("a backward call with a phase other than END_REQ or BEGIN_RESP");
}

}  // namespace m2
