/* Target for the GDB server tests (tests/integration/test_gdb.cpp): GDB
 * stops in gdb_checkpoint(), changes gdb_value and the argument x, steps and
 * continues. The lines printed at the end show what GDB changed; the
 * simulated time around the call must not depend on how long GDB held the
 * CPU. Without GDB it prints gdb_value = 1234 and checkpoint(5) = 22. */
#include "fw.h"

volatile uint32_t gdb_value = 1234;

/* Not inlined: a function to break in, with its argument in r3. */
__attribute__((noinline)) uint32_t gdb_checkpoint(uint32_t x) {
  uint32_t y = x * 3u;
  return y + 7u;
}

/* Not inlined, its loop on one source line: GDB's `next` over that line
 * range-steps (vCont;r) through all of it, 20,000 rounds. */
__attribute__((noinline)) uint32_t gdb_spin(uint32_t n) {
  uint32_t acc = 0;
  for (uint32_t i = 0; i < n; i++) acc += i * i + (acc >> 3);
  return acc;
}

int main(void) {
  puts("gdb_target: start");
  uint64_t t0 = sim_time_ns();
  uint32_t r = gdb_checkpoint(5u);
  uint64_t t1 = sim_time_ns();
  printf("gdb_value = %u\n", (unsigned)gdb_value);
  printf("checkpoint(5) = %u\n", (unsigned)r);
  printf("checkpoint took %u ns\n", (unsigned)(t1 - t0));
  printf("spin = %u\n", (unsigned)gdb_spin(20000u));
  return 0;
}
