#include "host/phys_allocator.h"

namespace m2 {

PhysAllocator::PhysAllocator(uint64_t base, uint64_t size) {
  if (size) m_free[base] = size;
}

std::optional<uint64_t> PhysAllocator::allocate(uint64_t bytes) {
  const uint64_t need = ((bytes ? bytes : 1) + PAGE - 1) / PAGE * PAGE;
  for (auto it = m_free.begin(); it != m_free.end(); ++it) {
    if (it->second < need) continue;
    const uint64_t off = it->first, left = it->second - need;
    m_free.erase(it);
    if (left) m_free[off + need] = left;
    m_used[off] = need;
    m_in_use += need;
    return off;
  }
  return std::nullopt;
}

bool PhysAllocator::free(uint64_t offset) {
  const auto u = m_used.find(offset);
  if (u == m_used.end()) return false;
  uint64_t off = offset, size = u->second;
  m_in_use -= size;
  m_used.erase(u);
  // Coalesce with the free neighbours so large buffers stay possible.
  auto next = m_free.lower_bound(off);
  if (next != m_free.end() && off + size == next->first) {
    size += next->second;
    next = m_free.erase(next);
  }
  if (next != m_free.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == off) {
      off = prev->first;
      size += prev->second;
      m_free.erase(prev);
    }
  }
  m_free[off] = size;
  return true;
}

}  // namespace m2
