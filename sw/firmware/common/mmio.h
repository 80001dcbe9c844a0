/* 32-bit device register access. The devices are big-endian like the CPU and
 * decode whole words, so every access is one volatile 32-bit load/store. */
#ifndef M2FW_MMIO_H
#define M2FW_MMIO_H

#include <stdint.h>

static inline uint32_t mmio_read32(uint32_t addr) { return *(volatile uint32_t *)(uintptr_t)addr; }

static inline void mmio_write32(uint32_t addr, uint32_t value) { *(volatile uint32_t *)(uintptr_t)addr = value; }

#endif
