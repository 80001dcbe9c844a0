/* lwIP's platform header for the simulated hosts' stack: a hosted C library
 * (stdint, errno, rand). Assertions abort the simulator with the message:
 * an assertion inside the stack is a defect, not bad input. */
#ifndef M2_LWIP_ARCH_CC_H
#define M2_LWIP_ARCH_CC_H

#include <stdio.h>
#include <stdlib.h>

/* Diagnostics to stderr, prefixed (defined in lwip_stack_glue.c). */
int m2lwip_diag(const char* format, ...);
#define LWIP_PLATFORM_DIAG(x) \
  do {                        \
    m2lwip_diag x;            \
  } while (0)
#define LWIP_PLATFORM_ASSERT(x)                                                         \
  do {                                                                                  \
    fprintf(stderr, "lwip: assertion \"%s\" failed at %s:%d\n", x, __FILE__, __LINE__); \
    abort();                                                                            \
  } while (0)
/* Initial sequence numbers and ephemeral ports: fixed per copy, so a run
 * repeats exactly (the simulator's results must not depend on chance). */
#define LWIP_RAND() ((u32_t)0x6d327670u)
#define LWIP_ERRNO_STDINCLUDE 1

#endif
