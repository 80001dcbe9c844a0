// The firmware profile of the CPUs whose `profile` parameter is on
// (models/cpu/firmware_profile.h), as a run leaves it: profile.tsv, one row
// per CPU and function, and the few functions per CPU that report.txt lists.
#pragma once

#include <string>
#include <vector>

#include "cpu/processor.h"

namespace m2 {

// True when at least one CPU collected a profile.
bool any_profiled(const std::vector<Processor*>& cpus);
// profile.tsv: cpu, function, instructions, instruction_us, device_accesses,
// device_us, total_us, percent (of the CPU's run time: its functions and
// its doze, the row "(dozing)"), most time first per CPU. Throws
// ConfigError if it cannot write.
void write_profile_tsv(const std::string& path, const std::vector<Processor*>& cpus);
// The `top` functions of each profiled CPU, for report.txt.
std::string format_profile_summary(const std::vector<Processor*>& cpus, size_t top);

}  // namespace m2
