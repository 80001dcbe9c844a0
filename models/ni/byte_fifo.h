// A fixed-capacity byte ring buffer: the storage of a network-buffer channel
// and of the DMA engine's burst buffer. Callers check free()/size() first;
// pushing or popping too much is a model bug and throws std::logic_error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace m2 {

class ByteFifo {
 public:
  explicit ByteFifo(size_t capacity = 0) : m_buf(capacity) {}

  size_t capacity() const { return m_buf.size(); }
  size_t size() const { return m_size; }
  size_t free() const { return m_buf.size() - m_size; }

  void push(const uint8_t* src, size_t n);
  // `dst` may be null: the bytes are dropped.
  void pop(uint8_t* dst, size_t n);
  // Copies n bytes without removing them, starting `offset` bytes after the
  // oldest.
  void peek(uint8_t* dst, size_t n, size_t offset = 0) const;
  void clear() { m_head = m_size = 0; }

 private:
  std::vector<uint8_t> m_buf;
  size_t m_head = 0, m_size = 0;  // oldest byte, bytes held
};

}  // namespace m2
