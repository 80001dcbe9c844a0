// Preloaded into a simulator run by `bench_speed` (LD_PRELOAD): counts the
// SystemC kernel's timed notifications, i.e. insertions into its timed-event
// queue (sc_ppq_base::insert, which libsystemc calls through its PLT, so a
// definition here is found first), and the queue's extractions. At exit it
// writes "<inserts> <extracts>" to the file named by M2VP_EVENT_COUNT_FILE.
// Nothing else changes: each call goes on to the library's own function.
// With M2VP_EVENT_CALLERS it also samples who inserts (caller_sample.h).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "caller_sample.h"

namespace sc_core {

class sc_ppq_base {
 public:
  void insert(void* elem);
  void* extract_top();
};

}  // namespace sc_core

namespace {

unsigned long long g_inserts = 0, g_extracts = 0;

using InsertFn = void (*)(sc_core::sc_ppq_base*, void*);
using ExtractFn = void* (*)(sc_core::sc_ppq_base*);

template <typename Fn>
Fn next(const char* symbol) {
  void* p = dlsym(RTLD_NEXT, symbol);
  if (!p) {
    std::fprintf(stderr, "event_count: %s not found in the libraries loaded after this one\n", symbol);
    std::abort();
  }
  return reinterpret_cast<Fn>(p);
}

struct Report {
  ~Report() {
    // Programs the simulator starts inherit the preload; one without the
    // SystemC kernel counts nothing and must not overwrite the file.
    if (g_inserts == 0) return;
    m2_event_count::write_caller_report();
    const char* path = std::getenv("M2VP_EVENT_COUNT_FILE");
    if (!path) return;
    if (FILE* f = std::fopen(path, "w")) {
      std::fprintf(f, "%llu %llu\n", g_inserts, g_extracts);
      std::fclose(f);
    }
  }
} g_report;

}  // namespace

void sc_core::sc_ppq_base::insert(void* elem) {
  static const InsertFn original = next<InsertFn>("_ZN7sc_core11sc_ppq_base6insertEPv");
  ++g_inserts;
  m2_event_count::sample_caller();
  original(this, elem);
}

void* sc_core::sc_ppq_base::extract_top() {
  static const ExtractFn original = next<ExtractFn>("_ZN7sc_core11sc_ppq_base11extract_topEv");
  ++g_extracts;
  return original(this);
}
