/* Small printf family. Portable C (also built on the host by the tests):
 * the only target dependency is console_putc().
 * Conversions: %d %i %u %x %X %o %c %s %p %%, flags '0' '-', a width,
 * length modifiers l and ll. Anything else is printed as written. */
#include "fw.h"

/* Output goes either to the console or into a bounded buffer; `len` counts
 * every character produced, as snprintf must return it. */
struct sink {
  int to_console;
  char *buf;
  size_t size;
  size_t len;
};

static void emit(struct sink *s, char c) {
  if (s->to_console) console_putc(c);
  else if (s->len + 1 < s->size) s->buf[s->len] = c;
  s->len++;
}

static void emit_padding(struct sink *s, char c, int count) {
  while (count-- > 0) emit(s, c);
}

/* Writes the digits of v backwards ending at `end`, returns the first one.
 * 32-bit values avoid the 64-bit division helpers, which are slow on a
 * 32-bit CPU. */
static char *format_unsigned(char *end, unsigned long long v, unsigned base, int upper) {
  const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  char *p = end;
  if (v == 0) *--p = '0';
  while (v > 0xFFFFFFFFull) {
    *--p = digits[v % base];
    v /= base;
  }
  for (unsigned long v32 = (unsigned long)v; v32 != 0; v32 /= base) *--p = digits[v32 % base];
  return p;
}

struct spec {
  int left; /* '-' */
  int zero; /* '0' */
  int width;
};

/* Prints sign (or 0) then the digits in [digits, end) within the field. */
static void emit_field(struct sink *s, const struct spec *sp, char sign, const char *digits, const char *end) {
  int n = (int)(end - digits) + (sign ? 1 : 0);
  int pad = sp->width > n ? sp->width - n : 0;
  if (!sp->left && !sp->zero) emit_padding(s, ' ', pad);
  if (sign) emit(s, sign);
  if (!sp->left && sp->zero) emit_padding(s, '0', pad);
  while (digits < end) emit(s, *digits++);
  if (sp->left) emit_padding(s, ' ', pad);
}

static void format(struct sink *s, const char *fmt, va_list ap) {
  char tmp[32]; /* >= 22 octal digits of 64 bits, or "0x" + 16 hex digits */
  char *end = tmp + sizeof(tmp);

  while (*fmt) {
    if (*fmt != '%') {
      emit(s, *fmt++);
      continue;
    }
    const char *start = fmt++;
    struct spec sp = {0, 0, 0};
    for (;; fmt++) {
      if (*fmt == '-') sp.left = 1;
      else if (*fmt == '0') sp.zero = 1;
      else break;
    }
    while (*fmt >= '0' && *fmt <= '9') sp.width = sp.width * 10 + (*fmt++ - '0');
    int longs = 0;
    while (*fmt == 'l' && longs < 2) {
      longs++;
      fmt++;
    }

    char conv = *fmt;
    if (conv == '\0') { /* truncated specification: print it as written */
      while (start < fmt) emit(s, *start++);
      break;
    }
    fmt++;

    unsigned long long u;
    char sign = 0;
    const char *digits;
    switch (conv) {
      case 'd':
      case 'i': {
        long long v = longs == 2 ? va_arg(ap, long long) : longs == 1 ? va_arg(ap, long) : va_arg(ap, int);
        /* Negate as unsigned: -LLONG_MIN does not fit a long long. */
        u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
        if (v < 0) sign = '-';
        digits = format_unsigned(end, u, 10, 0);
        emit_field(s, &sp, sign, digits, end);
        break;
      }
      case 'u':
      case 'x':
      case 'X':
      case 'o':
        u = longs == 2   ? va_arg(ap, unsigned long long)
            : longs == 1 ? va_arg(ap, unsigned long)
                         : va_arg(ap, unsigned int);
        digits = format_unsigned(end, u, conv == 'u' ? 10 : conv == 'o' ? 8 : 16, conv == 'X');
        emit_field(s, &sp, 0, digits, end);
        break;
      case 'p': {
        /* Always every hex digit of the pointer: addresses line up. */
        unsigned long long v = (unsigned long long)(uintptr_t)va_arg(ap, void *);
        char *p = end;
        for (size_t i = 0; i < 2 * sizeof(void *); i++, v >>= 4) *--p = "0123456789abcdef"[v & 0xF];
        *--p = 'x';
        *--p = '0';
        sp.zero = 0;
        emit_field(s, &sp, 0, p, end);
        break;
      }
      case 'c':
        tmp[0] = (char)va_arg(ap, int);
        sp.zero = 0;
        emit_field(s, &sp, 0, tmp, tmp + 1);
        break;
      case 's': {
        const char *str = va_arg(ap, const char *);
        if (!str) str = "(null)";
        const char *e = str;
        while (*e) e++;
        sp.zero = 0;
        emit_field(s, &sp, 0, str, e);
        break;
      }
      case '%':
        emit(s, '%');
        break;
      default: /* unsupported: show it rather than guess at arguments */
        while (start < fmt) emit(s, *start++);
        break;
    }
  }
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) {
  struct sink s = {0, buf, size, 0};
  format(&s, fmt, ap);
  if (size > 0) buf[s.len < size ? s.len : size - 1] = '\0';
  return (int)s.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, size, fmt, ap);
  va_end(ap);
  return n;
}

int vprintf(const char *fmt, va_list ap) {
  struct sink s = {1, NULL, 0, 0};
  format(&s, fmt, ap);
  return (int)s.len;
}

int printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vprintf(fmt, ap);
  va_end(ap);
  return n;
}

int putchar(int c) {
  console_putc((char)c);
  return (unsigned char)c;
}

int puts(const char *s) {
  int n = 0;
  for (; *s; s++, n++) console_putc(*s);
  console_putc('\n');
  return n + 1;
}
