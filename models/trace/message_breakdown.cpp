#include "trace/message_breakdown.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <optional>
#include <tuple>

#include "core/output_file.h"
#include "core/params.h"

namespace m2 {

namespace {

using Kind = MessageLedger::SiteKind;
using When = std::optional<uint64_t>;

enum Stage : unsigned {
  kHostSend,
  kRequest,
  kFwSend,
  kDmaSend,
  kNetbufWait,
  kLinkSend,
  kSbAnalyzer,
  kSbRouting,
  kSbStation,
  kSbBus,
  kSbLink,
  kLinkRecv,
  kFwRecv,
  kDmaRecv,
  kHostRecv,
  kStages
};

// Microseconds with all picosecond digits: exact, so printed stages add up.
std::string us(uint64_t ps) {
  char b[32];
  std::snprintf(b, sizeof b, "%" PRIu64 ".%06" PRIu64, ps / 1000000, ps % 1000000);
  return b;
}

std::vector<const MessageLedger::Record*> complete_records(const MessageLedger& ledger) {
  std::vector<const MessageLedger::Record*> out;
  for (const MessageLedger::Record& r : ledger.records())
    if (r.done && !r.cancelled) out.push_back(&r);
  return out;
}

}  // namespace

const std::vector<MessageStage>& message_stages() {
  static const std::vector<MessageStage> stages = {
      {"host_send_us", "host", "send call", "sender's library: MMP_Send called -> request posted to the NI"},
      {"request_us", "pci", "request", "PCI: the request's writes (descriptor, doorbell) -> in the NI"},
      {"fw_send_us", "ni.cpu", "send", "sender's firmware: wakes up, takes the request -> its first DMA queued"},
      {"dma_send_us", "ni.dma", "DMA to netbuf",
       "sender's DMA (host memory over PCI, chunk after chunk) -> last byte in the TX network buffer"},
      {"netbuf_wait_us", "ni.netbuf", "TX wait",
       "TX network buffer -> MLC-X cut the last packet (credit, ack, a busy link)"},
      {"link_send_us", "ni.mlcx", "MLC-X + link", "MLC-X and the link to the first switch box (or the receiver)"},
      {"sb_analyzer_us", "analyzer", "analyzer", "switch box: data in -> the analyzer extracted the last header"},
      {"sb_routing_us", "cpu", "routing", "switch-box firmware: header -> switching request pushed"},
      {"sb_station_us", "stations", "station", "request buffer and reservation station -> the transfer starts"},
      {"sb_bus_us", "switching_bus", "switching bus", "switching bus -> last byte in the output port's channel"},
      {"sb_link_us", "output", "link to switch box", "output port and link to the next switch box (cascades)"},
      {"link_recv_us", "output", "link to receiver", "output port and link -> last byte in the receiver's RX buffer"},
      {"fw_recv_us", "ni.cpu", "receive",
       "receiver's firmware: last data in -> wakes up, reads the header, queues the DMA (or the record)"},
      {"dma_recv_us", "ni.dma", "DMA to host", "receiver's DMA -> last byte in host memory"},
      {"host_recv_us", "host", "completion",
       "completion record, the receiver's library seeing it (and a copy out): the caller has the message"},
  };
  return stages;
}

MessageBreakdown break_down(const MessageLedger::Record& r, const MessageLedger& ledger) {
  MessageBreakdown out;
  out.stage_ps.assign(kStages, 0);
  const int src = ledger.site_of(Kind::Node, r.src), dst = ledger.site_of(Kind::Node, r.dst);
  auto last = [&r](MessagePoint p, int site) -> When {
    const MessageLedger::Passage* q = site < 0 ? nullptr : r.find(p, static_cast<unsigned>(site));
    return q ? When(q->last_ps) : std::nullopt;
  };
  uint64_t at = r.start_ps;
  // Ends `stage` (spent at `site`) at `end`, if that is later than where we are.
  auto cut = [&](unsigned stage, int site, When end) {
    if (!end || *end <= at) return;
    const uint64_t e = std::min(*end, r.end_ps);
    out.stage_ps[stage] += e - at;
    out.intervals.push_back({stage, site, at, e});
    at = e;
  };
  cut(kHostSend, src, last(MessagePoint::HostPosted, src));
  cut(kRequest, src, last(MessagePoint::RequestIn, src));
  // The firmware's own work ends with the first DMA it queued: later chunks
  // wait for room that the DMA and the link make (the DMA stage). Pushed by
  // the CPU alone: the firmware's stage lasts until the message is in.
  const MessageLedger::Passage* tx_queued = r.find(MessagePoint::TxDmaQueued, static_cast<unsigned>(src));
  cut(kFwSend, src, tx_queued ? When(tx_queued->first_ps) : last(MessagePoint::TxPushed, src));
  cut(kDmaSend, src, last(MessagePoint::TxPushed, src));
  cut(kNetbufWait, src, last(MessagePoint::MlxCut, src));
  // The switch boxes crossed, in the order the message reached them.
  std::vector<std::pair<uint64_t, int>> hops;
  for (const MessageLedger::Passage& p : r.passages)
    if (p.point == MessagePoint::LinkIn && ledger.sites()[p.site].kind == Kind::SwitchBox)
      hops.push_back({p.first_ps, static_cast<int>(p.site)});
  std::sort(hops.begin(), hops.end());
  cut(kLinkSend, src, last(MessagePoint::LinkIn, hops.empty() ? dst : hops.front().second));
  for (size_t i = 0; i < hops.size(); ++i) {
    const int sb = hops[i].second;
    cut(kSbAnalyzer, sb, last(MessagePoint::SbHeader, sb));
    cut(kSbRouting, sb, last(MessagePoint::SbRequest, sb));
    cut(kSbStation, sb, last(MessagePoint::SbMoveStart, sb));
    cut(kSbBus, sb, last(MessagePoint::SbMoveEnd, sb));
    if (i + 1 < hops.size()) cut(kSbLink, sb, last(MessagePoint::LinkIn, hops[i + 1].second));
    else cut(kLinkRecv, sb, last(MessagePoint::LinkIn, dst));
  }
  const When rx_queued = last(MessagePoint::RxDmaQueued, dst);
  // No data DMA (an empty message, or the CPU copied it): the firmware's
  // stage lasts until it queued the completion record.
  cut(kFwRecv, dst, rx_queued ? rx_queued : last(MessagePoint::RecordQueued, dst));
  cut(kDmaRecv, dst, rx_queued ? last(MessagePoint::RxDmaDone, dst) : std::nullopt);
  cut(kHostRecv, dst, r.end_ps);
  return out;
}

void write_messages_csv(const std::string& path, const MessageLedger& ledger) {
  OutputFile file(path, "the message breakdown");
  std::ostream& f = file.stream();
  f << "msg,src,dst,bytes,tag,phase,start_us,end_us,total_us";
  for (const MessageStage& s : message_stages()) f << "," << s.column;
  f << "\n";
  for (const MessageLedger::Record* r : complete_records(ledger)) {
    const MessageBreakdown b = break_down(*r, ledger);
    f << message_name(r->id) << "," << r->src << "," << r->dst << "," << r->bytes << "," << r->tag << "," << r->phase
      << "," << us(r->start_ps) << "," << us(r->end_ps) << "," << us(r->end_ps - r->start_ps);
    for (uint64_t ps : b.stage_ps) f << "," << us(ps);
    f << "\n";
  }
  file.commit();
}

std::string format_message_summary(const MessageLedger& ledger) {
  size_t sent = 0;
  for (const MessageLedger::Record& r : ledger.records()) sent += !r.cancelled;
  const std::vector<const MessageLedger::Record*> done = complete_records(ledger);
  const std::vector<MessageStage>& stages = message_stages();
  char line[256];
  std::snprintf(line, sizeof line,
                "Message breakdown (sim.messages, messages.csv): %zu messages sent in the window, %zu complete, %zu "
                "not complete\n",
                sent, done.size(), sent - done.size());
  std::string s = line;
  if (done.empty()) return s;
  // Per stage (and the total, last): every message's time, sorted.
  std::vector<std::vector<uint64_t>> values(stages.size() + 1);
  for (const MessageLedger::Record* r : done) {
    const MessageBreakdown b = break_down(*r, ledger);
    for (size_t i = 0; i < stages.size(); ++i) values[i].push_back(b.stage_ps[i]);
    values[stages.size()].push_back(r->end_ps - r->start_ps);
  }
  double grand = 0;
  for (uint64_t v : values[stages.size()]) grand += static_cast<double>(v);
  std::snprintf(line, sizeof line, "  %-16s %12s %12s %12s %8s\n", "stage", "mean_us", "p50_us", "p99_us", "share");
  s += line;
  for (size_t i = 0; i <= stages.size(); ++i) {
    std::vector<uint64_t>& v = values[i];
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (uint64_t x : v) sum += static_cast<double>(x);
    // Nearest rank.
    auto pct = [&v](double q) {
      const size_t rank = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
      return static_cast<double>(v[std::max<size_t>(rank, 1) - 1]) / 1e6;
    };
    std::snprintf(line, sizeof line, "  %-16s %12.3f %12.3f %12.3f %7.1f%%\n",
                  i < stages.size() ? stages[i].column : "total_us", sum / static_cast<double>(v.size()) / 1e6,
                  pct(0.5), pct(0.99), grand > 0 ? 100.0 * sum / grand : 0.0);
    s += line;
  }
  return s;
}

void add_message_slices(const MessageLedger& ledger, PerfettoTrace& trace) {
  const std::vector<MessageStage>& stages = message_stages();
  std::vector<std::pair<const MessageLedger::Record*, MessageBreakdown>> messages;
  for (const MessageLedger::Record* r : complete_records(ledger)) messages.push_back({r, break_down(*r, ledger)});
  // Tracks in a fixed order: the nodes, then the switch boxes, each site's
  // components along the way.
  static const std::vector<std::string> order = {"host",     "pci", "ni.cpu",   "ni.dma",        "ni.netbuf", "ni.mlcx",
                                                 "analyzer", "cpu", "stations", "switching_bus", "output"};
  std::vector<std::tuple<int, unsigned, size_t, std::string>> used;
  for (const auto& [r, b] : messages)
    for (const MessageBreakdown::Interval& i : b.intervals) {
      if (i.site < 0) continue;
      const MessageLedger::Site& site = ledger.sites()[static_cast<size_t>(i.site)];
      const std::string track = stages[i.stage].track;
      const size_t rank = static_cast<size_t>(std::find(order.begin(), order.end(), track) - order.begin());
      used.emplace_back(site.kind == Kind::Node ? 0 : 1, site.index, rank, site.name() + "." + track);
    }
  std::sort(used.begin(), used.end());
  const unsigned pid = trace.add_process("messages");
  for (const auto& u : used) trace.track(pid, std::get<3>(u));

  for (const auto& [r, b] : messages) {
    for (const MessageBreakdown::Interval& i : b.intervals) {
      if (i.site < 0) continue;
      const MessageStage& st = stages[i.stage];
      const unsigned track = trace.track(pid, ledger.sites()[static_cast<size_t>(i.site)].name() + "." + st.track);
      const std::string args = "\"stage\":\"" + std::string(st.column) + "\",\"bytes\":" + std::to_string(r->bytes);
      // Firmware phases: waking up (and finishing other work) until it
      // takes the request (a trace mark, if the firmware stores them) or
      // reads the last chunk's header; then its own work.
      const MessageLedger::Passage* phase =
          i.stage == kFwSend   ? r->find(MessagePoint::SendTaken, static_cast<unsigned>(i.site))
          : i.stage == kFwRecv ? r->find(MessagePoint::RxHeader, static_cast<unsigned>(i.site))
                               : nullptr;
      if (phase && phase->last_ps > i.begin_ps && phase->last_ps < i.end_ps) {
        trace.add(track, "wake-up", i.begin_ps, phase->last_ps, args, {r->id});
        trace.add(track, st.slice, phase->last_ps, i.end_ps, args, {r->id});
      } else {
        trace.add(track, st.slice, i.begin_ps, i.end_ps, args, {r->id});
      }
    }
  }
}

}  // namespace m2
