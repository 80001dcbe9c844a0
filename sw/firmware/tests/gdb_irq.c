/* GDB across interrupts (test_gdb.cpp): the decrementer interrupts main
 * about every 2 us. Each round of main's loop runs longer than that twice:
 * in spin() (GDB's `next` steps over the call with a breakpoint after it)
 * and in a loop on one source line (which `next` range-steps through in the
 * simulator). Either way `next` must come back to main with the handler run
 * through; a backtrace in the handler must reach main. */
#include "fw.h"

static volatile unsigned g_ticks;

void fw_decrementer_interrupt(void) {
  g_ticks++;
  dec_write(50); /* 2 us at 25 MHz */
}

static __attribute__((noipa)) unsigned spin(unsigned n) {
  unsigned x = 1;
  /* The body on its own line: an interrupt returns to a line start (GDB
     shows "spin (n=...) at"), as the GDB test expects. */
  for (unsigned i = 0; i < n; i++) {
    x = x * 3u + i;
  }
  return x;
}

int main(void) {
  unsigned sum = 0;
  dec_write(50);
  irq_enable();
  for (unsigned round = 0; round < 40; round++) {
    sum += spin(2000 + round);                                         /* the line `next` steps over */
    for (unsigned k = 0; k < 1500 + round; k++) sum += k ^ (sum >> 7); /* range-stepped */
    sum ^= round;
  }
  irq_disable();
  dec_disarm();
  fw_result(0, g_ticks);
  printf("gdb_irq: %u ticks, sum 0x%08x\n", g_ticks, sum);
  return 0;
}
