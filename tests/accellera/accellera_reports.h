// What the Accellera TLM examples' tests share: their SystemC reports
// captured (many INFO lines per transaction) instead of printed, and a
// scoreboard that checks, as responses cross a protocol checker, every byte
// read against the byte last written there.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <systemc>
#include <tlm>

namespace m2acc {

// Every SystemC report of the run (theirs and the kernel's), kept silent.
struct CapturedReport {
  sc_core::sc_severity severity;
  std::string type, text;
};
inline std::vector<CapturedReport> g_reports;

inline void capture_report(const sc_core::sc_report& r, const sc_core::sc_actions&) {
  g_reports.push_back({r.get_severity(), r.get_msg_type(), r.get_msg()});
}

// Starts capturing (and forgets what an earlier elaboration reported).
inline void capture_reports() {
  g_reports.clear();
  sc_core::sc_report_handler::set_handler(capture_report);
}

inline std::size_t count_reports(const std::string& type, const std::string& text_part) {
  std::size_t n = 0;
  for (const CapturedReport& r : g_reports)
    if (r.type == type && r.text.find(text_part) != std::string::npos) ++n;
  return n;
}

inline std::string errors_and_fatals() {
  std::string all;
  for (const CapturedReport& r : g_reports)
    if (r.severity >= sc_core::SC_ERROR) all += r.type + ": " + r.text + "\n";
  return all;
}

// Reads checked against the last write to each byte, as responses cross the checker.
struct Scoreboard {
  std::map<uint64_t, unsigned char> memory;
  std::size_t writes = 0, reads = 0, bytes_checked = 0, mismatches = 0, not_ok = 0;
  std::string first_mismatch;

  void observe(const tlm::tlm_generic_payload& gp) {
    if (!gp.is_response_ok()) {
      ++not_ok;
      return;
    }
    const unsigned char* data = gp.get_data_ptr();
    for (unsigned i = 0; i < gp.get_data_length(); ++i) {
      const uint64_t a = gp.get_address() + i;
      if (gp.is_write()) {
        memory[a] = data[i];
        continue;
      }
      ++bytes_checked;
      auto it = memory.find(a);
      if (it == memory.end() || it->second != data[i]) {
        if (mismatches++ == 0)
          first_mismatch = "byte at " + std::to_string(a) + " read " + std::to_string(data[i]) + ", expected " +
                           (it == memory.end() ? std::string("no read before a write") : std::to_string(it->second));
      }
    }
    (gp.is_write() ? writes : reads)++;
  }
};

}  // namespace m2acc
