/* The object and OST counts of the statistics (src/plan/objcount.c) against
 * a plain oracle: every piece of every range marked in arrays of flags.
 * Random ranges over a two-component layout whose OST lists overlap, with
 * few (in place) and many (past 32: the bitmap) distinct objects and OSTs
 * per call; issue 29 moved the small case off the bitmaps. */
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "plan/objcount.h"
#include "testutil.h"

#define K0 40
#define K1 60

static ostio_layout *layout(void)
{
  static int32_t o0[K0], o1[K1];
  for (int i = 0; i < K0; i++) o0[i] = i;
  for (int i = 0; i < K1; i++) o1[i] = 30 + i;
  ostio_layout *l = ostio__layout_new();
  ostio__comp c0 = {.start = 0, .end = 7 * 1000, .stripe_size = 7, .stripe_count = K0,
                    .first_ost = 0, .pattern = OSTIO_PATTERN_RAID0, .osts = o0};
  ostio__comp c1 = {.start = 7 * 1000, .end = OSTIO_EOF, .stripe_size = 5, .stripe_count = K1,
                    .first_ost = 30, .pattern = OSTIO_PATTERN_RAID0, .osts = o1};
  CHECK(l && ostio__layout_add(l, &c0) == 0 && ostio__layout_add(l, &c1) == 0);
  CHECK(ostio__layout_validate(l) == 0);
  return l;
}

static void oracle(const ostio_layout *l, const ostio__range *r, size_t n, int64_t *objects,
                   int64_t *osts)
{
  char ob[K0 + K1] = {0}, tb[256] = {0};
  *objects = *osts = 0;
  for (size_t i = 0; i < n; i++) {
    ostio__piece_iter it;
    ostio_piece p;
    if (ostio__piece_iter_init(&it, l, r[i].off, r[i].len) < 0) continue;
    while (ostio__piece_iter_next(&it, &p) == 1) {
      int64_t o = (p.component ? K0 : 0) + p.object;
      if (!ob[o]) ob[o] = 1, ++*objects;
      if (p.ost >= 0 && p.ost < 256 && !tb[p.ost]) tb[p.ost] = 1, ++*osts;
    }
  }
}

int main(void)
{
  ostio_layout *l = layout();
  tu_rng rng;
  tu_rng_seed(&rng, tu_seed(29));
  ostio__range r[64];
  int big = 0, small = 0;
  for (int t = 0; t < 2000; t++) {
    size_t n = 1 + tu_rng_next(&rng) % 64;
    int64_t span = t % 2 ? 40 : 12000; /* near the start: few objects; wide: many */
    int64_t maxlen = t % 3 == 0 ? 3 : 400;
    for (size_t i = 0; i < n; i++) {
      r[i].off = (int64_t)(tu_rng_next(&rng) % (uint64_t)span);
      r[i].len = 1 + (int64_t)(tu_rng_next(&rng) % (uint64_t)maxlen);
    }
    int64_t o = -1, s = -1, eo = 0, es = 0;
    CHECK(ostio__count_objects(l, r, n, sizeof r[0], &o, &s) == 0);
    oracle(l, r, n, &eo, &es);
    if (o != eo || s != es) {
      CHECKF(0, "case %d (%zu ranges): objects %lld osts %lld, expected %lld %lld", t, n,
             (long long)o, (long long)s, (long long)eo, (long long)es);
      break;
    }
    CHECK(es > 0);
    big += eo > 32 || es > 32;
    small += eo <= 32 && es <= 32;
  }
  CHECKF(big > 100 && small > 100, "cases past 32 values %d, within %d", big, small);
  /* One range: one object, one OST; a range over everything: all of them. */
  ostio__range one = {7 * 1000 + 12, 3}, all = {0, 7 * 1000 + 5 * K1};
  int64_t o = 0, s = 0;
  CHECK(ostio__count_objects(l, &one, 1, sizeof one, &o, &s) == 0);
  CHECK_EQ_I64(o, 1);
  CHECK_EQ_I64(s, 1);
  CHECK(ostio__count_objects(l, &all, 1, sizeof all, &o, &s) == 0);
  CHECK_EQ_I64(o, K0 + K1);
  CHECK_EQ_I64(s, 90); /* OSTs 0..39 and 30..89 */
  ostio__layout_destroy(l);
  return TEST_DONE();
}
