/* PCI interface (NI FPGA): the NI's side of the host <-> NI conversation.
 * One register file, seen twice:
 *  - by the NI's PowerPC at NI_PCIIF_BASE, big-endian;
 *  - by the host through BAR1 (PCI_NI_BAR1(n), ip/pci_map.h), little-endian
 *    (PCI's byte order; the interface swaps).
 * The offsets are the same on both sides; what a write does depends on the
 * side. 32-bit accesses only. */
#ifndef M2_IP_NI_PCI_H
#define M2_IP_NI_PCI_H

#define NIPCI_ID 0x00u /* R: NIPCI_ID_VALUE (lets the host driver find its card)    */
#define NIPCI_DOORBELL                                         \
  0x04u /* host W: 1 bits are ORed into the pending doorbells; \
           NI W: 1 bits clear them; both R. The NI's doorbell  \
           interrupt is high while any bit is pending.              */
#define NIPCI_HOST_IRQ                                                                                   \
  0x08u                                     /* NI W: 1 bits are ORed in; host W: 1 bits clear them; both \
                                               R. PCI INTA is asserted while any bit is set.            */
#define NIPCI_MAILBOX(i) (0x10u + 4u * (i)) /* RW both sides: scratch words, i < 8       */
#define NIPCI_MAILBOXES 8u

#define NIPCI_ID_VALUE 0x4D320001u /* "M2", interface revision 1                         */

#endif
