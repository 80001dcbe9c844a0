#include "host/tcpip/eth_driver.h"

#include <algorithm>
#include <cstring>

#include <ip/eth_protocol.h>
#include <ip/ni_pci.h>
#include <ip/pci_map.h>

#include "core/leak_roots.h"

namespace m2 {
namespace {

uint32_t load_be(const uint8_t* p) { return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3]; }

void store_be(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

}  // namespace

bool runs_eth_firmware(const std::string& firmware) { return firmware == "eth"; }

// The costs are host CPU cycles (at node*.host.clock_mhz) of what Linux 2.4's
// driver code does per call; none is measured on Maestro2. PIO (doorbell,
// mailbox, interrupt acknowledge) is charged by the bridge and bus models.
EthDriver::EthDriver(sc_core::sc_module_name name, HostCpu& host, int node, int ni)
    : sc_module(name),
      tx_slots(this->name(), "tx_slots", 16, "slots",
               "transmit ring slots (frames posted to the NI and not yet sent; 16: TX_RING_SIZE of Linux 2.4's "
               "tulip driver)",
               Range<uint64_t>{1, ETH_MAX_SLOTS}),
      rx_slots(this->name(), "rx_slots", 32, "slots",
               "receive ring slots, one 65024-byte buffer each (32: RX_RING_SIZE of Linux 2.4's tulip driver)",
               Range<uint64_t>{1, ETH_MAX_SLOTS}),
      xmit_cycles(this->name(), "xmit_cycles", 1000, "cycles",
                  "host CPU work of the driver's transmit per packet besides PIO: descriptor, DMA mapping of the "
                  "packet, ring bookkeeping (assumption: about 500 PIII instructions)",
                  Range<uint64_t>{0, 100000000}),
      irq_cycles(this->name(), "irq_cycles", 1500, "cycles",
                 "host CPU work per receive interrupt besides PIO: interrupt entry and exit and the handler's fixed "
                 "part (assumption: Linux 2.4 do_IRQ on a PIII)",
                 Range<uint64_t>{0, 100000000}),
      rx_packet_cycles(this->name(), "rx_packet_cycles", 1000, "cycles",
                       "host CPU work of the interrupt handler per received packet: descriptor, a new buffer for "
                       "the slot, handing the packet to the stack (assumption: about 500 PIII instructions)",
                       Range<uint64_t>{0, 100000000}),
      boot_timeout_us(this->name(), "boot_timeout_us", 10000.0, "us",
                      "how long the driver waits at boot for the NI's eth firmware to come up before it reports "
                      "the interface as failed (a software limit, not a cost)",
                      Range<double>{1, 1e9}),
      m_host(host),
      m_node(node),
      m_bar0(PCI_NI_BAR0(ni)),
      m_bar1(PCI_NI_BAR1(ni)),
      m_tx_slots(static_cast<uint32_t>(tx_slots.get())),
      m_rx_slots(static_cast<uint32_t>(rx_slots.get())) {
  const size_t bytes = ETH_RING_BYTES(m_tx_slots, m_rx_slots);
  m_ring = host.reserve_memory(bytes, &m_ring_bus);
  if (!m_ring || m_ring_bus + bytes > 0x80000000u)
    throw ConfigError(std::string(this->name()) + ": the rings (" + std::to_string(m_tx_slots) + " transmit and " +
                      std::to_string(m_rx_slots) + " receive slots, " + std::to_string(bytes >> 10) +
                      " KB) do not fit in the host memory the NI reaches");
  std::memset(m_ring, 0, bytes);
  m_software_ended = !host.has_app();  // a host without software never ends it
  platform_drivers().push_back(this);
  host.at_exit([this] {
    wait_for_every_host();
    close();
  });
  SC_THREAD(run);
}

EthDriver::~EthDriver() {
  auto& all = platform_drivers();
  all.erase(std::remove(all.begin(), all.end(), this), all.end());
}

std::vector<EthDriver*>& EthDriver::platform_drivers() {
  static std::vector<EthDriver*> drivers;
  return drivers;
}

void EthDriver::wait_for_every_host() {
  m_software_ended = true;
  for (EthDriver* d : platform_drivers()) d->m_host_ended.notify(sc_core::SC_ZERO_TIME);
  m_host.set_activity(0, "its software has ended; the eth interface stays up until every host's has");
  m_host.wait_until(
      [] {
        const auto& all = platform_drivers();
        return std::all_of(all.begin(), all.end(), [](const EthDriver* d) { return d->m_software_ended; });
      },
      m_host_ended);
  m_host.set_activity(0, nullptr);
}

sc_core::sc_time EthDriver::cycles(uint64_t n) const {
  return sc_core::sc_time(static_cast<double>(n) * 1e3 / m_host.clock_mhz.get(), sc_core::SC_NS);
}

uint32_t EthDriver::shared(uint32_t offset) const { return load_be(m_ring + offset); }
void EthDriver::set_shared(uint32_t offset, uint32_t value) { store_be(m_ring + offset, value); }

void EthDriver::pio(tlm::tlm_command cmd, uint64_t addr, uint8_t* data) {
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  m_trans.set_command(cmd);
  m_trans.set_address(addr);
  m_trans.set_data_ptr(data);
  m_trans.set_data_length(4);
  m_trans.set_streaming_width(4);
  m_trans.set_byte_enable_ptr(nullptr);
  m_trans.set_dmi_allowed(false);
  m_trans.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  m_host.pio->b_transport(m_trans, delay);
  wait(delay);
}

uint32_t EthDriver::pio_read32(uint64_t addr) {
  uint8_t data[4] = {0xFF, 0xFF, 0xFF, 0xFF};  // what a master abort reads
  pio(tlm::TLM_READ_COMMAND, addr, data);
  uint32_t v;
  std::memcpy(&v, data, 4);  // PCI is little-endian, as the host
  return v;
}

void EthDriver::pio_write32(uint64_t addr, uint32_t value) {
  uint8_t data[4];
  std::memcpy(data, &value, 4);
  pio(tlm::TLM_WRITE_COMMAND, addr, data);
}

void EthDriver::sdram_write32(uint32_t ni_addr, uint32_t value) {
  uint8_t be[4];
  store_be(be, value);  // NI SDRAM words are the PowerPC's order
  uint32_t raw;
  std::memcpy(&raw, be, 4);
  pio_write32(m_bar0 + ni_addr, raw);
}

void EthDriver::host_write32(uint64_t addr, uint32_t value) {
  uint8_t data[4];
  std::memcpy(data, &value, 4);
  m_host.pci_access(true, addr, data, 4);
}

void EthDriver::interrupt(bool level) {
  m_inta = level;
  if (level) m_inta_event.notify(sc_core::SC_ZERO_TIME);
}

bool EthDriver::boot() {
  // The firmware announces itself in its control block once it has reset
  // the mailboxes; the driver looks every microsecond (boot only).
  const sc_core::sc_time deadline = sc_core::sc_time(boot_timeout_us.get(), sc_core::SC_US);
  uint32_t magic = 0;
  for (;;) {
    const uint32_t raw = pio_read32(m_bar0 + ETH_NI_CTRL_BASE + ETH_CTRL_MAGIC);
    uint8_t b[4];
    std::memcpy(b, &raw, 4);
    magic = load_be(b);
    if (magic == ETH_FW_MAGIC || sc_core::sc_time_stamp() >= deadline) break;
    wait(sc_core::sc_time(1, sc_core::SC_US));
  }
  if (magic != ETH_FW_MAGIC) {
    m_log.error("the NI's eth firmware did not come up within " + boot_timeout_us.value_string() +
                " us (control block magic 0x" +
                [&] {
                  char s[16];
                  std::snprintf(s, sizeof s, "%08x", magic);
                  return std::string(s);
                }() +
                ", expected 0x45544846 \"ETHF\" at NI address 0x00100000): the interface stays down");
    return false;
  }
  sdram_write32(ETH_NI_CTRL_BASE + ETH_CTRL_RING_BUS, static_cast<uint32_t>(m_ring_bus));
  sdram_write32(ETH_NI_CTRL_BASE + ETH_CTRL_TX_SLOTS, m_tx_slots);
  sdram_write32(ETH_NI_CTRL_BASE + ETH_CTRL_RX_SLOTS, m_rx_slots);
  pio_write32(m_bar1 + NIPCI_MAILBOX(ETH_MAILBOX_RX_GIVEN), m_rx_slots);
  pio_write32(m_bar1 + NIPCI_DOORBELL, ETH_DOORBELL_INIT);
  while (!m_inta) wait(m_inta_event);
  const uint32_t cause = pio_read32(m_bar1 + NIPCI_HOST_IRQ);
  pio_write32(m_bar1 + NIPCI_HOST_IRQ, cause & ETH_IRQ_READY);
  (void)pio_read32(m_bar1 + NIPCI_HOST_IRQ);  // flushes the acknowledge: the line is low after it
  if (shared(ETH_STAT_READY) != ETH_FW_MAGIC || shared(ETH_STAT_NODE) != static_cast<uint32_t>(m_node)) {
    m_log.error("the NI's eth firmware answered the ring set-up with ready word 0x" + std::to_string(shared(0)) +
                " and node " + std::to_string(shared(ETH_STAT_NODE)) + " (this is node " + std::to_string(m_node) +
                "): the interface stays down");
    return false;
  }
  return true;
}

void EthDriver::run() {
  // Suspended at a run's end, this thread's frames (a packet being handed
  // on, waiting out its costs) stay in use: roots for LeakSanitizer.
  keep_stack_as_leak_root();
  if (!boot()) {
    m_failed = true;
    m_ready_event.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  m_ready = true;
  m_ready_event.notify(sc_core::SC_ZERO_TIME);
  for (;;) {
    while (!m_inta) wait(m_inta_event);
    handle_interrupt();
  }
}

void EthDriver::handle_interrupt() {
  ++m_stats.interrupts;
  wait(cycles(irq_cycles.get()));
  // Acknowledge first, then read the register back: the read cannot pass the
  // posted write, so every descriptor the NI finished before the
  // acknowledge reached it is in memory for the scan below, and every later
  // one raises the line again.
  pio_write32(m_bar1 + NIPCI_HOST_IRQ, ETH_IRQ_RX);
  (void)pio_read32(m_bar1 + NIPCI_HOST_IRQ);
  uint32_t taken = 0;
  for (;;) {
    const uint32_t slot = m_rx_next % m_rx_slots;
    const uint32_t desc = ETH_RX_RING(m_tx_slots) + slot * ETH_DESC_BYTES;
    if (shared(desc + ETH_RXD_STATUS) != m_rx_next + 1) break;
    const uint32_t len = shared(desc + ETH_RXD_LEN);
    if (len == 0 || len > ETH_MTU) {
      m_log.error("receive slot " + std::to_string(slot) + " holds a frame of " + std::to_string(len) + " bytes (1.." +
                  std::to_string(ETH_MTU) + " expected); dropped");
    } else {
      const uint8_t* buf = m_ring + ETH_RX_BUFS(m_tx_slots, m_rx_slots) + size_t{slot} * ETH_BUF_BYTES;
      m_backlog.emplace_back(buf, buf + len);
    }
    wait(cycles(rx_packet_cycles.get()));
    ++m_rx_next;
    ++taken;
  }
  if (taken > 0) {
    // The emptied slots go back to the NI.
    pio_write32(m_bar1 + NIPCI_MAILBOX(ETH_MAILBOX_RX_GIVEN), m_rx_next + m_rx_slots);
    pio_write32(m_bar1 + NIPCI_DOORBELL, ETH_DOORBELL_RX);
  }
  // The stack's part (Linux 2.4's softirq after the handler), in arrival order.
  while (!m_backlog.empty()) {
    std::vector<uint8_t> packet = std::move(m_backlog.front());
    m_backlog.pop_front();
    ++m_stats.rx_packets;
    m_stats.rx_bytes += packet.size();
    if (m_receiver) m_receiver(std::move(packet));
  }
}

void EthDriver::transmit(int dst_node, const uint8_t* packet, size_t len) {
  if (m_closed) {
    // The host's software has ended and the interface is down, but its
    // kernel's stack still answers the peers (the acknowledgement of a FIN
    // that comes after this host's close). Linux drops a packet for a down
    // interface (ENETDOWN): so does this, and counts it.
    ++m_stats.tx_dropped_down;
    return;
  }
  if (!m_ready && !m_failed) {
    m_host.set_activity(0, "the eth driver's transmit, waiting for the interface to come up");
    m_host.wait_until([this] { return m_ready || m_failed; }, m_ready_event);
    m_host.set_activity(0, nullptr);
  }
  if (m_failed)
    m_host.abort_run(70, std::string(name()) + ": transmit on an interface that did not come up (the log says why)");
  if (len == 0 || len > kMtu)
    m_host.abort_run(70, std::string(name()) + ": transmit of a " + std::to_string(len) +
                             "-byte packet; the driver takes 1.." + std::to_string(kMtu) + " bytes (the MTU)");
  if (dst_node < 0 || dst_node >= m_host.count() || dst_node == m_node)
    m_host.abort_run(70, std::string(name()) + ": transmit to node " + std::to_string(dst_node) +
                             "; the network reaches nodes 0.." + std::to_string(m_host.count() - 1) +
                             " other than this node " + std::to_string(m_node));
  m_host.charge(cycles(xmit_cycles.get()));
  if (m_tx_posted - shared(ETH_STAT_TX_DONE) >= m_tx_slots) {
    // Ring full: as a 2.4 driver stops its queue, the caller waits until the
    // NI has sent a frame and handed its slot back.
    ++m_stats.tx_ring_full;
    m_host.set_activity(0, "the eth driver's transmit, waiting for a free transmit slot");
    m_host.poll_until([this] { return m_tx_posted - shared(ETH_STAT_TX_DONE) < m_tx_slots; }, -1.0);
    m_host.set_activity(0, nullptr);
  }
  const uint32_t slot = m_tx_posted % m_tx_slots;
  const uint32_t buf = ETH_TX_BUFS(m_tx_slots, m_rx_slots) + slot * ETH_BUF_BYTES;
  // The NI reads the packet where the stack left it (the model copies it into
  // the slot for free: a 2.4 driver mapped the skb's data for DMA, no copy).
  std::memcpy(m_ring + buf, packet, len);
  const uint32_t desc = ETH_TX_RING(m_tx_slots) + slot * ETH_DESC_BYTES;
  set_shared(desc + ETH_TXD_DST, static_cast<uint32_t>(dst_node));
  set_shared(desc + ETH_TXD_LEN, static_cast<uint32_t>(len));
  set_shared(desc + ETH_TXD_BUF, static_cast<uint32_t>(m_ring_bus + buf));
  set_shared(desc + ETH_TXD_SEQ, m_tx_posted + 1);
  ++m_tx_posted;
  ++m_stats.tx_packets;
  m_stats.tx_bytes += len;
  host_write32(m_bar1 + NIPCI_MAILBOX(ETH_MAILBOX_TX_POSTED), m_tx_posted);
  host_write32(m_bar1 + NIPCI_DOORBELL, ETH_DOORBELL_TX);
}

void EthDriver::close() {
  if (!m_ready || m_closed) return;
  m_closed = true;
  host_write32(m_bar1 + NIPCI_DOORBELL, ETH_DOORBELL_DOWN);
}

}  // namespace m2
