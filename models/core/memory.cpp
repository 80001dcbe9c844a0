#include "core/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace m2 {

Memory::Memory(sc_core::sc_module_name name, uint64_t default_size, double default_read_latency_ns,
               double default_write_latency_ns)
    : sc_module(name),
      socket("socket"),
      size_bytes(this->name(), "size_bytes", default_size, "B", "memory size", Range<uint64_t>{4096, 1ull << 32}),
      read_latency_ns(this->name(), "read_latency_ns", default_read_latency_ns, "ns", "latency of one read access (LT)",
                      Range<double>{0, 1e6}),
      write_latency_ns(this->name(), "write_latency_ns", default_write_latency_ns, "ns",
                       "latency of one write access (LT)", Range<double>{0, 1e6}) {
  if (size_bytes.get() % 4096)
    throw ConfigError(std::string(this->name()) + ".size_bytes: must be a multiple of 4096, got " +
                      size_bytes.value_string());
  void* p = mmap(nullptr, size_bytes.get(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw ConfigError(std::string(this->name()) + ": cannot reserve " + size_bytes.value_string() +
                      " bytes: " + std::strerror(errno));
  m_data = static_cast<uint8_t*>(p);
  m_read_latency = sc_core::sc_time(read_latency_ns.get(), sc_core::SC_NS);
  m_write_latency = sc_core::sc_time(write_latency_ns.get(), sc_core::SC_NS);
  socket.register_b_transport(this, &Memory::b_transport);
  socket.register_get_direct_mem_ptr(this, &Memory::get_direct_mem_ptr);
  socket.register_transport_dbg(this, &Memory::transport_dbg);
}

int Memory::share_as_file() {
  const int fd = ::memfd_create(name(), MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, static_cast<off_t>(size())) != 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw std::runtime_error(std::string(name()) + ": cannot back " + size_bytes.value_string() +
                             " bytes with a memory file: " + why);
  }
  // MAP_FIXED replaces the private pages in place: m_data stays valid.
  if (::mmap(m_data, size(), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw std::runtime_error(std::string(name()) + ": cannot map its memory file: " + why);
  }
  return fd;
}

Memory::~Memory() {
  if (m_data) munmap(m_data, size_bytes.get());
}

bool Memory::in_range(const tlm::tlm_generic_payload& t) const {
  return t.get_address() < size() && t.get_data_length() <= size() - t.get_address();
}

void Memory::b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& delay) {
  if (!in_range(t)) {
    t.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  if (t.get_byte_enable_ptr() || t.get_streaming_width() < t.get_data_length()) {
    t.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  uint8_t* p = m_data + t.get_address();
  if (t.is_read()) {
    std::memcpy(t.get_data_ptr(), p, t.get_data_length());
    delay += m_read_latency;
  } else if (t.is_write()) {
    std::memcpy(p, t.get_data_ptr(), t.get_data_length());
    delay += m_write_latency;
  }
  t.set_dmi_allowed(true);
  t.set_response_status(tlm::TLM_OK_RESPONSE);
}

bool Memory::get_direct_mem_ptr(tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  dmi.set_dmi_ptr(m_data);
  dmi.set_start_address(0);
  dmi.set_end_address(size() - 1);
  dmi.allow_read_write();
  dmi.set_read_latency(m_read_latency);
  dmi.set_write_latency(m_write_latency);
  return true;
}

unsigned int Memory::transport_dbg(tlm::tlm_generic_payload& t) {
  if (t.get_address() >= size()) return 0;
  const uint64_t n = std::min<uint64_t>(t.get_data_length(), size() - t.get_address());
  if (t.is_read()) std::memcpy(t.get_data_ptr(), m_data + t.get_address(), n);
  else if (t.is_write()) std::memcpy(m_data + t.get_address(), t.get_data_ptr(), n);
  return static_cast<unsigned>(n);
}

}  // namespace m2
