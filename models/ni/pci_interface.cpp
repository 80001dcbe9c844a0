#include "ni/pci_interface.h"

#include <algorithm>
#include <string>

#include <ip/ni_memory_map.h>
#include <ip/pci_map.h>

namespace m2 {

namespace {

// Forwards `t` at `addr` through `socket` and gives it back with its own
// address; keeps data, length and the response of the far side. No DMI
// hint: accesses through the interface must stay timed.
template <typename Socket>
void forward(Socket& socket, tlm::tlm_generic_payload& t, uint64_t addr, sc_core::sc_time& delay) {
  const uint64_t own = t.get_address();
  t.set_address(addr);
  socket->b_transport(t, delay);
  t.set_address(own);
  t.set_dmi_allowed(false);
}

template <typename Socket>
unsigned forward_dbg(Socket& socket, tlm::tlm_generic_payload& t, uint64_t addr) {
  const uint64_t own = t.get_address();
  t.set_address(addr);
  const unsigned n = socket->transport_dbg(t);
  t.set_address(own);
  return n;
}

bool fits(const tlm::tlm_generic_payload& t, uint64_t size) {
  return t.get_address() < size && t.get_data_length() <= size - t.get_address();
}

}  // namespace

NiPciInterface::NiPciInterface(sc_core::sc_module_name name, TimingStyle style)
    : Peripheral(name,
                 [] {
                   Options o;
                   o.access_description = "device latency per NI-side register access";
                   return o;
                 }()),
      bar0("bar0"),
      bar1("bar1"),
      local("local"),
      host_window("host_window"),
      pci_master("pci_master"),
      target_latency_ns(this->name(), "target_latency_ns", 0.0, "ns",
                        "added to each host access through BAR0/BAR1 (the PCI bus charges the protocol)",
                        Range<double>{0, 1e6}),
      master_latency_ns(this->name(), "master_latency_ns", 0.0, "ns",
                        "added to each NI access through the host window (the PCI bus charges the protocol)",
                        Range<double>{0, 1e6}),
      m_host_regs(std::string(this->name()) + ".bar1", ByteOrder::Little),
      m_style(style),
      m_nb_master(this->name()) {
  if (m_style == TimingStyle::AT) pci_master.register_nb_transport_bw(this, &NiPciInterface::master_nb_transport_bw);
  bar0.register_b_transport(this, &NiPciInterface::b_transport_bar0);
  bar0.register_transport_dbg(this, &NiPciInterface::transport_dbg_bar0);
  bar1.register_b_transport(this, &NiPciInterface::b_transport_bar1);
  host_window.register_b_transport(this, &NiPciInterface::b_transport_window);
  host_window.register_transport_dbg(this, &NiPciInterface::transport_dbg_window);
  bar1.register_transport_dbg(this, &NiPciInterface::transport_dbg_bar1);
  m_target_latency = sc_core::sc_time(target_latency_ns.get(), sc_core::SC_NS);
  m_master_latency = sc_core::sc_time(master_latency_ns.get(), sc_core::SC_NS);
  add_registers();
  SC_METHOD(apply_due_host_writes);
  sensitive << m_host_write_due;
  dont_initialize();
}

void NiPciInterface::add_registers() {
  for (RegisterBank* bank : {&bank(), &m_host_regs})
    bank->add(
        NIPCI_ID, "ID", [] { return NIPCI_ID_VALUE; }, nullptr);
  // The host rings, the NI acknowledges.
  m_host_regs.add(
      NIPCI_DOORBELL, "DOORBELL", [this] { return m_doorbell; },
      [this](uint32_t v) {
        m_doorbell |= v;
        update_irqs();
      });
  bank().add(
      NIPCI_DOORBELL, "DOORBELL", [this] { return m_doorbell; },
      [this](uint32_t v) {
        m_doorbell &= ~v;
        update_irqs();
      });
  // The NI raises, the host acknowledges.
  bank().add(
      NIPCI_HOST_IRQ, "HOST_IRQ", [this] { return m_host_irq; },
      [this](uint32_t v) {
        m_host_irq |= v;
        update_irqs();
      });
  m_host_regs.add(
      NIPCI_HOST_IRQ, "HOST_IRQ", [this] { return m_host_irq; },
      [this](uint32_t v) {
        m_host_irq &= ~v;
        update_irqs();
      });
  for (unsigned i = 0; i < NIPCI_MAILBOXES; ++i) {
    uint32_t& m = m_mailbox[i];
    for (RegisterBank* bank : {&bank(), &m_host_regs})
      bank->add(
          NIPCI_MAILBOX(i), "MAILBOX" + std::to_string(i), [&m] { return m; }, [&m](uint32_t v) { m = v; });
  }
}

void NiPciInterface::update_irqs() {
  irq_doorbell.set(m_doorbell != 0);
  inta.set(m_host_irq != 0);
}

// A host write into the NI (a request, a doorbell) for the message breakdown.
void NiPciInterface::report_request(const tlm::tlm_generic_payload& t, const sc_core::sc_time& delay) {
  if (m_probe && t.is_write())
    m_probe(MessagePoint::RequestIn, message_of(t), (sc_core::sc_time_stamp() + delay).value());
}

void NiPciInterface::b_transport_bar0(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  if (!fits(t, PCI_NI_BAR0_SIZE)) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  delay += m_target_latency;
  forward(local, t, NI_SDRAM_BASE + t.get_address(), delay);
  report_request(t, delay);
}

unsigned NiPciInterface::transport_dbg_bar0(tlm::tlm_generic_payload& t) {
  if (t.get_address() >= PCI_NI_BAR0_SIZE) return 0;
  return forward_dbg(local, t, NI_SDRAM_BASE + t.get_address());
}

void NiPciInterface::b_transport_bar1(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  delay += m_target_latency;
  report_request(t, delay);
  if (t.is_write() && delay > sc_core::SC_ZERO_TIME && t.get_data_length() <= 8 && !t.get_byte_enable_ptr()) {
    // Posted: accepted now, applied at its time (a write that fails then is
    // lost and logged, as a posted write on PCI).
    HostWrite w;
    w.due = sc_core::sc_time_stamp() + delay;
    w.address = t.get_address();
    w.length = t.get_data_length();
    std::copy_n(t.get_data_ptr(), w.length, w.data.begin());
    m_host_writes.push_back(w);
    m_host_write_due.notify(m_host_writes.front().due - sc_core::sc_time_stamp());
    t.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  apply_host_writes(true);  // earlier on the bus than this access
  m_host_regs.access(t);
}

void NiPciInterface::apply_due_host_writes() { apply_host_writes(false); }

void NiPciInterface::apply_host_writes(bool all) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  while (!m_host_writes.empty() && (all || m_host_writes.front().due <= now)) {
    HostWrite w = m_host_writes.front();
    m_host_writes.pop_front();
    tlm::tlm_generic_payload t;
    t.set_command(tlm::TLM_WRITE_COMMAND);
    t.set_address(w.address);
    t.set_data_ptr(w.data.data());
    t.set_data_length(w.length);
    t.set_streaming_width(w.length);
    t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    m_host_regs.access(t);  // a failure is logged by the register bank
  }
  if (!m_host_writes.empty()) m_host_write_due.notify(m_host_writes.front().due - now);
}

void NiPciInterface::b_transport_window(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  if (!fits(t, NI_HOST_WINDOW_SIZE)) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  delay += m_master_latency;
  if (m_style == TimingStyle::LT) {
    forward(pci_master, t, t.get_address(), delay);  // PCI address = window offset
    return;
  }
  // AT: the same transaction, through the four phases; the window offset is
  // already the PCI address.
  m_nb_master.transport(*pci_master.operator->(), t, delay);
  t.set_dmi_allowed(false);
}

unsigned NiPciInterface::transport_dbg_window(tlm::tlm_generic_payload& t) {
  if (t.get_address() >= NI_HOST_WINDOW_SIZE) return 0;
  return forward_dbg(pci_master, t, t.get_address());
}

}  // namespace m2
