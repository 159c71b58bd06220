/* The sieving plan (io/sieve_plan.h). A span grows piece by piece while the
 * next piece is after it in the same key, fits the buffer together with
 * the span, and the hole before it is cheap enough by the mode's rule;
 * otherwise the span ends and the piece starts the next one. Every
 * comparison is written so that nothing overflows for any int64 input. */
#include "io/sieve_plan.h"

#include "hints/hints.h"

/* A piece that can be read at all (else it is read alone, untouched). */
static int valid(const ostio__sieve_in *p)
{
  return p->off >= 0 && p->len > 0 && p->len <= INT64_MAX - p->off;
}

/* 1 when q may start a span under mode and buf. */
static int may_start(int mode, int64_t buf, const ostio__sieve_in *q)
{
  if (!valid(q) || q->len >= buf) return 0;
  return mode != OSTIO__TRI_AUTO || q->len < OSTIO__SIEVE_AUTO_STEP;
}

/* 1 when q may join the span [lo, end) of `data` named bytes and `holes`
 * hole bytes, whose last piece is prev. */
static int may_join(int mode, int64_t buf, const ostio__sieve_in *prev, const ostio__sieve_in *q,
                    int64_t lo, int64_t end, int64_t data, int64_t holes)
{
  if (!valid(q) || q->key != prev->key || q->off < end) return 0;
  if (q->len >= buf || q->off - lo > buf - q->len) return 0; /* span past the buffer */
  int64_t hole = q->off - end;                               /* <= buf */
  if (mode == OSTIO__TRI_AUTO && hole > OSTIO__SIEVE_AUTO_STEP - q->len) return 0;
  int64_t ratio = mode == OSTIO__TRI_AUTO ? OSTIO__SIEVE_AUTO_RATIO : OSTIO__SIEVE_ENABLE_RATIO;
  int64_t named = data + q->len; /* <= the span <= buf */
  int64_t budget = named > INT64_MAX / ratio ? INT64_MAX : named * ratio;
  return hole <= budget - holes; /* holes <= buf - data, never above budget */
}

size_t ostio__sieve_plan(int mode, int64_t buf, const ostio__sieve_in *p, size_t n,
                         ostio__sieve_chunk *out, size_t *spans, int64_t *widest)
{
  size_t k = 0;
  *spans = 0;
  *widest = 0;
  for (size_t i = 0; i < n;) {
    ostio__sieve_chunk *c = &out[k++];
    *c = (ostio__sieve_chunk){i, 1, p[i].off, p[i].len};
    if (mode == OSTIO__TRI_DISABLE || !may_start(mode, buf, &p[i])) {
      i++;
      continue;
    }
    int64_t end = p[i].off + p[i].len, data = p[i].len, holes = 0;
    size_t j = i + 1;
    for (; j < n && may_join(mode, buf, &p[j - 1], &p[j], c->off, end, data, holes); j++) {
      holes += p[j].off - end;
      data += p[j].len;
      end = p[j].off + p[j].len;
    }
    c->n = j - i;
    c->len = end - c->off;
    if (c->n > 1) {
      (*spans)++;
      if (c->len > *widest) *widest = c->len;
    }
    i = j;
  }
  return k;
}
