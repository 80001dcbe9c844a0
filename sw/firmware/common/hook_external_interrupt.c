/* The default external-interrupt hook (vector 0x500): a weak definition in its own file, so that the
 * archive member is linked only when the firmware defines none (a default
 * linked and then dropped would leave its debug information at address 0,
 * where GDB would plant a second breakpoint for the firmware's own). */
#include "fw.h"

__attribute__((weak)) void fw_external_interrupt(void) {
  printf("unexpected external interrupt\n");
  fw_exit(FW_EXIT_UNHANDLED_EXCEPTION);
}
