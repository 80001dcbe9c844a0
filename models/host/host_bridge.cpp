#include "host/host_bridge.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "core/log.h"

namespace m2 {

using sc_core::sc_time;
using sc_core::SC_ZERO_TIME;

HostBridge::HostBridge(sc_core::sc_module_name name, TimingStyle style)
    : sc_module(name),
      cpu_side("cpu_side"),
      pci_master("pci_master"),
      pci_target("pci_target"),
      memory_side("memory_side"),
      posted_write_ns(this->name(), "posted_write_ns", 30.0, "ns",
                      "CPU time to post a write into the bridge (assumed: 4 front-side bus clocks at 133 MHz)",
                      Range<double>{0, 1e6}),
      write_buffer_depth(this->name(), "write_buffer_depth", 4, "writes",
                         "CPU-to-PCI posted write buffer: writes the bridge holds before the CPU must wait "
                         "(assumed, 440BX-class chipset)",
                         Range<uint64_t>{1, 1024}),
      read_latency_ns(this->name(), "read_latency_ns", 60.0, "ns",
                      "the bridge's part of a CPU read besides the PCI transaction: front-side bus request "
                      "and data return (assumed: 8 FSB clocks at 133 MHz)",
                      Range<double>{0, 1e6}),
      memory_latency_ns(this->name(), "memory_latency_ns", 150.0, "ns",
                        "host memory and chipset latency of a DMA read from host memory before its data "
                        "flows (assumed: PC133 SDRAM access plus front-side bus snoop)",
                        Range<double>{0, 1e6}),
      read_retry_ns(this->name(), "read_retry_ns", 300.0, "ns",
                    "extra first-data latency of a DMA read that does not continue the previous one: the bridge "
                    "answers Retry (PCI 2.2 delayed transaction, 3.3.3.3), fetches across its I/O bridge and the "
                    "front-side bus, and completes on the master's retry (assumed: ServerWorks-class chipset; with "
                    "memory_latency_ns, 450 ns to first data, as Myricom's ~60 PCI-X clocks at 133 MHz for hosts "
                    "of 2003)",
                    Range<double>{0, 1e6}),
      m_style(style),
      m_nb_master(this->name()),
      m_dma_peq(this, &HostBridge::dma_act) {
  m_posted = sc_time(posted_write_ns.get(), sc_core::SC_NS);
  m_read_latency = sc_time(read_latency_ns.get(), sc_core::SC_NS);
  m_memory_latency = sc_time(memory_latency_ns.get(), sc_core::SC_NS);
  m_read_retry = sc_time(read_retry_ns.get(), sc_core::SC_NS);
  cpu_side.register_b_transport(this, &HostBridge::cpu_b_transport);
  cpu_side.register_transport_dbg(this, &HostBridge::cpu_transport_dbg);
  pci_master.register_invalidate_direct_mem_ptr(this, &HostBridge::ignore_invalidate);
  pci_target.register_b_transport(this, &HostBridge::dma_b_transport);
  pci_target.register_get_direct_mem_ptr(this, &HostBridge::dma_get_direct_mem_ptr);
  pci_target.register_transport_dbg(this, &HostBridge::dma_transport_dbg);
  memory_side.register_invalidate_direct_mem_ptr(this, &HostBridge::memory_invalidate);
  if (m_style == TimingStyle::AT) {
    pci_master.register_nb_transport_bw(this, &HostBridge::master_nb_transport_bw);
    pci_target.register_nb_transport_fw(this, &HostBridge::dma_nb_transport_fw);
    SC_THREAD(write_thread);
  }
}

void HostBridge::bus_transport(tlm::tlm_generic_payload& t, sc_time& delay) {
  if (m_style == TimingStyle::AT) m_nb_master.transport(*pci_master.operator->(), t, delay);
  else pci_master->b_transport(t, delay);
}

// --- CPU side ---------------------------------------------------------------

void HostBridge::cpu_b_transport(tlm::tlm_generic_payload& t, sc_time& delay) {
  if (t.is_read()) {
    cpu_read(t, delay);
  } else if (t.is_write()) {
    m_stats.cpu_writes++;
    if (m_style == TimingStyle::AT) cpu_write_at(t, delay);
    else cpu_write_lt(t, delay);
  } else {
    pci_master->b_transport(t, delay);  // TLM_IGNORE: no bus cycle, nothing to order
  }
}

void HostBridge::cpu_read(tlm::tlm_generic_payload& t, sc_time& delay) {
  m_stats.cpu_reads++;
  if (m_style == TimingStyle::AT) {
    if (delay != SC_ZERO_TIME) sc_core::wait(delay);
    delay = SC_ZERO_TIME;
    const sc_time asked = sc_core::sc_time_stamp();
    while (!m_buffer.empty()) sc_core::wait(m_write_done_event);
    m_stats.drain_time += sc_core::sc_time_stamp() - asked;
    bus_transport(t, delay);  // arbitration and transfer, in SystemC time
  } else {
    // The read starts on the bus once the posted writes are through.
    const sc_time now = sc_core::sc_time_stamp() + delay;
    const sc_time start = std::max(now, m_master_free);
    const sc_time offset = start - sc_core::sc_time_stamp();
    sc_time at = offset;
    pci_master->b_transport(t, at);
    const sc_time bus = at - offset;
    m_master_free = start + bus;
    m_write_done.clear();
    m_stats.drain_time += start - now;
    delay += (start - now) + bus;
  }
  delay += m_read_latency;
}

void HostBridge::cpu_write_lt(tlm::tlm_generic_payload& t, sc_time& delay) {
  const sc_time now = sc_core::sc_time_stamp() + delay;
  sc_time posted = now + m_posted;  // when the write enters the buffer
  auto retire = [&](const sc_time& at) {
    while (!m_write_done.empty() && m_write_done.front() <= at) m_write_done.pop_front();
  };
  retire(posted);
  const size_t depth = write_buffer_depth.get();
  if (m_write_done.size() >= depth) {
    // Full: the CPU waits until enough older writes are through.
    const sc_time slot = m_write_done[m_write_done.size() - depth];
    m_stats.write_stalls++;
    m_stats.stall_time += slot - posted;
    posted = slot;
    retire(posted);
  }
  // The bus time is booked behind the earlier writes. The data is visible at
  // once (LT), but the target is told when the write is on the bus, so that
  // what it triggers (a doorbell interrupt) happens then.
  const sc_time start = std::max(posted, m_master_free);
  const sc_time offset = start - sc_core::sc_time_stamp();
  sc_time at = offset;
  pci_master->b_transport(t, at);
  m_master_free = start + (at - offset);
  m_write_done.push_back(m_master_free);
  delay += posted - now;
  check_posted(t);
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

void HostBridge::cpu_write_at(tlm::tlm_generic_payload& t, sc_time& delay) {
  sc_core::wait(delay + m_posted);
  delay = SC_ZERO_TIME;
  if (m_buffer.size() >= write_buffer_depth.get()) {
    const sc_time asked = sc_core::sc_time_stamp();
    m_stats.write_stalls++;
    while (m_buffer.size() >= write_buffer_depth.get()) sc_core::wait(m_write_done_event);
    m_stats.stall_time += sc_core::sc_time_stamp() - asked;
  }
  // The bridge keeps its own copy: the CPU may reuse its payload at once.
  PostedWrite w;
  w.address = t.get_address();
  w.data.assign(t.get_data_ptr(), t.get_data_ptr() + t.get_data_length());
  if (t.get_byte_enable_ptr())
    w.byte_enable.assign(t.get_byte_enable_ptr(), t.get_byte_enable_ptr() + t.get_byte_enable_length());
  w.streaming_width = t.get_streaming_width();
  w.msg = message_of(t);
  m_buffer.push_back(std::move(w));
  m_write_posted.notify();
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

void HostBridge::write_thread() {
  for (;;) {
    while (m_buffer.empty()) sc_core::wait(m_write_posted);
    PostedWrite& w = m_buffer.front();  // stays valid: the CPU only appends
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(w.address);
    t.set_data_ptr(w.data.data());
    t.set_data_length(static_cast<unsigned>(w.data.size()));
    t.set_streaming_width(w.streaming_width);
    t.set_byte_enable_ptr(w.byte_enable.empty() ? nullptr : w.byte_enable.data());
    t.set_byte_enable_length(static_cast<unsigned>(w.byte_enable.size()));
    t.set_dmi_allowed(false);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    MessageTag tag;
    tag.id = w.msg;
    t.set_extension(&tag);
    sc_time delay = SC_ZERO_TIME;
    bus_transport(t, delay);
    t.clear_extension(&tag);
    if (delay != SC_ZERO_TIME) sc_core::wait(delay);
    check_posted(t);
    m_buffer.pop_front();
    m_write_done_event.notify();
  }
}

// A posted write that fails is lost, as on PCI (the bridge would only set a
// status bit): counted and logged, never reported to the CPU.
void HostBridge::check_posted(const tlm::tlm_generic_payload& t) {
  if (t.get_response_status() == tlm::TLM_OK_RESPONSE) return;
  m_stats.posted_write_errors++;
  char msg[160];
  std::snprintf(msg, sizeof msg, "posted write of %u bytes to PCI address 0x%08" PRIx64 " lost: %s",
                t.get_data_length(), static_cast<uint64_t>(t.get_address()), t.get_response_string().c_str());
  m_log.warning(msg);
}

unsigned int HostBridge::cpu_transport_dbg(tlm::tlm_generic_payload& t) { return pci_master->transport_dbg(t); }

// --- PCI target side: DMA into host memory ------------------------------------

void HostBridge::dma_b_transport(tlm::tlm_generic_payload& t, sc_time& delay) {
  // Reads wait for memory before the first data; writes are posted into
  // memory by the bridge and cost the bus nothing extra.
  if (t.is_read()) {
    delay += m_memory_latency;
    // A read that continues the last one finds its lines already coming
    // (Memory Read Multiple prefetch); any other starts a delayed transaction.
    if (t.get_address() != m_prefetch_next) {
      delay += m_read_retry;
      m_stats.dma_read_retries++;
    }
    m_prefetch_next = t.get_address() + t.get_data_length();
  }
  memory_side->b_transport(t, delay);
  if (t.is_write() && t.is_response_ok() && m_on_memory_write) m_on_memory_write(delay);
  if (t.is_read()) m_stats.dma_reads++;
  else if (t.is_write()) m_stats.dma_writes++;
  m_stats.dma_bytes += t.get_data_length();
}

// AT target: the bridge claims the transaction at once (END_REQ); at the
// time the bus annotates it acts on host memory, as dma_b_transport does,
// and answers BEGIN_RESP after that access's latency (host memory, and for a
// read that does not continue the prefetch stream the delayed transaction):
// the bus holds those as wait states.
tlm::tlm_sync_enum HostBridge::dma_nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase, sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) {
    m_dma_peq.notify(t, phase, delay);
    phase = tlm::END_REQ;
    return tlm::TLM_UPDATED;
  }
  if (phase == tlm::END_RESP) return tlm::TLM_COMPLETED;
  t.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
  m_log.error("phase other than BEGIN_REQ or END_RESP on the host-memory target's forward path");
  return tlm::TLM_COMPLETED;
}

void HostBridge::dma_act(tlm::tlm_generic_payload& t, const tlm::tlm_phase&) {
  sc_time latency = SC_ZERO_TIME;
  dma_b_transport(t, latency);
  tlm::tlm_phase phase = tlm::BEGIN_RESP;
  pci_target->nb_transport_bw(t, phase, latency);  // taken at once, or ended later by END_RESP
}

bool HostBridge::dma_get_direct_mem_ptr(tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
  const bool ok = memory_side->get_direct_mem_ptr(t, dmi);
  dmi.set_read_latency(dmi.get_read_latency() + m_memory_latency);
  return ok;
}

unsigned int HostBridge::dma_transport_dbg(tlm::tlm_generic_payload& t) { return memory_side->transport_dbg(t); }

void HostBridge::memory_invalidate(sc_dt::uint64 start, sc_dt::uint64 end) {
  pci_target->invalidate_direct_mem_ptr(start, end);
}

}  // namespace m2
