/* NI address map as seen by the NI's PowerPC 603e.
 * Hardware/software contract: used by the platform (to place the models), by
 * the firmware (linker script and device drivers) and by tests. */
#ifndef M2_IP_NI_MEMORY_MAP_H
#define M2_IP_NI_MEMORY_MAP_H

#define NI_SDRAM_BASE 0x00000000u /* 64 MB SDRAM: firmware, data, stacks */
#define NI_SDRAM_SIZE 0x04000000u
/* The same SDRAM, cache-inhibited (the firmware's BAT for it has WIMG I = 1):
 * every access is a 60x bus transaction to the SDRAM controller. Firmware
 * uses it for what other bus masters read or write behind the 603e's back
 * (the FPGA's PCI target and DMA engine do not take part in the 603e's
 * snooping): the control block and translation table the host writes, the
 * descriptors and staging the DMA engine writes and reads. */
#define NI_SDRAM_UNCACHED_BASE 0x40000000u
#define NI_UNCACHED(addr) ((addr) + NI_SDRAM_UNCACHED_BASE)

#define NI_CONSOLE_BASE 0xF0000000u /* console device (ip/console.h)        */
#define NI_SIMCTRL_BASE 0xF0001000u /* simulation control (ip/simctrl.h)    */
#define NI_NETBUF_BASE 0xF0002000u  /* network buffer status (ip/ni_netbuf.h) */
#define NI_DMA_BASE 0xF0003000u     /* DMA engine (ip/ni_dma.h)             */
#define NI_INTC_BASE 0xF0004000u    /* interrupt controller (ip/ni_intc.h)  */
#define NI_PCIIF_BASE 0xF0005000u   /* PCI interface: doorbell, host IRQ (ip/ni_pci.h) */
#define NI_MLCX_BASE 0xF0006000u    /* link controller (ip/ni_mlcx.h)       */
#define NI_DEVICE_SIZE 0x00001000u  /* each small device decodes 4 KB       */

/* Network-buffer data windows: a read or write anywhere in a channel's window
 * pops from / pushes to that channel's FIFO, in address order, so bursts with
 * incrementing addresses work. TX channels carry data towards the link, RX
 * channels data from it. */
#define NI_NETBUF_TX_WINDOW(ch) (0xE0000000u + (unsigned)(ch)*0x00010000u)
#define NI_NETBUF_RX_WINDOW(ch) (0xE0100000u + (unsigned)(ch)*0x00010000u)
#define NI_NETBUF_WINDOW_SIZE 0x00010000u
#define NI_NETBUF_CHANNELS 2

/* Host window: NI address NI_HOST_WINDOW_BASE + a reaches PCI bus address a
 * (host memory, other PCI targets) through the NI's PCI master. */
#define NI_HOST_WINDOW_BASE 0x80000000u
#define NI_HOST_WINDOW_SIZE 0x40000000u

/* Reserved for the ISS itself (a private page holding exception-entry stubs);
 * the platform maps nothing here. */
#define NI_ISS_PRIVATE_BASE 0xFFFFE000u

/* PowerPC exception vectors (MSR[IP] = 0; crt0 clears IP). */
#define PPC_VEC_SYSTEM_RESET 0x0100u
#define PPC_VEC_MACHINE_CHECK 0x0200u
#define PPC_VEC_DSI 0x0300u
#define PPC_VEC_ISI 0x0400u
#define PPC_VEC_EXTERNAL 0x0500u
#define PPC_VEC_ALIGNMENT 0x0600u
#define PPC_VEC_PROGRAM 0x0700u
#define PPC_VEC_FP_UNAVAIL 0x0800u
#define PPC_VEC_DECREMENTER 0x0900u
#define PPC_VEC_SYSCALL 0x0C00u
#define PPC_VEC_TRACE 0x0D00u

/* MSR bits used by firmware and the ISS. */
#define PPC_MSR_POW 0x00040000u /* doze until an interrupt (idle)        */
#define PPC_MSR_EE 0x00008000u  /* external + decrementer interrupts on  */
#define PPC_MSR_PR 0x00004000u
#define PPC_MSR_ME 0x00001000u
#define PPC_MSR_IP 0x00000040u /* vectors at 0xFFF00000 when set        */
#define PPC_MSR_IR 0x00000020u
#define PPC_MSR_DR 0x00000010u
#define PPC_MSR_RI 0x00000002u

#endif
