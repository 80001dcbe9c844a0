/* Switch-box manager address map as seen by the SB's PowerPC 603e.
 * Hardware/software contract: used by the switch-box model (to place its
 * devices), by the SB routing firmware and by tests.
 * Console and simulation control sit where they sit on the NI, so the common
 * firmware library (sw/firmware/common) works unchanged on the SB. */
#ifndef M2_IP_SB_MEMORY_MAP_H
#define M2_IP_SB_MEMORY_MAP_H

#define SB_SDRAM_BASE 0x00000000u /* 32 MB SDRAM: firmware, routing tables, stack */
#define SB_SDRAM_SIZE 0x02000000u

#define SB_CONSOLE_BASE 0xF0000000u /* console device (ip/console.h), as NI_CONSOLE_BASE  */
#define SB_SIMCTRL_BASE 0xF0001000u /* simulation control (ip/simctrl.h), as NI_SIMCTRL_BASE */
#define SB_SWITCH_BASE 0xF0002000u  /* switch controller registers (ip/sb_regs.h)        */
#define SB_DEVICE_SIZE 0x00001000u

/* Status registers of port p's network buffer (ip/ni_netbuf.h layout), for
 * diagnostics: the data path does not need the manager. */
#define SB_PORT_NETBUF_BASE(p) (0xF0010000u + (unsigned)(p)*0x1000u)

/* Data windows of port p's network buffer (the NI_NETBUF_*_WINDOW layout
 * relative to this base). Reads pop and writes push, as on the NI: only for
 * tests and debugging, never while the switch controller owns the data. */
#define SB_PORT_DATA_BASE(p) (0xE0000000u + (unsigned)(p)*0x00200000u)
#define SB_PORT_DATA_SIZE 0x00200000u

#define SB_MAX_PORTS 16u

#endif
