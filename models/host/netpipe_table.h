// NetPIPE's np.out as the run's measurement table: an outside NetPIPE
// (hostN.exec_np_out, docs/models/host-process.md) writes its own file; the
// run's results.tsv gets the same table as the in-simulator netpipe app's
// (bytes, latency_us, mbps).
#pragma once

#include <string>

namespace m2 {

// Reads `path` (NetPIPE's np.out: per line "bytes Mbit/s seconds", seconds
// being NetPIPE's one-way time) into ResultTable as @columns bytes
// latency_us mbps and one @row per line, `speaker` naming the source
// (mbps in 10^6 bit/s from bytes and seconds; NetPIPE's own column counts
// 2^20 bits).
// Returns "" or what was wrong ("np.out line 3: expected 'bytes Mbit/s
// seconds', got '...'"); nothing is added then.
std::string load_netpipe_table(const std::string& path, const std::string& speaker);

}  // namespace m2
