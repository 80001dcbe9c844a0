/* Checks that the timebase follows simulated time: each round measures the
 * same interval (a busy loop, then a decrementer sleep) with the timebase
 * and with the simulator's clock and records how far apart they are. */
#include "fw.h"

#define RESULT_ROUNDS 7u

struct round {
  uint32_t busy_iterations;
  uint32_t idle_us;
};

static const struct round rounds[] = {
    {1000, 10}, {5000, 50}, {20000, 200}, {100000, 10}, {50000, 50},
};
#define NUM_ROUNDS (sizeof(rounds) / sizeof(rounds[0]))

static void busy_loop(uint32_t iterations) {
  for (uint32_t i = 0; i < iterations; i++) __asm__ volatile(""); /* keeps the loop */
}

int main(void) {
  printf("timebase frequency %u Hz, core clock %u Hz\n", (unsigned)tb_hz(), (unsigned)cpu_hz());

  for (unsigned i = 0; i < NUM_ROUNDS; i++) {
    /* Same read order at both ends, so the gap between the two reads cancels. */
    uint64_t tb0 = tb_read();
    uint64_t ns0 = sim_time_ns();
    busy_loop(rounds[i].busy_iterations);
    dec_sleep_us(rounds[i].idle_us);
    uint64_t tb1 = tb_read();
    uint64_t ns1 = sim_time_ns();

    uint64_t tb_ns = tb_to_ns(tb1 - tb0);
    uint64_t sim_ns = ns1 - ns0;
    uint64_t diff = tb_ns > sim_ns ? tb_ns - sim_ns : sim_ns - tb_ns;
    printf(
        "round %u: busy %u iterations, idle %u us: timebase %llu ns, "
        "simctrl %llu ns, difference %llu ns\n",
        i, (unsigned)rounds[i].busy_iterations, (unsigned)rounds[i].idle_us, (unsigned long long)tb_ns,
        (unsigned long long)sim_ns, (unsigned long long)diff);
    fw_result(i, (uint32_t)diff);
  }
  fw_result(RESULT_ROUNDS, NUM_ROUNDS);
  return 0;
}
