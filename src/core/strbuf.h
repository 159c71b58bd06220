/* A growing text buffer for records and reports: printf-style appends, one
 * out-of-memory flag checked once at the end. */
#ifndef OSTIO_CORE_STRBUF_H
#define OSTIO_CORE_STRBUF_H

#include <stddef.h>

typedef struct ostio__sbuf {
  char *buf;      /* NUL-terminated text, malloc'ed (NULL before the first put) */
  size_t len, cap;
  int oom;        /* an append failed; the text is incomplete               */
} ostio__sbuf;

/* Appends printf-style; on allocation failure sets oom and ignores the
 * rest. */
void ostio__sbuf_put(ostio__sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
