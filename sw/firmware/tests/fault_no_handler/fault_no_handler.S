/* No crt0, no vector table: a decrementer exception lands on the zero word
 * at 0x900, which is illegal, so the simulator reports a fault at 0x900. */
    .section .text.start, "ax", @progbits
    .globl _start
    .type _start, @function
_start:
    li      %r3, 100
    mtdec   %r3
    li      %r3, 0
    ori     %r3, %r3, 0x9002    /* EE | ME | RI; IP = 0: vectors at 0x0 */
    mtmsr   %r3
    isync
1:  b       1b
    .size _start, . - _start

    /* Explicit zeros rather than relying on SDRAM being cleared. */
    .section .dec_vector, "ax", @progbits
    .globl dec_vector
dec_vector:
    .long   0
    .size dec_vector, . - dec_vector

    /* No executable stack wanted (silences ld's default assumption). */
    .section .note.GNU-stack, "", @progbits
