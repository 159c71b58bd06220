/* Growing text buffer; see strbuf.h. */
#include "core/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

void ostio__sbuf_put(ostio__sbuf *s, const char *fmt, ...)
{
  va_list ap;
  if (s->oom) return;
  for (;;) {
    size_t room = s->cap - s->len;
    va_start(ap, fmt);
    int n = s->buf ? vsnprintf(s->buf + s->len, room, fmt, ap) : -1;
    va_end(ap);
    if (n >= 0 && (size_t)n < room) {
      s->len += (size_t)n;
      return;
    }
    size_t ncap = s->cap ? 2 * s->cap : 256;
    while (n >= 0 && ncap - s->len <= (size_t)n) ncap *= 2;
    char *grown = realloc(s->buf, ncap);
    if (!grown) {
      s->oom = 1;
      return;
    }
    s->buf = grown;
    s->cap = ncap;
  }
}
