/* The default hook for every other exception: a weak definition in its own file, so that the
 * archive member is linked only when the firmware defines none (a default
 * linked and then dropped would leave its debug information at address 0,
 * where GDB would plant a second breakpoint for the firmware's own). */
#include "fw.h"

__attribute__((weak)) void fw_unhandled_exception(uint32_t vector, const struct fw_exc_frame *frame) {
  printf("unhandled exception 0x%x at srr0=0x%08x\n", (unsigned)vector, (unsigned)frame->srr0);
  fw_exit(FW_EXIT_UNHANDLED_EXCEPTION);
}
