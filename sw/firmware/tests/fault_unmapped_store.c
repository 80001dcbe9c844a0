/* The simulator must stop with a fault report naming do_bad_store: nothing
 * is mapped at 0x50000010 and DSI is not vectored. */
#include "fw.h"

#define UNMAPPED_ADDR 0x50000010u

__attribute__((noinline)) void do_bad_store(void) { *(volatile uint32_t *)UNMAPPED_ADDR = 0x1234; }

int main(void) {
  printf("about to store to unmapped address 0x%08x\n", UNMAPPED_ADDR);
  do_bad_store();
  puts("the store did not stop the simulation");
  return 1;
}
