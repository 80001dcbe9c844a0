/* The simulator must stop with a fault report naming do_illegal: illegal
 * instructions are not vectored to 0x700. */
#include "fw.h"

__attribute__((noinline)) void do_illegal(void) { __asm__ volatile(".long 0"); /* primary opcode 0: always illegal */ }

int main(void) {
  puts("about to execute an illegal instruction");
  do_illegal();
  puts("the illegal instruction did not stop the simulation");
  return 1;
}
