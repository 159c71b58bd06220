/* The Y-lib metric: how many distinct objects and OSTs one rank's file I/O
 * touches in a call. Counted on every collective call, so a call that
 * touches a few objects costs a few compares: the values seen are kept in
 * place up to SMALL of them, and only a call that touches more gets a
 * bitmap (issue 29: two zeroed bitmaps per call, 8 KiB for the OSTs, were
 * most of the interposer's instructions for a 4 KiB collective access). */
#include "plan/objcount.h"

#include <stdlib.h>
#include <string.h>

#define OST_BITS 65536
#define SMALL 32

static int set_bit(unsigned char *bits, int64_t i)
{
  unsigned char m = (unsigned char)(1u << (i & 7));
  int fresh = !(bits[i >> 3] & m);
  bits[i >> 3] |= m;
  return fresh;
}

/* Distinct values in [0, nbits): in place, then a bitmap. */
typedef struct seen_set {
  int64_t v[SMALL];
  int n, oom;
  int64_t nbits;
  unsigned char *bits;
} seen_set;

/* 1 when i was not seen before; 0 when it was (or no memory: s->oom). */
static int add(seen_set *s, int64_t i)
{
  if (s->bits) return set_bit(s->bits, i);
  for (int k = 0; k < s->n; k++)
    if (s->v[k] == i) return 0;
  if (s->n < SMALL) {
    s->v[s->n++] = i;
    return 1;
  }
  if (!(s->bits = calloc((size_t)(s->nbits / 8 + 1), 1))) {
    s->oom = 1;
    return 0;
  }
  for (int k = 0; k < s->n; k++) set_bit(s->bits, s->v[k]);
  return set_bit(s->bits, i);
}

int ostio__count_objects(const ostio_layout *l, const ostio__range *r, size_t n, size_t stride,
                       int64_t *objects, int64_t *osts)
{
  int64_t base[OSTIO_MAX_COMPONENTS + 1];
  base[0] = 0;
  for (int c = 0; c < l->ncomp; c++) base[c + 1] = base[c] + l->comp[c].stripe_count;
  /* v[] is not zeroed: only its first n are read (a call touching one
   * object should not clear 512 bytes). */
  seen_set ob, tb;
  ob.n = ob.oom = tb.n = tb.oom = 0;
  ob.bits = tb.bits = NULL;
  ob.nbits = base[l->ncomp];
  tb.nbits = OST_BITS;
  *objects = *osts = 0;
  /* Ranges that touch are walked as one: the same objects, one walk (an
   * aggregator's pieces of a view of one-byte blocks are one run in the
   * file however many ranks they came from). */
  /* all seen: no more to find */
  for (size_t i = 0; i < n && *objects < base[l->ncomp] && !ob.oom && !tb.oom;) {
    const ostio__range *x = (const ostio__range *)((const char *)r + i * stride);
    int64_t off = x->off, end = x->off + x->len;
    for (i++; i < n && base[l->ncomp] > 1; i++) { /* one object: any range finds it */
      const ostio__range *y = (const ostio__range *)((const char *)r + i * stride);
      if (y->off != end || y->len > INT64_MAX - end) break;
      end += y->len;
    }
    ostio__piece_iter it;
    ostio_piece p;
    if (ostio__piece_iter_init(&it, l, off, end - off) < 0) continue;
    int64_t seen = 0;
    while (ostio__piece_iter_next(&it, &p) == 1) {
      *objects += add(&ob, base[p.component] + p.object);
      if (p.ost >= 0 && p.ost < OST_BITS) *osts += add(&tb, p.ost);
      /* A long range has met every object of the component: jump on. */
      if (++seen > 2 * (int64_t)l->comp[p.component].stripe_count) {
        int64_t cend = l->comp[p.component].end;
        if (cend >= end) break;
        ostio__piece_iter_init(&it, l, cend, end - cend);
        seen = 0;
      }
    }
  }
  free(ob.bits);
  free(tb.bits);
  return ob.oom || tb.oom ? -1 : 0;
}
