/* The default system-call hook (vector 0xC00): a weak definition in its own file, so that the
 * archive member is linked only when the firmware defines none (a default
 * linked and then dropped would leave its debug information at address 0,
 * where GDB would plant a second breakpoint for the firmware's own). */
#include "fw.h"

__attribute__((weak)) uint32_t fw_syscall(uint32_t r3, uint32_t r4, uint32_t r5, uint32_t r6, uint32_t r7,
                                          uint32_t r8) {
  (void)r3, (void)r4, (void)r5, (void)r6, (void)r7, (void)r8;
  return 0xFFFFFFFFu;
}
