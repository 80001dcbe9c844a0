// Who inserts the timed notifications: with M2VP_EVENT_CALLERS=FILE, every
// 64th insertion records its three innermost callers inside the simulator's
// own executable (return addresses as offsets from its load address), and at
// exit FILE gets one line per distinct caller chain, most frequent first:
// "<insertions (sampled x 64)> <offset> <offset> <offset>". Symbolise with
// `addr2line -f -C -s -e build/bin/m2vp-sim <offsets>` (bench/README.md, speed).
#pragma once

namespace m2_event_count {

// Called for every insertion; samples every 64th when FILE is set.
void sample_caller();
// Writes FILE (if set and anything was sampled).
void write_caller_report();

}  // namespace m2_event_count
