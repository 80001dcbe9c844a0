/* Exception vectors, placed at physical 0x0 by ni.ld (MSR[IP] = 0).
 * Each 0x100-byte slot opens a frame on the interrupted stack, saves what it
 * needs to free r3 and branches to the common path, which saves the rest of
 * the volatile state and calls fw_exception_dispatch(vector, frame) in C.
 *
 * Call-frame information tells GDB that the frame is an exception frame
 * (.cfi_signal_frame): the interrupted code's stack pointer is r1 +
 * EXC_FRAME_SIZE and its pc is the saved SRR0, so that `bt` and `finish` in
 * a handler reach the code it interrupted. Column 67 (otherwise unused on
 * 32-bit PowerPC) holds the return address, as in Linux's signal frames. */
#include "fw_abi.h"

#define CFI_RA 67
#define CFI_LR 65

    /* Kept as debug information (ni.ld drops .eh_frame: nothing unwinds at run time). */
    .cfi_sections .debug_frame

    .macro VECTOR addr
    .org    \addr
    .cfi_startproc
    .cfi_signal_frame
    .cfi_return_column CFI_RA
    .cfi_undefined CFI_RA           /* still in SRR0: no caller known yet */
    stwu    %r1, -EXC_FRAME_SIZE(%r1)
    .cfi_def_cfa_offset EXC_FRAME_SIZE
    stw     %r0, EXC_R0(%r1)
    .cfi_offset 0, EXC_R0 - EXC_FRAME_SIZE
    stw     %r3, EXC_R3(%r1)
    .cfi_offset 3, EXC_R3 - EXC_FRAME_SIZE
    mflr    %r0
    stw     %r0, EXC_LR(%r1)
    .cfi_offset CFI_LR, EXC_LR - EXC_FRAME_SIZE
    li      %r3, \addr
    b       fw_exc_common
    .cfi_endproc
    .endm

    .section .vectors, "ax", @progbits
    .globl fw_vectors
fw_vectors:
    /* Every 603e vector gets the same stub, even those the ISS never enters
     * (it reports program, DSI and ISI faults itself). */
    VECTOR 0x0100   /* system reset */
    VECTOR 0x0200   /* machine check */
    VECTOR 0x0300   /* DSI */
    VECTOR 0x0400   /* ISI */
    VECTOR 0x0500   /* external interrupt */
    VECTOR 0x0600   /* alignment */
    VECTOR 0x0700   /* program */
    VECTOR 0x0800   /* floating-point unavailable */
    VECTOR 0x0900   /* decrementer */
    VECTOR 0x0A00   /* reserved */
    VECTOR 0x0B00   /* reserved */
    VECTOR 0x0C00   /* system call */
    VECTOR 0x0D00   /* trace */
    VECTOR 0x0E00   /* reserved */
    VECTOR 0x0F00   /* reserved */
    VECTOR 0x1000   /* instruction TLB miss */
    VECTOR 0x1100   /* data TLB miss on load */
    VECTOR 0x1200   /* data TLB miss on store */
    VECTOR 0x1300   /* instruction address breakpoint */
    VECTOR 0x1400   /* system management interrupt */
    .size fw_vectors, . - fw_vectors

    /* In: r3 = vector; r0, r3 and LR already saved in the frame at r1. */
    .section .text.fw_exc_common, "ax", @progbits
    .type fw_exc_common, @function
fw_exc_common:
    .cfi_startproc
    .cfi_signal_frame
    .cfi_return_column CFI_RA
    .cfi_def_cfa 1, EXC_FRAME_SIZE
    .cfi_offset 0, EXC_R0 - EXC_FRAME_SIZE
    .cfi_offset 3, EXC_R3 - EXC_FRAME_SIZE
    .cfi_offset CFI_LR, EXC_LR - EXC_FRAME_SIZE
    /* SRR0 first: from here on the interrupted pc is in the frame. */
    mfsrr0  %r0
    stw     %r0, EXC_SRR0(%r1)
    .cfi_offset CFI_RA, EXC_SRR0 - EXC_FRAME_SIZE
    stw     %r4, EXC_GPR(4)(%r1)
    .cfi_offset 4, EXC_GPR(4) - EXC_FRAME_SIZE
    stw     %r5, EXC_GPR(5)(%r1)
    .cfi_offset 5, EXC_GPR(5) - EXC_FRAME_SIZE
    stw     %r6, EXC_GPR(6)(%r1)
    .cfi_offset 6, EXC_GPR(6) - EXC_FRAME_SIZE
    stw     %r7, EXC_GPR(7)(%r1)
    .cfi_offset 7, EXC_GPR(7) - EXC_FRAME_SIZE
    stw     %r8, EXC_GPR(8)(%r1)
    .cfi_offset 8, EXC_GPR(8) - EXC_FRAME_SIZE
    stw     %r9, EXC_GPR(9)(%r1)
    .cfi_offset 9, EXC_GPR(9) - EXC_FRAME_SIZE
    stw     %r10, EXC_GPR(10)(%r1)
    .cfi_offset 10, EXC_GPR(10) - EXC_FRAME_SIZE
    stw     %r11, EXC_GPR(11)(%r1)
    .cfi_offset 11, EXC_GPR(11) - EXC_FRAME_SIZE
    stw     %r12, EXC_GPR(12)(%r1)
    .cfi_offset 12, EXC_GPR(12) - EXC_FRAME_SIZE
    mfctr   %r0
    stw     %r0, EXC_CTR(%r1)
    mfxer   %r0
    stw     %r0, EXC_XER(%r1)
    mfcr    %r0
    stw     %r0, EXC_CR(%r1)
    mfsrr1  %r0
    stw     %r0, EXC_SRR1(%r1)

    mr      %r4, %r1
    bl      fw_exception_dispatch

    /* Clear POW in the restored MSR: an interrupt that woke cpu_idle() must
     * return to running code, not to another doze. */
    lwz     %r0, EXC_SRR1(%r1)
    rlwinm  %r0, %r0, 0, 14, 12
    mtsrr1  %r0
    lwz     %r0, EXC_SRR0(%r1)
    mtsrr0  %r0
    lwz     %r0, EXC_CR(%r1)
    mtcr    %r0
    lwz     %r0, EXC_XER(%r1)
    mtxer   %r0
    lwz     %r0, EXC_CTR(%r1)
    mtctr   %r0
    lwz     %r0, EXC_LR(%r1)
    mtlr    %r0
    lwz     %r3, EXC_GPR(3)(%r1)
    lwz     %r4, EXC_GPR(4)(%r1)
    lwz     %r5, EXC_GPR(5)(%r1)
    lwz     %r6, EXC_GPR(6)(%r1)
    lwz     %r7, EXC_GPR(7)(%r1)
    lwz     %r8, EXC_GPR(8)(%r1)
    lwz     %r9, EXC_GPR(9)(%r1)
    lwz     %r10, EXC_GPR(10)(%r1)
    lwz     %r11, EXC_GPR(11)(%r1)
    lwz     %r12, EXC_GPR(12)(%r1)
    lwz     %r0, EXC_R0(%r1)
    addi    %r1, %r1, EXC_FRAME_SIZE
    .cfi_def_cfa_offset 0
    rfi
    .cfi_endproc
    .size fw_exc_common, . - fw_exc_common

    /* No executable stack wanted (silences ld's default assumption). */
    .section .note.GNU-stack, "", @progbits
