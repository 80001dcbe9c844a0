/* The libc string functions firmware uses; gcc also emits memcpy/memset
 * calls on its own (struct copies, large initialisers). Built with
 * -fno-tree-loop-distribute-patterns so that these loops are not turned
 * back into calls to themselves. */
#include "fw.h"

/* may_alias: these words overlay buffers of any type. */
typedef uint32_t __attribute__((may_alias)) word_t;

/* Word copies when both pointers share alignment: 4x fewer loads/stores
 * for the common case of copying aligned buffers. */
void *memcpy(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if ((((uintptr_t)d ^ (uintptr_t)s) & 3) == 0) {
    while (n && ((uintptr_t)d & 3)) {
      *d++ = *s++;
      n--;
    }
    for (; n >= 4; n -= 4, d += 4, s += 4) *(word_t *)d = *(const word_t *)s;
  }
  while (n--) *d++ = *s++;
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d <= s || d >= s + n) return memcpy(dst, src, n);
  /* Overlap with dst above src: copy from the end. */
  while (n--) d[n] = s[n];
  return dst;
}

void *memset(void *dst, int c, size_t n) {
  unsigned char *d = dst;
  uint32_t word = (unsigned char)c * 0x01010101u;
  while (n && ((uintptr_t)d & 3)) {
    *d++ = (unsigned char)c;
    n--;
  }
  for (; n >= 4; n -= 4, d += 4) *(word_t *)d = word;
  while (n--) *d++ = (unsigned char)c;
  return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *p = a, *q = b;
  for (; n; n--, p++, q++) {
    if (*p != *q) return *p < *q ? -1 : 1;
  }
  return 0;
}

size_t strlen(const char *s) {
  const char *e = s;
  while (*e) e++;
  return (size_t)(e - s);
}

int strcmp(const char *a, const char *b) {
  while (*a && *a == *b) {
    a++;
    b++;
  }
  return (unsigned char)*a - (unsigned char)*b;
}

char *strncpy(char *dst, const char *src, size_t n) {
  size_t i = 0;
  for (; i < n && src[i]; i++) dst[i] = src[i];
  for (; i < n; i++) dst[i] = '\0';
  return dst;
}
