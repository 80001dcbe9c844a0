#include "cpu/firmware_profile.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace m2 {

namespace {

// "main" for "main+0x1c"; the address itself where no symbol covers it.
std::string function_at(const ElfImage* image, uint64_t addr) {
  if (image) {
    if (auto d = image->describe(addr)) return d->substr(0, d->find('+'));
  }
  char s[24];
  std::snprintf(s, sizeof s, "0x%08llx", static_cast<unsigned long long>(addr));
  return s;
}

}  // namespace

std::vector<FirmwareProfile::Row> FirmwareProfile::rows(const ElfImage* image, double ns_per_instruction) const {
  std::map<std::string, Row> by_function;
  // One symbol lookup per block start (the map holds each once, however
  // often the block ran).
  for (const auto& [addr, n] : m_blocks) {
    if (n == 0) continue;
    Row& r = by_function[function_at(image, addr)];
    r.instructions += n;
  }
  for (const auto& [pc, a] : m_accesses) {
    Row& r = by_function[function_at(image, pc)];
    r.device_accesses += a.count;
    r.device_us += static_cast<double>(a.ps) * 1e-6;
  }
  std::vector<Row> out;
  for (auto& [name, r] : by_function) {
    r.function = name;
    r.instruction_us = static_cast<double>(r.instructions) * ns_per_instruction * 1e-3;
    out.push_back(r);
  }
  std::stable_sort(out.begin(), out.end(), [](const Row& a, const Row& b) { return a.total_us() > b.total_us(); });
  return out;
}

}  // namespace m2
