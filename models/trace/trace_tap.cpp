#include "trace/trace_tap.h"

#include "link/mlx_frame.h"

namespace m2 {

TraceTap::TraceTap(sc_core::sc_module_name name, const std::string& binding, TraceRecorder& recorder)
    : sc_module(name), in("in"), out("out"), m_recorder(recorder), m_binding(recorder.add_binding(binding)) {
  in.register_b_transport(this, &TraceTap::b_transport);
  in.register_get_direct_mem_ptr(this, &TraceTap::get_direct_mem_ptr);
  in.register_transport_dbg(this, &TraceTap::transport_dbg);
  out.register_invalidate_direct_mem_ptr(this, &TraceTap::invalidate);
  in.register_nb_transport_fw(this, &TraceTap::nb_transport_fw);
  out.register_nb_transport_bw(this, &TraceTap::nb_transport_bw);
}

void TraceTap::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  const uint64_t start = (sc_core::sc_time_stamp() + delay).value();
  const uint64_t address = t.get_address();  // the target side may translate it
  out->b_transport(t, delay);
  record(t, start, address, (sc_core::sc_time_stamp() + delay).value());
}

bool TraceTap::get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
  return out->get_direct_mem_ptr(t, dmi);
}

void TraceTap::record(tlm::tlm_generic_payload& t, uint64_t start, uint64_t address, uint64_t end) {
  const char cmd = t.is_read() ? 'R' : t.is_write() ? 'W' : 'I';
  // The messages it carries: a DMA transaction's tag, or a frame's list.
  const MessageId one = message_of(t);
  const MlxFrame* frame = one ? nullptr : mlx_frame(t);
  const MessageId* msgs = frame ? frame->message_ids.data() : &one;
  const size_t n = frame ? frame->message_ids.size() : one != 0;
  m_recorder.record({m_binding, start, end, cmd, address, t.get_data_length(), t.is_response_ok()}, msgs, n);
}

tlm::tlm_sync_enum TraceTap::nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                             sc_core::sc_time& delay) {
  const bool begin = phase == tlm::BEGIN_REQ;
  const uint64_t start = (sc_core::sc_time_stamp() + delay).value();
  const uint64_t address = t.get_address();
  // Open before forwarding: the target may send BEGIN_RESP from inside the call.
  if (begin) m_open[&t] = {start, address};
  const tlm::tlm_sync_enum s = out->nb_transport_fw(t, phase, delay);
  auto it = m_open.find(&t);
  if (it != m_open.end() && (s == tlm::TLM_COMPLETED || (s == tlm::TLM_UPDATED && phase == tlm::BEGIN_RESP))) {
    record(t, it->second.start_ps, it->second.address, (sc_core::sc_time_stamp() + delay).value());
    m_open.erase(it);
  }
  return s;
}

tlm::tlm_sync_enum TraceTap::nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                             sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_RESP) {
    auto it = m_open.find(&t);
    if (it != m_open.end()) {
      record(t, it->second.start_ps, it->second.address, (sc_core::sc_time_stamp() + delay).value());
      m_open.erase(it);
    }
  }
  return in->nb_transport_bw(t, phase, delay);
}

unsigned int TraceTap::transport_dbg(tlm::tlm_generic_payload& t) { return out->transport_dbg(t); }

void TraceTap::invalidate(sc_dt::uint64 start, sc_dt::uint64 end) { in->invalidate_direct_mem_ptr(start, end); }

}  // namespace m2
