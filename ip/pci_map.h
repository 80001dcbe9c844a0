/* PCI bus address map of a node, as the platform's "BIOS" assigns it.
 * Hardware/software contract: the host driver finds its NI here, the NI
 * firmware reaches host memory at NI_HOST_WINDOW_BASE + a PCI address. */
#ifndef M2_IP_PCI_MAP_H
#define M2_IP_PCI_MAP_H

/* Host memory (the host's physical memory) starts at PCI address 0. */
#define PCI_HOST_MEMORY_BASE 0x00000000u

/* NI number n on a host's bus: BAR0 maps the NI's 64 MB SDRAM, BAR1 the
 * 4 KB register page of its PCI interface (ip/ni_pci.h). */
#define PCI_NI_BAR0(n) (0xC0000000u + (unsigned)(n)*0x08000000u)
#define PCI_NI_BAR0_SIZE 0x04000000u
#define PCI_NI_BAR1(n) (0xC4000000u + (unsigned)(n)*0x08000000u)
#define PCI_NI_BAR1_SIZE 0x00001000u

#endif
