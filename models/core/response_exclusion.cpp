#include "core/response_exclusion.h"

#include <utility>

namespace m2 {

ResponseExclusion::ResponseExclusion(Send send, Done done, Error error)
    : m_send(std::move(send)),
      m_done(std::move(done)),
      m_error(std::move(error)),
      m_peq(this, &ResponseExclusion::due) {}

void ResponseExclusion::grow(unsigned port) {
  if (m_in_response.size() > port) return;
  m_in_response.resize(port + 1, nullptr);
  m_queue.resize(port + 1);
}

void ResponseExclusion::respond(unsigned port, tlm::tlm_generic_payload& t) {
  grow(port);
  if (m_in_response[port]) m_queue[port].push_back(&t);
  else begin(port, t);
}

void ResponseExclusion::begin(unsigned port, tlm::tlm_generic_payload& t) {
  m_in_response[port] = &t;
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  sc_core::sc_time d = sc_core::SC_ZERO_TIME;
  const tlm::tlm_sync_enum s = m_send(port, t, phase, d);
  if (s == tlm::TLM_ACCEPTED) return;  // END_RESP comes on the forward path
  if (s == tlm::TLM_UPDATED && phase != tlm::END_RESP)
    m_error(port, "TLM_UPDATED", "in answer to BEGIN_RESP with a phase other than END_RESP");
  m_in_response[port] = nullptr;
  m_done(t);
  ended(port, d);
}

void ResponseExclusion::end_response(unsigned port, tlm::tlm_generic_payload& t, const sc_core::sc_time& delay) {
  if (port >= m_in_response.size() || m_in_response[port] != &t || m_due_port.count(&t))
    m_error(port, "END_RESP", "for a transaction not in its response phase");
  m_in_response[port] = nullptr;
  m_done(t);
  ended(port, delay);
}

void ResponseExclusion::ended(unsigned port, const sc_core::sc_time& delay) {
  if (m_queue[port].empty()) return;
  tlm::tlm_generic_payload* next = m_queue[port].front();
  m_queue[port].pop_front();
  m_in_response[port] = next;  // reserved: a response due meanwhile queues behind it
  m_due_port[next] = port;
  tlm::tlm_phase resp = tlm::BEGIN_RESP;
  m_peq.notify(*next, resp, delay);  // once this response phase is over
}

void ResponseExclusion::due(tlm::tlm_generic_payload& t, const tlm::tlm_phase&) {
  auto it = m_due_port.find(&t);
  const unsigned port = it->second;
  m_due_port.erase(it);
  begin(port, t);
}

}  // namespace m2
