/* Interrupt controller (NI FPGA): up to 32 level-sensitive sources, one output
 * to the PowerPC 603e's external interrupt.
 *   RAW      current level of each source
 *   PENDING  bit set on each rising edge of its source; write 1 to clear
 *   ENABLE   mask
 * The output is high while (PENDING | RAW) & ENABLE != 0: a source whose
 * level is still high keeps the interrupt asserted after PENDING is cleared
 * (clear it at the device), and a short pulse is not lost (PENDING holds it).
 *
 * Registers at NI_INTC_BASE: 32-bit, big-endian. */
#ifndef M2_IP_NI_INTC_H
#define M2_IP_NI_INTC_H

#define INTC_RAW 0x00u        /* R: source levels                                        */
#define INTC_PENDING 0x04u    /* R: latched rising edges; W: 1 bits clear                */
#define INTC_ENABLE 0x08u     /* RW: enable mask (0 at reset)                            */
#define INTC_STATUS 0x0Cu     /* R: (PENDING | RAW) & ENABLE, what drives the output     */
#define INTC_ENABLE_SET 0x10u /* W: 1 bits are set in ENABLE                             */
#define INTC_ENABLE_CLR 0x14u /* W: 1 bits are cleared in ENABLE                         */

/* Source numbers (bit n of every register). */
#define NI_IRQ_DMA_DONE 0u               /* DMA STATUS.DONE                                      */
#define NI_IRQ_DMA_ERROR 1u              /* DMA STATUS.ERROR                                     */
#define NI_IRQ_DOORBELL 2u               /* PCI interface: host rang the doorbell                */
#define NI_IRQ_NETBUF_TX(ch) (3u + (ch)) /* netbuf TX channel ch has >= threshold free   */
#define NI_IRQ_NETBUF_RX(ch) (5u + (ch)) /* netbuf RX channel ch has >= threshold data   */
#define NI_IRQ_MLCX(i) (8u + (i))        /* link controller, i = 0..7 (reserved)         */
#define NI_IRQ_SOURCES 32u

#endif
