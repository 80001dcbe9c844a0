// Address decoding shared by the interconnects (the NI bus, the PCI bus): a
// list of named, non-overlapping ranges, each leading to one initiator port,
// and the translation of transactions, DMI grants, debug accesses and DMI
// invalidations between bus addresses and target-relative offsets. Timing
// stays with the interconnect that uses it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>

namespace m2 {

class AddressMap {
 public:
  struct Range {
    uint64_t base, size;
    std::string name;
    unsigned port;        // initiator port the range leads to (attach order)
    uint64_t offset = 0;  // target-relative offset of the range's first byte
    bool dmi = true;      // false: a view that grants no DMI (every access timed)
  };

  // `owner` names the interconnect in error messages.
  explicit AddressMap(std::string owner) : m_owner(std::move(owner)) {}

  // Maps [base, base+size) to the next port and returns that port. Throws
  // ConfigError naming both ranges when it overlaps one already mapped.
  unsigned add(uint64_t base, uint64_t size, const std::string& name);
  // Maps [base, base+size) as a second view of the target already mapped at
  // `target_base` (same port; e.g. a cache-inhibited alias of a memory).
  // Throws ConfigError when the range overlaps, or nothing is at target_base.
  void add_view(uint64_t base, uint64_t size, const std::string& name, uint64_t target_base, bool dmi);

  const std::vector<Range>& ranges() const { return m_ranges; }
  // The range holding `addr`, nullptr if none.
  const Range* decode(uint64_t addr) const;
  // The range holding all of [addr, addr+len), nullptr if none (an access
  // that runs past the end of its range is an address error).
  const Range* decode_access(uint64_t addr, uint64_t len) const;

  // Forwards `t` to `out` with the address made relative to `r`, and restores
  // the bus address afterwards (the initiator must get its payload back as
  // it sent it).
  static void b_transport(tlm::tlm_fw_transport_if<>& out, const Range& r, tlm::tlm_generic_payload& t,
                          sc_core::sc_time& delay);
  // Forwards a DMI request; the granted range is translated back to bus
  // addresses and clipped to the range's window. Returns the target's answer.
  static bool get_direct_mem_ptr(tlm::tlm_fw_transport_if<>& out, const Range& r, tlm::tlm_generic_payload& t,
                                 tlm::tlm_dmi& dmi);
  // Forwards a debug access, its length clipped to the window; returns the
  // target's byte count.
  static unsigned transport_dbg(tlm::tlm_fw_transport_if<>& out, const Range& r, tlm::tlm_generic_payload& t);

  // A target's invalidation of its local [start, end] on `port`, as bus
  // address ranges (one per window of that port, clipped to the window).
  std::vector<std::pair<uint64_t, uint64_t>> invalidation(unsigned port, uint64_t start, uint64_t end) const;

 private:
  void check_free(uint64_t base, uint64_t size, const std::string& name) const;

  std::string m_owner;
  std::vector<Range> m_ranges;
  unsigned m_ports = 0;
};

}  // namespace m2
