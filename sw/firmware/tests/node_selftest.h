/* Mailbox protocol between the node_selftest host application
 * (sw/apps/node_selftest.c) and firmware (sw/firmware/tests/node_selftest.c):
 * NIPCI_MAILBOX(i) words of ip/ni_pci.h. */
#ifndef M2_NODE_SELFTEST_H
#define M2_NODE_SELFTEST_H

#define SELFTEST_MB_CMD 0u    /* SELFTEST_CMD_*                               */
#define SELFTEST_MB_SRC 1u    /* PCI address of the host's source buffer       */
#define SELFTEST_MB_DST 2u    /* PCI address of the host's destination buffer  */
#define SELFTEST_MB_LEN 3u    /* bytes                                         */
#define SELFTEST_MB_KEY 4u    /* every byte is XORed with this (low 8 bits)    */
#define SELFTEST_MB_PATH 5u   /* SELFTEST_PATH_*                               */
#define SELFTEST_MB_STATUS 6u /* written by the NI: 0 = done, else failed      */

#define SELFTEST_CMD_TRANSFER 1u
#define SELFTEST_CMD_QUIT 2u
#define SELFTEST_PATH_SDRAM 0u  /* host -> SDRAM -> host                      */
#define SELFTEST_PATH_NETBUF 1u /* through the network buffer in loopback     */

#define SELFTEST_DOORBELL 0x1u /* doorbell bit: a command is in the mailboxes  */
#define SELFTEST_HOST_IRQ 0x1u /* host interrupt bit: the command is done     */
#define SELFTEST_MAX_LEN (8u << 20)

#endif
