/* Unbounded recursion: the stack grows down from the top of SDRAM through
 * .bss, .data and at last over the code, until something faults. The fault
 * report must say that the stack overflowed (r1 below __stack_limit). */
#include "fw.h"

volatile unsigned fw_depth;
volatile unsigned fw_never = 0xFFFFFFFFu; /* not reached: keeps the compiler from calling it infinite */

__attribute__((noinline)) unsigned recurse(unsigned n) {
  volatile unsigned char frame[1024]; /* a large frame: reach the code fast */
  frame[0] = (unsigned char)n;
  fw_depth = n;
  if (n == fw_never) return 0;
  return recurse(n + 1) + frame[0];
}

int main(void) {
  puts("about to recurse without end");
  return (int)recurse(0);
}
