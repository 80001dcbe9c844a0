#include "ni/dma_engine.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include <ip/ni_memory_map.h>

#include "core/bytes.h"
#include "core/log.h"
#include "ni/netbuf.h"

namespace m2 {

namespace {

bool power_of_two(uint64_t v) { return v && !(v & (v - 1)); }

}  // namespace

DmaEngine::DmaEngine(sc_core::sc_module_name name)
    : Peripheral(name),
      master("master"),
      queue_depth(this->name(), "queue_depth", 4, "descriptors",
                  "descriptors that can wait behind the active one (assumed)", Range<uint64_t>{1, 255}),
      burst_bytes(this->name(), "burst_bytes", 256, "B",
                  "largest transaction; a multiple of host_align_bytes, at most a netbuf channel (assumed)",
                  Range<uint64_t>{4, 4096}),
      setup_ns(this->name(), "setup_ns", 100.0, "ns",
               "from taking a descriptor to its first transaction (calibrated: 10 FPGA cycles at 100 MHz)",
               Range<double>{0, 1e6}),
      burst_overhead_ns(this->name(), "burst_overhead_ns", 10.0, "ns",
                        "engine cost of each transaction besides its data (calibrated: 1 cycle at 100 MHz)",
                        Range<double>{0, 1e6}),
      rate_mbyte_per_s(this->name(), "rate_mbyte_per_s", 1600.0, "MB/s",
                       "engine data path: bytes per microsecond moved per transaction (calibrated: 128 bit at 100 MHz, "
                       "the netbuf port's width)",
                       Range<double>{1, 1e6}),
      host_align_bytes(this->name(), "host_align_bytes", 32, "B",
                       "host line size: host transactions not starting or ending on it are split and penalised "
                       "(Pentium III cache line)",
                       Range<uint64_t>{1, 4096}),
      host_page_bytes(this->name(), "host_page_bytes", 4096, "B",
                      "host page: no host transaction crosses its boundary (x86 page)", Range<uint64_t>{1, 1u << 22}),
      misalign_penalty_ns(this->name(), "misalign_penalty_ns", 120.0, "ns",
                          "extra cost of a host transaction on a partial line (assumed: the host bridge's "
                          "read-modify-write of a PC133 line)",
                          Range<double>{0, 1e6}),
      m_fifo(2 * burst_bytes.get()),
      m_rd_buf(burst_bytes.get()),
      m_wr_buf(burst_bytes.get()) {
  const std::string me = this->name();
  if (!power_of_two(host_align_bytes.get()) || !power_of_two(host_page_bytes.get()))
    throw ConfigError(me + ": host_align_bytes (" + host_align_bytes.value_string() + ") and host_page_bytes (" +
                      host_page_bytes.value_string() + ") must be powers of two");
  if (host_page_bytes.get() < host_align_bytes.get())
    throw ConfigError(me + ": host_page_bytes (" + host_page_bytes.value_string() +
                      ") must not be smaller than host_align_bytes (" + host_align_bytes.value_string() + ")");
  if (burst_bytes.get() % host_align_bytes.get())
    throw ConfigError(me + ": burst_bytes (" + burst_bytes.value_string() +
                      ") must be a multiple of host_align_bytes (" + host_align_bytes.value_string() + ")");
  m_setup = sc_core::sc_time(setup_ns.get(), sc_core::SC_NS);
  m_overhead = sc_core::sc_time(burst_overhead_ns.get(), sc_core::SC_NS);
  m_penalty = sc_core::sc_time(misalign_penalty_ns.get(), sc_core::SC_NS);
  m_ns_per_byte = 1000.0 / rate_mbyte_per_s.get();
  add_registers();
  m_rd_trans.set_extension(&m_rd_tag);
  m_wr_trans.set_extension(&m_wr_tag);
  SC_THREAD(control_thread);
  SC_THREAD(reader_thread);
}

DmaEngine::~DmaEngine() {
  // The tags are members: the payloads must not delete them.
  m_rd_trans.clear_extension(&m_rd_tag);
  m_wr_trans.clear_extension(&m_wr_tag);
}

void DmaEngine::connect_netbuf(NetBuf* netbuf) {
  if (netbuf && burst_bytes.get() > netbuf->capacity())
    throw ConfigError(std::string(name()) + ": burst_bytes (" + burst_bytes.value_string() +
                      ") exceeds the netbuf channel (" + std::to_string(netbuf->capacity()) + " bytes)");
  m_netbuf = netbuf;
}

// ---------------------------------------------------------------- registers

uint32_t DmaEngine::status() const {
  const uint32_t free = static_cast<uint32_t>(queue_depth.get() - m_queue.size());
  return (m_active || !m_queue.empty() ? DMA_STATUS_BUSY : 0) | (m_error ? DMA_STATUS_ERROR : 0) |
         (m_done_flag ? DMA_STATUS_DONE : 0) | free << 8;
}

void DmaEngine::add_registers() {
  bank().add(
      DMA_SRC, "SRC", [this] { return m_src; }, [this](uint32_t v) { m_src = v; });
  bank().add(
      DMA_DST, "DST", [this] { return m_dst; }, [this](uint32_t v) { m_dst = v; });
  bank().add(
      DMA_LEN, "LEN", [this] { return m_len; }, [this](uint32_t v) { m_len = v; });
  // A START with a full queue cannot be done: refuse the write itself, so
  // that the firmware stops at the store that lost a descriptor.
  bank().add_checked(DMA_CTRL, "CTRL", nullptr, [this](uint32_t v) {
    if ((v & DMA_CTRL_START) && !(v & DMA_CTRL_FLUSH) && m_len != 0 && m_queue.size() >= queue_depth.get()) {
      m_log.warning("CTRL START refused: the queue is full (" + queue_depth.value_string() +
                    " descriptors); descriptor " + describe({m_src, m_dst, m_len, false}) + " not queued");
      return tlm::TLM_GENERIC_ERROR_RESPONSE;
    }
    control(v);
    return tlm::TLM_OK_RESPONSE;
  });
  bank().add(
      DMA_STATUS, "STATUS", [this] { return status(); },
      [this](uint32_t v) {
        if (v & DMA_STATUS_DONE) m_done_flag = false;
        if ((v & DMA_STATUS_ERROR) && m_error) {
          m_error = false;
          m_kick.notify(sc_core::SC_ZERO_TIME);  // the queue may run again
        }
        update_irqs();
      });
  bank().add(
      DMA_DONE_COUNT, "DONE_COUNT", [this] { return m_done_count; }, nullptr);
  bank().add(
      DMA_ERR_ADDR, "ERR_ADDR", [this] { return m_err_addr; }, nullptr);
  bank().add(
      DMA_ERR_CAUSE, "ERR_CAUSE", [this] { return m_err_cause; }, nullptr);
  bank().add(
      DMA_CONFIG, "CONFIG", [this] { return static_cast<uint32_t>(queue_depth.get() | burst_bytes.get() << 16); },
      nullptr);
}

void DmaEngine::control(uint32_t v) {
  if (v & DMA_CTRL_FLUSH) m_queue.clear();
  if (!(v & DMA_CTRL_START)) return;
  Descriptor d{m_src, m_dst, m_len, (v & DMA_CTRL_IRQ) != 0};
  if (d.len == 0) {
    ++m_stats.errors;
    m_error = true;
    m_err_cause = DMA_ERR_LEN;
    m_err_addr = m_src;
    m_log.warning("descriptor " + describe(d) + " refused: LEN is 0");
    update_irqs();
    m_done_event.notify(sc_core::SC_ZERO_TIME);
    return;
  }
  if ((v & DMA_CTRL_TRACED) && m_probe) {
    d.msg = m_probe.observer->resolve(DMA_CTRL_TRACE_TAG(v));
    const Port from = port(d.src), to = port(d.dst);
    // Into a TX channel, out of an RX channel, or anything else (records).
    MessagePoint queued = MessagePoint::RecordQueued;
    if (to.netbuf && to.tx) {
      queued = MessagePoint::TxDmaQueued;
      d.done_point = MessagePoint::TxDmaDone;
    } else if (from.netbuf && !from.tx) {
      queued = MessagePoint::RxDmaQueued;
      d.done_point = MessagePoint::RxDmaDone;
    }
    m_probe(queued, d.msg, access_time().value());
  }
  if (m_log.debug_enabled()) m_log.debug("descriptor " + describe(d) + " queued");
  m_queue.push_back(d);  // the CTRL write made sure there is room
  m_kick.notify(sc_core::SC_ZERO_TIME);
}

void DmaEngine::update_irqs() {
  irq_done.set(m_done_flag);
  irq_error.set(m_error);
}

std::string DmaEngine::describe_state() const {
  std::string r = std::string(name()) + ": " + (m_error ? "stopped on an error" : m_active ? "busy" : "idle");
  if (m_active) r += ", now " + describe(m_cur);
  r += "\n  queue: " + std::to_string(m_queue.size()) + " of " + std::to_string(queue_depth.get()) +
       " descriptors waiting\n";
  for (const Descriptor& d : m_queue) r += "    " + describe(d) + (d.irq ? " irq" : "") + "\n";
  r += "  done: " + std::to_string(m_done_count) + " descriptors, " + std::to_string(m_stats.bytes) + " bytes, " +
       std::to_string(m_stats.errors) + " errors\n";
  return r;
}

std::string DmaEngine::describe(const Descriptor& d) const {
  return "src=" + hex(d.src, 8) + " dst=" + hex(d.dst, 8) + " len=" + std::to_string(d.len);
}

// ---------------------------------------------------------------- engine

DmaEngine::Port DmaEngine::port(uint64_t addr) const {
  Port p;
  p.host = addr >= NI_HOST_WINDOW_BASE && addr - NI_HOST_WINDOW_BASE < NI_HOST_WINDOW_SIZE;
  if (!m_netbuf) return p;
  for (unsigned c = 0; c < NI_NETBUF_CHANNELS; ++c) {
    if (addr >= NI_NETBUF_TX_WINDOW(c) && addr - NI_NETBUF_TX_WINDOW(c) < NI_NETBUF_WINDOW_SIZE)
      p.netbuf = true, p.tx = true, p.ch = c;
    if (addr >= NI_NETBUF_RX_WINDOW(c) && addr - NI_NETBUF_RX_WINDOW(c) < NI_NETBUF_WINDOW_SIZE)
      p.netbuf = true, p.tx = false, p.ch = c;
  }
  return p;
}

// Size of the next transaction at `addr` with `left` bytes to go; `partial`
// tells whether it is a host head or tail (charged the misalignment penalty).
unsigned DmaEngine::piece(const Port& p, uint64_t addr, uint64_t left, bool& partial) const {
  const uint64_t burst = std::min<uint64_t>(left, burst_bytes.get());
  partial = false;
  if (!p.host) return static_cast<unsigned>(burst);
  const uint64_t line = host_align_bytes.get(), page = host_page_bytes.get();
  const uint64_t pci = addr - NI_HOST_WINDOW_BASE;
  partial = true;
  if (pci % line) return static_cast<unsigned>(std::min(burst, line - pci % line));  // head
  if (left < line) return static_cast<unsigned>(left);                               // tail
  partial = false;
  return static_cast<unsigned>(std::min({burst, page - pci % page, left - left % line}));
}

bool DmaEngine::transact(tlm::tlm_generic_payload& t, tlm::tlm_command cmd, uint64_t addr, uint8_t* data, unsigned n,
                         bool partial) {
  t.set_command(cmd);
  t.set_address(addr);
  t.set_data_ptr(data);
  t.set_data_length(n);
  t.set_streaming_width(n);
  t.set_byte_enable_ptr(nullptr);
  t.set_dmi_allowed(false);
  t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  const sc_core::sc_time start = sc_core::sc_time_stamp();
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  master->b_transport(t, delay);  // an AT target may also wait in here
  sc_core::sc_time cost = m_overhead + sc_core::sc_time(n * m_ns_per_byte, sc_core::SC_NS) + delay;
  if (partial) cost += m_penalty;
  wait(cost);
  const bool read = cmd == tlm::TLM_READ_COMMAND;
  (read ? m_stats.read_busy : m_stats.write_busy) += sc_core::sc_time_stamp() - start;
  ++(read ? m_stats.read_transactions : m_stats.write_transactions);
  if (partial) ++m_stats.partial_transactions;
  return t.is_response_ok();
}

void DmaEngine::fail(uint32_t cause, uint64_t addr, const std::string& what) {
  ++m_stats.errors;
  m_error = true;
  m_abort = true;
  m_err_cause = cause;
  m_err_addr = static_cast<uint32_t>(addr);
  m_log.warning(what + " in descriptor " + describe(m_cur) + "; the queue waits until STATUS.ERROR is cleared");
  update_irqs();
  m_wake.notify();
}

void DmaEngine::control_thread() {
  for (;;) {
    while (m_error || m_queue.empty()) wait(m_kick);
    m_cur = m_queue.front();
    m_queue.pop_front();
    m_active = true;
    m_stats.last_start = sc_core::sc_time_stamp();
    wait(m_setup);
    m_abort = false;
    m_rd_tag.id = m_wr_tag.id = m_cur.msg;
    m_fifo.clear();
    m_reader_go = m_reader_running = true;
    m_read_start.notify();
    write_descriptor();
    while (m_reader_running) wait(m_wake);
    m_active = false;
    m_stats.last_end = sc_core::sc_time_stamp();
    if (!m_abort) {
      ++m_done_count;
      ++m_stats.descriptors;
      m_stats.bytes += m_cur.len;
      if (m_cur.irq) m_done_flag = true;
      m_probe(m_cur.done_point, m_cur.msg, sc_core::sc_time_stamp().value());
    }
    m_rd_tag.id = m_wr_tag.id = 0;
    update_irqs();
    m_done_event.notify(sc_core::SC_ZERO_TIME);
  }
}

// The writer: the control thread's part of a descriptor.
void DmaEngine::write_descriptor() {
  const Port p = port(m_cur.dst);
  const uint64_t bus_addr = p.netbuf ? (p.tx ? NI_NETBUF_TX_WINDOW(p.ch) : NI_NETBUF_RX_WINDOW(p.ch)) : 0;
  uint64_t addr = m_cur.dst, left = m_cur.len;
  while (left && !m_abort) {
    bool partial;
    const unsigned n = piece(p, addr, left, partial);
    while (!m_abort && m_fifo.size() < n) wait(m_wake);
    if (p.netbuf && p.tx)
      while (!m_abort && m_netbuf->tx_free(p.ch) < n) wait(m_netbuf->tx_space_event(p.ch) | m_wake);
    if (m_abort) return;
    m_fifo.pop(m_wr_buf.data(), n);
    m_wake.notify();
    const uint64_t a = p.netbuf ? bus_addr : addr;
    if (!transact(m_wr_trans, tlm::TLM_WRITE_COMMAND, a, m_wr_buf.data(), n, partial)) {
      if (!m_abort)  // else the reader failed first
        fail(DMA_ERR_WRITE, a,
             "write of " + std::to_string(n) + " bytes at " + hex(a, 8) + " failed (" +
                 m_wr_trans.get_response_string() + ")");
      return;
    }
    if (!p.netbuf) addr += n;
    left -= n;
  }
}

void DmaEngine::reader_thread() {
  for (;;) {
    while (!m_reader_go) wait(m_read_start);
    m_reader_go = false;
    const Port p = port(m_cur.src);
    const uint64_t bus_addr = p.netbuf ? (p.tx ? NI_NETBUF_TX_WINDOW(p.ch) : NI_NETBUF_RX_WINDOW(p.ch)) : 0;
    uint64_t addr = m_cur.src, left = m_cur.len;
    while (left && !m_abort) {
      bool partial;
      const unsigned n = piece(p, addr, left, partial);
      while (!m_abort && m_fifo.free() < n) wait(m_wake);
      if (p.netbuf && !p.tx)
        while (!m_abort && m_netbuf->rx_available(p.ch) < n) wait(m_netbuf->rx_data_event(p.ch) | m_wake);
      if (m_abort) break;
      const uint64_t a = p.netbuf ? bus_addr : addr;
      if (!transact(m_rd_trans, tlm::TLM_READ_COMMAND, a, m_rd_buf.data(), n, partial)) {
        if (!m_abort)
          fail(DMA_ERR_READ, a,
               "read of " + std::to_string(n) + " bytes at " + hex(a, 8) + " failed (" +
                   m_rd_trans.get_response_string() + ")");
        break;
      }
      if (m_abort) break;  // the writer failed meanwhile
      m_fifo.push(m_rd_buf.data(), n);
      m_wake.notify();
      if (!p.netbuf) addr += n;
      left -= n;
    }
    m_reader_running = false;
    m_wake.notify();
  }
}

}  // namespace m2
