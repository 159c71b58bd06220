/* The pure plan of a collective call (engine/plan.c): known values, then a
 * simulation of the whole exchange without MPI over random layouts, extent
 * sets, domain rules, aggregator counts and round sizes: every byte of
 * every source arrives once, at its owner, in the round and buffer position
 * both sides computed independently. */
#include <stdlib.h>
#include <string.h>

#include "plan/plan.h"
#include "layout/layout.h"
#include "testutil.h"

static void known_values(void)
{
  ostio__ext *e;
  size_t n;
  int64_t bytes, lo, hi;
  ostio_extent x[] = {{100, 10}, {0, 5}, {50, 0}, {20, 30}};
  CHECK(ostio__plan_local(x, 4, &e, &n, &bytes, &lo, &hi) == 0);
  CHECK(n == 3 && bytes == 45 && lo == 0 && hi == 110);
  CHECK(e[0].off == 0 && e[0].pos == 10 && e[1].off == 20 && e[1].pos == 15 && e[2].off == 100 &&
        e[2].pos == 0);
  free(e);
  ostio_extent ov[] = {{100, 10}, {0, 5}, {105, 1}};
  CHECK(ostio__plan_local(ov, 3, &e, &n, &bytes, &lo, &hi) == OSTIO_EOVERLAP);
  CHECK(strstr(ostio_last_error(), "[100, 110) and [105, 106)") != NULL);
  ostio_extent touch[] = {{10, 10}, {0, 10}, {20, 1}};
  CHECK(ostio__plan_local(touch, 3, &e, &n, &bytes, &lo, &hi) == 0 && n == 3);
  free(e);
  ostio_extent neg[] = {{0, 1}, {-1, 3}};
  CHECK(ostio__plan_local(neg, 2, &e, &n, &bytes, &lo, &hi) == OSTIO_EINVAL);
  CHECK(strstr(ostio_last_error(), "extent 1") != NULL);
  ostio_extent big[] = {{INT64_MAX - 2, 3}};
  CHECK(ostio__plan_local(big, 1, &e, &n, &bytes, &lo, &hi) == OSTIO_EINVAL);
  CHECK(ostio__plan_local(NULL, 2, &e, &n, &bytes, &lo, &hi) == OSTIO_EINVAL);
  CHECK(ostio__plan_local(NULL, 0, &e, &n, &bytes, &lo, &hi) == 0 && n == 0 && e == NULL);

  /* ost on 4 x 10: [5, 45) -> pieces per stripe, aggregator = object. */
  ostio_layout *l;
  ostio__domains d;
  CHECK(ostio__layout_simple(10, 4, 0, &l) == 0);
  CHECK(ostio__domains_init(&d, &ostio__domain_ost, l, 0, 0, 2, 1) == 0);
  ostio__ext one = {5, 40, 0};
  ostio__xpiece *p;
  size_t np;
  CHECK(ostio__plan_split(&one, 1, &d, &p, &np) == 0 && np == 5);
  /* aggregator 0 owns objects 0 and 2: stripes 0, 2, 4 -> keys (0,5) (2,0) (0,10) */
  CHECK(p[0].peer == 0 && p[0].off == 5 && p[0].major == 0 && p[0].minor == 5);
  CHECK(p[1].peer == 0 && p[1].off == 40 && p[1].major == 0 && p[1].minor == 10 && p[1].pos == 35);
  CHECK(p[2].peer == 0 && p[2].off == 20 && p[2].major == 2);
  CHECK(p[3].peer == 1 && p[3].off == 10 && p[4].off == 30);
  /* Rounds of 8 bytes over aggregator 0's 5 + 5 + 10 bytes. */
  int64_t *sched;
  int nr;
  for (size_t i = 0; i < 3; i++) p[i].peer = 1; /* pretend they came from rank 1 */
  CHECK(ostio__plan_rounds(p, 3, 8, 2, &sched, &nr) == 0 && nr == 3);
  CHECK(sched[0] == 0 && sched[1] == 8 && sched[3] == 8 && sched[5] == 4);
  free(sched);
  ostio__cursor c = {0, 0};
  ostio__seg s[4];
  int64_t got;
  CHECK(ostio__take(p, 3, &c, 8, 0, 0, s, 4, &got) == 2 && got == 8);
  CHECK(s[0].off == 5 && s[0].len == 5 && s[0].pos == 0 && s[1].off == 40 && s[1].len == 3 &&
        s[1].pos == 5);
  CHECK(ostio__take(p, 3, &c, 8, 1, 0, s, 4, &got) == 2 && got == 8);
  CHECK(s[0].off == 43 && s[0].len == 2 && s[0].pos == 38 && s[1].off == 20 && s[1].len == 6);
  CHECK(ostio__plan_rounds(p, 3, 0, 2, &sched, &nr) == OSTIO_EINVAL);
  free(p);
  ostio__layout_destroy(l);
}

/* Random disjoint extents of one source within [0, span). */
static size_t random_extents(tu_rng *r, int64_t span, ostio_extent *x, size_t max)
{
  size_t n = 0;
  int64_t off = tu_rng_range(r, 0, 50);
  while (n < max && off < span) {
    int64_t len = tu_rng_range(r, 0, 4) == 0 ? 0 : tu_rng_range(r, 1, 300);
    x[n++] = (ostio_extent){off, len};
    off += len + tu_rng_range(r, 0, 200);
  }
  for (size_t i = n; i > 1; i--) { /* shuffle */
    size_t j = (size_t)tu_rng_range(r, 0, (int64_t)i - 1);
    ostio_extent t = x[i - 1];
    x[i - 1] = x[j];
    x[j] = t;
  }
  return n;
}

/* The domain rules the strategies use. */
static const ostio__domain_rule *const rules[] = {&ostio__domain_even, &ostio__domain_aligned,
                                                 &ostio__domain_ost};

/* One simulated call: nsrc sources, naggr aggregators, round size cap. */
/* Handle scratch as the engine uses it (plan_*_in), shared by every call of
 * the run so it starts empty, grows within a call and across calls, and is
 * reused with stale contents. */
static ostio__scratch mem_ext, mem_sp, mem_merge;

static void simulate(tu_rng *r, const ostio_layout *l, const ostio__domain_rule *rule, int nsrc,
                     int naggr, int co, int64_t cap)
{
  enum { MAXE = 40 };
  ostio_extent x[8][MAXE];
  size_t nx[8];
  ostio__ext *e[8];
  size_t ne[8];
  int64_t lo = INT64_MAX, hi = 0, bytes[8];
  int64_t span = 20000;
  for (int s = 0; s < nsrc; s++) {
    nx[s] = random_extents(r, span, x[s], MAXE);
    int64_t l0, h0;
    /* Sources own alternate 1000-byte blocks, so they interleave but never overlap. */
    for (size_t i = 0; i < nx[s]; i++) {
      int64_t blk = x[s][i].offset / 1000;
      x[s][i].offset = (blk * nsrc + s) * 1000 + x[s][i].offset % 1000;
      if (x[s][i].offset % 1000 + x[s][i].length > 1000) x[s][i].length = 1000 - x[s][i].offset % 1000;
    }
    CHECK(ostio__plan_local(x[s], nx[s], &e[s], &ne[s], &bytes[s], &l0, &h0) == 0);
    ostio__ext *ei;
    size_t nei;
    int64_t bi, li, hi_;
    CHECK(ostio__plan_local_in(&mem_ext, x[s], nx[s], &ei, &nei, &bi, &li, &hi_) == 0);
    CHECKF(nei == ne[s] && bi == bytes[s] && (!nei || (li == l0 && hi_ == h0 &&
           !memcmp(ei, e[s], nei * sizeof *ei))), "plan_local_in differs from plan_local");
    if (ne[s]) {
      lo = l0 < lo ? l0 : lo;
      hi = h0 > hi ? h0 : hi;
    }
  }
  if (lo > hi) lo = hi = 0;
  ostio__domains d;
  if (!CHECK(ostio__domains_init(&d, rule, l, lo, hi, naggr, co) == 0)) return;
  ostio__xpiece *sp[8];
  size_t nsp[8];
  for (int s = 0; s < nsrc; s++) {
    CHECK(ostio__plan_split(e[s], ne[s], &d, &sp[s], &nsp[s]) == 0);
    ostio__xpiece *pi;
    size_t npi;
    CHECK(ostio__plan_split_in(&mem_sp, e[s], ne[s], &d, &pi, &npi) == 0);
    CHECKF(npi == nsp[s] && (!npi || !memcmp(pi, sp[s], npi * sizeof *pi)),
           "plan_split_in differs from plan_split (%zu and %zu pieces)", npi, nsp[s]);
  }
  for (int a = 0; a < naggr; a++) {
    /* Gather what every source sends to a (as the Alltoallv would). */
    size_t nap = 0;
    for (int s = 0; s < nsrc; s++)
      for (size_t i = 0; i < nsp[s]; i++) nap += sp[s][i].peer == a;
    ostio__xpiece *ap = malloc((nap + 1) * sizeof *ap);
    size_t k = 0;
    for (int s = 0; s < nsrc; s++)
      for (size_t i = 0; i < nsp[s]; i++)
        if (sp[s][i].peer == a) {
          ap[k] = (ostio__xpiece){.off = sp[s][i].off, .len = sp[s][i].len, .peer = s};
          CHECK(ostio__plan_key(&d, ap[k].off, &ap[k].major, &ap[k].minor) == 0);
          /* the whole piece belongs to a */
          int64_t end;
          CHECKF(ostio__domain_owner(&d, ap[k].off, &end) == a && end >= ap[k].off + ap[k].len,
                 "piece [%lld,+%lld) not wholly owned by %d", (long long)ap[k].off,
                 (long long)ap[k].len, a);
          k++;
        }
    ostio__xpiece *ap2 = malloc((nap + 1) * sizeof *ap2);
    memcpy(ap2, ap, nap * sizeof *ap);
    CHECK(ostio__plan_sort(ap, nap) == 0);
    CHECK(ostio__plan_sort_in(&mem_merge, ap2, nap) == 0);
    CHECKF(!nap || !memcmp(ap, ap2, nap * sizeof *ap), "plan_sort_in differs from plan_sort");
    /* plan_sort_into from the unsorted pieces (in ap3) into ap2. */
    ostio__xpiece *ap3 = malloc((nap + 1) * sizeof *ap3);
    k = 0;
    for (int s = 0; s < nsrc; s++)
      for (size_t i = 0; i < nsp[s]; i++)
        if (sp[s][i].peer == a) {
          ap3[k] = (ostio__xpiece){.off = sp[s][i].off, .len = sp[s][i].len, .peer = s};
          CHECK(ostio__plan_key(&d, ap3[k].off, &ap3[k].major, &ap3[k].minor) == 0);
          k++;
        }
    memset(ap2, 0xab, (nap + 1) * sizeof *ap2);
    CHECK(ostio__plan_sort_into(ap3, nap, ap2) == 0);
    CHECKF(!nap || !memcmp(ap, ap2, nap * sizeof *ap), "plan_sort_into differs from plan_sort "
           "(%zu pieces from %d sources)", nap, nsrc);
    free(ap3);
    { /* plan_merge_pairs from the pairs as the exchange delivers them */
      int64_t *pairs = malloc((2 * nap + 2) * sizeof *pairs), tot = -1, want = 0;
      int nval[8] = {0};
      k = 0;
      for (int s = 0; s < nsrc; s++)
        for (size_t i = 0; i < nsp[s]; i++)
          if (sp[s][i].peer == a) {
            pairs[2 * k] = sp[s][i].off;
            pairs[2 * k + 1] = sp[s][i].len;
            want += sp[s][i].len;
            nval[s] += 2;
            k++;
          }
      memset(ap2, 0xab, (nap + 1) * sizeof *ap2);
      CHECK(ostio__plan_merge_pairs(pairs, nval, nsrc, &d, ap2, &tot) == 0 && tot == want);
      CHECKF(!nap || !memcmp(ap, ap2, nap * sizeof *ap), "plan_merge_pairs differs from "
             "plan_sort (%zu pieces from %d sources)", nap, nsrc);
      free(pairs);
    }
    free(ap2);
    int64_t *sched;
    int nr;
    CHECK(ostio__plan_rounds(ap, nap, cap, nsrc, &sched, &nr) == 0);
    { /* the _total form: the same schedule; a total too small is refused */
      int64_t tot = 0, *s2 = NULL;
      int nr2 = -1;
      for (size_t i = 0; i < nap; i++) tot += ap[i].len;
      CHECK(ostio__plan_rounds_total(ap, nap, tot, cap, nsrc, &s2, &nr2) == 0 && nr2 == nr);
      CHECK(nr == 0 || !memcmp(s2, sched, (size_t)nr * (size_t)nsrc * sizeof *s2));
      free(s2);
      if (tot > cap)
        CHECK(ostio__plan_rounds_total(ap, nap, tot - cap, cap, nsrc, &s2, &nr2) == OSTIO_EINVAL);
    }
    /* Replay the rounds on both sides and compare segment by segment. */
    ostio__cursor ac = {0, 0}, sc[8];
    size_t start[8];
    memset(sc, 0, sizeof sc);
    for (int s = 0; s < nsrc; s++) {
      start[s] = 0;
      while (start[s] < nsp[s] && sp[s][start[s]].peer < a) start[s]++;
    }
    ostio__seg *as = malloc((nap + 1) * sizeof *as), *ss = malloc((nap + 1) * sizeof *ss);
    for (int rr = 0; rr < nr; rr++) {
      int64_t want = 0, got;
      for (int s = 0; s < nsrc; s++) want += sched[(size_t)rr * nsrc + s];
      CHECK(want <= cap && want > 0);
      size_t na = ostio__take(ap, nap, &ac, want, 0, 0, as, nap + 1, &got);
      CHECK(got == want);
      for (int s = 0; s < nsrc; s++) {
        size_t end = start[s];
        while (end < nsp[s] && sp[s][end].peer == a) end++;
        size_t ns = ostio__take(sp[s] + start[s], end - start[s], &sc[s],
                                sched[(size_t)rr * nsrc + s], 1, 0, ss, nap + 1, &got);
        CHECK(got == sched[(size_t)rr * nsrc + s]);
        size_t j = 0;
        for (size_t i = 0; i < na; i++) {
          if (as[i].peer != s) continue;
          CHECKF(j < ns && as[i].off == ss[j].off && as[i].len == ss[j].len,
                 "aggregator %d round %d source %d segment %zu differs", a, rr, s, j);
          j++;
        }
        CHECK(j == ns);
      }
    }
    CHECK(ac.i == nap);
    free(as);
    free(ss);
    free(sched);
    free(ap);
  }
  /* Every source piece was consumed, and pieces tile the extents. */
  for (int s = 0; s < nsrc; s++) {
    int64_t sum = 0;
    for (size_t i = 0; i < nsp[s]; i++) sum += sp[s][i].len;
    CHECK(sum == bytes[s]);
    free(sp[s]);
    free(e[s]);
  }
}

static void overlap_across_sources(void)
{
  ostio_layout *l;
  ostio__domains d;
  CHECK(ostio__layout_simple(16, 3, 0, &l) == 0);
  for (int k = 0; k < 3; k++) {
    CHECK(ostio__domains_init(&d, rules[k], l, 0, 200, 2, 1) == 0);
    ostio__xpiece p[2] = {{.off = 40, .len = 5, .peer = 0}, {.off = 44, .len = 2, .peer = 3}};
    for (int i = 0; i < 2; i++) ostio__plan_key(&d, p[i].off, &p[i].major, &p[i].minor);
    CHECK(ostio__plan_sort(p, 2) == OSTIO_EOVERLAP);
    CHECK(strstr(ostio_last_error(), "rank 0") && strstr(ostio_last_error(), "rank 3"));
    p[1].off = 45;
    ostio__plan_key(&d, p[1].off, &p[1].major, &p[1].minor);
    CHECK(ostio__plan_sort(p, 2) == 0);
  }
  /* plan_sort_into checks while it merges: runs from three sources, the
   * overlap inside the merged order, at its end, in a run's tail, or none. */
  CHECK(ostio__domains_init(&d, rules[0], l, 0, 200, 1, 1) == 0);
  const int64_t cases[][6] = {/* (off, len) of sources 0 | 1 | 2; -1: no overlap */
                              {10, 5, 14, 3, 30, 2}, {10, 5, 20, 3, 21, 1},
                              {10, 5, 50, 10, 55, 2}, {10, 5, 20, 3, 30, 2}};
  for (int c = 0; c < 4; c++) {
    ostio__xpiece in[4], out[4];
    for (int s = 0; s < 3; s++) {
      in[s] = (ostio__xpiece){.off = cases[c][2 * s], .len = cases[c][2 * s + 1], .peer = s};
      ostio__plan_key(&d, in[s].off, &in[s].major, &in[s].minor);
    }
    /* source 0 also sends a piece after the others (a two-piece run) */
    memmove(&in[2], &in[1], 2 * sizeof *in);
    in[1] = (ostio__xpiece){.off = 100, .len = 4, .peer = 0};
    ostio__plan_key(&d, 100, &in[1].major, &in[1].minor);
    /* the same pieces as the exchange's pairs (source 0: two pieces) */
    int64_t pairs[8], tot = 0;
    int nval[3] = {4, 2, 2};
    for (int i = 0; i < 4; i++) pairs[2 * i] = in[i].off, pairs[2 * i + 1] = in[i].len;
    int rc = ostio__plan_sort_into(in, 4, out);
    CHECKF(rc == (c < 3 ? OSTIO_EOVERLAP : 0), "plan_sort_into case %d: %d", c, rc);
    if (c == 3)
      CHECK(out[0].off == 10 && out[1].off == 20 && out[2].off == 30 && out[3].off == 100);
    memset(out, 0, sizeof out);
    rc = ostio__plan_merge_pairs(pairs, nval, 3, &d, out, &tot);
    CHECKF(rc == (c < 3 ? OSTIO_EOVERLAP : 0), "plan_merge_pairs case %d: %d", c, rc);
    if (c == 3)
      CHECK(tot == 14 && out[0].off == 10 && out[1].off == 20 && out[2].off == 30 &&
            out[3].off == 100 && out[3].peer == 0 && out[1].peer == 1);
  }
  { /* merge_pairs: a source out of key order is still sorted; a negative
     * length names its source; no pieces at all */
    int64_t pairs[8] = {100, 4, 10, 5, 20, 3, 30, 2}, tot = 0;
    int nval[3] = {4, 2, 2};
    ostio__xpiece out[4];
    CHECK(ostio__plan_merge_pairs(pairs, nval, 3, &d, out, &tot) == 0 && tot == 14);
    CHECK(out[0].off == 10 && out[1].off == 20 && out[2].off == 30 && out[3].off == 100);
    pairs[5] = -3;
    CHECK(ostio__plan_merge_pairs(pairs, nval, 3, &d, out, &tot) == OSTIO_ERANGE);
    CHECK(strstr(ostio_last_error(), "rank 1"));
    int none[3] = {0, 0, 0};
    CHECK(ostio__plan_merge_pairs(pairs, none, 3, &d, out, &tot) == 0 && tot == 0);
  }
  ostio__layout_destroy(l);
}

int main(void)
{
  known_values();
  overlap_across_sources();
  tu_rng r;
  tu_rng_seed(&r, tu_seed(0x91a2));
  for (int it = 0; it < 400; it++) {
    ostio_layout *l = tu_random_layout(&r, 1);
    ostio_layout *big = NULL;
    /* small layouts have tiny stripes; use a mix */
    if (it % 2) {
      CHECK(ostio__layout_simple(tu_rng_range(&r, 1, 8) * 512, (int)tu_rng_range(&r, 1, 16), 0,
                                 &big) == 0);
    }
    const ostio__domain_rule *rule = rules[tu_rng_range(&r, 0, 2)];
    simulate(&r, big ? big : l, rule, (int)tu_rng_range(&r, 1, 8), (int)tu_rng_range(&r, 1, 8),
             (int)tu_rng_range(&r, 1, 3), tu_rng_range(&r, 1, 3000));
    ostio__layout_destroy(l);
    ostio__layout_destroy(big);
    if (tu_failed) break;
  }
  ostio__scratch_free(&mem_ext);
  ostio__scratch_free(&mem_sp);
  ostio__scratch_free(&mem_merge);
  return TEST_DONE();
}
