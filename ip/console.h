/* Console device: firmware text output.
 * Each byte written to TXDATA is appended to the current line; a '\n' emits
 * the line on the simulator's stdout and in the run log, prefixed with the
 * CPU's name ("[ni0.cpu] hello"). 32-bit registers, big-endian. */
#ifndef M2_IP_CONSOLE_H
#define M2_IP_CONSOLE_H

#define CONSOLE_TXDATA 0x00u /* W: low 8 bits are one character           */
#define CONSOLE_STATUS 0x04u /* R: bit 0 = ready to accept a character (1) */

#define CONSOLE_STATUS_READY 0x1u

#endif
