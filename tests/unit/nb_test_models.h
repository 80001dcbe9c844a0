// Hand-written AT components for model unit tests: an initiator that sends
// BEGIN_REQs from its thread and logs the phases it gets back with their
// times, a target that answers only nb_transport with its own END_REQ and
// BEGIN_RESP, and a payload set-up helper.
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <systemc>
#include <tlm>
#include <tlm_utils/peq_with_cb_and_phase.h>

#include "core/tlm_phase_name.h"

namespace m2test {

inline sc_core::sc_time now() { return sc_core::sc_time_stamp(); }

// Counts the payloads it gets back.
struct CountingMm : tlm::tlm_mm_interface {
  int freed = 0;
  void free(tlm::tlm_generic_payload* t) override {
    ++freed;
    t->reset();  // drops extensions; the payload object belongs to the test
  }
};

// A hand-written AT initiator: sends BEGIN_REQs from its thread and logs the
// phases the bus sends back, with their times. It answers BEGIN_RESP with
// TLM_COMPLETED, or, with hold_response, with TLM_ACCEPTED and sends END_RESP
// hold_response later.
struct NbMaster : sc_core::sc_module, tlm::tlm_bw_transport_if<> {
  struct Seen {
    std::string phase;
    tlm::tlm_generic_payload* t;
    sc_core::sc_time at;
  };
  tlm::tlm_initiator_socket<> socket{"socket"};
  std::vector<Seen> seen;
  sc_core::sc_time hold_response = sc_core::SC_ZERO_TIME;
  std::function<void(NbMaster&)> body;
  sc_core::sc_event end_req, responded;
  std::deque<tlm::tlm_generic_payload*> to_end;
  sc_core::sc_event end_resp_due;

  SC_HAS_PROCESS(NbMaster);
  explicit NbMaster(sc_core::sc_module_name n) : sc_module(n) {
    socket.bind(*this);
    SC_THREAD(run);
    SC_METHOD(send_end_resp);
    sensitive << end_resp_due;
    dont_initialize();
  }
  void run() {
    if (body) body(*this);
  }
  tlm::tlm_sync_enum begin(tlm::tlm_generic_payload& t, sc_core::sc_time delay = sc_core::SC_ZERO_TIME) {
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    return socket->nb_transport_fw(t, phase, delay);
  }
  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_core::sc_time& d) override {
    seen.push_back({m2::phase_name(phase), &t, now() + d});
    if (phase == tlm::END_REQ) {
      end_req.notify(d);
      return tlm::TLM_ACCEPTED;
    }
    responded.notify(d);
    if (hold_response == sc_core::SC_ZERO_TIME) return tlm::TLM_COMPLETED;
    to_end.push_back(&t);
    end_resp_due.notify(hold_response);
    return tlm::TLM_ACCEPTED;
  }
  void send_end_resp() {
    tlm::tlm_generic_payload* t = to_end.front();
    to_end.pop_front();
    tlm::tlm_phase phase = tlm::END_RESP;
    sc_core::sc_time d = sc_core::SC_ZERO_TIME;
    seen.push_back({"END_RESP", t, now()});
    CHECK(socket->nb_transport_fw(*t, phase, d) == tlm::TLM_COMPLETED);
  }
  void invalidate_direct_mem_ptr(sc_dt::uint64, sc_dt::uint64) override {}
  const Seen* find(const std::string& phase, const tlm::tlm_generic_payload& t) const {
    for (const Seen& s : seen)
      if (s.phase == phase && s.t == &t) return &s;
    return nullptr;
  }
};

// A target that answers only nb_transport (its b_transport fails the test):
// END_REQ `accept` after BEGIN_REQ, BEGIN_RESP `latency` after it acts,
// through its own payload event queue. It records when it acted.
struct NbTarget : sc_core::sc_module, tlm::tlm_fw_transport_if<> {
  tlm::tlm_target_socket<> socket{"socket"};
  sc_core::sc_time latency = sc_core::sc_time(100, sc_core::SC_NS);
  sc_core::sc_time accept;                                     // END_REQ after it acts
  std::vector<uint8_t> mem = std::vector<uint8_t>(0x1000, 0);  // 4 KB
  std::vector<sc_core::sc_time> acted;
  std::vector<int> ref_counts;  // each payload's, when it acted (0: no memory manager)
  bool got_end_resp = false;
  tlm_utils::peq_with_cb_and_phase<NbTarget> peq{this, &NbTarget::act};

  NbTarget(sc_core::sc_module_name n, sc_core::sc_time accept_after) : sc_module(n), accept(accept_after) {
    socket.bind(*this);
  }
  tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_core::sc_time& d) override {
    if (phase == tlm::BEGIN_REQ) {
      peq.notify(t, phase, d);
      return tlm::TLM_ACCEPTED;
    }
    got_end_resp = phase == tlm::END_RESP;
    return tlm::TLM_COMPLETED;
  }
  void act(tlm::tlm_generic_payload& t, const tlm::tlm_phase&) {
    acted.push_back(now());
    ref_counts.push_back(t.has_mm() ? t.get_ref_count() : 0);
    tlm::tlm_phase phase = tlm::END_REQ;
    sc_core::sc_time d = accept;
    REQUIRE(socket->nb_transport_bw(t, phase, d) == tlm::TLM_ACCEPTED);
    uint8_t* p = mem.data() + t.get_address();
    if (t.is_write()) std::memcpy(p, t.get_data_ptr(), t.get_data_length());
    else std::memcpy(t.get_data_ptr(), p, t.get_data_length());
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    phase = tlm::BEGIN_RESP;
    d = latency;
    socket->nb_transport_bw(t, phase, d);
  }
  void b_transport(tlm::tlm_generic_payload&, sc_core::sc_time&) override { FAIL("b_transport on an nb-only target"); }
  bool get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi&) override { return false; }
  unsigned transport_dbg(tlm::tlm_generic_payload&) override { return 0; }
};

inline void setup(tlm::tlm_generic_payload& t, tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len) {
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(data);
  t.set_data_length(len);
  t.set_streaming_width(len);
  t.set_byte_enable_ptr(nullptr);
  t.set_byte_enable_length(0);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

}  // namespace m2test
