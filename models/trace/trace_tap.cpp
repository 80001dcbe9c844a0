#include "trace/trace_tap.h"

#include "link/mlx_frame.h"

namespace m2 {

TraceTap::TraceTap(sc_core::sc_module_name name, const std::string& binding, TraceRecorder& recorder)
    : sc_module(name), in("in"), out("out"), m_recorder(recorder), m_binding(recorder.add_binding(binding)) {
  in.register_b_transport(this, &TraceTap::b_transport);
  in.register_get_direct_mem_ptr(this, &TraceTap::get_direct_mem_ptr);
  in.register_transport_dbg(this, &TraceTap::transport_dbg);
  out.register_invalidate_direct_mem_ptr(this, &TraceTap::invalidate);
}

void TraceTap::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  const uint64_t start = (sc_core::sc_time_stamp() + delay).value();
  const uint64_t address = t.get_address();  // the target side may translate it
  out->b_transport(t, delay);
  const char cmd = t.is_read() ? 'R' : t.is_write() ? 'W' : 'I';
  // The messages it carries: a DMA transaction's tag, or a frame's list.
  const MessageId one = message_of(t);
  const MlxFrame* frame = one ? nullptr : mlx_frame(t);
  const MessageId* msgs = frame ? frame->message_ids.data() : &one;
  const size_t n = frame ? frame->message_ids.size() : one != 0;
  m_recorder.record({m_binding, start, (sc_core::sc_time_stamp() + delay).value(), cmd, address,
                     t.get_data_length(), t.is_response_ok()},
                    msgs, n);
}

bool TraceTap::get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
  return out->get_direct_mem_ptr(t, dmi);
}

unsigned int TraceTap::transport_dbg(tlm::tlm_generic_payload& t) { return out->transport_dbg(t); }

void TraceTap::invalidate(sc_dt::uint64 start, sc_dt::uint64 end) { in->invalidate_direct_mem_ptr(start, end); }

}  // namespace m2
