/* Numbers shared by the assembly sources (crt0.S, vectors.S) and C.
 * Plain literals because the assembler rejects C's 'u' suffix used in ip/;
 * exceptions.c checks them against ip/ni_memory_map.h and struct fw_exc_frame. */
#ifndef M2FW_ABI_H
#define M2FW_ABI_H

/* MSR set by crt0: ME | RI. IP = 0 puts the vectors at 0x0; IR = DR = 0
 * because the ISS has no address translation; EE = 0 until firmware asks. */
#define FW_MSR_INIT 0x1002

/* Largest positive decrementer value: the next exception is ~86 s away at
 * 25 MHz, so "disarmed" in practice. */
#define FW_DEC_MAX_HI 0x7fff
#define FW_DEC_MAX_LO 0xffff

/* Exception frame pushed on the interrupted stack (SVR4 PPC32 frame:
 * back chain at 0, LR save word of the callee at 4; size 16-byte aligned). */
#define EXC_BACKCHAIN 0
#define EXC_LRSAVE 4
#define EXC_R0 8
#define EXC_R3 12 /* r3..r12 follow, 4 bytes apart */
#define EXC_GPR(n) (EXC_R3 + 4 * ((n)-3))
#define EXC_LR 52
#define EXC_CTR 56
#define EXC_XER 60
#define EXC_CR 64
#define EXC_SRR0 68
#define EXC_SRR1 72
#define EXC_FRAME_SIZE 80

#endif
