#include "pci/pci_bus.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/ip_variant.h"
#include "ip/pci_variants.h"

namespace m2 {

using sc_core::sc_time;

PciBus::PciBus(sc_core::sc_module_name name, TimingStyle style)
    : sc_module(name),
      target("target"),
      initiator("initiator"),
      variant(this->name(), "variant", "pci64-66",
              "bus generation: pci64-66 (Maestro2's host), pci32-33 (the first Maestro's)", pci_variants()),
      clock_mhz(this->name(), "clock_mhz", 66.0, "MHz", "bus clock", Range<double>{1, 1000}),
      width_bits(this->name(), "width_bits", 64, "bit", "data path width: 32 or 64 (bytes per data phase x 8)",
                 Range<uint64_t>{32, 64}),
      arbitration_clocks(this->name(), "arbitration_clocks", 2, "clocks",
                         "REQ# to the address phase when the bus is idle (hidden when another master held it)",
                         Range<uint64_t>{0, 64}),
      address_clocks(this->name(), "address_clocks", 1, "clocks", "address phase (2 with dual address cycles)",
                     Range<uint64_t>{1, 2}),
      read_initial_clocks(this->name(), "read_initial_clocks", 10, "clocks",
                          "target initial latency of a read: clocks after the address phase "
                          "before the first data phase",
                          Range<uint64_t>{0, 255}),
      write_initial_clocks(this->name(), "write_initial_clocks", 2, "clocks",
                           "target initial latency of a write: clocks after the address phase "
                           "before the first data phase",
                           Range<uint64_t>{0, 255}),
      latency_timer_clocks(this->name(), "latency_timer_clocks", 64, "clocks",
                           "latency timer: a burst ends this many clocks after its address phase began; "
                           "the master re-arbitrates for the rest",
                           Range<uint64_t>{0, 255}),
      turnaround_clocks(this->name(), "turnaround_clocks", 1, "clocks", "idle clock(s) after each burst",
                        Range<uint64_t>{0, 8}),
      m_style(style),
      m_map(this->name()),
      m_request_peq(this, &PciBus::request_arrived),
      m_responses([this](unsigned port, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                         sc_time& d) { return target[port]->nb_transport_bw(t, phase, d); },
                  [this](tlm::tlm_generic_payload& t) { finish(m_at.at(&t).get()); },
                  [this](unsigned port, const std::string& what, const std::string& how) {
                    protocol_error(what + " from master " + stats(port).name + " " + how);
                  }) {
  if (width_bits.get() != 32 && width_bits.get() != 64)
    throw ConfigError(std::string(this->name()) + ".width_bits: expected 32 or 64, got " + width_bits.value_string());
  target.register_b_transport(this, &PciBus::b_transport);
  target.register_get_direct_mem_ptr(this, &PciBus::get_direct_mem_ptr);
  target.register_transport_dbg(this, &PciBus::transport_dbg);
  initiator.register_invalidate_direct_mem_ptr(this, &PciBus::invalidate_direct_mem_ptr);
  if (m_style == TimingStyle::AT) {
    target.register_nb_transport_fw(this, &PciBus::nb_transport_fw);
    initiator.register_nb_transport_bw(this, &PciBus::nb_transport_bw);
    SC_THREAD(sequencer);
  } else {
    // Every target of the base protocol answers both interfaces, as the
    // standard asks of it: an AT master (one that calls nb_transport only)
    // works on the LT bus too.
    target.register_nb_transport_fw(this, &PciBus::nb_transport_fw_lt);
  }
}

void PciBus::end_of_elaboration() {
  if (m_stats.size() < target.size()) stats(target.size() - 1);
  // Masters bound without a name report as "master<port>".
  for (unsigned port = 0; port < m_stats.size(); ++port)
    if (port >= m_master_stat_decls.size() || m_master_stat_decls[port].empty()) declare_master_stats(port);
}

void PciBus::name_master(unsigned port, const std::string& name) {
  stats(port).name = name;
  declare_master_stats(port);
}

void PciBus::declare_master_stats(unsigned port) {
  if (m_master_stat_decls.size() <= port) m_master_stat_decls.resize(port + 1);
  auto& decls = m_master_stat_decls[port];
  decls.clear();  // renamed: the old names go
  const std::string m = stats(port).name + ".";
  auto declare = [&](const char* what, const char* unit, const std::string& description, auto read) {
    decls.push_back(std::make_unique<StatProbe>(this, m + what, unit, description, read));
  };
  // By index: m_stats grows as masters are named.
  declare("transactions", "count", "transactions of master " + stats(port).name,
          [this, port] { return double(m_stats.at(port).transactions); });
  declare("bytes", "bytes", "bytes master " + stats(port).name + " moved",
          [this, port] { return double(m_stats.at(port).bytes); });
  declare("busy_us", "us", "time master " + stats(port).name + " held the bus",
          [this, port] { return in_us(m_stats.at(port).busy); });
  if (m_style == TimingStyle::AT)
    declare("waiting_us", "us", "time master " + stats(port).name + " waited for the grant",
            [this, port] { return in_us(m_stats.at(port).waiting); });
}

PciBus::MasterStats& PciBus::stats(unsigned port) {
  while (m_stats.size() <= port) {
    m_stats.emplace_back();
    m_stats.back().name = "master" + std::to_string(m_stats.size() - 1);
  }
  return m_stats[port];
}

// --- timing ---------------------------------------------------------------

sc_time PciBus::clock_period() const { return sc_time(1000.0 / clock_mhz.get(), sc_core::SC_NS); }

uint64_t PciBus::burst_overhead(bool read) const {
  return address_clocks.get() + (read ? read_initial_clocks.get() : write_initial_clocks.get()) +
         turnaround_clocks.get();
}

uint64_t PciBus::max_burst_phases(bool read) const {
  // The timer starts with the address phase; the data phase under way when
  // it expires completes, and every burst moves at least one data phase.
  const uint64_t before_data = address_clocks.get() + (read ? read_initial_clocks.get() : write_initial_clocks.get());
  const uint64_t timer = latency_timer_clocks.get();
  return timer > before_data ? timer - before_data : 1;
}

PciBus::Plan PciBus::plan(bool read, uint64_t addr, uint64_t bytes) const {
  const uint64_t width = width_bits.get() / 8;
  // Words of the bus width touched: an unaligned start or end costs a whole
  // data phase (with some byte enables off).
  const uint64_t phases = std::max<uint64_t>(1, (addr % width + bytes + width - 1) / width);
  const uint64_t per_burst = max_burst_phases(read);
  const uint64_t bursts = (phases + per_burst - 1) / per_burst;
  return {phases, bursts, bursts * (arbitration_clocks.get() + burst_overhead(read)) + phases};
}

sc_time PciBus::transfer_time(bool read, uint64_t addr, uint64_t bytes) const {
  return clocks(plan(read, addr, bytes).clocks);
}

// --- transport ------------------------------------------------------------

// When, from the start of a transaction, its target is to act on it: a read
// is answered as it starts; a write takes effect once its data phases are
// through. Targets schedule side effects by this annotation (the NI's doorbell
// interrupt, a host poller's wake-up), so that a slower bus delays them.
sc_time PciBus::target_time(const tlm::tlm_generic_payload& t, const sc_time& transfer) {
  return t.is_write() ? transfer : sc_core::SC_ZERO_TIME;
}

void PciBus::b_transport(int id, tlm::tlm_generic_payload& t, sc_time& delay) {
  const unsigned port = static_cast<unsigned>(id);
  if (m_style == TimingStyle::AT) {
    b_transport_at(port, t, delay);
    return;
  }
  const AddressMap::Range* r = m_map.decode_access(t.get_address(), t.get_data_length());
  if (!r) {
    // A master abort: no target claims the address.
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (t.get_command() == tlm::TLM_IGNORE_COMMAND) {  // no PCI cycle
    AddressMap::b_transport(*initiator[r->port], *r, t, delay);
    return;
  }
  const Plan p = plan(t.is_read(), t.get_address(), t.get_data_length());
  MasterStats& s = stats(port);
  s.transactions++;
  s.bytes += t.get_data_length();
  s.bursts += p.bursts;
  // LT: the target's own latency counts as wait states on the bus. It sees
  // the time the access takes effect (see target_time) and returns it plus
  // its own latency.
  const sc_time transfer = clocks(p.clocks);
  sc_time at_target = delay + target_time(t, transfer);
  const sc_time arrival = at_target;
  AddressMap::b_transport(*initiator[r->port], *r, t, at_target);
  const sc_time busy = transfer + (at_target - arrival);
  if (m_busy_log.enabled()) m_busy_log.add(sc_core::sc_time_stamp() + delay, sc_core::sc_time_stamp() + delay + busy);
  delay += busy;
  s.busy += busy;
  m_busy += busy;
}

// The base protocol allows a target to complete a transaction on BEGIN_REQ
// (early completion, IEEE 1666-2011 15.2): the master sees the response at
// the annotated time, which is the LT time b_transport charges, so an nb
// master's results are a b_transport master's. The targets of the LT bus answer b_transport
// without waiting (LT); one that waits (an AT target behind the standard's
// b-to-nb conversion) would wait inside nb_transport_fw, which the standard
// forbids: refused with its name.
tlm::tlm_sync_enum PciBus::nb_transport_fw_lt(int id, tlm::tlm_generic_payload& t, tlm::tlm_phase& phase,
                                              sc_time& delay) {
  const unsigned port = static_cast<unsigned>(id);
  if (phase != tlm::BEGIN_REQ)
    throw std::logic_error(std::string(name()) + ": base protocol violated: master " + stats(port).name +
                           " sent a phase other than BEGIN_REQ on the forward path; on the LT bus every "
                           "transaction completes on its BEGIN_REQ (TLM_COMPLETED), nothing follows it");
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const sc_dt::uint64 deltas = sc_core::sc_delta_count();
  b_transport(id, t, delay);
  if (sc_core::sc_time_stamp() != now || sc_core::sc_delta_count() != deltas) {
    const AddressMap::Range* r = m_map.decode(t.get_address());
    throw std::logic_error(std::string(name()) + ": target " + (r ? r->name : std::string("?")) +
                           " waited in b_transport while master " + stats(port).name +
                           " called nb_transport_fw on the LT bus: nb_transport must not wait; "
                           "bind that master to a bus in AT");
  }
  return tlm::TLM_COMPLETED;
}

bool PciBus::get_direct_mem_ptr(int, tlm::tlm_generic_payload& t, tlm::tlm_dmi& dmi) {
  const AddressMap::Range* r = m_map.decode(t.get_address());
  if (!r) return false;
  if (m_style == TimingStyle::AT) {
    // Direct access would bypass arbitration: deny it for the whole window.
    dmi.set_start_address(r->base);
    dmi.set_end_address(r->base + r->size - 1);
    dmi.allow_none();
    return false;
  }
  const bool ok = AddressMap::get_direct_mem_ptr(*initiator[r->port], *r, t, dmi);
  // Each direct access stands for a one-data-phase transaction.
  dmi.set_read_latency(dmi.get_read_latency() + transfer_time(true, 0, 1));
  dmi.set_write_latency(dmi.get_write_latency() + transfer_time(false, 0, 1));
  return ok;
}

unsigned int PciBus::transport_dbg(int, tlm::tlm_generic_payload& t) {
  const AddressMap::Range* r = m_map.decode(t.get_address());
  return r ? AddressMap::transport_dbg(*initiator[r->port], *r, t) : 0;
}

void PciBus::invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end) {
  for (const auto& [s, e] : m_map.invalidation(static_cast<unsigned>(port), start, end))
    for (unsigned i = 0; i < target.size(); ++i) target[i]->invalidate_direct_mem_ptr(s, e);
}

}  // namespace m2
