/* Building, validating, copying and comparing layouts; the public accessors. */
#include "layout/layout.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"

ostio_layout *ostio__layout_new(void)
{
  return calloc(1, sizeof(ostio_layout));
}

void ostio__layout_destroy(ostio_layout *l)
{
  if (!l) return;
  for (int i = 0; i < l->ncomp; i++) free(l->comp[i].osts);
  free(l);
}

int ostio__layout_add(ostio_layout *l, const ostio__comp *c)
{
  if (!l || !c) return ostio__fail(OSTIO_EINVAL, "layout_add: NULL argument");
  if (l->ncomp >= OSTIO_MAX_COMPONENTS)
    return ostio__fail(OSTIO_ELAYOUT, "a layout holds at most %d components",
                       OSTIO_MAX_COMPONENTS);
  if (c->osts && (c->stripe_count < 1 || c->stripe_count > OSTIO_MAX_STRIPE_COUNT))
    return ostio__fail(OSTIO_ELAYOUT, "stripe count %d with an OST list: expected 1..%d",
                       (int)c->stripe_count, OSTIO_MAX_STRIPE_COUNT);
  ostio__comp *d = &l->comp[l->ncomp];
  *d = *c;
  d->pool[OSTIO__POOL_MAX] = '\0';
  d->osts = NULL;
  if (c->osts) {
    d->osts = malloc(sizeof(int32_t) * (size_t)c->stripe_count);
    if (!d->osts) return ostio__fail(OSTIO_ENOMEM, "layout_add: out of memory");
    memcpy(d->osts, c->osts, sizeof(int32_t) * (size_t)c->stripe_count);
  }
  l->ncomp++;
  return 0;
}

int ostio__layout_simple(int64_t stripe_size, int32_t stripe_count, int32_t first_ost,
                         ostio_layout **out)
{
  int rc = 0;
  int32_t *osts = NULL;
  ostio_layout *l = ostio__layout_new();
  *out = NULL;
  if (!l) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  ostio__comp c = {.start = 0, .end = OSTIO_EOF, .stripe_size = stripe_size,
                   .stripe_count = stripe_count, .first_ost = first_ost < 0 ? -1 : first_ost,
                   .pattern = OSTIO_PATTERN_RAID0};
  if (first_ost >= 0 && stripe_count >= 1 && stripe_count <= OSTIO_MAX_STRIPE_COUNT) {
    osts = malloc(sizeof(int32_t) * (size_t)stripe_count);
    if (!osts) { rc = ostio__fail(OSTIO_ENOMEM, "out of memory"); goto done; }
    for (int32_t i = 0; i < stripe_count; i++) osts[i] = first_ost + i;
    c.osts = osts;
    c.instantiated = 1;
  }
  if ((rc = ostio__layout_add(l, &c)) < 0) goto done;
  if ((rc = ostio__layout_validate(l)) < 0) goto done;
  *out = l;
  l = NULL;
done:
  free(osts);
  ostio__layout_destroy(l);
  return rc;
}

static int validate_comp(const ostio__comp *c, int i)
{
  if (c->stripe_size < 1 || c->stripe_size > OSTIO__STRIPE_SIZE_MAX)
    return ostio__fail(OSTIO_ELAYOUT,
                       "component %d: stripe size %lld: expected 1..%lld bytes", i,
                       (long long)c->stripe_size, (long long)OSTIO__STRIPE_SIZE_MAX);
  if (c->stripe_count < 1 || c->stripe_count > OSTIO_MAX_STRIPE_COUNT)
    return ostio__fail(OSTIO_ELAYOUT, "component %d: stripe count %d: expected 1..%d", i,
                       (int)c->stripe_count, OSTIO_MAX_STRIPE_COUNT);
  if (!(c->pattern & OSTIO_PATTERN_RAID0))
    return ostio__fail(OSTIO_ELAYOUT,
                       "component %d: pattern 0x%x: only RAID0 (optionally with "
                       "overstriping) is supported", i, (unsigned)c->pattern);
  if (c->pattern & ~(OSTIO_PATTERN_RAID0 | OSTIO_PATTERN_OVERSTRIPING))
    return ostio__fail(OSTIO_ELAYOUT, "component %d: unknown pattern bits 0x%x", i,
                       (unsigned)c->pattern);
  if (c->pool[0] && !ostio__valid_pool_name(c->pool))
    return ostio__fail(OSTIO_ELAYOUT, "component %d: pool name \"%s\": expected 1..%d of "
                       "letters, digits, '_', '-', '.'", i, c->pool, OSTIO__POOL_MAX);
  if (c->object_size < 0 || c->object_size > OSTIO__STRIPE_SIZE_MAX ||
      (c->object_size > 0 && c->object_size % c->stripe_size != 0))
    return ostio__fail(OSTIO_ELAYOUT, "component %d: object size %lld: expected 0 (unbounded "
                       "objects, as on Lustre) or a multiple of the stripe size %lld up to "
                       "%lld bytes", i, (long long)c->object_size, (long long)c->stripe_size,
                       (long long)OSTIO__STRIPE_SIZE_MAX);
  if (c->first_ost < -1)
    return ostio__fail(OSTIO_ELAYOUT, "component %d: first OST %d: expected -1 or >= 0", i,
                       (int)c->first_ost);
  if (!c->osts) return 0;
  for (int32_t k = 0; k < c->stripe_count; k++) {
    if (c->osts[k] < 0)
      return ostio__fail(OSTIO_ELAYOUT, "component %d: object %d has OST index %d", i,
                         (int)k, (int)c->osts[k]);
    if (c->pattern & OSTIO_PATTERN_OVERSTRIPING) continue;
    for (int32_t j = 0; j < k; j++)
      if (c->osts[j] == c->osts[k])
        return ostio__fail(OSTIO_ELAYOUT,
                           "component %d: OST %d holds objects %d and %d; that needs "
                           "overstriping", i, (int)c->osts[k], (int)j, (int)k);
  }
  return 0;
}

int ostio__layout_validate(const ostio_layout *l)
{
  if (!l) return ostio__fail(OSTIO_EINVAL, "layout is NULL");
  if (l->ncomp < 1 || l->ncomp > OSTIO_MAX_COMPONENTS)
    return ostio__fail(OSTIO_ELAYOUT, "layout has %d components: expected 1..%d", l->ncomp,
                       OSTIO_MAX_COMPONENTS);
  int64_t expect = 0;
  for (int i = 0; i < l->ncomp; i++) {
    const ostio__comp *c = &l->comp[i];
    if (c->start != expect)
      return ostio__fail(OSTIO_ELAYOUT,
                         "component %d starts at %lld: expected %lld (components must "
                         "be contiguous from offset 0)", i, (long long)c->start,
                         (long long)expect);
    if (c->end <= c->start)
      return ostio__fail(OSTIO_ELAYOUT, "component %d: end %lld is not after start %lld",
                         i, (long long)c->end, (long long)c->start);
    int rc = validate_comp(c, i);
    if (rc < 0) return rc;
    if (c->end == OSTIO_EOF && i != l->ncomp - 1)
      return ostio__fail(OSTIO_ELAYOUT, "component %d reaches EOF but is not the last", i);
    expect = c->end;
  }
  return 0;
}

int ostio__layout_copy(const ostio_layout *src, ostio_layout **out)
{
  *out = NULL;
  ostio_layout *l = ostio__layout_new();
  if (!l) return ostio__fail(OSTIO_ENOMEM, "out of memory");
  for (int i = 0; i < src->ncomp; i++) {
    int rc = ostio__layout_add(l, &src->comp[i]);
    if (rc < 0) {
      ostio__layout_destroy(l);
      return rc;
    }
  }
  memcpy(l->source, src->source, sizeof l->source);
  l->inherited = src->inherited;
  *out = l;
  return 0;
}

static int comp_equal(const ostio__comp *a, const ostio__comp *b)
{
  if (a->start != b->start || a->end != b->end || a->stripe_size != b->stripe_size ||
      a->stripe_count != b->stripe_count || a->first_ost != b->first_ost ||
      a->object_size != b->object_size ||
      a->pattern != b->pattern || a->instantiated != b->instantiated ||
      strcmp(a->pool, b->pool) != 0 || !a->osts != !b->osts)
    return 0;
  return !a->osts || memcmp(a->osts, b->osts, sizeof(int32_t) * (size_t)a->stripe_count) == 0;
}

int ostio__layout_equal(const ostio_layout *a, const ostio_layout *b)
{
  if (a->ncomp != b->ncomp) return 0;
  for (int i = 0; i < a->ncomp; i++)
    if (!comp_equal(&a->comp[i], &b->comp[i])) return 0;
  return 1;
}

/* ---- public accessors ---------------------------------------------------- */

int ostio_layout_free(ostio_layout **layout)
{
  if (!layout) return ostio__fail(OSTIO_EINVAL, "ostio_layout_free: NULL handle pointer");
  ostio__layout_destroy(*layout);
  *layout = NULL;
  return 0;
}

const char *ostio_layout_source(const ostio_layout *layout)
{
  return layout ? layout->source : "";
}

int ostio_layout_ncomponents(const ostio_layout *layout)
{
  if (!layout) return ostio__fail(OSTIO_EINVAL, "ostio_layout_ncomponents: NULL layout");
  return layout->ncomp;
}

int ostio_layout_get_component(const ostio_layout *layout, int i, ostio_layout_component *comp)
{
  if (!layout || !comp) return ostio__fail(OSTIO_EINVAL, "ostio_layout_get_component: NULL argument");
  if (i < 0 || i >= layout->ncomp)
    return ostio__fail(OSTIO_ERANGE, "component %d: the layout has components 0..%d", i,
                       layout->ncomp - 1);
  const ostio__comp *c = &layout->comp[i];
  *comp = (ostio_layout_component){
    .start = c->start, .end = c->end, .stripe_size = c->stripe_size,
    .stripe_count = c->stripe_count, .first_ost = c->first_ost, .pattern = c->pattern,
    .instantiated = c->instantiated, .osts = c->osts, .pool = c->pool};
  return 0;
}
