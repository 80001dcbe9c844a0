/* ISS speed benchmark kernel (bench_kernel.c). */
#ifndef M2FW_BENCH_KERNEL_H
#define M2FW_BENCH_KERNEL_H

/* Deterministic checksum after `iterations` rounds of work. */
unsigned bench_kernel(unsigned iterations);

#endif
