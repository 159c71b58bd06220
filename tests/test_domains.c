/* File-domain ownership (plan/domain.c): known values, then properties over
 * random layouts, ranges, aggregator counts and co_ratios. */
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "plan/domain.h"
#include "testutil.h"

static int owner(const ostio__domains *d, int64_t off)
{
  return ostio__domain_owner(d, off, NULL);
}

static void known_values(void)
{
  ostio_layout *l;
  ostio__domains d;
  CHECK(ostio__layout_simple(10, 4, 0, &l) == 0);
  CHECK(ostio__domains_init(&d, &ostio__domain_even, l, 0, 100, 3, 1) == 0);
  CHECK(owner(&d, 0) == 0 && owner(&d, 33) == 0 && owner(&d, 34) == 1 && owner(&d, 67) == 1 &&
        owner(&d, 68) == 2 && owner(&d, 99) == 2 && owner(&d, 1000) == 2);
  int64_t end;
  CHECK(ostio__domain_owner(&d, 10, &end) == 0 && end == 34);
  CHECK(ostio__domains_active(&d) == 3);
  CHECK(ostio__domains_init(&d, &ostio__domain_aligned, l, 5, 95, 3, 1) == 0);
  CHECK(owner(&d, 5) == 0 && owner(&d, 39) == 0 && owner(&d, 40) == 1 && owner(&d, 79) == 1 &&
        owner(&d, 80) == 2 && owner(&d, 94) == 2);
  CHECK(ostio__domain_owner(&d, 41, &end) == 1 && end == 80);
  ostio__layout_destroy(l);

  CHECK(ostio__layout_simple(1 << 20, 4, 0, &l) == 0);
  CHECK(ostio__domains_init(&d, &ostio__domain_ost, l, 0, 0, 4, 1) == 0);
  for (int k = 0; k < 12; k++) CHECK(owner(&d, (int64_t)k << 20) == k % 4);
  CHECK(ostio__domain_owner(&d, (5 << 20) + 7, &end) == 1 && end == 6 << 20);
  CHECK(ostio__domains_init(&d, &ostio__domain_ost, l, 0, 0, 2, 1) == 0);
  CHECK(owner(&d, 0) == 0 && owner(&d, 1 << 20) == 1 && owner(&d, 2 << 20) == 0 &&
        owner(&d, 3 << 20) == 1);
  CHECK(ostio__domains_init(&d, &ostio__domain_ost, l, 0, 0, 8, 2) == 0);
  CHECK(owner(&d, 0) == 0 && owner(&d, 4 << 20) == 4 && owner(&d, 8 << 20) == 0 &&
        owner(&d, 5 << 20) == 5 && owner(&d, 3 << 20) == 3 && owner(&d, 7 << 20) == 7);
  CHECK(ostio__domains_active(&d) == 8);
  CHECK(ostio__domains_init(&d, &ostio__domain_ost, l, 0, 0, 8, 1) == 0);
  CHECK(ostio__domains_active(&d) == 4 && owner(&d, 4 << 20) == 0);
  CHECK(ostio__domains_init(&d, &ostio__domain_ost, l, 0, 0, 0, 1) == OSTIO_EINVAL);
  CHECK(ostio__domains_init(&d, &ostio__domain_even, l, 10, 5, 2, 1) == OSTIO_EINVAL);
  CHECK(ostio__domains_init(&d, NULL, l, 0, 5, 2, 1) == OSTIO_EINVAL);
  ostio__layout_destroy(l);
}

/* Walk [lo, hi) run by run and check the properties of each rule. */
static void check_walk(const ostio_layout *l, const ostio__domain_rule *kind, int64_t lo,
                       int64_t hi, int naggr, int co)
{
  ostio__domains d;
  if (!CHECK(ostio__domains_init(&d, kind, l, lo, hi, naggr, co) == 0)) return;
  int ncomp = l->ncomp;
  /* objects touched: seen[comp][agg] = object+1 (0 none, -1 several) */
  static int seen[OSTIO_MAX_COMPONENTS][64];
  static int owners_of[OSTIO_MAX_COMPONENTS][256][64];
  memset(seen, 0, sizeof seen);
  memset(owners_of, 0, sizeof owners_of);
  int64_t off = lo, prev_owner = -1, distinct = 0;
  int used[64] = {0};
  while (off < hi) {
    int64_t end;
    int a = ostio__domain_owner(&d, off, &end);
    if (!CHECKF(a >= 0 && a < naggr && end > off, "%s off %lld: owner %d end %lld", kind->name,
                (long long)off, a, (long long)end))
      return;
    if (end > hi) end = hi;
    CHECK(owner(&d, end - 1) == a);
    if (!used[a]) { used[a] = 1; distinct++; }
    if (kind != &ostio__domain_ost) {
      CHECKF(a >= prev_owner, "%s: owner went back from %lld to %d at %lld", kind->name,
             (long long)prev_owner, a, (long long)off);
      if (kind == &ostio__domain_aligned && a != prev_owner && prev_owner >= 0 && l->ncomp == 1)
        CHECKF(off % l->comp[0].stripe_size == 0, "aligned boundary at %lld", (long long)off);
    } else {
      ostio_piece p;
      ostio__layout_locate(l, off, &p);
      CHECK(p.file_offset / l->comp[p.component].stripe_size ==
            (end - 1) / l->comp[p.component].stripe_size);
      int *s = &seen[p.component][a];
      *s = *s == 0 ? p.object + 1 : (*s == p.object + 1 ? *s : -1);
      if (p.object < 256) owners_of[p.component][p.object][a] = 1;
    }
    prev_owner = a;
    off = end;
  }
  CHECK(distinct <= ostio__domains_active(&d));
  if (kind != &ostio__domain_ost) return;
  for (int c = 0; c < ncomp; c++) {
    int K = l->comp[c].stripe_count;
    for (int a = 0; a < naggr; a++)
      if (naggr >= K) CHECKF(seen[c][a] != -1, "comp %d aggregator %d touched several objects", c, a);
    for (int o = 0; o < K && o < 256; o++) {
      int n = 0;
      for (int a = 0; a < naggr; a++) n += owners_of[c][o][a];
      CHECKF(n <= (naggr <= K ? 1 : co), "comp %d object %d has %d aggregators", c, o, n);
    }
  }
}

int main(void)
{
  tu_rng r;
  tu_rng_seed(&r, tu_seed(99));
  known_values();
  for (int i = 0; i < 300; i++) {
    ostio_layout *l = tu_random_layout(&r, 1);
    int naggr = (int)tu_rng_range(&r, 1, 20), co = (int)tu_rng_range(&r, 1, 4);
    int64_t lo = tu_rng_range(&r, 0, 200), hi = lo + tu_rng_range(&r, 0, 600);
    const ostio__domain_rule *const rules[] = {&ostio__domain_even, &ostio__domain_aligned,
                                               &ostio__domain_ost};
    for (int k = 0; k < 3; k++) check_walk(l, rules[k], lo, hi, naggr, co);
    ostio__layout_destroy(l);
  }
  return TEST_DONE();
}
