/* DMA engine (NI FPGA): moves data between any two NI bus addresses: NI SDRAM,
 * the network-buffer windows and host memory (NI_HOST_WINDOW_BASE + PCI
 * address). Firmware writes SRC, DST, LEN, then CTRL with DMA_CTRL_START: the
 * three values become a descriptor in a small queue; the engine runs the
 * descriptors in order. A netbuf window is a FIFO port: the engine waits for
 * room (TX) or data (RX) before each burst, so it never over- or underflows.
 *
 * Registers at NI_DMA_BASE: 32-bit, big-endian. */
#ifndef M2_IP_NI_DMA_H
#define M2_IP_NI_DMA_H

#define DMA_SRC 0x00u        /* RW: source NI bus address of the next descriptor         */
#define DMA_DST 0x04u        /* RW: destination NI bus address                           */
#define DMA_LEN 0x08u        /* RW: bytes to move (1..2^32-1)                            */
#define DMA_CTRL 0x0Cu       /* W: DMA_CTRL_* bits                                       */
#define DMA_STATUS 0x10u     /* R: DMA_STATUS_*; write 1 to ERROR or DONE clears it      */
#define DMA_DONE_COUNT 0x14u /* R: descriptors completed without error, mod 2^32         */
#define DMA_ERR_ADDR 0x18u   /* R: NI bus address of the failed access (or SRC for LEN 0) */
#define DMA_ERR_CAUSE 0x1Cu  /* R: DMA_ERR_* of the last error                           */
#define DMA_CONFIG 0x20u     /* R: queue depth (bits 0..7), burst bytes (bits 16..31)     */

/* CTRL. START with no free queue slot is refused with a bus error. */
#define DMA_CTRL_START 0x1u        /* enqueue SRC, DST, LEN as a descriptor              */
#define DMA_CTRL_IRQ 0x2u          /* with START: set STATUS.DONE when it completes      */
#define DMA_CTRL_FLUSH 0x80000000u /* drop the descriptors still queued (not the active one) */
/* Virtual platform only (ip/msg_trace.h): with START, the descriptor moves
 * data of the message `tag` names; its bus transactions carry the message's
 * id for traces and the message ledger. Ignored otherwise; no extra store. */
#define DMA_CTRL_TRACED 0x4u
#define DMA_CTRL_TRACE(tag) (DMA_CTRL_TRACED | (((unsigned)(tag)&0x7FFFFFu) << 8)) /* bits 8..30 */
#define DMA_CTRL_TRACE_TAG(v) (((v) >> 8) & 0x7FFFFFu)

/* STATUS. */
#define DMA_STATUS_BUSY 0x1u /* a descriptor is active or queued                       */
#define DMA_STATUS_ERROR                                        \
  0x2u /* a descriptor failed; the engine holds its queue until \
          this bit is cleared. Drives the error interrupt.       */
#define DMA_STATUS_DONE                                                                                 \
  0x4u                                          /* a descriptor with DMA_CTRL_IRQ completed. Drives the \
                                                   done interrupt.                                        */
#define DMA_STATUS_FREE(s) (((s) >> 8) & 0xFFu) /* free queue slots                      */

/* ERR_CAUSE. */
#define DMA_ERR_NONE 0u
#define DMA_ERR_LEN 1u   /* LEN was 0: the descriptor was not queued                    */
#define DMA_ERR_READ 2u  /* a read from the source failed (unmapped, wrong direction...) */
#define DMA_ERR_WRITE 3u /* a write to the destination failed                           */

#endif
