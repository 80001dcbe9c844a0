#include "platform/profile_report.h"

#include <cstdio>

#include "core/output_file.h"
#include "core/params.h"

namespace m2 {
namespace {

struct CpuProfile {
  std::vector<FirmwareProfile::Row> rows;
  double dozing_us = 0, total_us = 0;  // total: functions and doze
};

CpuProfile profile_of(const Processor& p) {
  CpuProfile c;
  c.rows = p.firmware_profile()->rows(p.firmware(), p.ns_per_instruction());
  c.dozing_us = p.idle_time().to_seconds() * 1e6;
  c.total_us = c.dozing_us;
  for (const auto& r : c.rows) c.total_us += r.total_us();
  return c;
}

std::string percent(double part, double whole) {
  char s[32];
  std::snprintf(s, sizeof s, "%.2f", whole > 0 ? 100.0 * part / whole : 0.0);
  return s;
}

std::string us(double v) {
  char s[32];
  std::snprintf(s, sizeof s, "%.3f", v);
  return s;
}

}  // namespace

bool any_profiled(const std::vector<Processor*>& cpus) {
  for (const Processor* p : cpus)
    if (p->firmware_profile()) return true;
  return false;
}

void write_profile_tsv(const std::string& path, const std::vector<Processor*>& cpus) {
  OutputFile file(path, "the firmware profile");
  std::ostream& f = file.stream();
  f << "cpu\tfunction\tinstructions\tinstruction_us\tdevice_accesses\tdevice_us\ttotal_us\tpercent\n";
  for (const Processor* p : cpus) {
    if (!p->firmware_profile()) continue;
    const CpuProfile c = profile_of(*p);
    for (const auto& r : c.rows)
      f << p->name() << "\t" << r.function << "\t" << r.instructions << "\t" << us(r.instruction_us) << "\t"
        << r.device_accesses << "\t" << us(r.device_us) << "\t" << us(r.total_us()) << "\t"
        << percent(r.total_us(), c.total_us) << "\n";
    f << p->name() << "\t(dozing)\t0\t0.000\t0\t0.000\t" << us(c.dozing_us) << "\t" << percent(c.dozing_us, c.total_us)
      << "\n";
  }
  file.commit();
}

std::string format_profile_summary(const std::vector<Processor*>& cpus, size_t top) {
  std::string s;
  for (const Processor* p : cpus) {
    if (!p->firmware_profile()) continue;
    const CpuProfile c = profile_of(*p);
    char line[256];
    std::snprintf(line, sizeof line, "firmware profile of %s (profile.tsv has every function): %.1f%% dozing\n",
                  p->name(), c.total_us > 0 ? 100.0 * c.dozing_us / c.total_us : 0.0);
    s += line;
    std::snprintf(line, sizeof line, "  %-28s %12s %12s %12s %8s\n", "function", "instructions", "device us",
                  "total us", "percent");
    s += line;
    for (size_t i = 0; i < c.rows.size() && i < top; ++i) {
      const auto& r = c.rows[i];
      std::snprintf(line, sizeof line, "  %-28s %12llu %12.3f %12.3f %8s\n", r.function.c_str(),
                    static_cast<unsigned long long>(r.instructions), r.device_us, r.total_us(),
                    percent(r.total_us(), c.total_us).c_str());
      s += line;
    }
  }
  return s;
}

}  // namespace m2
