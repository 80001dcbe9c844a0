/* The NI driver layer (m2drv.h) over the host environment. */
#include "m2drv.h"

#include <stdlib.h>

#include <ip/ni_memory_map.h>
#include <ip/ni_pci.h>
#include <ip/pci_map.h>

#include "host/host_env.h"

struct m2drv {
  int ni;
  uint64_t bar0, bar1;
};

#define PAGE 4096u

static size_t pages_of(const void* p, size_t bytes) {
  const uintptr_t a = (uintptr_t)p;
  if (bytes == 0) return 0;
  return (size_t)((a + bytes + PAGE - 1) / PAGE - a / PAGE);
}

m2drv* m2drv_open(int ni) {
  m2host_syscall(); /* open() of the character device + mmap of the BARs */
  if (ni < 0 || ni > 7) return NULL;
  uint32_t id = 0;
  if (m2host_pci_read32(PCI_NI_BAR1(ni) + NIPCI_ID, &id) != 0 || id != NIPCI_ID_VALUE) return NULL;
  m2drv* d = calloc(1, sizeof *d);
  if (!d) return NULL;
  d->ni = ni;
  d->bar0 = PCI_NI_BAR0(ni);
  d->bar1 = PCI_NI_BAR1(ni);
  return d;
}

void m2drv_close(m2drv* d) {
  if (!d) return;
  m2host_syscall();
  free(d);
}

uint32_t m2drv_reg_read(m2drv* d, uint32_t offset) {
  uint32_t v = 0xFFFFFFFFu; /* what a master abort reads on PCI */
  m2host_pci_read32(d->bar1 + offset, &v);
  return v;
}

void m2drv_reg_write(m2drv* d, uint32_t offset, uint32_t value) { m2host_pci_write32(d->bar1 + offset, value); }

void m2drv_doorbell(m2drv* d, uint32_t bits) { m2drv_reg_write(d, NIPCI_DOORBELL, bits); }

static int sdram_range_ok(uint32_t ni_addr, size_t bytes) {
  /* NI_SDRAM_BASE is 0: the offset is the address. */
  const uint32_t off = ni_addr - NI_SDRAM_BASE;
  return bytes <= NI_SDRAM_SIZE && off <= NI_SDRAM_SIZE - bytes;
}

int m2drv_sdram_write(m2drv* d, uint32_t ni_addr, const void* src, size_t bytes) {
  if (!sdram_range_ok(ni_addr, bytes)) return -1;
  return m2host_pci_write(d->bar0 + (ni_addr - NI_SDRAM_BASE), src, bytes);
}

int m2drv_sdram_read(m2drv* d, uint32_t ni_addr, void* dst, size_t bytes) {
  if (!sdram_range_ok(ni_addr, bytes)) return -1;
  return m2host_pci_read(d->bar0 + (ni_addr - NI_SDRAM_BASE), dst, bytes);
}

int m2drv_sdram_write32(m2drv* d, uint32_t ni_addr, uint32_t value) {
  const uint32_t raw = m2drv_to_be32(value);
  return m2drv_sdram_write(d, ni_addr, &raw, 4);
}

int m2drv_sdram_read32(m2drv* d, uint32_t ni_addr, uint32_t* value) {
  uint32_t raw = 0;
  if (m2drv_sdram_read(d, ni_addr, &raw, 4) != 0) return -1;
  *value = m2drv_from_be32(raw);
  return 0;
}

int m2drv_wait_interrupt(m2drv* d, double timeout_us, uint32_t* bits) {
  if (m2host_wait_interrupt(timeout_us) != 0) return -1;
  /* The kernel's handler reads and acknowledges the cause. */
  const uint32_t cause = m2drv_reg_read(d, NIPCI_HOST_IRQ);
  m2drv_reg_write(d, NIPCI_HOST_IRQ, cause);
  if (bits) *bits = cause;
  return 0;
}

int m2drv_alloc_pinned(m2drv* d, size_t bytes, m2drv_buffer* out) {
  (void)d;
  uint64_t bus = 0;
  void* p = m2host_phys_alloc(bytes, &bus);
  if (!p) return -1;
  m2host_pin_pages(pages_of(p, bytes));
  out->addr = p;
  out->bus = bus;
  out->bytes = bytes;
  return 0;
}

void m2drv_free_pinned(m2drv* d, m2drv_buffer* b) {
  (void)d;
  if (!b || !b->addr) return;
  m2host_unpin_pages(pages_of(b->addr, b->bytes));
  m2host_phys_free(b->addr);
  b->addr = NULL;
}

int m2drv_pin(m2drv* d, const void* p, size_t bytes, uint64_t* bus) {
  (void)d;
  uint64_t b = 0;
  if (m2host_bus_address(p, &b) != 0) return -1;
  if (bytes && m2host_bus_address((const uint8_t*)p + bytes - 1, &b) != 0) return -1;
  m2host_bus_address(p, &b);
  m2host_syscall();
  m2host_pin_pages(pages_of(p, bytes));
  if (bus) *bus = b;
  return 0;
}

int m2drv_unpin(m2drv* d, const void* p, size_t bytes) {
  (void)d;
  uint64_t b = 0;
  if (m2host_bus_address(p, &b) != 0) return -1;
  m2host_syscall();
  m2host_unpin_pages(pages_of(p, bytes));
  return 0;
}

int m2drv_poll_be32(m2drv* d, const volatile uint32_t* word, uint32_t mask, uint32_t value, double timeout_us) {
  (void)d;
  return m2host_poll32(word, m2drv_to_be32(mask), m2drv_to_be32(value), timeout_us);
}
