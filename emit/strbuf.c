/* strbuf.c: see strbuf.h. Amortised O(1) appends; aborts on exhaustion. */
#include "emit/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(StrBuf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap)
    return;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1)
    cap *= 2;
  char *p = realloc(b->data, cap);
  if (!p) {
    fputs("chad: out of memory\n", stderr);
    abort();
  }
  b->data = p;
  b->cap = cap;
}

void sb_printf(StrBuf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  reserve(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void sb_puts(StrBuf *b, const char *s) {
  size_t n = strlen(s);
  reserve(b, n);
  memcpy(b->data + b->len, s, n + 1);
  b->len += n;
}

char *sb_take(StrBuf *b) {
  reserve(b, 0);
  char *p = b->data;
  *b = (StrBuf){0};
  return p;
}
