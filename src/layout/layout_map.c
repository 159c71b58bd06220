/* Stripe math: offset -> component -> stripe -> object -> OST -> object
 * offset; splitting extents at stripe and component boundaries; grouping
 * pieces per object. Valid layouts only: validation guarantees stripe_size
 * and stripe_count are >= 1, so no division here can be by zero. */
#include "layout/layout.h"

#include <stdlib.h>

#include "core/error.h"

int ostio__layout_component_at(const ostio_layout *l, int64_t offset)
{
  if (offset < 0)
    return ostio__fail(OSTIO_ERANGE, "offset %lld is negative", (long long)offset);
  for (int i = 0; i < l->ncomp; i++)
    if (offset < l->comp[i].end) return i;
  return ostio__fail(OSTIO_ERANGE, "offset %lld is past the layout's last component (ends at %lld)",
                     (long long)offset, (long long)l->comp[l->ncomp - 1].end);
}

static void locate_in(const ostio_layout *l, int ci, int64_t offset, ostio_piece *p)
{
  const ostio__comp *c = &l->comp[ci];
  int64_t stripe = offset / c->stripe_size;
  int32_t object = (int32_t)(stripe % c->stripe_count);
  p->file_offset = offset;
  p->stripe = stripe;
  p->component = ci;
  p->object = object;
  p->ost = c->osts ? c->osts[object] : -1;
  /* Lustre addresses objects with the absolute file offset: an object of a
   * later PFL component is sparse below the component's start. */
  p->object_offset = (stripe / c->stripe_count) * c->stripe_size + offset % c->stripe_size;
}

int ostio__layout_locate(const ostio_layout *l, int64_t offset, ostio_piece *loc)
{
  int ci = ostio__layout_component_at(l, offset);
  if (ci < 0) return ci;
  locate_in(l, ci, offset, loc);
  loc->length = 1;
  return 0;
}

void ostio__piece_object(const ostio_layout *l, const ostio_piece *p, int64_t *objno,
                         int64_t *objoff)
{
  const ostio__comp *c = &l->comp[p->component];
  if (c->object_size <= 0) {
    *objno = p->object;
    *objoff = p->object_offset;
    return;
  }
  /* object_offset = row * stripe_size + offset in the stripe, with row =
   * stripe / stripe_count; object_size = k * stripe_size, so the quotient is
   * the object set row / k and the remainder (row mod k) * stripe_size + the
   * offset in the stripe. set * count <= row * count <= stripe: no overflow. */
  *objno = (p->object_offset / c->object_size) * c->stripe_count + p->object;
  *objoff = p->object_offset % c->object_size;
}

int ostio__piece_iter_init(ostio__piece_iter *it, const ostio_layout *l, int64_t offset,
                           int64_t length)
{
  if (offset < 0 || length < 0 || length > INT64_MAX - offset)
    return ostio__fail(OSTIO_ERANGE,
                       "extent offset %lld length %lld: expected offset >= 0, length >= 0 "
                       "and offset+length <= 2^63-1", (long long)offset, (long long)length);
  it->l = l;
  it->pos = offset;
  it->end = offset + length;
  return 0;
}

int ostio__piece_iter_next(ostio__piece_iter *it, ostio_piece *p)
{
  if (it->pos >= it->end) return 0;
  int ci = ostio__layout_component_at(it->l, it->pos);
  if (ci < 0) return ci;
  const ostio__comp *c = &it->l->comp[ci];
  locate_in(it->l, ci, it->pos, p);
  int64_t stripe_base = it->pos - it->pos % c->stripe_size;
  int64_t limit = stripe_base > INT64_MAX - c->stripe_size ? INT64_MAX
                                                            : stripe_base + c->stripe_size;
  if (c->end < limit) limit = c->end;
  if (it->end < limit) limit = it->end;
  p->length = limit - it->pos;
  it->pos = limit;
  return 1;
}

static int piece_order(const void *a, const void *b)
{
  const ostio_piece *x = a, *y = b;
  if (x->component != y->component) return x->component < y->component ? -1 : 1;
  if (x->object != y->object) return x->object < y->object ? -1 : 1;
  if (x->file_offset != y->file_offset) return x->file_offset < y->file_offset ? -1 : 1;
  return 0;
}

int ostio__layout_group(const ostio_layout *l, const int64_t *offsets, const int64_t *lengths,
                        size_t n, ostio_piece **pieces_out, size_t *npieces_out,
                        size_t **groups_out, size_t *ngroups_out)
{
  int rc = 0;
  ostio_piece *pieces = NULL;
  size_t *groups = NULL;
  size_t np = 0, cap = 0, ng = 0;
  ostio__piece_iter it = {0};
  ostio_piece p;

  *pieces_out = NULL;
  *groups_out = NULL;
  *npieces_out = *ngroups_out = 0;
  for (size_t i = 0; i < n; i++) {
    if ((rc = ostio__piece_iter_init(&it, l, offsets[i], lengths[i])) < 0) goto done;
    while ((rc = ostio__piece_iter_next(&it, &p)) == 1) {
      if (np == cap) {
        size_t ncap = cap ? 2 * cap : 64;
        ostio_piece *grown = realloc(pieces, ncap * sizeof *grown);
        if (!grown) { rc = ostio__fail(OSTIO_ENOMEM, "grouping: out of memory"); goto done; }
        pieces = grown;
        cap = ncap;
      }
      pieces[np++] = p;
    }
    if (rc < 0) goto done;
  }
  rc = 0;
  if (np) qsort(pieces, np, sizeof *pieces, piece_order);
  groups = malloc((np + 1) * sizeof *groups);
  if (!groups) { rc = ostio__fail(OSTIO_ENOMEM, "grouping: out of memory"); goto done; }
  for (size_t i = 0; i < np; i++)
    if (i == 0 || pieces[i].component != pieces[i - 1].component ||
        pieces[i].object != pieces[i - 1].object)
      groups[ng++] = i;
  groups[ng] = np;
  *pieces_out = pieces;
  *npieces_out = np;
  *groups_out = groups;
  *ngroups_out = ng;
  pieces = NULL;
  groups = NULL;
done:
  free(pieces);
  free(groups);
  return rc;
}

/* One component's part [a, b) (inside the component, a < b): pieces are the
 * stripes it touches, S0 = a/s .. S1 = (b-1)/s (absolute stripe numbers, as
 * locate_in); object o holds the stripes congruent to o mod K. Every value
 * stays within [0, b]; bytes are summed in uint64_t (at most b - a + 2s).
 * Only the objects the part touches are visited (S0 mod K on, cyclically, in
 * object order): a part of a few stripes costs those, not K. */
static void obj_summary(const ostio__comp *c, int ci, int64_t o, int64_t a, int64_t b,
                        ostio__objspan *sp)
{
  int64_t s = c->stripe_size, K = c->stripe_count;
  int64_t S0 = a / s, S1 = (b - 1) / s;
  int64_t first = S0 + (o - S0 % K + K) % K;
  int64_t last = S1 - (S1 % K - o + K) % K;
  int64_t n = (last - first) / K + 1;
  uint64_t bytes = (uint64_t)n * (uint64_t)s;
  if (first == S0) bytes -= (uint64_t)(a - S0 * s);
  if (last == S1) bytes -= (uint64_t)(s - (b - S1 * s));
  *sp = (ostio__objspan){
    .component = ci, .object = (int32_t)o, .ost = c->osts ? c->osts[o] : -1, .pieces = n,
    .bytes = (int64_t)bytes,
    .first_objoff = first / K * s + (first == S0 ? a % s : 0),
    .last_objend = last / K * s + (last == S1 ? (b - 1) % s + 1 : s)};
}

static void comp_summary(const ostio_layout *l, int ci, int64_t a, int64_t b, int64_t *npieces,
                         ostio__objspan *spans, size_t cap, size_t *nspans)
{
  const ostio__comp *c = &l->comp[ci];
  int64_t s = c->stripe_size, K = c->stripe_count;
  int64_t S0 = a / s, S1 = (b - 1) / s;
  *npieces += S1 - S0 + 1;
  if (!spans) return;
  int64_t touched = S1 - S0 + 1 < K ? S1 - S0 + 1 : K;
  int64_t o0 = touched == K ? 0 : S0 % K, o1 = touched == K ? K - 1 : (S0 + touched - 1) % K;
  /* [lo[r], hi[r]]: the touched objects, two ranges when they wrap past K - 1. */
  int64_t lo[2] = {o0 <= o1 ? o0 : 0, o0}, hi[2] = {o1, K - 1};
  for (int r = 0; r < (o0 <= o1 ? 1 : 2); r++)
    for (int64_t o = lo[r]; o <= hi[r] && *nspans < cap; o++)
      obj_summary(c, ci, o, a, b, &spans[(*nspans)++]);
}

int ostio__layout_summary(const ostio_layout *l, int64_t offset, int64_t length,
                          int64_t *npieces, ostio__objspan *spans, size_t cap, size_t *nspans)
{
  ostio__piece_iter it;
  int rc = ostio__piece_iter_init(&it, l, offset, length);
  if (rc < 0) return rc;
  int64_t end = offset + length, n = 0;
  size_t ns = 0;
  for (int ci = 0; ci < l->ncomp && offset < end; ci++) {
    const ostio__comp *c = &l->comp[ci];
    if (c->end <= offset) continue;
    int64_t a = offset > c->start ? offset : c->start, b = end < c->end ? end : c->end;
    comp_summary(l, ci, a, b, &n, spans, cap, &ns);
    offset = b;
  }
  /* Past the last component: the iterator's error, at the same offset. */
  if (offset < end && (rc = ostio__layout_component_at(l, offset)) < 0) return rc;
  *npieces = n;
  if (nspans) *nspans = ns;
  return 0;
}

int ostio_layout_map(const ostio_layout *layout, int64_t offset, int64_t length,
                     ostio_piece *pieces, size_t max, size_t *npieces)
{
  ostio__piece_iter it = {0};
  ostio_piece p;
  int64_t total = 0;
  int rc;
  if (!layout || !npieces || (max && !pieces))
    return ostio__fail(OSTIO_EINVAL, "ostio_layout_map: NULL argument");
  /* The total by arithmetic (2^63 bytes of 64 KiB stripes are 2^47 pieces);
   * only the pieces asked for are walked. */
  if ((rc = ostio__layout_summary(layout, offset, length, &total, NULL, 0, NULL)) < 0) return rc;
  if ((rc = ostio__piece_iter_init(&it, layout, offset, length)) < 0) return rc;
  for (size_t n = 0; n < max && (rc = ostio__piece_iter_next(&it, &p)) == 1; n++) pieces[n] = p;
  if (rc < 0) return rc;
  *npieces = (size_t)total;
  return 0;
}
