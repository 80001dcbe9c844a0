// Where a CPU's time goes, per firmware function: the instructions each
// function retired (the core counts them per translated block) and the time
// its device accesses took (their latency, charged to the function of the
// accessing instruction). Collected while the processor's `profile`
// parameter is on; the run writes it as profile.tsv
// (docs/models/processor.md#firmware-profile).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/elf_loader.h"

namespace m2 {

class FirmwareProfile {
 public:
  // What the core adds to (iss::Core::count_blocks).
  std::unordered_map<uint64_t, uint64_t>& block_counts() { return m_blocks; }
  // One device access by the instruction at `pc` that took `ps`.
  void add_device_access(uint64_t pc, uint64_t ps) {
    Access& a = m_accesses[pc];
    ++a.count;
    a.ps += ps;
  }

  struct Row {
    std::string function;  // ELF symbol, or the address ("0x00003a40") where none covers it
    uint64_t instructions = 0;
    uint64_t device_accesses = 0;
    double instruction_us = 0;  // instructions x cpi / clock
    double device_us = 0;       // latency of the device accesses
    double total_us() const { return instruction_us + device_us; }
  };
  // Per function, most time first (ties: by name). `image` may be null (no
  // symbols: per address); `ns_per_instruction` = cpi * 1000 / clock_mhz.
  std::vector<Row> rows(const ElfImage* image, double ns_per_instruction) const;

 private:
  struct Access {
    uint64_t count = 0, ps = 0;
  };
  std::unordered_map<uint64_t, uint64_t> m_blocks;  // block start -> instructions
  std::unordered_map<uint64_t, Access> m_accesses;  // accessing instruction -> accesses
};

}  // namespace m2
