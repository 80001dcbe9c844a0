/* First-light firmware: console output, some computation, and a sleep on the
 * decrementer measured with both the timebase and the simulator's clock.
 * The integration test checks the lines it prints. */
#include "fw.h"

#define PRIME_LIMIT 10000u
#define SLEEP_US 100u

static unsigned char composite[PRIME_LIMIT];

static uint32_t sum_of_primes_below(unsigned limit) {
  uint32_t sum = 0;
  for (unsigned i = 2; i < limit; i++) {
    if (composite[i]) continue;
    sum += i;
    for (unsigned j = i * i; j < limit; j += i) composite[j] = 1;
  }
  return sum;
}

static volatile int dec_fired;

/* Replaces fwcommon's weak default for this firmware. */
void fw_decrementer_interrupt(void) {
  dec_disarm();
  dec_fired = 1;
}

static void sleep_ticks(uint32_t ticks) {
  /* EE stays off outside the doze so the exception cannot be taken between
   * the test of dec_fired and cpu_idle(). */
  uint32_t msr = irq_disable();
  dec_fired = 0;
  dec_write(ticks);
  while (!dec_fired) cpu_idle();
  irq_restore(msr);
}

int main(void) {
  puts("Hello from the Maestro2 NI firmware!");

  uint32_t sum = sum_of_primes_below(PRIME_LIMIT);
  printf("sum of primes below %u = %u\n", PRIME_LIMIT, sum);
  fw_result(0, sum);

  /* Converted before the first reading, so the device access that fetches
   * the TB frequency is not part of the measurement. */
  uint32_t ticks = (uint32_t)tb_from_us(SLEEP_US);
  uint64_t tb0 = tb_read();
  uint64_t ns0 = sim_time_ns();
  sleep_ticks(ticks);
  uint64_t tb1 = tb_read();
  uint64_t ns1 = sim_time_ns();

  uint32_t slept_us = (uint32_t)tb_to_us(tb1 - tb0);
  printf("slept %u us by the timebase\n", slept_us);
  printf("elapsed simulated time %u us\n", (uint32_t)((ns1 - ns0) / 1000u));
  fw_result(1, slept_us);
  return 0;
}

FW_RESULT_NAMES("sum of primes,slept us");
