/* Host side of the node self-test: for each size and path, the host fills a
 * pinned buffer, asks the NI firmware (sw/firmware/tests/node_selftest.c)
 * through the mailboxes and the doorbell to move it by DMA through the NI
 * and back XORed with a key, waits for the NI's interrupt, then checks every
 * byte of the result and that nothing around it was touched.
 *   node_selftest [--sizes N,N,...] [--path sdram|netbuf|both] [--seed S] */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ip/ni_pci.h>

#include "../firmware/tests/node_selftest.h"
#include "host/host_env.h"
#include "m2drv.h"

#define GUARD 64u /* bytes checked on each side of the destination */

static uint32_t rng_state;
static uint8_t next_byte(void) {
  rng_state = rng_state * 1103515245u + 12345u;
  return (uint8_t)(rng_state >> 16);
}

static int run_one(m2drv* d, m2drv_buffer* src, m2drv_buffer* dst, size_t len, unsigned src_off, unsigned dst_off,
                   uint32_t path, uint8_t key) {
  uint8_t* s = (uint8_t*)src->addr + src_off;
  uint8_t* t = (uint8_t*)dst->addr + GUARD + dst_off;
  for (size_t i = 0; i < len; i++) s[i] = next_byte();
  memset(dst->addr, 0xEE, dst->bytes);
  m2host_compute_ns(len * 1.0); /* filling the buffer: about a cycle per byte */
  m2drv_reg_write(d, NIPCI_MAILBOX(SELFTEST_MB_CMD), SELFTEST_CMD_TRANSFER);
  m2drv_reg_write(d, NIPCI_MAILBOX(SELFTEST_MB_SRC), (uint32_t)(src->bus + src_off));
  m2drv_reg_write(d, NIPCI_MAILBOX(SELFTEST_MB_DST), (uint32_t)(dst->bus + GUARD + dst_off));
  m2drv_reg_write(d, NIPCI_MAILBOX(SELFTEST_MB_LEN), (uint32_t)len);
  m2drv_reg_write(d, NIPCI_MAILBOX(SELFTEST_MB_KEY), key);
  m2drv_reg_write(d, NIPCI_MAILBOX(SELFTEST_MB_PATH), path);
  const double t0 = m2host_now_us();
  m2drv_doorbell(d, SELFTEST_DOORBELL);
  uint32_t bits = 0;
  if (m2drv_wait_interrupt(d, 100000.0, &bits) != 0) {
    m2host_printf("bytes %zu: no interrupt from the NI within 100 ms\n", len);
    return -1;
  }
  const double us = m2host_now_us() - t0;
  const uint32_t status = m2drv_reg_read(d, NIPCI_MAILBOX(SELFTEST_MB_STATUS));
  const char* pname = path == SELFTEST_PATH_NETBUF ? "netbuf" : "sdram";
  if (!(bits & SELFTEST_HOST_IRQ) || status != 0) {
    m2host_printf("bytes %zu path %s: NI reported status %d (irq bits 0x%x)\n", len, pname, (int)status, bits);
    return -1;
  }
  size_t bad = 0, first_bad = 0;
  for (size_t i = 0; i < len; i++)
    if (t[i] != (uint8_t)(s[i] ^ key) && bad++ == 0) first_bad = i;
  size_t overrun = 0;
  for (size_t i = 0; i < GUARD + dst_off; i++) overrun += ((uint8_t*)dst->addr)[i] != 0xEE;
  for (size_t i = GUARD + dst_off + len; i < dst->bytes; i++) overrun += ((uint8_t*)dst->addr)[i] != 0xEE;
  m2host_printf("bytes %zu path %s src+%u dst+%u: %s in %.2f us\n", len, pname, src_off, dst_off,
                bad || overrun ? "CORRUPT" : "ok", us);
  if (!bad && !overrun) m2host_printf("@row %zu %s %.3f\n", len, pname, us);
  if (bad) m2host_printf("  %zu bytes differ, first at offset %zu\n", bad, first_bad);
  if (overrun) m2host_printf("  %zu bytes outside the destination were written\n", overrun);
  return bad || overrun ? -1 : 0;
}

static int node_selftest(int argc, char** argv) {
  const char* sizes = "1,3,31,33,2047,2049,4097";
  const char* paths = "both";
  rng_state = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--sizes")) sizes = argv[i + 1];
    else if (!strcmp(argv[i], "--path")) paths = argv[i + 1];
    else if (!strcmp(argv[i], "--seed")) rng_state = (uint32_t)strtoul(argv[i + 1], NULL, 0);
    else {
      m2host_printf("node_selftest: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  m2drv* d = m2drv_open(0);
  if (!d) {
    m2host_printf("node_selftest: no NI found on the PCI bus\n");
    return 3;
  }
  size_t max_len = 0;
  for (const char* p = sizes; *p;) {
    const size_t n = strtoul(p, (char**)&p, 0);
    if (n > max_len) max_len = n;
    if (*p == ',') p++;
    else if (*p) break;
  }
  m2drv_buffer src, dst;
  if (m2drv_alloc_pinned(d, max_len + 64, &src) != 0 || m2drv_alloc_pinned(d, max_len + 64 + 2 * GUARD, &dst) != 0) {
    m2host_printf("node_selftest: out of pinned host memory\n");
    return 4;
  }
  m2host_printf("@columns bytes path round_trip_us\n");
  int failures = 0, done = 0;
  uint64_t bytes = 0;
  unsigned k = 0;
  for (const char* p = sizes; *p; k++) {
    const size_t n = strtoul(p, (char**)&p, 0);
    if (*p == ',') p++;
    for (uint32_t path = SELFTEST_PATH_SDRAM; path <= SELFTEST_PATH_NETBUF; path++) {
      if ((path == SELFTEST_PATH_SDRAM && !strcmp(paths, "netbuf")) ||
          (path == SELFTEST_PATH_NETBUF && !strcmp(paths, "sdram")))
        continue;
      const int rc = run_one(d, &src, &dst, n, (k * 7u) % 32u, (k * 13u + path) % 32u, path, (uint8_t)(0xA5 + k));
      failures += rc != 0;
      done += rc == 0;
      bytes += rc == 0 ? n : 0;
    }
  }
  m2drv_reg_write(d, NIPCI_MAILBOX(SELFTEST_MB_CMD), SELFTEST_CMD_QUIT);
  m2drv_doorbell(d, SELFTEST_DOORBELL);
  m2drv_free_pinned(d, &src);
  m2drv_free_pinned(d, &dst);
  m2drv_close(d);
  m2host_result("transfers_ok", done);
  m2host_result("transfers_failed", failures);
  m2host_result("bytes_ok", (int64_t)bytes);
  m2host_printf("%d transfers verified, %d failed\n", done, failures);
  return failures ? 1 : 0;
}

M2HOST_APP(node_selftest, node_selftest, "node self-test: DMA both ways between host memory and the NI, verified")
