// A MessageObserver for model tests: names a message by its MLX header
// (0x1000 | source field), resolves a firmware tag to 0x2000 | tag, and
// records what the models report.
#pragma once

#include <cstdint>
#include <vector>

#include <ip/mlx.h>

#include "trace/message_tag.h"

namespace m2test {

struct FakeObserver : m2::MessageObserver {
  struct Event {
    m2::MessagePoint point;
    unsigned site;
    m2::MessageId id;
    uint64_t time_ps;
  };
  std::vector<Event> events;
  size_t identified = 0;

  m2::MessageId identify(const uint8_t* d, size_t n) const override {
    if (n < MLX_HEADER_BYTES) return 0;
    const_cast<FakeObserver*>(this)->identified++;
    return 0x1000 | (uint32_t(d[2]) << 8 | d[3]);
  }
  m2::MessageId resolve(uint32_t tag) const override { return 0x2000 | tag; }
  void started(unsigned, m2::MessageId, unsigned, uint64_t, uint32_t, uint64_t, const std::string&) override {}
  void cancelled(m2::MessageId) override {}
  void passed(m2::MessagePoint point, unsigned site, m2::MessageId id, uint64_t time_ps) override {
    events.push_back({point, site, id, time_ps});
  }
  // The events of one kind, in report order.
  std::vector<Event> of(m2::MessagePoint p) const {
    std::vector<Event> r;
    for (const Event& e : events)
      if (e.point == p) r.push_back(e);
    return r;
  }
};

}  // namespace m2test
