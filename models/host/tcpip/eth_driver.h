// The host's network driver for the NI's Ethernet emulation (firmware eth,
// ip/eth_protocol.h) as a model on the host: what Linux 2.4's driver did,
// with its CPU costs charged in simulated time.
//  - transmit (the stack's thread, through IpPacketPort): the packet goes
//    into the next transmit slot (the NI DMAs from it, as 2.4 drivers DMA'd
//    from the skb: no CPU copy), the descriptor behind it, then the mailbox
//    and the doorbell by PIO over the host bridge and the PCI bus; with the
//    ring full the caller waits for the NI to hand a slot back;
//  - receive (this module's thread, the interrupt handler): on the NI's
//    interrupt, entry cost, acknowledge (posted write, then a read that
//    flushes it), every done descriptor in ring order (per-packet cost), the
//    emptied slots handed back to the NI (mailbox, doorbell), then each
//    packet to the receiver in arrival order (the softirq's part).
// Set-up at boot: the rings are reserved at elaboration, the NI initialised
// by this module's thread at time 0 (before host software needs it).
// docs/models/eth-driver.md.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

#include "core/module_log.h"
#include "core/params.h"
#include "core/stats.h"
#include "host/host_cpu.h"
#include "host/tcpip/ip_packet_port.h"

namespace m2 {

class EthDriver : public sc_core::sc_module, public IpPacketPort {
 public:
  Param<uint64_t> tx_slots;
  Param<uint64_t> rx_slots;
  Param<uint64_t> xmit_cycles;
  Param<uint64_t> irq_cycles;
  Param<uint64_t> rx_packet_cycles;
  Param<double> boot_timeout_us;

  SC_HAS_PROCESS(EthDriver);
  // The driver of NI `ni` (its PCI slot) of the host `host`, whose node is
  // `node`. Throws ConfigError when the host memory cannot hold the rings.
  EthDriver(sc_core::sc_module_name name, HostCpu& host, int node, int ni = 0);
  ~EthDriver() override;

  // The NI's PCI interrupt line (INTA#).
  void interrupt(bool level);
  // Interface down (the host's software ended): the NI sends what is posted
  // and its firmware exits. On the host's thread.
  void close();

  // IpPacketPort
  void transmit(int dst_node, const uint8_t* packet, size_t len) override;
  void set_receiver(Receiver receiver) override { m_receiver = std::move(receiver); }
  int node() const override { return m_node; }

  struct Stats {
    uint64_t tx_packets = 0, tx_bytes = 0, tx_ring_full = 0, tx_dropped_down = 0;
    uint64_t rx_packets = 0, rx_bytes = 0, interrupts = 0;
  };
  const Stats& stats() const { return m_stats; }

 private:
  void run();  // boot, then the interrupt handler
  bool boot();
  void handle_interrupt();
  // PIO from this module's thread (its own payload; waits the bus time).
  // One 32-bit programmed-I/O access over the host's PCI path, waited out.
  void pio(tlm::tlm_command cmd, uint64_t addr, uint8_t* data);
  uint32_t pio_read32(uint64_t addr);
  void pio_write32(uint64_t addr, uint32_t value);
  void sdram_write32(uint32_t ni_addr, uint32_t value);
  // Host-thread PIO (through the host CPU, its local time).
  void host_write32(uint64_t addr, uint32_t value);
  uint32_t shared(uint32_t offset) const;  // a big-endian word of the ring area
  void set_shared(uint32_t offset, uint32_t value);
  sc_core::sc_time cycles(uint64_t n) const;

  HostCpu& m_host;
  const int m_node;
  uint64_t m_bar0 = 0, m_bar1 = 0;
  uint8_t* m_ring = nullptr;
  uint64_t m_ring_bus = 0;
  uint32_t m_tx_slots = 0, m_rx_slots = 0;
  uint32_t m_tx_posted = 0;  // frames put in the transmit ring
  uint32_t m_rx_next = 0;    // the next received frame to take
  bool m_ready = false, m_failed = false, m_closed = false, m_inta = false;
  // The interface stays up after this host's software ends, until every
  // host's has: its kernel still delivers what its sockets hold (data and FIN
  // after a close), as a real host's would.
  void wait_for_every_host();
  static std::vector<EthDriver*>& platform_drivers();  // the drivers of the platform alive now
  bool m_software_ended = false;
  sc_core::sc_event m_host_ended;
  sc_core::sc_event m_ready_event, m_inta_event;
  Receiver m_receiver;
  std::deque<std::vector<uint8_t>> m_backlog;  // taken by the handler, not yet delivered
  tlm::tlm_generic_payload m_trans;
  Stats m_stats;
  ModuleLog m_log{this};
  StatProbe m_stat_tx{this, "tx_packets", "count", "packets handed to the NI",
                      [this] { return double(m_stats.tx_packets); }};
  StatProbe m_stat_tx_bytes{this, "tx_bytes", "bytes", "bytes of the packets handed to the NI",
                            [this] { return double(m_stats.tx_bytes); }};
  StatProbe m_stat_full{this, "tx_ring_full", "count", "transmits that waited for a free transmit slot",
                        [this] { return double(m_stats.tx_ring_full); }};
  StatProbe m_stat_down{this, "tx_dropped_down", "count",
                        "packets the stack sent after the host's software ended and the interface went down "
                        "(dropped, as Linux drops them for a down interface)",
                        [this] { return double(m_stats.tx_dropped_down); }};
  StatProbe m_stat_rx{this, "rx_packets", "count", "packets received and handed to the stack",
                      [this] { return double(m_stats.rx_packets); }};
  StatProbe m_stat_rx_bytes{this, "rx_bytes", "bytes", "bytes of the packets received",
                            [this] { return double(m_stats.rx_bytes); }};
  StatProbe m_stat_irq{this, "interrupts", "count", "receive interrupts handled",
                       [this] { return double(m_stats.interrupts); }};
};

// True when an NI firmware setting (node*.ni.firmware) names the Ethernet
// emulation, whose host then runs an EthDriver.
bool runs_eth_firmware(const std::string& firmware);

}  // namespace m2
