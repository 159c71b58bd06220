/* The Y-lib metric: how many distinct objects and OSTs one rank's file I/O
 * touches in a call. */
#include "plan/objcount.h"

#include <stdlib.h>
#include <string.h>

#define OST_BITS 65536

static int set_bit(unsigned char *bits, int64_t i)
{
  unsigned char m = (unsigned char)(1u << (i & 7));
  int fresh = !(bits[i >> 3] & m);
  bits[i >> 3] |= m;
  return fresh;
}

int ostio__count_objects(const ostio_layout *l, const ostio__range *r, size_t n, size_t stride,
                       int64_t *objects, int64_t *osts)
{
  int64_t base[OSTIO_MAX_COMPONENTS + 1];
  base[0] = 0;
  for (int c = 0; c < l->ncomp; c++) base[c + 1] = base[c] + l->comp[c].stripe_count;
  unsigned char *ob = calloc((size_t)(base[l->ncomp] / 8 + 1), 1);
  unsigned char *tb = calloc(OST_BITS / 8, 1);
  *objects = *osts = 0;
  if (!ob || !tb) {
    free(ob);
    free(tb);
    return -1;
  }
  /* Ranges that touch are walked as one: the same objects, one walk (an
   * aggregator's pieces of a view of one-byte blocks are one run in the
   * file however many ranks they came from). */
  for (size_t i = 0; i < n && *objects < base[l->ncomp];) { /* all seen: no more to find */
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
      *objects += set_bit(ob, base[p.component] + p.object);
      if (p.ost >= 0 && p.ost < OST_BITS) *osts += set_bit(tb, p.ost);
      /* A long range has met every object of the component: jump on. */
      if (++seen > 2 * (int64_t)l->comp[p.component].stripe_count) {
        int64_t cend = l->comp[p.component].end;
        if (cend >= end) break;
        ostio__piece_iter_init(&it, l, cend, end - cend);
        seen = 0;
      }
    }
  }
  free(ob);
  free(tb);
  return 0;
}
