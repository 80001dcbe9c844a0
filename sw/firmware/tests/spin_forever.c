/* Never exits and never idles: only the simulation time limit ends it. */
#include "fw.h"

int main(void) {
  puts("spinning");
  volatile uint32_t count = 0;
  for (;;) count++;
}
