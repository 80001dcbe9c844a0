// A RAM (SDRAM) target: b_transport with a fixed access latency, DMI for the
// whole range, debug transport. Storage is reserved with mmap and only the
// pages firmware or DMA touch become resident, so many nodes' 64 MB cost
// little.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "core/params.h"

namespace m2 {

class Memory : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<Memory> socket;

  Param<uint64_t> size_bytes;
  Param<double> read_latency_ns;
  Param<double> write_latency_ns;

  // The instantiating model gives the defaults of size and latencies (the
  // NI's SDRAM has other timings than the host's memory).
  Memory(sc_core::sc_module_name name, uint64_t default_size, double default_read_latency_ns = 0,
         double default_write_latency_ns = 0);
  ~Memory() override;

  uint8_t* host() { return m_data; }
  uint64_t size() const { return size_bytes.get(); }
  // Backs the memory with a memory file instead of private pages, at the same
  // address, so that another process can map part of it (an outside
  // program's arena, docs/models/host-process.md); returns a descriptor of
  // that file (close-on-exec; the caller closes it). Contents are lost: call
  // before anything is stored. Throws std::runtime_error saying why not.
  int share_as_file();

 private:
  void b_transport(tlm::tlm_generic_payload& trans, sc_core::sc_time& delay);
  bool get_direct_mem_ptr(tlm::tlm_generic_payload& trans, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(tlm::tlm_generic_payload& trans);
  bool in_range(const tlm::tlm_generic_payload& trans) const;

  uint8_t* m_data = nullptr;
  sc_core::sc_time m_read_latency, m_write_latency;
};

}  // namespace m2
