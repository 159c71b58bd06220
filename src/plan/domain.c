/* File-domain ownership rules; see domain.h. Each rule is its own few
 * functions and one table at the end; nothing here asks which rule it is. */
#include "plan/domain.h"

#include "core/error.h"

static int64_t ceil_div(int64_t a, int64_t b) { return a / b + (a % b != 0); }

int ostio__domains_init(ostio__domains *d, const ostio__domain_rule *rule, const ostio_layout *l,
                        int64_t lo, int64_t hi, int naggr, int co_ratio)
{
  if (!d || !l || !rule) return ostio__fail(OSTIO_EINVAL, "domains: NULL argument");
  if (naggr < 1 || co_ratio < 1)
    return ostio__fail(OSTIO_EINVAL, "domains: %d aggregators, co_ratio %d: both must be >= 1",
                       naggr, co_ratio);
  if (lo < 0 || hi < lo)
    return ostio__fail(OSTIO_EINVAL, "domains: range [%lld, %lld) is not a valid extent",
                       (long long)lo, (long long)hi);
  *d = (ostio__domains){.rule = rule, .naggr = naggr, .co_ratio = co_ratio, .lo = lo,
                        .hi = hi, .l = l};
  return rule->setup ? rule->setup(d) : 0;
}

int ostio__domain_owner(const ostio__domains *d, int64_t off, int64_t *run_end)
{
  return d->rule->owner(d, off, run_end);
}

int ostio__domains_active(const ostio__domains *d) { return d->rule->active(d); }

int ostio__domain_key(const ostio__domains *d, int64_t off, int64_t *major, int64_t *minor)
{
  if (d->rule->key) return d->rule->key(d, off, major, minor);
  *major = 0;
  *minor = off;
  return 0;
}

/* ---- contiguous domains (even, aligned) ------------------------------------ */

static int even_setup(ostio__domains *d)
{
  int64_t span = d->hi - d->lo;
  d->size = span ? ceil_div(span, d->naggr) : 1;
  return 0;
}

static int aligned_setup(ostio__domains *d)
{
  /* Whole stripes of the component holding lo; domains start at the stripe
   * boundary at or below lo, so every boundary is a stripe boundary. */
  int ci = ostio__layout_component_at(d->l, d->lo);
  if (ci < 0) return ci;
  int64_t s = d->l->comp[ci].stripe_size;
  int64_t base = d->lo - d->lo % s;
  int64_t stripes = d->hi > d->lo ? ceil_div(d->hi - base, s) : 1;
  d->lo = base;
  /* Whole stripes per domain; near 2^63 the product may not fit: then one
   * domain reaches the end (the last domain is open-ended anyway). */
  int64_t per = ceil_div(stripes, d->naggr);
  d->size = per > INT64_MAX / s ? INT64_MAX / s * s : per * s;
  return 0;
}

int64_t ostio__domain_index(const ostio__domains *d, int64_t off, int64_t *end)
{
  int64_t k = off < d->lo ? 0 : (off - d->lo) / d->size;
  if (k >= d->naggr) k = d->naggr - 1;
  if (end) {
    /* d->lo + (k + 1) * d->size without overflow: saturates at 2^63-1. */
    *end = k == d->naggr - 1 || k + 1 > (INT64_MAX - d->lo) / d->size
               ? INT64_MAX : d->lo + (k + 1) * d->size;
  }
  return k;
}

static int contiguous_owner(const ostio__domains *d, int64_t off, int64_t *run_end)
{
  return (int)ostio__domain_index(d, off, run_end);
}

static int contiguous_active(const ostio__domains *d)
{
  int64_t span = d->hi - d->lo;
  int64_t n = span ? ceil_div(span, d->size) : 1;
  return (int)(n < d->naggr ? n : d->naggr);
}

const ostio__domain_rule ostio__domain_even = {
  .name = "even", .setup = even_setup, .owner = contiguous_owner, .active = contiguous_active,
};

const ostio__domain_rule ostio__domain_aligned = {
  .name = "aligned", .setup = aligned_setup, .owner = contiguous_owner,
  .active = contiguous_active,
};

/* ---- one aggregator per object (ost) ---------------------------------------- */

static int ost_owner(const ostio__domains *d, int64_t off, int64_t *run_end)
{
  ostio_piece p;
  int rc = ostio__layout_locate(d->l, off, &p);
  if (rc < 0) return rc;
  const ostio__comp *c = &d->l->comp[p.component];
  int64_t K = c->stripe_count;
  int a;
  if (d->naggr <= K) {
    a = (int)(p.object % d->naggr);
  } else {
    int64_t r = d->naggr / K;
    if (r > d->co_ratio) r = d->co_ratio;
    int64_t j = p.stripe / K;
    a = (int)(p.object + K * (j % r));
  }
  if (run_end) {
    int64_t stripe_end = off - off % c->stripe_size;
    stripe_end = stripe_end > INT64_MAX - c->stripe_size ? INT64_MAX
                                                         : stripe_end + c->stripe_size;
    *run_end = stripe_end < c->end ? stripe_end : c->end;
  }
  return a;
}

static int ost_active(const ostio__domains *d)
{
  int best = 1;
  for (int i = 0; i < d->l->ncomp; i++) {
    int64_t K = d->l->comp[i].stripe_count;
    int64_t n = d->naggr <= K ? d->naggr : K * (d->naggr / K < d->co_ratio ? d->naggr / K : d->co_ratio);
    if (n > best) best = (int)n;
  }
  return best;
}

/* An aggregator works through one object at a time, in object order. */
static int ost_key(const ostio__domains *d, int64_t off, int64_t *major, int64_t *minor)
{
  ostio_piece p;
  int rc = ostio__layout_locate(d->l, off, &p);
  if (rc < 0) return rc;
  *major = ((int64_t)p.component << 32) | p.object;
  *minor = p.object_offset;
  return 0;
}

const ostio__domain_rule ostio__domain_ost = {
  .name = "ost", .owner = ost_owner, .active = ost_active, .key = ost_key,
};
