/* Payload patterns the ping-pong style applications check byte for byte: a
 * value per (byte, size, round, sender), so that a byte from the wrong
 * message, round or place shows, and a guard of 0xEE bytes behind the buffer
 * that must stay untouched (overruns show). Header-only (static), like
 * app_args.h. */
#ifndef M2_APP_PAYLOAD_H
#define M2_APP_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define APP_GUARD 16u /* bytes behind every receive buffer */

static inline uint8_t app_pattern(size_t i, size_t size, int round, int sender) {
  return (uint8_t)(i * 7u + size * 13u + (unsigned)round * 31u + (unsigned)sender * 101u);
}

static inline void app_fill(uint8_t *p, size_t size, int round, int sender) {
  for (size_t i = 0; i < size; i++) p[i] = app_pattern(i, size, round, sender);
}

/* Clears a receive buffer and its guard before a message lands in it. */
static inline void app_clear(uint8_t *p, size_t size) { memset(p, 0xEE, size + APP_GUARD); }

/* Wrong bytes in p[0..size), plus guard bytes behind it that were touched. */
static inline size_t app_check(const uint8_t *p, size_t size, int round, int sender) {
  size_t bad = 0;
  for (size_t i = 0; i < size; i++) bad += p[i] != app_pattern(i, size, round, sender);
  for (size_t i = size; i < size + APP_GUARD; i++) bad += p[i] != 0xEE;
  return bad;
}

#endif
