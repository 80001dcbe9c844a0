// The data watchpoints of one core: ranges with a kind, and which of them an
// access triggers. Independent of any ISS library (a core keeps one and asks
// it on every access while it is not empty).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "cpu/iss.h"

namespace m2::iss {

class WatchpointSet {
 public:
  struct Watch {
    uint64_t addr, len;
    WatchKind kind;
  };

  // The same range and kind may be inserted twice (two GDB watchpoints on one
  // variable): each insert needs its remove.
  void insert(uint64_t addr, uint64_t len, WatchKind kind) { m_watches.push_back({addr, len, kind}); }
  // False when no such watchpoint is set.
  bool remove(uint64_t addr, uint64_t len, WatchKind kind) {
    auto it = std::find_if(m_watches.begin(), m_watches.end(),
                           [&](const Watch& w) { return w.addr == addr && w.len == len && w.kind == kind; });
    if (it == m_watches.end()) return false;
    m_watches.erase(it);
    return true;
  }
  bool empty() const { return m_watches.empty(); }
  size_t size() const { return m_watches.size(); }

  // The first watchpoint (in insertion order) that an access of `size` bytes
  // at `addr` triggers, with the first watched byte it touches: a write
  // triggers Write and Access watchpoints, a read Read and Access ones.
  std::optional<WatchHit> match(uint64_t addr, uint64_t size, bool is_write) const {
    for (const Watch& w : m_watches) {
      if (w.kind == (is_write ? WatchKind::Read : WatchKind::Write)) continue;
      if (addr < w.addr + w.len && w.addr < addr + size) {
        WatchHit h;
        h.kind = w.kind;
        h.addr = std::max(addr, w.addr);
        h.is_write = is_write;
        return h;
      }
    }
    return std::nullopt;
  }

 private:
  std::vector<Watch> m_watches;  // few: GDB sets one per watch command
};

}  // namespace m2::iss
