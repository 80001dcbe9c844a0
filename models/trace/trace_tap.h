// A pass-through trace socket: inserted by the platform on a TLM binding
// whose name a trace pattern matches, it forwards everything unchanged and
// records each transaction in the TraceRecorder. DMI passes through: an ISS
// must keep fetching code from SDRAM directly, so a CPU's direct SDRAM
// accesses are not recorded, its device accesses are. Untraced bindings get
// no tap and cost nothing. AT transactions (nb_transport) pass through both
// ways with their phases; one is recorded from its BEGIN_REQ's time to its
// BEGIN_RESP's (or its early completion's).
#pragma once

#include <map>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include "trace/trace_recorder.h"

namespace m2 {

class TraceTap : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<TraceTap> in;
  tlm_utils::simple_initiator_socket<TraceTap> out;

  TraceTap(sc_core::sc_module_name name, const std::string& binding, TraceRecorder& recorder);

 private:
  void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(tlm::tlm_generic_payload& t);
  void invalidate(sc_dt::uint64 start, sc_dt::uint64 end);
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void record(tlm::tlm_generic_payload& t, uint64_t start_ps, uint64_t address, uint64_t end_ps);

  // AT transactions in flight: their BEGIN_REQ's time and address.
  struct Open {
    uint64_t start_ps, address;
  };
  std::map<const tlm::tlm_generic_payload*, Open> m_open;
  TraceRecorder& m_recorder;
  unsigned m_binding;
};

// Binds `initiator` to its target directly, or through a new TraceTap when
// the recorder traces `binding`. `bind_target(socket)` does the final bind
// (a plain socket.bind(target), or an interconnect's own binding call) and is
// called with the initiator itself or with the tap's output.
template <typename Init, typename Taps, typename BindTarget>
void bind_traced(Init& initiator, const std::string& binding, Taps& taps, BindTarget bind_target) {
  TraceRecorder& rec = TraceRecorder::instance();
  if (!rec.matches(binding)) {
    bind_target(initiator);
    return;
  }
  std::string module = "trace_" + binding;
  for (char& c : module)
    if (c == '.') c = '_';
  taps.emplace_back(new TraceTap(sc_core::sc_gen_unique_name(module.c_str()), binding, rec));
  initiator.bind(taps.back()->in);
  bind_target(taps.back()->out);
}

}  // namespace m2
