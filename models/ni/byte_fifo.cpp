#include "ni/byte_fifo.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace m2 {

namespace {

void require(size_t n, size_t have, const char* what) {
  if (n > have)
    throw std::logic_error(std::string("ByteFifo: ") + what + " of " + std::to_string(n) + " bytes with only " +
                           std::to_string(have));
}

}  // namespace

void ByteFifo::push(const uint8_t* src, size_t n) {
  require(n, free(), "push");
  if (n == 0) return;
  size_t tail = (m_head + m_size) % capacity();
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(n - done, capacity() - tail);
    std::memcpy(m_buf.data() + tail, src + done, k);
    done += k;
    tail = 0;  // wrapped
  }
  m_size += n;
}

void ByteFifo::peek(uint8_t* dst, size_t n, size_t offset) const {
  require(offset + n, m_size, "read");
  if (n == 0) return;
  size_t pos = (m_head + offset) % capacity();
  for (size_t done = 0; done < n;) {
    const size_t k = std::min(n - done, capacity() - pos);
    std::memcpy(dst + done, m_buf.data() + pos, k);
    done += k;
    pos = 0;
  }
}

void ByteFifo::pop(uint8_t* dst, size_t n) {
  require(n, m_size, "pop");
  if (n == 0) return;
  if (dst) peek(dst, n);
  m_head = (m_head + n) % capacity();
  m_size -= n;
}

}  // namespace m2
