#include "host/mpi_params.h"

namespace m2 {

MpiParams::MpiParams(const std::string& owner)
    : eager_limit(owner, "eager_limit", 1952, "bytes",
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
                "(false: pinned and unpinned per message, as the spec's device did)"),
      pin_cache_bytes(owner, "pin_cache_bytes", 64ull << 20, "bytes",
                      "most user memory the pin-down cache keeps pinned; the least recently used buffers are "
                      "unpinned first",
                      Range<uint64_t>{4096, 1ull << 32}),
      eager_slots(owner, "eager_slots", 8, "buffers",
                  "receive buffers (eager limit + 32-byte header each) kept posted per peer for eager and "
                  "control messages; more arrive into MMP's message buffer",
                  Range<uint64_t>{1, 64}),
      call_ns(owner, "call_ns", 200.0, "ns",
              "host CPU time of the library's own work per MPI call (argument checks, request set-up; "
              "assumption: a few hundred PIII instructions)",
              Range<double>{0, 1e6}),
      match_ns(owner, "match_ns", 50.0, "ns",
               "host CPU time per queue entry looked at when an arriving message is matched against posted "
               "receives or a receive against unexpected messages (assumption)",
               Range<double>{0, 1e6}),
      reduce_ns_per_element(owner, "reduce_ns_per_element", 5.0, "ns",
                            "host CPU time to combine one element in a reduction (assumption: load, op, store "
                            "of a 1 GHz-class PIII with cache misses)",
                            Range<double>{0, 1e6}),
      progress_poll_us(owner, "progress_poll_us", 5.0, "us",
                       "while a call waits for one peer's control channel, the other channels are looked at "
                       "this often (wildcard receives rotate over the peers at this period divided by their number)",
                       Range<double>{0.1, 1e6}) {}

}  // namespace m2
