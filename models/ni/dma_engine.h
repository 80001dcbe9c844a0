// DMA engine (ip/ni_dma.h): the NI FPGA's bus master that moves data between
// NI bus addresses - NI SDRAM, the network-buffer windows, host memory through
// the host window - in any combination. Firmware queues descriptors through
// `regs`; the engine runs them one after another.
//
// Inside, a reader and a writer run concurrently through a burst buffer of
// two bursts (the read of one burst overlaps the write of the previous one).
// Each side splits its range into transactions on `master`:
//  - SDRAM and netbuf: bursts of burst_bytes;
//  - host window: bursts of whole host_align_bytes lines that never cross a
//    host_page_bytes page; a head before the first line boundary and a tail
//    shorter than a line go as separate transactions and cost
//    misalign_penalty_ns more each (what the real card pays for partial
//    cache lines on the host side).
// Each transaction costs burst_overhead_ns + bytes / rate_mbyte_per_s + the delay
// the target returns (NI bus, SDRAM, netbuf access, PCI bus) + the penalty,
// and the side waits for it in SystemC time. A netbuf window is a FIFO port:
// the engine addresses the channel's window base for every burst and waits for
// room (TX) or data (RX) before it, so it never over- or underflows.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <ip/ni_dma.h>

#include "core/irq.h"
#include "core/module_log.h"
#include "core/params.h"
#include "core/peripheral.h"
#include "core/signals.h"
#include "core/state_views.h"
#include "core/stats.h"
#include "ni/byte_fifo.h"
#include "trace/message_tag.h"

namespace m2 {

class NetBuf;

class DmaEngine : public Peripheral {
 public:
  // Bound by the platform to the NI bus.
  tlm_utils::simple_initiator_socket<DmaEngine> master;
  // Registers: Peripheral::regs, addresses relative to NI_DMA_BASE.

  Param<uint64_t> queue_depth;
  Param<uint64_t> burst_bytes;
  Param<double> setup_ns;
  Param<double> burst_overhead_ns;
  Param<double> rate_mbyte_per_s;
  Param<uint64_t> host_align_bytes;
  Param<uint64_t> host_page_bytes;
  Param<double> misalign_penalty_ns;

  IrqLine irq_done;   // STATUS.DONE: a descriptor queued with DMA_CTRL_IRQ completed
  IrqLine irq_error;  // STATUS.ERROR

  // What the engine did, for tests and the end-of-run report.
  struct Stats {
    uint64_t descriptors = 0;        // completed without error
    uint64_t errors = 0;             // failed descriptors (LEN 0 included)
    uint64_t bytes = 0;              // moved by completed descriptors
    uint64_t read_transactions = 0;  // on `master`, failed ones included
    uint64_t write_transactions = 0;
    uint64_t partial_transactions = 0;                    // host transactions charged misalign_penalty_ns
    sc_core::sc_time read_busy = sc_core::SC_ZERO_TIME;   // time spent in read transactions
    sc_core::sc_time write_busy = sc_core::SC_ZERO_TIME;  // time spent in write transactions
    sc_core::sc_time last_start = sc_core::SC_ZERO_TIME;  // last descriptor taken from the queue
    sc_core::sc_time last_end = sc_core::SC_ZERO_TIME;    // ... and completed or failed
  };

  SC_HAS_PROCESS(DmaEngine);
  // Throws ConfigError on inconsistent parameters.
  explicit DmaEngine(sc_core::sc_module_name name);
  ~DmaEngine() override;

  // Tells the engine where the netbuf windows are and lets it wait for room
  // and data. Without it the windows are plain addresses (no flow control).
  // Throws ConfigError when a burst does not fit in a channel.
  void connect_netbuf(NetBuf* netbuf);

  uint32_t status() const;
  uint32_t done_count() const { return m_done_count; }
  const Stats& stats() const { return m_stats; }
  // The engine's state in a few lines (GDB "monitor dma"): busy or idle, the
  // descriptor in progress, the queue, counters.
  std::string describe_state() const;
  // Delta-notified when a descriptor completes or fails.
  const sc_core::sc_event& done_event() const { return m_done_event; }

  // Message tracing (docs/models/message-breakdown.md): a descriptor queued
  // with DMA_CTRL_TRACE names a message; the engine reports when it is
  // queued and done (as TX, RX or other DMA by its netbuf window) and tags
  // its transactions with a MessageTag. Without a probe the bits are ignored.
  void set_message_probe(MessageProbe probe) { m_probe = probe; }

 private:
  struct Descriptor {
    uint64_t src, dst, len;
    bool irq;
    MessageId msg = 0;
    MessagePoint done_point = MessagePoint::RecordDone;
  };
  // Where one side of a descriptor points.
  struct Port {
    bool host = false;    // host window: alignment and page rules
    bool netbuf = false;  // netbuf window: FIFO port with flow control
    bool tx = false;      // netbuf: a TX window (else RX)
    unsigned ch = 0;
  };

  void add_registers();
  void control(uint32_t v);
  void update_irqs();

  void control_thread();
  void reader_thread();
  void write_descriptor();
  Port port(uint64_t addr) const;
  unsigned piece(const Port& p, uint64_t addr, uint64_t left, bool& partial) const;
  bool transact(tlm::tlm_generic_payload& t, tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned n,
                bool partial);
  void fail(uint32_t cause, uint64_t addr, const std::string& what);
  std::string describe(const Descriptor& d) const;

  NetBuf* m_netbuf = nullptr;
  ModuleLog m_log{this};  // messages named after this module, at its sim.log level
  uint32_t m_src = 0, m_dst = 0, m_len = 0;
  std::deque<Descriptor> m_queue;
  Descriptor m_cur{};
  bool m_active = false, m_error = false, m_done_flag = false;
  uint32_t m_done_count = 0, m_err_addr = 0, m_err_cause = DMA_ERR_NONE;

  // Reader/writer hand-over.
  ByteFifo m_fifo;
  bool m_reader_go = false, m_reader_running = false, m_abort = false;
  sc_core::sc_event m_kick;        // a descriptor was queued or the error cleared
  sc_core::sc_event m_read_start;  // the reader may start on m_cur
  sc_core::sc_event m_wake;        // burst buffer changed, reader ended, or abort
  sc_core::sc_event m_done_event;
  std::vector<uint8_t> m_rd_buf, m_wr_buf;
  tlm::tlm_generic_payload m_rd_trans, m_wr_trans;
  MessageTag m_rd_tag, m_wr_tag;  // attached to m_rd_trans / m_wr_trans for their life
  MessageProbe m_probe;

  sc_core::sc_time m_setup, m_overhead, m_penalty;
  double m_ns_per_byte = 0;
  Stats m_stats;
  // What the run reports of m_stats (core/stats.h).
  StatProbe m_stat_descriptors{this, "descriptors", "count", "descriptors completed without error",
                               [this] { return double(m_stats.descriptors); }};
  StatProbe m_stat_errors{this, "errors", "count", "descriptors failed (LEN 0 included)",
                          [this] { return double(m_stats.errors); }};
  StatProbe m_stat_bytes{this, "bytes", "bytes", "bytes moved by completed descriptors",
                         [this] { return double(m_stats.bytes); }};
  StatProbe m_stat_partial{this, "partial_transactions", "count",
                           "host transactions charged misalign_penalty_ns (not whole aligned words)",
                           [this] { return double(m_stats.partial_transactions); }};
  // The VCD's view (core/signals.h) and the GDB monitor's (`monitor dma`, core/state_views.h).
  Signal m_signal_busy{this, "busy", 1, [this] { return uint64_t((status() & DMA_STATUS_BUSY) != 0); }};
  StateView m_view_state{this, "dma", "the DMA engine: busy or idle, its descriptor queue, counters",
                         [this] { return describe_state(); }};
};

}  // namespace m2
