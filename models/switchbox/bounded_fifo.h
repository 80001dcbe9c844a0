// A hardware FIFO of whole entries (the header buffer, the request buffer):
// fixed depth, delta-notified events when an entry enters or leaves, and a
// change callback for the interrupt logic. Pushing into a full or popping an
// empty FIFO is a model bug and throws std::logic_error.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>

#include <systemc>

namespace m2 {

template <typename T>
class BoundedFifo {
 public:
  BoundedFifo(std::string name, size_t depth) : m_name(std::move(name)), m_depth(depth) {}

  const std::string& name() const { return m_name; }
  size_t depth() const { return m_depth; }
  size_t size() const { return m_items.size(); }
  size_t free() const { return m_depth - m_items.size(); }
  bool empty() const { return m_items.empty(); }
  bool full() const { return m_items.size() >= m_depth; }
  const T& front() const { return at(0); }
  const T& at(size_t i) const {
    if (i >= m_items.size())
      throw std::logic_error(m_name + ": entry " + std::to_string(i) + " of " + std::to_string(m_items.size()));
    return m_items[i];
  }

  void push(T item) {
    if (full()) throw std::logic_error(m_name + ": push into a full FIFO");
    m_items.push_back(std::move(item));
    m_data.notify(sc_core::SC_ZERO_TIME);
    changed();
  }
  T pop() {
    if (empty()) throw std::logic_error(m_name + ": pop from an empty FIFO");
    T item = std::move(m_items.front());
    m_items.pop_front();
    m_space.notify(sc_core::SC_ZERO_TIME);
    changed();
    return item;
  }
  // Removes entry i (0 = oldest): a fetch unit that may skip entries.
  T take(size_t i) {
    if (i >= m_items.size())
      throw std::logic_error(m_name + ": take entry " + std::to_string(i) + " of " + std::to_string(m_items.size()));
    T item = std::move(m_items[i]);
    m_items.erase(m_items.begin() + static_cast<std::ptrdiff_t>(i));
    m_space.notify(sc_core::SC_ZERO_TIME);
    changed();
    return item;
  }

  const sc_core::sc_event& data_event() const { return m_data; }
  const sc_core::sc_event& space_event() const { return m_space; }
  // Called after every push and pop, in the caller's process.
  void on_change(std::function<void()> f) { m_on_change = std::move(f); }

 private:
  void changed() {
    if (m_on_change) m_on_change();
  }
  std::string m_name;
  size_t m_depth;
  std::deque<T> m_items;
  sc_core::sc_event m_data, m_space;
  std::function<void()> m_on_change;
};

}  // namespace m2
