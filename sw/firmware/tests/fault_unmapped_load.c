/* The simulator must stop with a fault report naming do_bad_load: nothing
 * is mapped at 0x50000000 and DSI is not vectored. */
#include "fw.h"

#define UNMAPPED_ADDR 0x50000000u

__attribute__((noinline)) uint32_t do_bad_load(void) { return *(volatile uint32_t *)UNMAPPED_ADDR; }

int main(void) {
  printf("about to load from unmapped address 0x%08x\n", UNMAPPED_ADDR);
  uint32_t v = do_bad_load();
  printf("the load returned 0x%08x instead of stopping the simulation\n", (unsigned)v);
  return 1;
}
