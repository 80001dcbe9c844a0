/* Console driver: one byte per TXDATA write (ip/console.h). */
#include <console.h>
#include <ni_memory_map.h>

#include "fw.h"
#include "mmio.h"

void console_putc(char c) {
  while (!(mmio_read32(NI_CONSOLE_BASE + CONSOLE_STATUS) & CONSOLE_STATUS_READY)) {
  }
  mmio_write32(NI_CONSOLE_BASE + CONSOLE_TXDATA, (uint8_t)c);
}

void console_write(const char *s, size_t n) {
  while (n--) console_putc(*s++);
}
