/* ISS speed benchmark firmware. The harness may overwrite bench_iterations in
 * memory before starting the CPU. */
#include "fw.h"

#include "bench_kernel.h"

volatile unsigned bench_iterations = 200;

int main(void) {
  unsigned result = bench_kernel(bench_iterations);
  printf("compute result = 0x%08x\n", result);
  fw_result(0, result);
  return 0;
}
