/* Compute-bound kernel for measuring ISS speed: table-driven CRC-32 over a
 * 4 KB buffer (loads, ALU, loop branches) that is perturbed after every pass
 * (data-dependent stores and branches).
 * The benchmark harness also calls it on a bare CPU (PC = bench_kernel,
 * r3 = iterations, r1 = stack), so it must stay self-contained: no device
 * access, no calls, state initialised here rather than by crt0. Portable C
 * with byte-wise data, so the host computes the same result. */
#include <stdint.h>

#include "bench_kernel.h"

#define BUF_BYTES 4096u
#define CRC32_POLY 0xEDB88320u /* reflected IEEE 802.3 */
#define PERTURB_STORES 16u

static uint32_t crc_table[256];
static uint8_t buffer[BUF_BYTES];

/* Numerical Recipes LCG: cheap, full period, deterministic. */
static inline uint32_t lcg_next(uint32_t x) { return x * 1664525u + 1013904223u; }

__attribute__((noinline)) unsigned bench_kernel(unsigned iterations) {
  for (uint32_t n = 0; n < 256; n++) {
    uint32_t c = n;
    for (int k = 0; k < 8; k++) c = (c & 1) ? CRC32_POLY ^ (c >> 1) : c >> 1;
    crc_table[n] = c;
  }

  uint32_t x = 12345;
  for (uint32_t i = 0; i < BUF_BYTES; i++) {
    x = lcg_next(x);
    buffer[i] = (uint8_t)(x >> 24);
  }

  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned it = 0; it < iterations; it++) {
    for (uint32_t i = 0; i < BUF_BYTES; i++) crc = crc_table[(crc ^ buffer[i]) & 0xFF] ^ (crc >> 8);

    x ^= crc;
    for (uint32_t k = 0; k < PERTURB_STORES; k++) {
      x = lcg_next(x);
      uint32_t idx = x >> 20; /* 12 bits: 0..4095 */
      if (x & 0x100) buffer[idx] += (uint8_t)(crc >> 8);
      else buffer[idx] ^= (uint8_t)(crc >> 16);
    }
  }
  return ~crc;
}
