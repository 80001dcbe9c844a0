/* Public API of the NI firmware support library (fwcommon).
 * Freestanding: no libc exists, so this header declares the few libc-like
 * functions fwcommon implements itself. Portable C only (no inline asm) so
 * that pieces such as printf.c can also be compiled and tested on the host. */
#ifndef M2FW_FW_H
#define M2FW_FW_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define FW_NORETURN __attribute__((noreturn))
#define FW_PRINTF(fmt, args) __attribute__((format(__printf__, fmt, args)))

/* Exit code used when an exception nobody handles is taken. */
#define FW_EXIT_UNHANDLED_EXCEPTION 0x7E

/* ---- console (console.c) ---------------------------------------------- */
void console_putc(char c); /* one byte, waits until ready */
void console_write(const char *s, size_t n);

/* ---- formatted output (printf.c) ---------------------------------------
 * Conversions: %d %i %u %x %X %o %c %s %p %%; flags '0' and '-', a decimal
 * field width, length modifiers l and ll. */
int putchar(int c);
int puts(const char *s); /* appends '\n' */
int printf(const char *fmt, ...) FW_PRINTF(1, 2);
int vprintf(const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) FW_PRINTF(3, 4);
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);

/* ---- strings (string.c); gcc may emit calls to memcpy/memset itself ---- */
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
char *strncpy(char *dst, const char *src, size_t n);

/* ---- simulation control (simctrl.c) ------------------------------------ */
void fw_exit(int code) FW_NORETURN;             /* ends the run, never returns */
void fw_result(unsigned index, uint32_t value); /* index 0..7, else ignored */
/* Names of the fw_result indices, for the end-of-run report ("fw_result3
 * (errors)"): one string, the names in index order separated by commas, e.g.
 * FW_RESULT_NAMES("sent,received"). The simulator reads the symbol from the
 * ELF; nothing of it runs. */
#define FW_RESULT_NAMES(list) __attribute__((used, retain)) const char fw_result_names[] = list
uint64_t sim_time_ns(void); /* simulated time in ns */
uint32_t cpu_hz(void);      /* core clock */
/* Arguments from the config (<ni>.simctrl.args): how many, and argument
 * `index` or `fallback` when there are fewer. */
unsigned fw_num_args(void);
uint32_t fw_arg(unsigned index, uint32_t fallback);

/* ---- timebase and decrementer (timebase.c) ----------------------------- */
uint64_t tb_read(void); /* 64-bit timebase, tear-free */
uint32_t tb_hz(void);   /* TB/DEC frequency (SIMCTRL_TB_HZ) */
uint64_t tb_to_ns(uint64_t ticks);
uint64_t tb_to_us(uint64_t ticks);
uint64_t tb_from_us(uint64_t us);  /* us -> ticks */
void tb_busy_wait_us(uint32_t us); /* spins on the timebase */
void dec_write(uint32_t ticks);    /* exception when DEC passes 0 */
uint32_t dec_read(void);
void dec_disarm(void); /* DEC = 0x7FFFFFFF */
/* Sleeps >= us using the decrementer and cpu_idle(); interrupt state is
 * preserved. Do not use it while your own code also arms the decrementer. */
void dec_sleep_us(uint32_t us);
/* Decrementer exceptions taken since reset (counted before the hook runs). */
uint32_t fw_decrementer_events(void);

/* ---- interrupts and idle (irq.c) --------------------------------------- */
void irq_enable(void);                /* MSR[EE] = 1 */
uint32_t irq_disable(void);           /* MSR[EE] = 0, returns old MSR */
void irq_restore(uint32_t saved_msr); /* puts back EE from irq_disable */
/* Dozes until an interrupt has been taken, with EE enabled only while dozing,
 * so "disable; check condition; cpu_idle()" cannot miss a wake-up. Returns
 * with the caller's interrupt state. */
void cpu_idle(void);

/* ---- exception hooks (exceptions.c) ------------------------------------
 * The vectors save the volatile state in this frame on the current stack,
 * call the hook with EE off, restore and rfi. Each hook has a weak default;
 * define the function in your firmware to replace it. */
struct fw_exc_frame {
  uint32_t backchain;
  uint32_t lr_save; /* callee's LR save word (PPC32 SVR4 ABI) */
  uint32_t r0;
  uint32_t gpr[10]; /* r3..r12 */
  uint32_t lr, ctr, xer, cr;
  uint32_t srr0, srr1; /* interrupted PC and MSR */
  uint32_t pad;
};

/* Vector 0x500. Default: reports it and exits, since it cannot silence an
 * unknown source. */
void fw_external_interrupt(void);
/* Vector 0x900. Default: disarms the decrementer. */
void fw_decrementer_interrupt(void);
/* Vector 0xC00 (`sc`): gets the caller's r3..r8; the return value is put in
 * the caller's r3. Default: returns 0xFFFFFFFF. */
uint32_t fw_syscall(uint32_t r3, uint32_t r4, uint32_t r5, uint32_t r6, uint32_t r7, uint32_t r8);
/* Every other vector. Default: prints "unhandled exception 0x<vector> at
 * srr0=0x<pc>" and exits with FW_EXIT_UNHANDLED_EXCEPTION. */
void fw_unhandled_exception(uint32_t vector, const struct fw_exc_frame *frame);

/* ---- provided by each firmware ------------------------------------------
 * crt0 calls fw_exit(main()). */
int main(void);

#endif
