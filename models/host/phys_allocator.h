// The host kernel's allocator of physical pages: hands out page-aligned
// ranges of the host memory (first fit) for buffers the NI must reach by DMA.
#pragma once

#include <cstdint>
#include <map>
#include <optional>

namespace m2 {

class PhysAllocator {
 public:
  static constexpr uint64_t PAGE = 4096;

  // Manages [base, base+size); both page-aligned.
  PhysAllocator(uint64_t base, uint64_t size);

  // Offset of a free range of at least `bytes` (rounded up to pages), or
  // nullopt when no free range is large enough.
  std::optional<uint64_t> allocate(uint64_t bytes);
  // Frees a range returned by allocate(); false if `offset` is not one.
  bool free(uint64_t offset);

  uint64_t bytes_in_use() const { return m_in_use; }

 private:
  std::map<uint64_t, uint64_t> m_free;  // offset -> size, coalesced
  std::map<uint64_t, uint64_t> m_used;  // offset -> size
  uint64_t m_in_use = 0;
};

}  // namespace m2
