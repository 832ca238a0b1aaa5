/* strbuf.h: a growable text buffer for the emitter. */
#ifndef CHAD_EMIT_STRBUF_H
#define CHAD_EMIT_STRBUF_H

#include <stddef.h>

typedef struct StrBuf {
  char *data; /* NUL-terminated, malloc'd */
  size_t len;
  size_t cap;
} StrBuf;

void sb_printf(StrBuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_puts(StrBuf *b, const char *s);
char *sb_take(StrBuf *b); /* hands over the malloc'd text, resets b */

#endif
