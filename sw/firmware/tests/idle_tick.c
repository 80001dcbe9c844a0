/* An idle NI: dozes with a 1 ms decrementer tick for 1 s of simulated time,
 * then exits. The idle benchmark measures what such a second costs in wall
 * time; tests use it to check the idle share of the run report. */
#include "fw.h"

int main(void) {
  for (int tick = 0; tick < 1000; ++tick) dec_sleep_us(1000);
  printf("idle for 1000 ticks of 1 ms\n");
  return 0;
}
