/* A stray store through a null pointer plus an offset overwrites the
 * decrementer's exception vector; the next decrementer interrupt runs into
 * it (test_single_ni.cpp: the fault report says the code was overwritten). */
#include "fw.h"

struct low_memory {
  uint32_t below[0x900 / 4];
  uint32_t decrementer_vector;
};

int main(void) {
  /* fw_arg's fallback 0: a null pointer the compiler cannot see through. */
  volatile struct low_memory *p = (volatile struct low_memory *)(uintptr_t)fw_arg(0, 0);
  p->decrementer_vector = 0x12345678u;
  dec_write(10);
  irq_enable();
  for (;;) cpu_idle();
}
