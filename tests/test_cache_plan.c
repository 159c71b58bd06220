/* The cache's geometry (cache/cache_plan.c, issue 17): page owners against
 * the `ost` domain rule, splits against a byte-by-byte reference, huge
 * offsets, the bypass rule, refused parameters. No MPI, no I/O. */
#include <stdlib.h>
#include <string.h>

#include "cache/cache_plan.h"
#include "layout/layout.h"
#include "plan/domain.h"
#include "testutil.h"

static int has(const char *s) { return strstr(ostio_last_error(), s) != NULL; }

/* Aggregator a runs on rank 100 + 7a: the map is not the identity. */
static int ranks[64];
static void set_ranks(void)
{
  for (int a = 0; a < 64; a++) ranks[a] = 100 + 7 * a;
}

static ostio__cache_params params(int64_t page, int64_t size, int64_t bypass, int co)
{
  return (ostio__cache_params){.page = page, .size = size, .bypass = bypass, .co_ratio = co};
}

/* The `ost` owner of the byte at off, as a rank. */
static int ost_rank(const ostio_layout *l, int naggr, int co, int64_t off)
{
  ostio__domains d;
  if (ostio__domains_init(&d, &ostio__domain_ost, l, 0, 0, naggr, co) != 0) return -1000;
  int a = ostio__domain_owner(&d, off, NULL);
  return a < 0 ? a : ranks[a];
}

/* A RAID0 layout of count objects and g set up on it with p (checked). */
static ostio_layout *simple_geom(int64_t stripe, int count, ostio__cache_params p, int naggr,
                                 ostio__cache_geom *g)
{
  ostio_layout *l = NULL;
  CHECK(ostio__layout_simple(stripe, count, 0, &l) == 0);
  CHECK(ostio__cache_geom_init(g, l, &p, ranks, naggr) == 0);
  return l;
}

/* Two components: [0, split) and [split, EOF), RAID0. */
static ostio_layout *two_components(int64_t split, int64_t s0, int k0, int64_t s1, int k1)
{
  ostio_layout *l = ostio__layout_new();
  ostio__comp c0 = {.start = 0, .end = split, .stripe_size = s0, .stripe_count = k0,
                    .first_ost = -1, .pattern = OSTIO_PATTERN_RAID0};
  ostio__comp c1 = c0;
  c1.start = split;
  c1.end = OSTIO_EOF;
  c1.stripe_size = s1;
  c1.stripe_count = k1;
  CHECK(ostio__layout_add(l, &c0) == 0 && ostio__layout_add(l, &c1) == 0);
  CHECK(ostio__layout_validate(l) == 0);
  return l;
}

static void known_values(void)
{
  ostio__cache_geom g;
  ostio__cache_params p = params(0, 64 << 20, 0, 1);
  ostio_layout *l = simple_geom(1 << 20, 4, p, 4, &g);
  CHECK(g.page == 1 << 20 && g.pool_pages == 64 && g.bypass == 4 << 20);
  for (int k = 0; k < 12; k++) CHECK(ostio__cache_owner(&g, k) == ranks[k % 4]);
  /* Two aggregators: objects 0, 2 to the first, 1, 3 to the second. */
  CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 2) == 0);
  CHECK(ostio__cache_owner(&g, 0) == ranks[0] && ostio__cache_owner(&g, 1) == ranks[1] &&
        ostio__cache_owner(&g, 2) == ranks[0] && ostio__cache_owner(&g, 7) == ranks[1]);
  /* Eight aggregators, co_ratio 2: an object's stripes alternate over two. */
  p.co_ratio = 2;
  CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 8) == 0);
  CHECK(ostio__cache_owner(&g, 0) == ranks[0] && ostio__cache_owner(&g, 4) == ranks[4] &&
        ostio__cache_owner(&g, 8) == ranks[0] && ostio__cache_owner(&g, 13) == ranks[5]);
  /* The hints' defaults: page = stripe, 64 MiB, 4 pages, co_ratio 1. */
  ostio__hints h;
  ostio__hints_init(&h);
  ostio__cache_params_from_hints(&h, &p);
  CHECK(p.page == 0 && p.size == 64 << 20 && p.bypass == 0 && p.co_ratio == 1);
  ostio__layout_destroy(l);
}

/* With page == stripe size every page is one stripe and its owner is the
 * `ost` owner of that stripe, for every stripe, aggregator count (more than
 * the objects too) and co_ratio; the split's pieces carry the same owner. */
static void owners_are_ost(void)
{
  static const int counts[] = {1, 3, 8};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    ostio_layout *l;
    CHECK(ostio__layout_simple(65536, counts[c], 0, &l) == 0);
    for (int naggr = 1; naggr <= 8; naggr++) {
      for (int co = 1; co <= 3; co++) {
        ostio__cache_geom g;
        ostio__cache_params p = params(0, 1 << 20, 0, co);
        if (!CHECK(ostio__cache_geom_init(&g, l, &p, ranks, naggr) == 0)) continue;
        for (int64_t k = 0; k < 200; k++)
          CHECKF(ostio__cache_owner(&g, k) == ost_rank(l, naggr, co, k * 65536),
                 "K %d naggr %d co %d stripe %lld", counts[c], naggr, co, (long long)k);
        ostio__cache_split s;
        ostio__cache_piece pc;
        CHECK(ostio__cache_split_init(&s, &g, 1000, 200 * 65536) == 0);
        while (ostio__cache_split_next(&s, &pc) == 1)
          CHECK(pc.owner == ost_rank(l, naggr, co, pc.page * 65536 + pc.in_page));
      }
    }
    ostio__layout_destroy(l);
  }
  /* PFL: 64 KiB x 2 objects, then 64 KiB x 8; every stripe of both. */
  ostio_layout *l = two_components(1 << 20, 65536, 2, 65536, 8);
  for (int naggr = 1; naggr <= 8; naggr++) {
    ostio__cache_geom g;
    ostio__cache_params p = params(0, 1 << 20, 0, 2);
    CHECK(ostio__cache_geom_init(&g, l, &p, ranks, naggr) == 0);
    for (int64_t k = 0; k < 100; k++)
      CHECK(ostio__cache_owner(&g, k) == ost_rank(l, naggr, 2, k * 65536));
  }
  ostio__layout_destroy(l);
}

/* Pages of k stripes: the owner of the first stripe owns the page. With K
 * objects, only the first stripes' objects, K / gcd(k, K) of them, own
 * pages: k = K puts every page on one aggregator (docs/cache.md). */
static void large_pages(void)
{
  ostio_layout *l;
  CHECK(ostio__layout_simple(65536, 4, 0, &l) == 0);
  for (int k = 1; k <= 4; k++) {
    ostio__cache_geom g;
    ostio__cache_params p = params(65536 * k, 8 << 20, 0, 1);
    CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 4) == 0);
    int seen[4] = {0}, distinct = 0;
    for (int64_t page = 0; page < 64; page++) {
      int r = ostio__cache_owner(&g, page);
      CHECK(r == ost_rank(l, 4, 1, page * 65536 * k));
      int a = (r - 100) / 7;
      if (a >= 0 && a < 4 && !seen[a]++) distinct++;
    }
    static const int expect[] = {0, 4, 2, 4, 1}; /* 4 / gcd(k, 4) */
    CHECKF(distinct == expect[k], "page of %d stripes: %d owners", k, distinct);
  }
  ostio__layout_destroy(l);
}

static void refused(void)
{
  ostio_layout *l;
  ostio__cache_geom g;
  CHECK(ostio__layout_simple(65536, 4, 0, &l) == 0);
  ostio__cache_params p = params(98304, 64 << 20, 0, 1);
  CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 4) == OSTIO_EHINT);
  CHECK(has("ostio_cache_page=98304") && has("65536") && has("multiple"));
  p = params(-1, 64 << 20, 0, 1);
  CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 4) == OSTIO_EHINT && has("ostio_cache_page=-1"));
  p = params(1 << 20, 512 << 10, 0, 1);
  CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 4) == OSTIO_EHINT);
  CHECK(has("ostio_cache_size=524288") && has("no page"));
  p = params(0, 64 << 20, -5, 1);
  CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 4) == OSTIO_EHINT && has("ostio_cache_bypass"));
  p = params(0, 64 << 20, 0, 1);
  CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 0) == OSTIO_EINVAL);
  CHECK(ostio__cache_geom_init(&g, l, &p, NULL, 2) == OSTIO_EINVAL);
  ostio__layout_destroy(l);
  /* PFL 64 KiB then 1 MiB: the default page (64 KiB) is refused, naming the
   * smallest page that fits both. */
  l = two_components(4 << 20, 65536, 1, 1 << 20, 1);
  CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 2) == OSTIO_EHINT);
  CHECK(has("component 1's stripe size 1048576") && has("smallest is 1048576"));
  p.page = 2 << 20;
  CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 2) == 0 && g.stripe == 65536);
  ostio__layout_destroy(l);
}

/* Random small layouts, pages of 1..3 times the stripes' lcm, random
 * requests: every byte of every piece is where the reference says. */
static void split_reference(uint64_t seed)
{
  tu_rng r;
  tu_rng_seed(&r, seed);
  for (int iter = 0; iter < 300; iter++) {
    ostio_layout *l = tu_random_layout(&r, 1);
    int64_t lcm = 1;
    for (int i = 0; i < l->ncomp; i++) {
      int64_t a = lcm, b = l->comp[i].stripe_size;
      while (b) { int64_t t = a % b; a = b; b = t; }
      lcm = lcm / a * l->comp[i].stripe_size;
    }
    int naggr = (int)tu_rng_range(&r, 1, 8), co = (int)tu_rng_range(&r, 1, 3);
    int64_t page = lcm * tu_rng_range(&r, 1, 3);
    ostio__cache_params p = params(page == l->comp[0].stripe_size ? 0 : page, page * 64, 0, co);
    ostio__cache_geom g;
    if (!CHECK(ostio__cache_geom_init(&g, l, &p, ranks, naggr) == 0)) {
      ostio__layout_destroy(l);
      continue;
    }
    for (int q = 0; q < 20; q++) {
      int64_t off = tu_rng_range(&r, 0, page * 20), len = tu_rng_range(&r, 0, page * 5);
      ostio__cache_split s;
      ostio__cache_piece pcs[3];
      size_t n;
      int64_t next = off;
      CHECK(ostio__cache_split_init(&s, &g, off, len) == 0);
      int more;
      do { /* a capped array of 3: resumed until done */
        more = ostio__cache_split_fill(&s, pcs, 3, &n);
        CHECK(more >= 0);
        for (size_t i = 0; i < n; i++) {
          const ostio__cache_piece *pc = &pcs[i];
          CHECK(pc->len >= 1 && pc->page * page + pc->in_page == next);
          CHECK(pc->in_page + pc->len == page || next + pc->len == off + len);
          for (int64_t b = next; b < next + pc->len; b++)
            if (!CHECK(b / page == pc->page && b % page == pc->in_page + (b - next))) break;
          CHECK(pc->owner == ost_rank(l, naggr, co, pc->page * page));
          next += pc->len;
        }
      } while (more == 1);
      CHECK(next == off + len);
    }
    ostio__layout_destroy(l);
  }
}

static void huge_offsets(void)
{
  ostio__cache_geom g;
  ostio__cache_params p = params(0, 64 << 20, 0, 1);
  ostio_layout *l = simple_geom(1 << 20, 3, p, 2, &g);
  CHECK(g.last_page == (INT64_MAX - 1) / (1 << 20));
  CHECK(ostio__cache_owner(&g, g.last_page) >= 100);
  CHECK(ostio__cache_owner(&g, g.last_page + 1) == OSTIO_ERANGE);
  CHECK(ostio__cache_owner(&g, -1) == OSTIO_ERANGE);
  CHECK(ostio__cache_owner(&g, INT64_MAX) == OSTIO_ERANGE);
  ostio__cache_split s;
  ostio__cache_piece pc;
  CHECK(ostio__cache_split_init(&s, &g, INT64_MAX - 10, 10) == 0);
  CHECK(ostio__cache_split_next(&s, &pc) == 1 && pc.page == g.last_page && pc.len == 10);
  CHECK(ostio__cache_split_next(&s, &pc) == 0);
  CHECK(ostio__cache_split_init(&s, &g, INT64_MAX - 10, 11) == OSTIO_ERANGE && has("2^63-1"));
  CHECK(ostio__cache_split_init(&s, &g, -1, 1) == OSTIO_ERANGE);
  CHECK(ostio__cache_split_init(&s, &g, 0, -1) == OSTIO_ERANGE);
  CHECK(ostio__cache_split_init(&s, &g, INT64_MAX, 0) == 0 && ostio__cache_split_next(&s, &pc) == 0);
  CHECK(ostio__cache_split_init(&s, &g, INT64_MAX, 1) == OSTIO_ERANGE);
  /* Work follows the pieces, not the length: 2^62 bytes, four pieces asked. */
  ostio__cache_piece four[4];
  size_t n;
  CHECK(ostio__cache_split_init(&s, &g, 5, INT64_C(1) << 62) == 0);
  CHECK(ostio__cache_split_fill(&s, four, 4, &n) == 1 && n == 4 && four[3].page == 3);
  CHECK(ostio__cache_bypass(&g, 5, INT64_C(1) << 62) == 1);
  CHECK(ostio__cache_bypass(&g, INT64_MAX - 10, 10) == 0);
  CHECK(ostio__cache_bypass(&g, INT64_MAX - 10, 11) == 1);
  ostio__layout_destroy(l);
  /* A layout that ends: pages past it have no owner. */
  l = ostio__layout_new();
  ostio__comp c = {.start = 0, .end = 4 << 20, .stripe_size = 1 << 20, .stripe_count = 2,
                   .first_ost = -1, .pattern = OSTIO_PATTERN_RAID0};
  CHECK(ostio__layout_add(l, &c) == 0);
  CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 2) == 0);
  CHECK(ostio__cache_owner(&g, 3) == ranks[1] && ostio__cache_owner(&g, 4) == OSTIO_ERANGE);
  CHECK(has("past the layout"));
  CHECK(ostio__cache_split_init(&s, &g, (3 << 20) + 5, 1 << 20) == 0);
  CHECK(ostio__cache_split_next(&s, &pc) == 1 && pc.page == 3);
  CHECK(ostio__cache_split_next(&s, &pc) == OSTIO_ERANGE);
  CHECK(ostio__cache_split_next(&s, &pc) == OSTIO_ERANGE); /* stays there */
  ostio__layout_destroy(l);
}

static void bypass_rule(void)
{
  ostio__cache_geom g;
  const int64_t P = 65536;
  ostio__cache_params p = params(0, 64 << 20, 0, 1);
  ostio_layout *l = simple_geom(P, 4, p, 4, &g);
  CHECK(g.bypass == 4 * P);
  CHECK(ostio__cache_bypass(&g, 0, 0) == 0 && ostio__cache_bypass(&g, 0, -3) == 0);
  CHECK(ostio__cache_bypass(&g, 7, 4096) == 0);
  CHECK(ostio__cache_bypass(&g, 123, 4 * P) == 0 && ostio__cache_bypass(&g, 0, 4 * P + 1) == 1);
  /* An explicit bound in bytes. */
  p.bypass = 1000;
  CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 4) == 0);
  CHECK(ostio__cache_bypass(&g, 0, 1000) == 0 && ostio__cache_bypass(&g, 0, 1001) == 1);
  /* A pool of two pages: a request spanning three goes around, however short. */
  p = params(0, 2 * P, 0, 1);
  CHECK(ostio__cache_geom_init(&g, l, &p, ranks, 4) == 0 && g.pool_pages == 2);
  CHECK(ostio__cache_bypass(&g, 0, 2 * P) == 0);
  CHECK(ostio__cache_bypass(&g, P - 1, P + 2) == 1);
  CHECK(ostio__cache_bypass(&g, P - 1, 2) == 0);
  ostio__layout_destroy(l);
}

/* The one-client rule: owners are the candidates on the flusher's node, in
 * the candidates' order; bad arguments refused with a detail. */
static void one_client_owners(void)
{
  /* 6 ranks on 3 nodes (ids are the nodes' lowest ranks), candidates spread
   * over nodes as find_aggregators orders them. */
  int node_of[6] = {0, 0, 2, 2, 4, 4}, elig[6] = {0, 2, 4, 1, 3, 5}, out[6];
  CHECK(ostio__cache_one_client_owners(elig, 6, node_of, 6, 0, out) == 2);
  CHECK(out[0] == 0 && out[1] == 1);
  CHECK(ostio__cache_one_client_owners(elig, 6, node_of, 6, 2, out) == 2);
  CHECK(out[0] == 2 && out[1] == 3);
  /* cb_nodes-like lists: only some candidates, one of them on the node. */
  int some[2] = {4, 0};
  CHECK(ostio__cache_one_client_owners(some, 2, node_of, 6, 4, out) == 1 && out[0] == 4);
  /* One rank per node (the CephFS bed): the flusher alone. */
  int per[2] = {0, 1}, e2[2] = {0, 1};
  CHECK(ostio__cache_one_client_owners(e2, 2, per, 2, 0, out) == 1 && out[0] == 0);
  /* One node: everyone, as without the rule. */
  int same[3] = {0, 0, 0}, e3[3] = {0, 1, 2};
  CHECK(ostio__cache_one_client_owners(e3, 3, same, 3, 0, out) == 3);
  /* No candidate on the flusher's node; a flusher or candidate out of range. */
  int far[1] = {2};
  CHECK(ostio__cache_one_client_owners(far, 1, node_of, 6, 0, out) == OSTIO_EINVAL &&
        has("no aggregator candidate on the node of rank 0"));
  CHECK(ostio__cache_one_client_owners(e3, 3, same, 3, 3, out) == OSTIO_EINVAL);
  int bad[1] = {7};
  CHECK(ostio__cache_one_client_owners(bad, 1, node_of, 6, 0, out) == OSTIO_EINVAL &&
        has("candidate 0 is rank 7"));
  CHECK(ostio__cache_one_client_owners(e3, 0, same, 3, 0, out) == OSTIO_EINVAL);
}

int main(void)
{
  set_ranks();
  uint64_t seed = tu_seed(17);
  known_values();
  owners_are_ost();
  large_pages();
  refused();
  split_reference(seed);
  huge_offsets();
  bypass_rule();
  one_client_owners();
  return TEST_DONE();
}
