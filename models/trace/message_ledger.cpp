#include "trace/message_ledger.h"

#include <ip/msg_trace.h>

namespace m2 {

namespace {

uint32_t tag_of(MessageId id) { return MSG_TAG(message_src(id), message_seq(id)); }

}  // namespace

MessageLedger& MessageLedger::instance() {
  static MessageLedger l;
  return l;
}

std::string MessageLedger::Site::name() const {
  return (kind == SiteKind::Node ? "node" : "sb") + std::to_string(index);
}

void MessageLedger::configure(bool on, uint64_t from_ps, uint64_t to_ps, Identifier identify) {
  m_on = on;
  m_from = from_ps;
  m_to = to_ps;
  m_identify = std::move(identify);
}

MessageProbe MessageLedger::probe(SiteKind kind, unsigned index) {
  if (!m_on) return {};
  int site = site_of(kind, index);
  if (site < 0) {
    m_sites.push_back({kind, index});
    site = static_cast<int>(m_sites.size() - 1);
  }
  return {this, static_cast<unsigned>(site)};
}

int MessageLedger::site_of(SiteKind kind, unsigned index) const {
  for (size_t i = 0; i < m_sites.size(); ++i)
    if (m_sites[i].kind == kind && m_sites[i].index == index) return static_cast<int>(i);
  return -1;
}

const MessageLedger::Passage* MessageLedger::Record::find(MessagePoint point, unsigned site) const {
  for (const Passage& p : passages)
    if (p.point == point && p.site == site) return &p;
  return nullptr;
}

const MessageLedger::Passage* MessageLedger::Record::find(MessagePoint point) const {
  for (const Passage& p : passages)
    if (p.point == point) return &p;
  return nullptr;
}

MessageId MessageLedger::identify(const uint8_t* data, size_t n) const {
  // Only messages the ledger follows: the same ones everywhere.
  const MessageId id = m_identify ? m_identify(data, n) : 0;
  return id && m_index.count(id) ? id : 0;
}

MessageId MessageLedger::resolve(uint32_t tag) const {
  const auto it = m_by_tag.find(tag & MSG_TAG_MASK);
  return it == m_by_tag.end() ? 0 : it->second;
}

void MessageLedger::started(unsigned site, MessageId id, unsigned dst_node, uint64_t bytes, uint32_t tag,
                            uint64_t time_ps, const std::string& phase) {
  if (!m_on || time_ps < m_from || time_ps > m_to) return;
  // A number used again (after 2^32 messages) starts a new record.
  m_index[id] = m_records.size();
  Record r;
  r.id = id;
  r.src = message_src(id);
  r.dst = dst_node;
  r.bytes = bytes;
  r.tag = tag;
  r.phase = phase;
  r.start_ps = time_ps;
  r.passages.push_back({MessagePoint::HostSend, site, time_ps, time_ps, 1});
  m_records.push_back(std::move(r));
  m_by_tag[tag_of(id)] = id;
}

void MessageLedger::cancelled(MessageId id) {
  const auto it = m_index.find(id);
  if (it == m_index.end()) return;
  m_records[it->second].cancelled = true;
  m_by_tag.erase(tag_of(id));
  m_index.erase(it);
}

void MessageLedger::passed(MessagePoint point, unsigned site, MessageId id, uint64_t time_ps) {
  const auto it = m_index.find(id);
  if (it == m_index.end()) return;
  Record& r = m_records[it->second];
  if (r.done) return;  // late reports (the sender's own record) add nothing
  bool seen = false;
  for (Passage& p : r.passages) {
    if (p.point != point || p.site != site) continue;
    p.first_ps = std::min(p.first_ps, time_ps);
    p.last_ps = std::max(p.last_ps, time_ps);
    ++p.count;
    seen = true;
    break;
  }
  if (!seen) r.passages.push_back({point, site, time_ps, time_ps, 1});
  if (point == MessagePoint::HostDone) {
    r.done = true;
    r.end_ps = time_ps;
    const auto t = m_by_tag.find(tag_of(id));
    if (t != m_by_tag.end() && t->second == id) m_by_tag.erase(t);
  }
}

void MessageLedger::clear() {
  m_on = false;
  m_from = 0;
  m_to = UINT64_MAX;
  m_identify = nullptr;
  m_sites.clear();
  m_records.clear();
  m_index.clear();
  m_by_tag.clear();
}

}  // namespace m2
