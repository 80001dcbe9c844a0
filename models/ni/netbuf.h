// Network buffer (ip/ni_netbuf.h): the NI FPGA's FIFO memory between the
// host/DMA side and the link. Two TX channels (host -> link) and two RX
// channels (link -> host). The bus side reaches the FIFOs through the data
// windows (`data`) and the status registers (`regs`); the link controller and
// tests use the C++ API and wait on the per-channel events. Nothing can over-
// or underflow: a bus access that does not fit is refused with an error
// response and a log line, an API call that does not fit throws (model bug).
#pragma once

#include <array>
#include <deque>
#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <ip/ni_netbuf.h>

#include "core/irq.h"
#include "core/module_log.h"
#include "core/params.h"
#include "core/peripheral.h"
#include "core/signals.h"
#include "core/state_views.h"
#include "ni/byte_fifo.h"
#include "trace/message_tag.h"

namespace m2 {

class NetBuf : public Peripheral {
 public:
  static constexpr unsigned kChannels = NI_NETBUF_CHANNELS;

  // Data windows; addresses relative to NI_NETBUF_DATA_BASE (the platform
  // attaches it over NI_NETBUF_DATA_BASE + NI_NETBUF_DATA_SIZE).
  tlm_utils::simple_target_socket<NetBuf> data;
  // Registers: Peripheral::regs, addresses relative to NI_NETBUF_BASE.

  Param<uint64_t> total_bytes;
  Param<uint64_t> channel_bytes;
  Param<double> clock_mhz;
  Param<uint64_t> width_bytes;
  Param<uint64_t> access_cycles;
  Param<bool> loopback;
  Param<double> loopback_mbyte_per_s;

  // High while TX channel c has >= its threshold free / RX channel c holds
  // >= its threshold (threshold 0: low). To the interrupt controller.
  std::array<IrqLine, kChannels> irq_tx;
  std::array<IrqLine, kChannels> irq_rx;

  SC_HAS_PROCESS(NetBuf);
  // Throws ConfigError on a bad combination of sizes.
  explicit NetBuf(sc_core::sc_module_name name);

  // --- C++ API (link controller, DMA flow control, tests); ch < kChannels.
  unsigned capacity() const { return static_cast<unsigned>(channel_bytes.get()); }
  unsigned tx_free(unsigned ch) const;
  unsigned tx_available(unsigned ch) const;
  unsigned rx_free(unsigned ch) const;
  unsigned rx_available(unsigned ch) const;
  // Link side. n must not exceed tx_available / rx_free (else std::logic_error).
  void tx_pop(unsigned ch, uint8_t* dst, unsigned n);
  void rx_push(unsigned ch, const uint8_t* src, unsigned n);
  // Copies the oldest n bytes of TX channel ch without taking them: the link
  // controller reads message headers ahead. n must not exceed tx_available.
  void tx_peek(unsigned ch, uint8_t* dst, unsigned n) const;
  // Host side, as the data windows do it (tests). n must fit, as above.
  void tx_push(unsigned ch, const uint8_t* src, unsigned n);
  void rx_pop(unsigned ch, uint8_t* dst, unsigned n);
  // Copies n bytes of RX channel ch starting `offset` bytes after its oldest,
  // without popping them (the switch box's message analyzers read headers so).
  // offset + n must not exceed rx_available (else std::logic_error).
  void rx_peek(unsigned ch, unsigned offset, uint8_t* dst, unsigned n) const;
  // Empties a channel (its data is dropped, its counters kept).
  void flush_tx(unsigned ch);
  void flush_rx(unsigned ch);

  // Delta-notified when bytes enter (data) or leave (space) a channel.
  const sc_core::sc_event& tx_data_event(unsigned ch) const { return m_tx.at(ch).data_event; }
  const sc_core::sc_event& tx_space_event(unsigned ch) const { return m_tx.at(ch).space_event; }
  const sc_core::sc_event& rx_data_event(unsigned ch) const { return m_rx.at(ch).data_event; }
  const sc_core::sc_event& rx_space_event(unsigned ch) const { return m_rx.at(ch).space_event; }

  // Bytes pushed into / popped from a channel since construction.
  uint64_t tx_bytes_in(unsigned ch) const { return m_tx.at(ch).bytes_in; }
  uint64_t tx_bytes_out(unsigned ch) const { return m_tx.at(ch).bytes_out; }
  uint64_t rx_bytes_in(unsigned ch) const { return m_rx.at(ch).bytes_in; }
  uint64_t rx_bytes_out(unsigned ch) const { return m_rx.at(ch).bytes_out; }

  // Time the FIFO memory needs for one access of `bytes` (the data windows
  // charge it; the link controller charges it for its own accesses).
  sc_core::sc_time access_time(unsigned bytes) const;

  // The last refused bus access, as logged.
  const std::string& last_error() const { return m_last_error; }
  // Bytes held per channel and direction (GDB "monitor netbuf").
  std::string describe_levels() const;

  // Message tracing (docs/models/message-breakdown.md): follows each
  // channel's stream of MLX messages on the bus side and reports when the
  // last byte of a traced message was written into a TX channel
  // (MessagePoint::TxPushed) and when the wire header of one was read out of
  // an RX channel (MessagePoint::RxHeader). Off without a probe.
  void set_message_probe(MessageProbe probe) { m_probe = probe; }

 private:
  struct Channel {
    ByteFifo fifo;
    uint32_t threshold = 0;
    uint64_t bytes_in = 0, bytes_out = 0;
    sc_core::sc_event data_event, space_event;
  };
  // Where a channel's bus-side stream is in its current message (tracing).
  struct Stream {
    uint64_t pos = 0, total = 0;     // bytes of the message passed so far, of all (0: not known yet)
    std::array<uint8_t, 32> head{};  // its first bytes (the wire header names the message)
    MessageId id = 0;
  };
  // A decoded data-window access.
  struct Window {
    bool tx;
    unsigned ch;
  };

  void b_transport_data(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  unsigned transport_dbg_data(tlm::tlm_generic_payload& t);
  bool decode(uint64_t offset, unsigned len, Window& w) const;
  void refuse(tlm::tlm_generic_payload& t, tlm::tlm_response_status status, const std::string& why);
  Channel& tx(unsigned ch);
  Channel& rx(unsigned ch);
  const Channel& tx(unsigned ch) const;
  const Channel& rx(unsigned ch) const;
  void push(Channel& c, const uint8_t* src, unsigned n);
  // Feeds n bytes passing the bus side of a channel to its stream; reports
  // `named` when a message's wire header has passed, `ended` when its last
  // byte has (MessagePoint::Count: nothing).
  void follow(Stream& s, const uint8_t* data, unsigned n, MessagePoint named, MessagePoint ended, uint64_t time_ps);
  void pop(Channel& c, uint8_t* dst, unsigned n);
  void update_irqs();
  uint32_t irq_levels() const;
  void add_registers();
  void loopback_thread();

  std::array<Channel, kChannels> m_tx, m_rx;
  sc_core::sc_time m_cycle;
  std::string m_last_error;
  ModuleLog m_log{this};  // messages named after this module, at its sim.log level
  MessageProbe m_probe;
  std::array<Stream, kChannels> m_tx_streams, m_rx_streams;
  // Bytes in each channel in the VCD (declared per channel in the
  // constructor, core/signals.h), and the GDB monitor's `monitor netbuf`.
  std::deque<Signal> m_signals;
  StateView m_view_levels{this, "netbuf", "bytes in each network-buffer channel, TX and RX",
                          [this] { return describe_levels(); }};
};

}  // namespace m2
