/* Spins with external interrupts enabled and never idles: the default
 * external-interrupt handler ends the run ("unexpected external interrupt"),
 * so the exit time shows when the interrupt was taken by a busy CPU. */
#include "fw.h"

int main(void) {
  irq_enable();
  volatile uint32_t count = 0;
  for (;;) count++;
}
