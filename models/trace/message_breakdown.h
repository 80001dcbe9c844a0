// A message's way as consecutive stages (docs/models/message-breakdown.md):
// from the sender's library call to the receiver's library having it, cut
// at the points the ledger recorded. Each boundary is the time the message's
// last piece passed that point, but never earlier than the boundary before
// it (a point the message's tail passed while still held upstream adds
// nothing: pipelined stages overlap); a point not seen adds nothing either.
// So the stages are non-negative and add up to the end-to-end time exactly.
// Switch-box stages add up over the switch boxes a message crosses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/message_ledger.h"
#include "trace/perfetto_writer.h"

namespace m2 {

struct MessageStage {
  const char* column;       // messages.csv column ("fw_send_us")
  const char* track;        // Perfetto track below the site ("ni.cpu")
  const char* slice;        // slice name
  const char* description;  // one line for the docs and the summary
};
// In path order.
const std::vector<MessageStage>& message_stages();

struct MessageBreakdown {
  struct Interval {
    unsigned stage;  // index into message_stages()
    int site;        // ledger site where it was spent (-1: unknown)
    uint64_t begin_ps, end_ps;
  };
  std::vector<uint64_t> stage_ps;   // per stage, summed over switch boxes
  std::vector<Interval> intervals;  // consecutive, non-empty, in time order
};
// The stages of a complete record (ledger: for the sites).
MessageBreakdown break_down(const MessageLedger::Record& r, const MessageLedger& ledger);

// messages.csv: one row per complete message (ConfigError if unwritable).
void write_messages_csv(const std::string& path, const MessageLedger& ledger);
// The per-stage table (mean, p50, p99, share of the end-to-end total) and
// the message counts, for the report.
std::string format_message_summary(const MessageLedger& ledger);
// Per complete message, a slice per stage interval on the track of the
// component it was in ("node0.ni.cpu"), and the firmware phases the trace
// marks show; each slice names its message (flow arrows).
void add_message_slices(const MessageLedger& ledger, PerfettoTrace& trace);

}  // namespace m2
