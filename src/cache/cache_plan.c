/* Cache geometry: page size, page owners, request splits, the bypass rule.
 * See cache_plan.h and docs/cache.md. Pure: no MPI, no I/O. */
#include "cache/cache_plan.h"

#include <inttypes.h>
#include <stdio.h>

#include "core/error.h"

void ostio__cache_params_from_hints(const ostio__hints *h, ostio__cache_params *p)
{
  *p = (ostio__cache_params){
      .page = h->ostio_cache_page,
      .size = h->ostio_cache_size,
      .bypass = h->ostio_cache_bypass,
      .co_ratio = h->romio_lustre_co_ratio > INT32_MAX ? INT32_MAX
                                                      : (int)h->romio_lustre_co_ratio,
  };
}

static int64_t gcd64(int64_t a, int64_t b)
{
  while (b) {
    int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/* The least common multiple of every component's stripe size, or 0 when it
 * does not fit in 63 bits. */
static int64_t stripe_lcm(const ostio_layout *l)
{
  int64_t m = 1;
  for (int i = 0; i < l->ncomp; i++) {
    int64_t s = l->comp[i].stripe_size, f = s / gcd64(m, s);
    if (m > INT64_MAX / f) return 0;
    m *= f;
  }
  return m;
}

/* Every component's stripe size must divide the page, so every page
 * boundary is a stripe boundary in every component (stripes are counted
 * from file offset 0 in each component, as Lustre does). */
static int check_page(const ostio_layout *l, const ostio__cache_params *p, int64_t page)
{
  if (p->page < 0)
    return ostio__fail(OSTIO_EHINT, "hint ostio_cache_page=%" PRId64 ": expected 0 (the stripe "
                       "size, %" PRId64 ") or a positive multiple of the stripe size",
                       p->page, l->comp[0].stripe_size);
  for (int i = 0; i < l->ncomp; i++) {
    int64_t s = l->comp[i].stripe_size;
    if (page % s == 0) continue;
    int64_t lcm = stripe_lcm(l);
    char also[96] = "";
    if (lcm) snprintf(also, sizeof also, " (the smallest is %" PRId64 ")", lcm);
    return ostio__fail(OSTIO_EHINT,
                       "hint ostio_cache_page=%" PRId64 "%s: a page of %" PRId64 " bytes is not "
                       "a multiple of component %d's stripe size %" PRId64 "; accepted: a "
                       "positive multiple of every component's stripe size%s",
                       p->page, p->page ? "" : " (the first stripe size)", page, i, s, also);
  }
  return 0;
}

int ostio__cache_geom_init(ostio__cache_geom *g, const ostio_layout *l,
                           const ostio__cache_params *p, const int *aggr_ranks, int naggr)
{
  if (!g || !l || !p || !aggr_ranks || naggr < 1 || l->ncomp < 1)
    return ostio__fail(OSTIO_EINVAL, "cache: NULL argument, empty layout or %d aggregators "
                       "(expected at least 1)", naggr);
  int64_t page = p->page ? p->page : l->comp[0].stripe_size;
  int rc = check_page(l, p, page);
  if (rc < 0) return rc;
  if (p->size < page)
    return ostio__fail(OSTIO_EHINT, "hint ostio_cache_size=%" PRId64 ": the cache holds no page "
                       "of %" PRId64 " bytes; accepted: at least one page (raise "
                       "ostio_cache_size or lower ostio_cache_page)", p->size, page);
  if (p->bypass < 0)
    return ostio__fail(OSTIO_EHINT, "hint ostio_cache_bypass=%" PRId64 ": expected 0 (%d pages) "
                       "or a positive byte count", p->bypass, OSTIO__CACHE_BYPASS_PAGES);
  int64_t bypass = p->bypass;
  if (!bypass)
    bypass = page > INT64_MAX / OSTIO__CACHE_BYPASS_PAGES ? INT64_MAX
                                                          : page * OSTIO__CACHE_BYPASS_PAGES;
  *g = (ostio__cache_geom){.page = page, .stripe = l->comp[0].stripe_size, .capacity = p->size,
                           .pool_pages = p->size / page, .bypass = bypass,
                           .last_page = (INT64_MAX - 1) / page, .aggr_ranks = aggr_ranks,
                           .naggr = naggr};
  return ostio__domains_init(&g->dom, &ostio__domain_ost, l, 0, 0, naggr,
                             p->co_ratio < 1 ? 1 : p->co_ratio);
}

int ostio__cache_owner(const ostio__cache_geom *g, int64_t page)
{
  if (page < 0 || page > g->last_page)
    return ostio__fail(OSTIO_ERANGE, "cache: page %" PRId64 " is outside 0..%" PRId64
                       " (pages of %" PRId64 " bytes below 2^63)", page, g->last_page, g->page);
  int a = ostio__domain_owner(&g->dom, page * g->page, NULL);
  if (a < 0) return a; /* past the layout: the layout's detail */
  return g->aggr_ranks[a];
}

/* Pages [off, off+len) touches; len >= 1 and off + len <= INT64_MAX. */
static int64_t pages_spanned(const ostio__cache_geom *g, int64_t off, int64_t len)
{
  return (off + len - 1) / g->page - off / g->page + 1;
}

int ostio__cache_bypass(const ostio__cache_geom *g, int64_t off, int64_t len)
{
  if (len <= 0) return 0;
  if (len > g->bypass) return 1;
  if (off < 0 || off > INT64_MAX - len) return 1; /* not cacheable; the I/O path refuses it */
  return pages_spanned(g, off, len) > g->pool_pages;
}

int ostio__cache_split_init(ostio__cache_split *s, const ostio__cache_geom *g, int64_t off,
                            int64_t len)
{
  if (off < 0 || len < 0 || len > INT64_MAX - off)
    return ostio__fail(OSTIO_ERANGE, "cache: request at offset %" PRId64 " of %" PRId64
                       " bytes: expected offset >= 0, length >= 0 and offset+length <= 2^63-1",
                       off, len);
  *s = (ostio__cache_split){.g = g, .pos = off, .end = off + len};
  return 0;
}

int ostio__cache_split_next(ostio__cache_split *s, ostio__cache_piece *p)
{
  if (s->pos >= s->end) return 0;
  int64_t page = s->pos / s->g->page, in_page = s->pos % s->g->page;
  int owner = ostio__cache_owner(s->g, page);
  if (owner < 0) return owner;
  int64_t room = s->g->page - in_page, left = s->end - s->pos;
  *p = (ostio__cache_piece){.page = page, .in_page = in_page,
                            .len = room < left ? room : left, .owner = owner};
  s->pos += p->len;
  return 1;
}

int ostio__cache_split_fill(ostio__cache_split *s, ostio__cache_piece *p, size_t cap, size_t *n)
{
  *n = 0;
  while (*n < cap) {
    int rc = ostio__cache_split_next(s, &p[*n]);
    if (rc <= 0) return rc;
    (*n)++;
  }
  return s->pos < s->end;
}

int ostio__cache_one_client_owners(const int *eligible, int neligible, const int *node_of,
                                   int nprocs, int flusher, int *out)
{
  if (!eligible || !node_of || !out || neligible < 1 || flusher < 0 || flusher >= nprocs)
    return ostio__fail(OSTIO_EINVAL, "cache: %d candidates, flusher %d of %d ranks (expected "
                       "at least one candidate and a flusher that is a rank)",
                       neligible, flusher, nprocs);
  int n = 0;
  for (int i = 0; i < neligible; i++) {
    int r = eligible[i];
    if (r < 0 || r >= nprocs)
      return ostio__fail(OSTIO_EINVAL, "cache: candidate %d is rank %d of %d", i, r, nprocs);
    if (node_of[r] == node_of[flusher]) out[n++] = r;
  }
  if (n == 0)
    return ostio__fail(OSTIO_EINVAL, "cache: no aggregator candidate on the node of rank %d, "
                       "which must write the file back alone (the one-client rule)", flusher);
  return n;
}
