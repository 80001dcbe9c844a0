/* The default decrementer hook (vector 0x900): a weak definition in its own file, so that the
 * archive member is linked only when the firmware defines none (a default
 * linked and then dropped would leave its debug information at address 0,
 * where GDB would plant a second breakpoint for the firmware's own). */
#include "fw.h"

__attribute__((weak)) void fw_decrementer_interrupt(void) {
  /* A DEC that keeps counting below zero fires again only after 2^32 ticks,
   * but reloading it also covers a level-sensitive implementation. */
  dec_disarm();
}
