// The host bridge (north bridge) between the host CPU and the PCI bus.
//  - cpu_side: the host CPU thread's programmed I/O, addressed with PCI bus
//    addresses. Reads cross the bus and stall the CPU for the round trip,
//    after the bridge's posted writes have drained (PCI ordering: a read
//    does not pass posted writes). Writes are posted: the CPU pays
//    posted_write_ns, the write reaches its target later, in order; when the
//    write buffer is full the CPU waits for a slot.
//  - pci_master: the bridge as a PCI master (binds to PciBus::target).
//  - pci_target: host memory as a PCI target (attached on the bus at
//    PCI_HOST_MEMORY_BASE): the NIs' DMA, forwarded to memory_side.
//  - memory_side: the host's memory (an m2::Memory).
// LT: posted writes are done at once (data visible immediately) but their bus
// time is booked, so that a later read or a full buffer waits behind them.
// AT: a bridge thread issues the buffered writes on the bus. The bridge
// speaks the base protocol's four phases on the bus (core/nb_caller.h as a
// master; as a target, END_REQ at once and BEGIN_RESP after host memory's
// latency) and answers b_transport as well.
// See docs/models/host-bridge.md.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_target_socket.h>

#include "core/module_log.h"
#include "core/nb_caller.h"
#include "core/params.h"
#include "core/stats.h"
#include "core/timing_style.h"
#include "trace/message_tag.h"

namespace m2 {

class HostBridge : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<HostBridge> cpu_side;
  tlm_utils::simple_initiator_socket<HostBridge> pci_master;
  tlm_utils::simple_target_socket<HostBridge> pci_target;
  tlm_utils::simple_initiator_socket<HostBridge> memory_side;

  Param<double> posted_write_ns;
  Param<uint64_t> write_buffer_depth;
  Param<double> read_latency_ns;
  Param<double> memory_latency_ns;
  Param<double> read_retry_ns;

  HostBridge(sc_core::sc_module_name name, TimingStyle style);

  // Called after each DMA write into host memory with the time (relative to
  // now) at which it is complete: the host's pollers wake up then.
  void on_memory_write(std::function<void(const sc_core::sc_time&)> f) { m_on_memory_write = std::move(f); }

  struct Stats {
    uint64_t cpu_reads = 0, cpu_writes = 0;
    uint64_t write_stalls = 0;         // CPU writes that found the buffer full
    uint64_t posted_write_errors = 0;  // posted writes nobody accepted (lost, as on PCI)
    uint64_t dma_reads = 0, dma_writes = 0, dma_bytes = 0;
    uint64_t dma_read_retries = 0;  // DMA reads that did not continue the prefetch stream
    sc_core::sc_time stall_time;    // CPU time lost to a full write buffer
    sc_core::sc_time drain_time;    // CPU reads waiting for posted writes
  };
  const Stats& stats() const { return m_stats; }

 private:
  SC_HAS_PROCESS(HostBridge);

  // CPU side.
  void cpu_b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  unsigned int cpu_transport_dbg(tlm::tlm_generic_payload& t);
  void cpu_read(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void cpu_write_lt(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void cpu_write_at(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void check_posted(const tlm::tlm_generic_payload& t);
  // A transaction on the bus as a master: b_transport in LT, the four phases in AT.
  void bus_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  tlm::tlm_sync_enum master_nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                            sc_core::sc_time& delay) {
    return m_nb_master.nb_transport_bw(t, phase, delay);
  }
  void ignore_invalidate(sc_dt::uint64, sc_dt::uint64) {}  // cpu_side grants no DMI

  // PCI target side (DMA into host memory).
  void dma_b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  tlm::tlm_sync_enum dma_nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_core::sc_time& delay);
  void dma_act(tlm::tlm_generic_payload& t, const tlm::tlm_phase& phase);  // m_dma_peq's callback
  bool dma_get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi);
  unsigned int dma_transport_dbg(tlm::tlm_generic_payload& t);
  void memory_invalidate(sc_dt::uint64 start, sc_dt::uint64 end);

  std::function<void(const sc_core::sc_time&)> m_on_memory_write;

  // AT: issues the buffered writes on the bus, oldest first.
  void write_thread();

  struct PostedWrite {
    uint64_t address;
    std::vector<uint8_t> data, byte_enable;
    unsigned streaming_width;
    MessageId msg = 0;  // the write's MessageTag, kept for the bus
  };

  const TimingStyle m_style;
  NbCaller m_nb_master;
  tlm_utils::peq_with_cb_and_phase<HostBridge> m_dma_peq;  // AT: DMA requests at their annotated time
  Stats m_stats;
  ModuleLog m_log{this};  // messages named after this module, at its sim.log level
  // What the run reports of m_stats (core/stats.h).
  StatProbe m_stat_cpu_reads{this, "cpu_reads", "count", "host CPU reads through the bridge",
                             [this] { return double(m_stats.cpu_reads); }};
  StatProbe m_stat_cpu_writes{this, "cpu_writes", "count", "host CPU writes through the bridge",
                              [this] { return double(m_stats.cpu_writes); }};
  StatProbe m_stat_stall{this, "write_stall_us", "us", "host CPU time lost to a full posted-write buffer",
                         [this] { return in_us(m_stats.stall_time); }};
  StatProbe m_stat_dma_bytes{this, "dma_bytes", "bytes", "bytes PCI masters read or wrote in host memory",
                             [this] { return double(m_stats.dma_bytes); }};
  StatProbe m_stat_retries{this, "dma_read_retries", "count", "DMA reads that did not continue the prefetch stream",
                           [this] { return double(m_stats.dma_read_retries); }};
  sc_core::sc_time m_posted, m_read_latency, m_memory_latency, m_read_retry;
  // Where the bridge's read prefetch stands: the address right after the
  // last DMA read (a read starting there continues the stream).
  uint64_t m_prefetch_next = ~uint64_t{0};
  // LT: end times of the posted writes still on their way (ascending), and
  // when the bridge's master is next free.
  std::deque<sc_core::sc_time> m_write_done;
  sc_core::sc_time m_master_free;
  // AT: the write buffer; an entry leaves when its bus transaction is over.
  std::deque<PostedWrite> m_buffer;
  sc_core::sc_event m_write_posted, m_write_done_event;
};

}  // namespace m2
