#include "caller_sample.h"

#include <execinfo.h>
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace m2_event_count {
namespace {

constexpr unsigned kEvery = 64;  // sampling period: the backtrace is the expensive part
constexpr int kDepth = 16;       // frames looked at (the kernel's own come first)
constexpr int kKept = 3;         // callers in the executable kept per sample

const char* report_path() {
  static const char* path = std::getenv("M2VP_EVENT_CALLERS");
  return path;
}

std::map<std::string, unsigned long long>& chains() {
  static auto* m = new std::map<std::string, unsigned long long>;  // outlives static destructors
  return *m;
}

// The executable's load address and end, from the dynamic linker's first map.
std::pair<uintptr_t, uintptr_t> executable_range() {
  static std::pair<uintptr_t, uintptr_t> range = [] {
    std::pair<uintptr_t, uintptr_t> r{0, 0};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* out) {
          auto* rr = static_cast<std::pair<uintptr_t, uintptr_t>*>(out);
          rr->first = info->dlpi_addr;
          for (int i = 0; i < info->dlpi_phnum; ++i)
            if (info->dlpi_phdr[i].p_type == PT_LOAD)
              rr->second = std::max<uintptr_t>(
                  rr->second, info->dlpi_addr + info->dlpi_phdr[i].p_vaddr + info->dlpi_phdr[i].p_memsz);
          return 1;  // the first object is the executable
        },
        &r);
    return r;
  }();
  return range;
}

}  // namespace

void sample_caller() {
  static unsigned long long n = 0;
  if (!report_path() || ++n % kEvery != 0) return;
  void* frames[kDepth];
  const int depth = backtrace(frames, kDepth);
  const auto [base, end] = executable_range();
  std::string key;
  int kept = 0;
  for (int i = 1; i < depth && kept < kKept; ++i) {
    const auto a = reinterpret_cast<uintptr_t>(frames[i]);
    if (a < base || a >= end) continue;
    char buf[24];
    std::snprintf(buf, sizeof buf, "%s0x%lx", kept ? " " : "", static_cast<unsigned long>(a - base));
    key += buf;
    ++kept;
  }
  ++chains()[key.empty() ? "-" : key];
}

void write_caller_report() {
  if (!report_path() || chains().empty()) return;
  std::vector<std::pair<unsigned long long, std::string>> rows;
  for (const auto& [k, v] : chains()) rows.emplace_back(v * kEvery, k);
  std::sort(rows.rbegin(), rows.rend());
  if (FILE* f = std::fopen(report_path(), "w")) {
    for (const auto& [count, chain] : rows) std::fprintf(f, "%llu %s\n", count, chain.c_str());
    std::fclose(f);
  }
}

}  // namespace m2_event_count
