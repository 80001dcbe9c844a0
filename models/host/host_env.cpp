// The C host environment (host_env.h) on top of the running HostCpu.
#include "host/host_env.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/params.h"
#include "host/host_cpu.h"

using m2::HostCpu;

extern "C" {

int m2host_id(void) { return HostCpu::current().id(); }
int m2host_count(void) { return HostCpu::current().count(); }
const char* m2host_name(void) { return HostCpu::current().name(); }
double m2host_now_us(void) { return HostCpu::current().now().to_seconds() * 1e6; }

void m2host_compute_ns(double ns) {
  if (ns > 0) HostCpu::current().charge_ns(ns);
}

void m2host_compute_cycles(uint64_t cycles) {
  HostCpu& h = HostCpu::current();
  h.charge_ns(static_cast<double>(cycles) * 1e3 / h.clock_mhz.get());
}

void* m2host_memcpy(void* dst, const void* src, size_t bytes) {
  std::memmove(dst, src, bytes);
  HostCpu::current().charge_memcpy(bytes);
  return dst;
}

void m2host_syscall(void) {
  HostCpu& h = HostCpu::current();
  h.charge_ns(h.syscall_ns.get());
}

void* m2host_phys_alloc(size_t bytes, uint64_t* bus_addr) { return HostCpu::current().phys_alloc(bytes, bus_addr); }
void m2host_phys_free(void* p) { HostCpu::current().phys_free(p); }

int m2host_bus_address(const void* p, uint64_t* bus_addr) {
  return HostCpu::current().bus_address(p, bus_addr) ? 0 : -1;
}

void m2host_pin_pages(size_t pages) {
  HostCpu& h = HostCpu::current();
  h.charge_ns(h.pin_us_per_page.get() * 1e3 * static_cast<double>(pages));
}

void m2host_unpin_pages(size_t pages) {
  HostCpu& h = HostCpu::current();
  h.charge_ns(h.unpin_us_per_page.get() * 1e3 * static_cast<double>(pages));
}

int m2host_pci_read32(uint64_t pci_addr, uint32_t* value) {
  uint8_t b[4];
  if (!HostCpu::current().pci_access(false, pci_addr, b, 4)) return -1;
  // PCI is little-endian whatever the simulator's own byte order.
  *value = uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24;
  return 0;
}

int m2host_pci_write32(uint64_t pci_addr, uint32_t value) {
  uint8_t b[4] = {uint8_t(value), uint8_t(value >> 8), uint8_t(value >> 16), uint8_t(value >> 24)};
  return HostCpu::current().pci_access(true, pci_addr, b, 4) ? 0 : -1;
}

int m2host_pci_read(uint64_t pci_addr, void* dst, size_t bytes) {
  return HostCpu::current().pci_access(false, pci_addr, static_cast<uint8_t*>(dst), bytes) ? 0 : -1;
}

int m2host_pci_write(uint64_t pci_addr, const void* src, size_t bytes) {
  // The bus never modifies write data; the payload API just is not const.
  return HostCpu::current().pci_access(true, pci_addr, static_cast<uint8_t*>(const_cast<void*>(src)), bytes) ? 0 : -1;
}

int m2host_poll32(const volatile uint32_t* word, uint32_t mask, uint32_t value, double timeout_us) {
  return HostCpu::current().poll32(word, mask, value, timeout_us) ? 0 : -1;
}

int m2host_wait_interrupt(double timeout_us) { return HostCpu::current().wait_interrupt(timeout_us) ? 0 : -1; }

void m2host_printf(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::string text(buf, n < 0 ? 0 : std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1));
  HostCpu::current().console.write(text);
}

void m2host_result(const char* key, int64_t value) { HostCpu::current().result(key ? key : "", value); }

void m2host_msg_send(int src_node, uint32_t seq, int dst_node, uint64_t bytes, uint32_t tag) {
  HostCpu& h = HostCpu::current();
  const m2::MessageProbe& p = h.message_probe();
  if (!p || src_node < 0 || dst_node < 0) return;
  const m2::MessageId id = m2::make_message_id(static_cast<unsigned>(src_node), seq);
  p.observer->started(p.site, id, static_cast<unsigned>(dst_node), bytes, tag, h.now().value(), h.message_phase());
  h.set_pio_message(id);  // the request's writes, until it is posted
}

void m2host_activity(int layer, const char* what) { HostCpu::current().set_activity(layer, what); }

void m2host_msg_phase(const char* phase) {
  // A name for a CSV cell: no separators, quotes or line breaks, short.
  std::string name;
  for (const char* c = phase; c && *c && name.size() < 31; ++c)
    if (std::isalnum(static_cast<unsigned char>(*c)) || *c == '_' || *c == '-') name += *c;
  HostCpu::current().set_message_phase(std::move(name));
}

void m2host_msg_event(int event, int src_node, uint32_t seq) {
  HostCpu& h = HostCpu::current();
  const m2::MessageProbe& p = h.message_probe();
  if (!p || src_node < 0) return;
  const m2::MessageId id = m2::make_message_id(static_cast<unsigned>(src_node), seq);
  switch (event) {
    case M2HOST_MSG_POSTED:
      h.set_pio_message(0);
      p(m2::MessagePoint::HostPosted, id, h.now().value());
      break;
    case M2HOST_MSG_DONE:
      p(m2::MessagePoint::HostDone, id, h.now().value());
      break;
    case M2HOST_MSG_CANCELLED:
      h.set_pio_message(0);
      p.observer->cancelled(id);
      break;
    default:
      break;
  }
}

void m2host_abort(int code, const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  HostCpu::current().abort_run(code, buf);
}

int m2host_param(const char* name, double* value) {
  if (!name || !value) return -1;
  const m2::ParamBase* p = m2::ParamRegistry::instance().find(std::string(HostCpu::current().name()) + "." + name);
  if (!p) return -1;
  const std::string v = p->value_string();
  if (v == "true" || v == "false") *value = v == "true" ? 1.0 : 0.0;
  else *value = std::strtod(v.c_str(), nullptr);
  return 0;
}

int m2host_param_text(const char* name, char* buf, size_t n) {
  if (!name || !buf) return -1;
  const m2::ParamBase* p = m2::ParamRegistry::instance().find(std::string(HostCpu::current().name()) + "." + name);
  if (!p) return -1;
  const std::string v = p->value_string();
  if (v.size() + 1 > n) return -1;
  std::memcpy(buf, v.c_str(), v.size() + 1);
  return 0;
}

int m2host_output_path(const char* name, char* buf, size_t n) {
  const std::string& dir = HostCpu::output_dir();
  if (dir.empty() || !name || !buf) return -1;
  const std::string file(name);
  // Only a file directly in the folder: host code cannot write elsewhere.
  if (file.empty() || file == "." || file == ".." || file.find('/') != std::string::npos) return -1;
  const std::string path = dir + "/" + file;
  if (path.size() + 1 > n) return -1;
  // The application opens it with fopen, which would write through a link
  // left at the name (a folder written into with --out-force may hold one):
  // the link goes, so that the file is created in the folder.
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) ::unlink(path.c_str());
  std::memcpy(buf, path.c_str(), path.size() + 1);
  HostCpu::add_output_file(file);
  return 0;
}

}  // extern "C"
