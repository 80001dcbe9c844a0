// The run's message ledger (sim.messages; docs/models/message-breakdown.md):
// for every MMP message sent in the traced window, when it passed each point
// of its way at each site (a node: its host and NI; a switch box), as the
// models, the host library and the firmware report it (MessageObserver).
// message_breakdown.* turns a record into consecutive stages.
//
// A message's record starts with the sender library's call (started) and is
// complete when the receiver's library has it (HostDone); reports for
// messages it does not know (outside the window, the library's own barrier
// traffic) or already complete are ignored. Off by default: models then get
// empty probes and report nothing.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/message_tag.h"

namespace m2 {

class MessageLedger : public MessageObserver {
 public:
  static MessageLedger& instance();

  // How a message's first bytes (its wire header) name it: the platform
  // knows the protocol (platform/mmp_message_id.h).
  using Identifier = std::function<MessageId(const uint8_t* data, size_t n)>;
  // On or off, the window of send-call times whose messages are kept
  // (to_ps: UINT64_MAX for the end of the run), and the identifier.
  void configure(bool on, uint64_t from_ps, uint64_t to_ps, Identifier identify);
  bool enabled() const { return m_on; }

  enum class SiteKind : uint8_t { Node, SwitchBox };
  struct Site {
    SiteKind kind;
    unsigned index;            // node or switch-box number
    std::string name() const;  // "node3", "sb1"
  };
  // A probe reporting for node (or switch box) `index`; empty when off.
  MessageProbe probe(SiteKind kind, unsigned index);
  const std::vector<Site>& sites() const { return m_sites; }
  // The site of node (switch box) `index`, or -1 if nothing reported for it.
  int site_of(SiteKind kind, unsigned index) const;

  // One point at one site: the first and last time a piece passed, how often.
  struct Passage {
    MessagePoint point;
    unsigned site;
    uint64_t first_ps, last_ps;
    uint32_t count;
  };
  struct Record {
    MessageId id = 0;
    unsigned src = 0, dst = 0;
    uint64_t bytes = 0;
    uint32_t tag = 0;
    std::string phase;  // the sender application's phase at the send (m2host_msg_phase), or empty
    uint64_t start_ps = 0, end_ps = 0;
    bool done = false;              // the receiver's library has it
    bool cancelled = false;         // the send failed before the NI saw it: not a message
    std::vector<Passage> passages;  // in the order first seen
    const Passage* find(MessagePoint point, unsigned site) const;
    const Passage* find(MessagePoint point) const;  // at any site (the first found)
  };
  // Every message started in the window, in start order.
  const std::vector<Record>& records() const { return m_records; }

  // MessageObserver.
  MessageId identify(const uint8_t* data, size_t n) const override;
  MessageId resolve(uint32_t tag) const override;
  void started(unsigned site, MessageId id, unsigned dst_node, uint64_t bytes, uint32_t tag, uint64_t time_ps,
               const std::string& phase = {}) override;
  void cancelled(MessageId id) override;
  void passed(MessagePoint point, unsigned site, MessageId id, uint64_t time_ps) override;

  void clear();  // tests: off, no sites, no records

 private:
  bool m_on = false;
  uint64_t m_from = 0, m_to = UINT64_MAX;
  Identifier m_identify;
  std::vector<Site> m_sites;
  std::vector<Record> m_records;
  std::unordered_map<MessageId, size_t> m_index;     // live and complete records
  std::unordered_map<uint32_t, MessageId> m_by_tag;  // firmware tags of live messages
};

}  // namespace m2
