/* The MMP driver's half of address translation (ip/mmp_protocol.h,
 * "address translation"): at pin-down it hands the NI the bus addresses of
 * the pinned pages, entries of the table in NI SDRAM, written by PIO; a
 * request then names data by NI address and the firmware looks its pages
 * up. The PIO write is timed by the PCI model on top of the pinning cost
 * (pin_us_per_page), whose published 130 us include it: about 0.2 us for a
 * page against 130, left as is (docs/mmp.md). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "m2drv.h"
#include "mmp_host.h"

#define PAGE MMP_XLATE_PAGE
#define WRITE_WORDS 256u /* entries per PIO burst (1 KB) */

static int used(const struct host *H, uint32_t i) { return (H->xlate_used[i / 8] >> (i % 8)) & 1u; }

static void mark(struct host *H, uint32_t first, uint32_t n, int on) {
  for (uint32_t i = first; i < first + n; i++) {
    if (on) H->xlate_used[i / 8] |= (uint8_t)(1u << (i % 8));
    else H->xlate_used[i / 8] &= (uint8_t) ~(1u << (i % 8));
  }
}

static uint32_t pages_of(uint64_t bus, size_t bytes) {
  return (uint32_t)(((bus % PAGE) + (bytes ? bytes : 1) + PAGE - 1) / PAGE);
}

/* Writes n entries from `first`: the pages from bus page `page` on, or
 * invalid ones when page is 0 and !valid. */
static int write_entries(struct host *H, uint32_t first, uint32_t n, uint64_t page, int valid) {
  uint32_t words[WRITE_WORDS];
  for (uint32_t done = 0; done < n;) {
    const uint32_t k = n - done < WRITE_WORDS ? n - done : WRITE_WORDS;
    for (uint32_t i = 0; i < k; i++)
      words[i] = valid ? m2drv_to_be32((uint32_t)(page + (uint64_t)(done + i) * PAGE) | MMP_XLATE_VALID) : 0;
    if (m2drv_sdram_write(H->drv, MMP_NI_XLATE_BASE + (first + done) * 4u, words, k * 4u) != 0) return MMP_ENI;
    done += k;
  }
  return MMP_OK;
}

int mmp_xlate_map(struct host *H, uint64_t bus, size_t bytes, uint32_t *nia) {
  const uint32_t n = pages_of(bus, bytes);
  if (bus + bytes > 0xFFFFFFFFull || n > MMP_XLATE_ENTRIES) return MMP_ENOMEM;
  uint32_t run = 0;
  for (uint32_t i = 0; i < MMP_XLATE_ENTRIES; i++) {
    if (run == 0 && i % 8 == 0 && H->xlate_used[i / 8] == 0xFFu) {
      i += 7; /* a full byte */
      continue;
    }
    run = used(H, i) ? 0 : run + 1;
    if (run < n) continue;
    const uint32_t first = i + 1 - n;
    /* The model's physical memory hands out contiguous pages; a real
     * kernel's would be scattered, and the table would say so. */
    if (write_entries(H, first, n, bus - bus % PAGE, 1) != MMP_OK) return MMP_ENI;
    mark(H, first, n, 1);
    *nia = first * PAGE + (uint32_t)(bus % PAGE);
    return MMP_OK;
  }
  return MMP_ENOMEM; /* the table is full */
}

void mmp_xlate_unmap(struct host *H, uint32_t nia, size_t bytes) {
  const uint32_t first = nia / PAGE, n = pages_of(nia, bytes);
  if (first + n > MMP_XLATE_ENTRIES) return;
  /* Invalid entries first: a stray request for these pages then stops the
   * NI with an error instead of reaching memory the kernel may reuse. */
  write_entries(H, first, n, 0, 0);
  mark(H, first, n, 0);
}
