#include "host/mpi_params.h"

namespace m2 {

// The CPU costs are predictions from what the code does on the host the
// platform models (Pentium III, node*.host.clock_mhz, PC133 SDRAM), given in
// host clock cycles so that they follow the clock; none is fitted to a
// published MPI measurement. Copies (eager data, one-copy staging, unexpected
// messages) and pinning are charged by the host model itself
// (node*.host.memcpy_mbyte_per_s, node*.host.pin_us_per_page).
MpiParams::MpiParams(const std::string& owner)
    : device(owner, "device", "mmp",
             "what carries MPI's messages: mmp (the NI's MMP firmware, as ch_maestro2) or tcp (TCP connections "
             "through the host's TCP/IP stack, as MPICH's ch_p4; needs node*.ni.firmware: eth; docs/mpi.md)",
             {"mmp", "tcp"}),
      eager_limit(owner, "eager_limit", 1952, "bytes",
                  "largest message sent eagerly (one control message with its data); longer ones use the "
                  "rendezvous (request to send, clear to send, data); 1952 B is ch_maestro2's default (spec)",
                  Range<uint64_t>{0, 1u << 20}),
      zcopy_threshold(owner, "zcopy_threshold", 16384, "bytes",
                      "rendezvous data at least this long moves zero copy from / into the user's buffer (pinned per "
                      "message unless the pin-down cache has it); shorter through pre-pinned buffers, one CPU copy "
                      "on each side (16 KB: one setup of the spec)",
                      Range<uint64_t>{0, 1ull << 40}),
      pin_cache(owner, "pin_cache", false, "",
                "pin-down cache: a user buffer pinned for a zero-copy transfer stays pinned for the next one "
                "(false: pinned and unpinned per message at node*.host.pin_us_per_page, as the spec's device did)"),
      pin_cache_bytes(owner, "pin_cache_bytes", 64ull << 20, "bytes",
                      "most user memory the pin-down cache keeps pinned; the least recently used buffers are "
                      "unpinned first",
                      Range<uint64_t>{4096, 1ull << 32}),
      eager_slots(owner, "eager_slots", 8, "buffers",
                  "receive buffers (eager limit + 32-byte header each) kept posted per peer for eager and "
                  "control messages; more arrive into MMP's message buffer",
                  Range<uint64_t>{1, 64}),
      // About 150 instructions (argument and handle checks, a request slot,
      // a header) at the PIII's sustained ~1 instruction per cycle on such
      // branchy code, plus a few L1 misses served from the on-die L2.
      call_cycles(owner, "call_cycles", 200, "cycles",
                  "host CPU work of the library per MPI call besides copies and MMP calls: argument checks, "
                  "request set-up, header (about 150 PIII instructions)",
                  Range<uint64_t>{0, 1000000}),
      // A queue entry: compare context, source and tag and follow the link,
      // about 10 instructions, with the entry usually an L1 miss that the
      // on-die L2 serves in ~10 cycles (queue entries are 100+ bytes apart).
      match_cycles(owner, "match_cycles", 25, "cycles",
                   "host CPU work per queue entry looked at when an arriving message is matched against posted "
                   "receives, or a receive against unexpected messages (about 10 instructions and an L2 hit)",
                   Range<uint64_t>{0, 1000000}),
      progress_poll_us(owner, "progress_poll_us", 5.0, "us",
                       "a call waiting for one word (a transfer's completion, one peer's channel) looks at every "
                       "other channel at least this often; wildcard receives rotate over the peers at this period "
                       "divided by their number (a software period, not a cost: each look is a host poll)",
                       Range<double>{0.1, 1e6}) {}

}  // namespace m2
