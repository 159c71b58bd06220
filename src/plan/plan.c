/* Pure planning of one collective call; see plan.h. */
#include "plan/plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/scratch.h"

static int ext_cmp(const void *a, const void *b)
{
  const ostio__ext *x = a, *y = b;
  return (x->off > y->off) - (x->off < y->off);
}

/* Room for n elements: from mem when given (kept by the caller), else
 * malloc'ed (the caller frees it). */
static void *room(ostio__scratch *mem, size_t n, size_t size)
{
  if (mem) return ostio__scratch_get(mem, n, size);
  return n > SIZE_MAX / size ? NULL : malloc(n * size);
}

static void unroom(ostio__scratch *mem, void *p)
{
  if (!mem) free(p);
}

int ostio__plan_local(const ostio_extent *ext, size_t n, ostio__ext **out, size_t *nout,
                      int64_t *bytes, int64_t *lo, int64_t *hi)
{
  return ostio__plan_local_in(NULL, ext, n, out, nout, bytes, lo, hi);
}

int ostio__plan_local_in(ostio__scratch *mem, const ostio_extent *ext, size_t n,
                         ostio__ext **out, size_t *nout, int64_t *bytes, int64_t *lo,
                         int64_t *hi)
{
  *out = NULL;
  *nout = 0;
  *bytes = *lo = *hi = 0;
  if (n > 0 && !ext)
    return ostio__fail(OSTIO_EINVAL, "extent list is NULL but its count is %zu", n);
  size_t m = 0;
  int64_t pos = 0;
  for (size_t i = 0; i < n; i++) {
    if (ext[i].offset < 0 || ext[i].length < 0)
      return ostio__fail(OSTIO_EINVAL, "extent %zu: offset %lld, length %lld: both must be >= 0",
                         i, (long long)ext[i].offset, (long long)ext[i].length);
    if (ext[i].length > INT64_MAX - ext[i].offset)
      return ostio__fail(OSTIO_EINVAL, "extent %zu: offset %lld + length %lld passes the largest "
                         "file offset (2^63 - 1)", i, (long long)ext[i].offset,
                         (long long)ext[i].length);
    if (ext[i].length > INT64_MAX - pos)
      return ostio__fail(OSTIO_EINVAL, "extents: more than 2^63 - 1 bytes in one call");
    pos += ext[i].length;
    m += ext[i].length > 0;
  }
  *bytes = pos;
  if (m == 0) return 0;
  ostio__ext *e = room(mem, m, sizeof *e);
  if (!e) return ostio__fail(OSTIO_ENOMEM, "extents: no memory to sort %zu extents", m);
  pos = 0;
  m = 0;
  for (size_t i = 0; i < n; i++) {
    if (ext[i].length > 0) e[m++] = (ostio__ext){ext[i].offset, ext[i].length, pos};
    pos += ext[i].length;
  }
  /* pos is increasing in list order; sorting by offset alone is enough to
   * find overlaps, and ties cannot both be non-empty without overlapping. */
  size_t unsorted = 0; /* a view's extents come in offset order: no qsort then */
  for (size_t i = 1; i < m && !unsorted; i++) unsorted = e[i - 1].off > e[i].off;
  if (unsorted) qsort(e, m, sizeof *e, ext_cmp);
  for (size_t i = 1; i < m; i++) {
    if (e[i - 1].off + e[i - 1].len > e[i].off) {
      int rc = ostio__fail(OSTIO_EOVERLAP, "extents [%lld, %lld) and [%lld, %lld) of this rank "
                           "overlap; extents of one call must not share bytes",
                           (long long)e[i - 1].off, (long long)(e[i - 1].off + e[i - 1].len),
                           (long long)e[i].off, (long long)(e[i].off + e[i].len));
      unroom(mem, e);
      return rc;
    }
  }
  *lo = e[0].off;
  *hi = e[m - 1].off + e[m - 1].len;
  *out = e;
  *nout = m;
  return 0;
}

int ostio__plan_key(const ostio__domains *d, int64_t off, int64_t *major, int64_t *minor)
{
  return ostio__domain_key(d, off, major, minor);
}

static int piece_cmp(const void *a, const void *b)
{
  const ostio__xpiece *x = a, *y = b;
  if (x->peer != y->peer) return x->peer < y->peer ? -1 : 1;
  if (x->major != y->major) return x->major < y->major ? -1 : 1;
  return (x->minor > y->minor) - (x->minor < y->minor);
}

int ostio__plan_split(const ostio__ext *e, size_t n, const ostio__domains *d,
                      ostio__xpiece **out, size_t *np)
{
  return ostio__plan_split_in(NULL, e, n, d, out, np);
}

/* p grown to cap elements keeping the first m (mem or realloc); NULL and
 * the old p freed when memory is short. */
static ostio__xpiece *grow_pieces(ostio__scratch *mem, ostio__xpiece *p, size_t m, size_t cap)
{
  if (mem) return ostio__scratch_grow(mem, cap, sizeof *p, m * sizeof *p);
  ostio__xpiece *q = cap > SIZE_MAX / sizeof *p ? NULL : realloc(p, cap * sizeof *p);
  if (!q) free(p);
  return q;
}

int ostio__plan_split_in(ostio__scratch *mem, const ostio__ext *e, size_t n,
                         const ostio__domains *d, ostio__xpiece **out, size_t *np)
{
  *out = NULL;
  *np = 0;
  size_t cap = n + 16, m = 0;
  ostio__xpiece *p = n ? room(mem, cap, sizeof *p) : NULL;
  if (n && !p) return ostio__fail(OSTIO_ENOMEM, "plan: no memory for %zu pieces", cap);
  int sorted = 1;
  for (size_t i = 0; i < n; i++) {
    int64_t off = e[i].off, end = e[i].off + e[i].len;
    while (off < end) {
      int64_t run_end;
      int a = ostio__domain_owner(d, off, &run_end);
      if (a < 0) {
        unroom(mem, p);
        return a;
      }
      if (run_end > end) run_end = end;
      if (m == cap) {
        cap *= 2;
        if (!(p = grow_pieces(mem, p, m, cap)))
          return ostio__fail(OSTIO_ENOMEM, "plan: no memory for %zu pieces", cap);
      }
      ostio__xpiece *x = &p[m++];
      *x = (ostio__xpiece){.off = off, .len = run_end - off, .pos = e[i].pos + (off - e[i].off),
                           .peer = a};
      int rc = ostio__plan_key(d, off, &x->major, &x->minor);
      if (rc < 0) {
        unroom(mem, p);
        return rc;
      }
      if (m > 1 && piece_cmp(&p[m - 2], x) > 0) sorted = 0;
      off = run_end;
    }
  }
  if (!sorted) qsort(p, m, sizeof *p, piece_cmp);
  *out = p;
  *np = m;
  return 0;
}

static int key_cmp(const void *a, const void *b)
{
  const ostio__xpiece *x = a, *y = b;
  if (x->major != y->major) return x->major < y->major ? -1 : 1;
  if (x->minor != y->minor) return x->minor < y->minor ? -1 : 1;
  return (x->peer > y->peer) - (x->peer < y->peer);
}

/* Merges the sorted runs p[lo, mid) and p[mid, hi) through tmp. */
static void merge(ostio__xpiece *p, ostio__xpiece *tmp, size_t lo, size_t mid, size_t hi)
{
  size_t i = lo, j = mid, k = 0;
  while (i < mid && j < hi) tmp[k++] = key_cmp(&p[j], &p[i]) < 0 ? p[j++] : p[i++];
  while (i < mid) tmp[k++] = p[i++];
  /* p[j, hi) is in place already. */
  memcpy(p + lo, tmp, k * sizeof *p);
}

/* An aggregator's pieces come as one sorted run per sending rank (plan_split
 * sorts each rank's pieces for one aggregator): merging the runs costs
 * n log(runs), where qsort cost n log n comparisons through a function
 * pointer (two thirds of a write_all of one-byte blocks at np 2). Many runs
 * (not this engine's input): qsort. 0, or OSTIO_ENOMEM for the merge buffer. */
#define MAX_RUNS 64

static int sort_runs(ostio__scratch *mem, ostio__xpiece *p, size_t n)
{
  size_t start[MAX_RUNS + 2], r = 0;
  start[r++] = 0;
  for (size_t i = 1; i < n; i++) {
    if (key_cmp(&p[i - 1], &p[i]) <= 0) continue;
    if (r == MAX_RUNS) { /* many runs: not this engine's input */
      qsort(p, n, sizeof *p, key_cmp);
      return 0;
    }
    start[r++] = i;
  }
  if (r == 1) return 0;
  start[r] = n;
  ostio__xpiece *tmp = room(mem, n, sizeof *tmp);
  if (!tmp) return ostio__fail(OSTIO_ENOMEM, "plan: no memory to merge %zu pieces", n);
  /* Bottom-up: merge neighbouring runs pairwise until one is left. */
  while (r > 1) {
    size_t w = 0;
    for (size_t k = 0; k < r; k += 2) {
      if (k + 1 < r) merge(p, tmp, start[k], start[k + 1], start[k + 2]);
      start[w++] = start[k];
    }
    start[w] = n;
    r = w;
  }
  unroom(mem, tmp);
  return 0;
}

/* The overlap check of sorted pieces (plan.h, ostio__plan_sort). */
static int overlaps(const ostio__xpiece *p, size_t n)
{
  for (size_t i = 1; i < n; i++) {
    const ostio__xpiece *a = &p[i - 1], *b = &p[i];
    if (a->major == b->major && a->minor + a->len > b->minor)
      return ostio__fail(OSTIO_EOVERLAP, "rank %d's bytes [%lld, %lld) and rank %d's bytes "
                         "[%lld, %lld) overlap; extents of one call must not share bytes",
                         a->peer, (long long)a->off, (long long)(a->off + a->len), b->peer,
                         (long long)b->off, (long long)(b->off + b->len));
  }
  return 0;
}

static int touch(const ostio__xpiece *a, const ostio__xpiece *b)
{
  return a->major == b->major && a->minor + a->len > b->minor;
}

/* Merges the sorted a[0, na) and b[0, nb) into out; with check, returns 1
 * when two neighbours of the output share a byte (the overlap check done
 * as the last level writes, not as a pass of its own). */
static int merge_to(const ostio__xpiece *a, size_t na, const ostio__xpiece *b, size_t nb,
                    ostio__xpiece *out, int check)
{
  size_t i = 0, j = 0, k = 0;
  int bad = 0;
  while (i < na && j < nb) {
    out[k] = key_cmp(&b[j], &a[i]) < 0 ? b[j++] : a[i++];
    if (check && k > 0) bad |= touch(&out[k - 1], &out[k]);
    k++;
  }
  size_t t = k;
  if (i < na) memcpy(out + k, a + i, (na - i) * sizeof *a);
  if (j < nb) memcpy(out + k, b + j, (nb - j) * sizeof *b);
  for (size_t q = t ? t : 1; check && !bad && q < na + nb; q++) bad = touch(&out[q - 1], &out[q]);
  return bad;
}

int ostio__plan_sort_into(ostio__xpiece *src, size_t n, ostio__xpiece *dst)
{
  size_t start[MAX_RUNS + 2], r = 0;
  start[r++] = 0;
  for (size_t i = 1; i < n && r <= MAX_RUNS; i++)
    if (key_cmp(&src[i - 1], &src[i]) > 0) start[r++] = i;
  if (r > MAX_RUNS) { /* many runs: not this engine's input */
    memcpy(dst, src, n * sizeof *src);
    qsort(dst, n, sizeof *dst, key_cmp);
    return overlaps(dst, n);
  }
  start[r] = n;
  /* Bottom-up, each level from one array into the other, so no level
   * copies back; the result lands in dst (one copy when it ends in src). */
  ostio__xpiece *from = src, *to = dst;
  int bad = r == 1; /* no merge: the check is a pass of its own */
  while (r > 1) {
    size_t w = 0;
    for (size_t k = 0; k < r; k += 2) {
      size_t lo = start[k], mid = start[k + 1], hi = k + 1 < r ? start[k + 2] : mid;
      bad |= merge_to(from + lo, mid - lo, from + mid, hi - mid, to + lo, r == 2);
      start[w++] = lo;
    }
    start[w] = n;
    r = w;
    ostio__xpiece *t = from;
    from = to;
    to = t;
  }
  if (from != dst && n) memcpy(dst, from, n * sizeof *dst);
  return bad ? overlaps(dst, n) : 0; /* overlaps names the pair */
}

/* A source's next piece in the merge heap. */
typedef struct head {
  ostio__xpiece p;
  size_t i, end; /* the source's next pair index and its end */
} head;

static int head_less(const head *a, const head *b) { return key_cmp(&a->p, &b->p) < 0; }

static void sift_down(head *h, size_t n, size_t i)
{
  for (;;) {
    size_t l = 2 * i + 1, m = i;
    if (l < n && head_less(&h[l], &h[m])) m = l;
    if (l + 1 < n && head_less(&h[l + 1], &h[m])) m = l + 1;
    if (m == i) return;
    head t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

/* Piece k of pairs from source src, keyed; its length added to *total. */
static int keyed(const int64_t *pairs, size_t k, int src, const ostio__domains *d,
                 int64_t *total, ostio__xpiece *p)
{
  *p = (ostio__xpiece){.off = pairs[2 * k], .len = pairs[2 * k + 1], .peer = src};
  if (p->len < 0 || p->len > INT64_MAX - *total)
    return ostio__fail(OSTIO_ERANGE, "collective: piece lengths from rank %d overflow 64 bits",
                       src);
  *total += p->len;
  return ostio__plan_key(d, p->off, &p->major, &p->minor);
}

int ostio__plan_merge_pairs(const int64_t *pairs, const int *nval, int nsrc,
                            const ostio__domains *d, ostio__xpiece *dst, int64_t *total)
{
  *total = 0;
  size_t nh = 0, at = 0, n = 0;
  for (int s = 0; s < nsrc; s++) nh += nval[s] > 0;
  head *h = malloc((nh ? nh : 1) * sizeof *h);
  if (!h) return ostio__fail(OSTIO_ENOMEM, "plan: no memory to merge %zu sources", nh);
  int rc = 0;
  nh = 0;
  for (int s = 0; s < nsrc && rc == 0; s++) {
    size_t k = (size_t)(nval[s] > 0 ? nval[s] : 0) / 2;
    if (k == 0) continue;
    h[nh] = (head){.i = at + 1, .end = at + k};
    rc = keyed(pairs, at, s, d, total, &h[nh].p);
    nh++;
    at += k;
  }
  for (size_t i = nh / 2; rc == 0 && i-- > 0;) sift_down(h, nh, i);
  int bad = 0, unsorted = 0;
  while (rc == 0 && nh > 0) {
    dst[n] = h[0].p;
    if (n > 0) bad |= touch(&dst[n - 1], &dst[n]);
    n++;
    if (h[0].i < h[0].end) {
      ostio__xpiece next;
      rc = keyed(pairs, h[0].i++, h[0].p.peer, d, total, &next);
      if (rc == 0 && key_cmp(&h[0].p, &next) > 0) unsorted = 1;
      h[0].p = next;
    } else {
      h[0] = h[--nh];
    }
    sift_down(h, nh, 0);
  }
  free(h);
  if (rc < 0) return rc;
  if (unsorted) { /* not plan_split's output: sort it all */
    qsort(dst, n, sizeof *dst, key_cmp);
    return overlaps(dst, n);
  }
  return bad ? overlaps(dst, n) : 0; /* overlaps names the pair */
}

int ostio__plan_sort(ostio__xpiece *p, size_t n)
{
  return ostio__plan_sort_in(NULL, p, n);
}

int ostio__plan_sort_in(ostio__scratch *mem, ostio__xpiece *p, size_t n)
{
  int rc = sort_runs(mem, p, n);
  return rc < 0 ? rc : overlaps(p, n);
}

int ostio__plan_rounds(const ostio__xpiece *p, size_t n, int64_t cap, int nsrc,
                       int64_t **sched, int *nrounds)
{
  int64_t total = 0;
  for (size_t i = 0; i < n; i++) total += p[i].len;
  return ostio__plan_rounds_total(p, n, total, cap, nsrc, sched, nrounds);
}

int ostio__plan_rounds_total(const ostio__xpiece *p, size_t n, int64_t total, int64_t cap,
                             int nsrc, int64_t **sched, int *nrounds)
{
  *sched = NULL;
  *nrounds = 0;
  if (cap < 1 || nsrc < 1 || total < 0)
    return ostio__fail(OSTIO_EINVAL, "plan: round size %lld and %d sources must be >= 1, "
                       "%lld bytes >= 0", (long long)cap, nsrc, (long long)total);
  int64_t r = total / cap + (total % cap != 0);
  if (r > INT32_MAX / (nsrc > 0 ? nsrc : 1))
    return ostio__fail(OSTIO_ERANGE, "plan: %lld rounds of %lld bytes are too many; raise "
                       "cb_buffer_size", (long long)r, (long long)cap);
  if (r == 0) return 0;
  int64_t *s = calloc((size_t)r * (size_t)nsrc, sizeof *s);
  if (!s) return ostio__fail(OSTIO_ENOMEM, "plan: no memory for a %lld-round schedule", (long long)r);
  int64_t used = 0, round = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t left = p[i].len;
    while (left > 0) {
      if (round == r) { /* the pieces hold more than total: the caller's mistake */
        free(s);
        return ostio__fail(OSTIO_EINVAL, "plan: the pieces hold more than the %lld bytes "
                           "given", (long long)total);
      }
      int64_t take = cap - used < left ? cap - used : left;
      s[round * nsrc + p[i].peer] += take;
      left -= take;
      used += take;
      if (used == cap) {
        used = 0;
        round++;
      }
    }
  }
  *sched = s;
  *nrounds = (int)r;
  return 0;
}

size_t ostio__take(const ostio__xpiece *p, size_t n, ostio__cursor *c, int64_t bytes,
                   int pos_from_piece, int64_t pos0, ostio__seg *segs, size_t room,
                   int64_t *taken)
{
  size_t k = 0;
  int64_t got = 0;
  while (got < bytes && c->i < n && k < room) {
    const ostio__xpiece *x = &p[c->i];
    int64_t left = x->len - c->done;
    int64_t t = bytes - got < left ? bytes - got : left;
    segs[k++] = (ostio__seg){.off = x->off + c->done, .len = t,
                             .pos = pos_from_piece ? x->pos + c->done : pos0 + got,
                             .peer = x->peer};
    got += t;
    c->done += t;
    if (c->done == x->len) {
      c->i++;
      c->done = 0;
    }
  }
  *taken = got;
  return k;
}
