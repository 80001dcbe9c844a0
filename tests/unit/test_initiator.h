// A TLM initiator for model unit tests: b_transport with every payload field
// under the test's control, DMI and debug transport, and a variant whose test
// code runs in an SC_THREAD. Every call checks that the payload comes back
// with the address the initiator set (interconnects must restore it) and
// records what it came back with.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

namespace m2test {

struct TestInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<TestInitiator> socket{"socket"};
  std::vector<std::pair<uint64_t, uint64_t>> invalidations;  // DMI invalidations received
  uint64_t last_address = 0;                                 // payload address after the last b_transport

  explicit TestInitiator(sc_core::sc_module_name n) : sc_module(n) {
    socket.register_invalidate_direct_mem_ptr(this, &TestInitiator::invalidate);
  }
  void invalidate(sc_dt::uint64 s, sc_dt::uint64 e) { invalidations.emplace_back(s, e); }

  tlm::tlm_response_status access(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len,
                                  sc_core::sc_time* delay_out = nullptr, uint8_t* byte_enable = nullptr,
                                  unsigned be_len = 0, unsigned streaming_width = 0) {
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    const tlm::tlm_response_status r = transport(cmd, addr, data, len, delay, byte_enable, be_len, streaming_width);
    if (delay_out) *delay_out = delay;
    return r;
  }
  // b_transport carrying the caller's local time offset in `delay` (in and
  // out), as an initiator with temporal decoupling does.
  tlm::tlm_response_status transport(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len,
                                     sc_core::sc_time& delay, uint8_t* byte_enable = nullptr, unsigned be_len = 0,
                                     unsigned streaming_width = 0) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(len);
    t.set_streaming_width(streaming_width ? streaming_width : len);
    t.set_byte_enable_ptr(byte_enable);
    t.set_byte_enable_length(be_len);
    t.set_dmi_allowed(false);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    socket->b_transport(t, delay);
    last_address = t.get_address();
    return t.get_response_status();
  }
  tlm::tlm_response_status write(uint64_t addr, std::vector<uint8_t> v, sc_core::sc_time* d = nullptr) {
    return access(tlm::TLM_WRITE_COMMAND, addr, v.data(), static_cast<unsigned>(v.size()), d);
  }
  tlm::tlm_response_status read(uint64_t addr, std::vector<uint8_t>& v, sc_core::sc_time* d = nullptr) {
    return access(tlm::TLM_READ_COMMAND, addr, v.data(), static_cast<unsigned>(v.size()), d);
  }
  // 32-bit register accesses, big-endian (NI view) unless told otherwise.
  tlm::tlm_response_status write32(uint64_t addr, uint32_t v, bool big_endian = true) {
    std::vector<uint8_t> b(4);
    for (unsigned i = 0; i < 4; ++i) b[i] = static_cast<uint8_t>(v >> (big_endian ? 24 - 8 * i : 8 * i));
    return write(addr, b);
  }
  // Reads a register; a non-OK response fails the test unless `status` takes it.
  uint32_t read32(uint64_t addr, bool big_endian = true, tlm::tlm_response_status* status = nullptr) {
    std::vector<uint8_t> b(4);
    const tlm::tlm_response_status s = read(addr, b);
    if (status) *status = s;
    else CHECK(s == tlm::TLM_OK_RESPONSE);
    uint32_t v = 0;
    for (unsigned i = 0; i < 4; ++i) v |= uint32_t(b[i]) << (big_endian ? 24 - 8 * i : 8 * i);
    return v;
  }
  bool dmi(uint64_t addr, tlm::tlm_dmi& d) {
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_READ_COMMAND);
    t.set_address(addr);
    const bool ok = socket->get_direct_mem_ptr(t, d);
    CHECK(t.get_address() == addr);
    return ok;
  }
  unsigned dbg(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned len) {
    tlm::tlm_generic_payload t;
    t.set_command(cmd);
    t.set_address(addr);
    t.set_data_ptr(data);
    t.set_data_length(len);
    const unsigned n = socket->transport_dbg(t);
    CHECK(t.get_address() == addr);
    CHECK(t.get_data_length() == len);
    return n;
  }
};

// A TestInitiator whose `body` runs in an SC_THREAD once sc_start() begins:
// for targets that wait (AT interconnects, flow control).
struct ThreadInitiator : TestInitiator {
  std::function<void(ThreadInitiator&)> body;
  SC_HAS_PROCESS(ThreadInitiator);
  explicit ThreadInitiator(sc_core::sc_module_name n) : TestInitiator(n) { SC_THREAD(run); }
  void run() {
    if (body) body(*this);
  }
};

}  // namespace m2test
