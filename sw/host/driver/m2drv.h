/* The host-side driver layer of the Maestro2 NI: what the MMP library (and
 * test applications) use to reach one NI card from user level. It stands for
 * the real system's small kernel driver (mapping the BARs, pinning pages and
 * giving their bus addresses) plus the user-level register access, on top of
 * the host environment (models/host/host_env.h).
 *
 * Byte order contract: words the host and the NI share (in NI SDRAM or in
 * pinned host memory) are big-endian, the NI's PowerPC order; use
 * m2drv_to_be32 / m2drv_from_be32 on the host side. The PCI interface's
 * register page (BAR1) is accessed as little-endian PCI words. */
#ifndef M2_DRV_H
#define M2_DRV_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct m2drv m2drv;

/* Opens NI number `ni` on this host's PCI bus (0 for the usual single card);
 * costs a system call. NULL when there is no such NI. */
m2drv* m2drv_open(int ni);
void m2drv_close(m2drv* d);

/* The NI's PCI-interface registers (offsets of ip/ni_pci.h), through BAR1. */
uint32_t m2drv_reg_read(m2drv* d, uint32_t offset);
void m2drv_reg_write(m2drv* d, uint32_t offset, uint32_t value);
/* Rings the NI's doorbell with `bits` (an interrupt to the NI firmware). */
void m2drv_doorbell(m2drv* d, uint32_t bits);

/* Programmed I/O into the NI's SDRAM through BAR0 (ni_addr: NI address).
 * Return 0, or -1 when the range is outside the NI's SDRAM. */
int m2drv_sdram_write(m2drv* d, uint32_t ni_addr, const void* src, size_t bytes);
int m2drv_sdram_read(m2drv* d, uint32_t ni_addr, void* dst, size_t bytes);
int m2drv_sdram_write32(m2drv* d, uint32_t ni_addr, uint32_t value); /* stored big-endian */
int m2drv_sdram_read32(m2drv* d, uint32_t ni_addr, uint32_t* value);

/* Sleeps until the NI interrupts the host (HOST_IRQ bits set), then reads and
 * acknowledges those bits into *bits. 0, or -1 after timeout_us (< 0: none). */
int m2drv_wait_interrupt(m2drv* d, double timeout_us, uint32_t* bits);

/* Pinned DMA buffers: host physical memory, pinned, with its bus address
 * (contiguous). Costs the allocation and the pin-down of every page. */
typedef struct {
  void* addr;
  uint64_t bus;
  size_t bytes;
} m2drv_buffer;
int m2drv_alloc_pinned(m2drv* d, size_t bytes, m2drv_buffer* out); /* 0 or -1 */
void m2drv_free_pinned(m2drv* d, m2drv_buffer* b);

/* Pins / unpins memory that is already in host physical memory (for example
 * a user buffer about to be sent zero-copy); *bus gets its bus address.
 * -1 when p is not in host physical memory (ordinary heap: copy it into a
 * pinned buffer instead). */
int m2drv_pin(m2drv* d, const void* p, size_t bytes, uint64_t* bus);
int m2drv_unpin(m2drv* d, const void* p, size_t bytes);

/* Polls a shared word in pinned host memory until (be32 value & mask) ==
 * value. 0, or -1 after timeout_us (< 0: none). */
int m2drv_poll_be32(m2drv* d, const volatile uint32_t* word, uint32_t mask, uint32_t value, double timeout_us);

static inline uint32_t m2drv_to_be32(uint32_t v) {
  const uint8_t b[4] = {(uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
  uint32_t r;
  __builtin_memcpy(&r, b, 4);
  return r;
}
static inline uint32_t m2drv_from_be32(uint32_t raw) {
  uint8_t b[4];
  __builtin_memcpy(b, &raw, 4);
  return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

#ifdef __cplusplus
}
#endif

#endif
