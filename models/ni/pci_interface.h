// The NI card's PCI interface (ip/ni_pci.h), both directions:
//  - PCI target: the host reaches NI SDRAM through BAR0 (forwarded onto the
//    NI bus at NI_SDRAM_BASE + offset) and the interface's register page
//    through BAR1 (little-endian, PCI's byte order);
//  - PCI master: NI bus accesses to the host window (NI_HOST_WINDOW_BASE + a)
//    go out on the PCI bus at address a (host memory, other cards).
// The register page (doorbell, host interrupt, mailboxes) is one register file
// seen by the NI's PowerPC at NI_PCIIF_BASE (big-endian) and by the host
// through BAR1; a write's effect depends on the side.
// In AT the master side speaks the base protocol's four phases on the PCI
// bus (core/nb_caller.h): the DMA engine's transactions to the host window
// are AT transactions there. The BARs answer b_transport (the standard's
// simple socket converts a BEGIN_REQ into it).
// Forwarding keeps the payload (data, length, response) and the caller's
// delay, adds this interface's latency, restores the address; no DMI (every
// PCI access is timed by the bus).
// A host write to the register page takes effect at the time its annotation
// says it arrives (a loosely timed bus hands it over early): a doorbell rung
// over a slower bus interrupts the NI later.
#pragma once

#include <array>
#include <cstdint>
#include <deque>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <ip/ni_pci.h>

#include "core/irq.h"
#include "core/nb_caller.h"
#include "core/params.h"
#include "core/peripheral.h"
#include "core/register_bank.h"
#include "core/timing_style.h"
#include "trace/message_tag.h"

namespace m2 {

class NiPciInterface : public Peripheral {
 public:
  // PCI target side: attached by the platform on the PCI bus at
  // PCI_NI_BAR0(n) (PCI_NI_BAR0_SIZE) and PCI_NI_BAR1(n) (PCI_NI_BAR1_SIZE);
  // addresses relative to the BAR.
  tlm_utils::simple_target_socket<NiPciInterface> bar0;
  tlm_utils::simple_target_socket<NiPciInterface> bar1;
  // BAR0's way into the NI: bound to the NI bus.
  tlm_utils::simple_initiator_socket<NiPciInterface> local;

  // PCI master side: `host_window` is attached on the NI bus at
  // NI_HOST_WINDOW_BASE (NI_HOST_WINDOW_SIZE); `pci_master` is bound to the
  // PCI bus.
  tlm_utils::simple_target_socket<NiPciInterface> host_window;
  tlm_utils::simple_initiator_socket<NiPciInterface> pci_master;

  // The NI's view of the register page: Peripheral::regs (bank()), attached
  // at NI_PCIIF_BASE; access_ns is its latency per access.

  Param<double> target_latency_ns;
  Param<double> master_latency_ns;

  IrqLine irq_doorbell;  // to the NI interrupt controller: a doorbell is pending
  IrqLine inta;          // PCI INTA# to the host: HOST_IRQ != 0

  SC_HAS_PROCESS(NiPciInterface);
  explicit NiPciInterface(sc_core::sc_module_name name, TimingStyle style = TimingStyle::LT);

  uint32_t doorbell() const { return m_doorbell; }
  uint32_t host_irq() const { return m_host_irq; }
  uint32_t mailbox(unsigned i) const { return m_mailbox.at(i); }

  // Message tracing: a host write (BAR0 or BAR1) carrying a MessageTag is a
  // piece of that message's request: reported when it is in
  // (MessagePoint::RequestIn). Off without a probe.
  void set_message_probe(MessageProbe probe) { m_probe = probe; }

 private:
  void b_transport_bar0(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  unsigned transport_dbg_bar0(tlm::tlm_generic_payload& t);
  void b_transport_bar1(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  void b_transport_window(tlm::tlm_generic_payload& t, sc_core::sc_time& delay);
  unsigned transport_dbg_window(tlm::tlm_generic_payload& t);
  unsigned transport_dbg_bar1(tlm::tlm_generic_payload& t) { return m_host_regs.debug_read(t); }
  tlm::tlm_sync_enum master_nb_transport_bw(tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                            sc_core::sc_time& delay) {
    return m_nb_master.nb_transport_bw(t, phase, delay);
  }
  void add_registers();
  void update_irqs();
  void report_request(const tlm::tlm_generic_payload& t, const sc_core::sc_time& delay);
  void apply_due_host_writes();  // SC_METHOD on m_host_write_due
  void apply_host_writes(bool all);

  // A host register write waiting for its time (at most 8 bytes: registers are 32-bit).
  struct HostWrite {
    sc_core::sc_time due;
    uint64_t address = 0;
    std::array<unsigned char, 8> data{};
    unsigned length = 0;
  };
  std::deque<HostWrite> m_host_writes;  // in bus order, so in order of `due`
  sc_core::sc_event m_host_write_due;

  sc_core::sc_time m_target_latency, m_master_latency;  // the parameters, as times
  uint32_t m_doorbell = 0, m_host_irq = 0;
  std::array<uint32_t, NIPCI_MAILBOXES> m_mailbox{};
  RegisterBank m_host_regs;  // the host's view (BAR1), little-endian
  MessageProbe m_probe;
  const TimingStyle m_style;
  NbCaller m_nb_master;
};

}  // namespace m2
