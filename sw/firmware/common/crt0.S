/* Reset entry: the ISS initialises nothing but the PC, and the ELF loader has
 * already placed every section, so crt0 only sets up the machine state, the
 * stack and .bss before calling main. */
#include "fw_abi.h"

    .section .text.start, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    /* Known MSR: vectors at 0x0, translation off, interrupts off. */
    li      %r3, FW_MSR_INIT
    mtmsr   %r3
    isync

    /* DEC's reset value is unknown: push its next exception far away. */
    lis     %r3, FW_DEC_MAX_HI
    ori     %r3, %r3, FW_DEC_MAX_LO
    mtdec   %r3

    /* Stack at the top of SDRAM with a terminating back chain, so the first
     * C frame (and a debugger) sees a proper SVR4 frame. */
    lis     %r1, __stack_top@ha
    addi    %r1, %r1, __stack_top@l
    li      %r0, 0
    stwu    %r0, -16(%r1)

    /* Zero .bss; the linker script word-aligns both ends. */
    lis     %r3, __bss_start@ha
    addi    %r3, %r3, __bss_start@l
    lis     %r4, __bss_end@ha
    addi    %r4, %r4, __bss_end@l
1:  cmplw   %r3, %r4
    bge     2f
    stw     %r0, 0(%r3)
    addi    %r3, %r3, 4
    b       1b

2:  bl      main
    bl      fw_exit         /* r3 still holds main's return value */
3:  b       3b              /* fw_exit does not return */
    .size _start, . - _start

    /* No executable stack wanted (silences ld's default assumption). */
    .section .note.GNU-stack, "", @progbits
