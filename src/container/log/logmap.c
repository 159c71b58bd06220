/* The merged index of a log container: records in key order, an interval
 * index over their logical spans, the size, and read planning. Pure.
 *
 * The overlap rule: key = (seq, writer, session, idx); where records cover the same
 * byte, the one with the later key wins; a TRUNC(L) is a zero piece over
 * [L, infinity) at its key. resolve() turns a range into non-overlapping
 * segments (data log + physical offset, or zeros) by a sweep over the
 * intersecting pieces with a max-heap on the key. docs/containers.md. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "container/log/log.h"
#include "core/error.h"

#define TAIL_MAX 256 /* unindexed entries before the map is rebuilt */

static int key_cmp(const ostio__logent *x, const ostio__logent *y)
{
  if (x->r.seq != y->r.seq) return x->r.seq < y->r.seq ? -1 : 1;
  if (x->r.writer != y->r.writer) return x->r.writer < y->r.writer ? -1 : 1;
  if (x->r.session != y->r.session) return x->r.session < y->r.session ? -1 : 1;
  if (x->idx != y->idx) return x->idx < y->idx ? -1 : 1;
  return 0;
}

int ostio__logent_cmp(const void *a, const void *b) { return key_cmp(a, b); }

void ostio__logmap_init(ostio__logmap *m)
{
  memset(m, 0, sizeof *m);
  m->tail_ordered = 1;
}

void ostio__logmap_free(ostio__logmap *m)
{
  free(m->e);
  free(m->span);
  free(m->trunc);
  ostio__logmap_init(m);
}

void ostio__logres_free(ostio__logres *r)
{
  free(r->piece);
  free(r->heap);
  free(r->cand);
  free(r->seg);
  memset(r, 0, sizeof *r);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
  if (need <= *cap) return 0;
  size_t c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  void *q = realloc(*p, c * size);
  if (!q) return ostio__fail(OSTIO_ENOMEM, "out of memory for %zu index entries", need);
  *p = q;
  *cap = c;
  return 0;
}

static void apply_size(int64_t *size, const ostio__logrec *r)
{
  if (r->type == OSTIO__LOGREC_TRUNC) *size = r->lstart;
  else if (ostio__logrec_end(r) > *size) *size = ostio__logrec_end(r);
}

/* The length class of a WRITE: floor(log2) of its logical span. */
static int span_class(const ostio__logrec *r)
{
  int64_t s = ostio__logrec_end(r) - r->lstart;
  return s > 0 ? 63 - __builtin_clzll((unsigned long long)s) : 0;
}

static _Thread_local const ostio__logent *span_ent;
static int span_cmp(const void *a, const void *b)
{
  int64_t x = span_ent[*(const size_t *)a].r.lstart, y = span_ent[*(const size_t *)b].r.lstart;
  return (x > y) - (x < y);
}

int ostio__logmap_build(ostio__logmap *m)
{
  if (m->n > 1) qsort(m->e, m->n, sizeof *m->e, ostio__logent_cmp);
  free(m->span);
  free(m->trunc);
  m->span = malloc((m->n + 1) * sizeof *m->span);
  m->trunc = malloc((m->n + 1) * sizeof *m->trunc);
  if (!m->span || !m->trunc)
    return ostio__fail(OSTIO_ENOMEM, "out of memory indexing %zu records", m->n);
  m->nspan = m->ntrunc = m->ncls = m->tail_work = 0;
  m->size = 0;
  size_t per[64] = {0};
  for (size_t i = 0; i < m->n; i++) {
    apply_size(&m->size, &m->e[i].r);
    if (m->e[i].r.type == OSTIO__LOGREC_TRUNC) m->trunc[m->ntrunc++] = i;
    else per[span_class(&m->e[i].r)]++, m->nspan++;
  }
  /* The WRITEs bucketed by class (in key order), each bucket by lstart. */
  size_t at[64];
  for (int c = 0; c < 64; c++) {
    if (!per[c]) continue;
    at[c] = m->ncls ? m->cls_at[m->ncls - 1] + per[m->cls_cls[m->ncls - 1]] : 0;
    m->cls_cls[m->ncls] = c;
    m->cls_at[m->ncls] = at[c];
    m->cls_max[m->ncls++] = 0;
  }
  for (size_t i = 0; i < m->n; i++) {
    const ostio__logrec *r = &m->e[i].r;
    if (r->type == OSTIO__LOGREC_TRUNC) continue;
    int c = span_class(r);
    m->span[at[c]++] = i;
  }
  span_ent = m->e; /* qsort has no context argument in C11 */
  for (size_t k = 0; k < m->ncls; k++) {
    size_t a = m->cls_at[k], b = k + 1 < m->ncls ? m->cls_at[k + 1] : m->nspan;
    if (b - a > 1) qsort(m->span + a, b - a, sizeof *m->span, span_cmp);
    for (size_t j = a; j < b; j++) {
      const ostio__logrec *r = &m->e[m->span[j]].r;
      int64_t len = ostio__logrec_end(r) - r->lstart;
      if (len > m->cls_max[k]) m->cls_max[k] = len;
    }
  }
  m->cls_at[m->ncls] = m->nspan;
  m->nsorted = m->n;
  m->tail_ordered = 1;
  return 0;
}

int ostio__logmap_adopt(ostio__logmap *m, ostio__logent *e, size_t n, size_t cap)
{
  if (m->n > 0) {
    int rc = ostio__logmap_add(m, e, n);
    free(e);
    return rc;
  }
  free(m->e);
  m->e = e;
  m->n = n;
  m->cap = cap;
  return ostio__logmap_build(m);
}

int ostio__logmap_add(ostio__logmap *m, const ostio__logent *e, size_t n)
{
  int rc = grow((void **)&m->e, &m->cap, m->n + n, sizeof *m->e);
  if (rc < 0) return rc;
  for (size_t i = 0; i < n; i++) {
    if (m->n > 0 && key_cmp(&e[i], &m->e[m->n - 1]) <= 0) m->tail_ordered = 0;
    m->e[m->n++] = e[i];
    if (m->tail_ordered) apply_size(&m->size, &e[i].r);
  }
  if (!m->tail_ordered || m->n - m->nsorted > TAIL_MAX) return ostio__logmap_build(m);
  return 0;
}

/* ---- resolve ------------------------------------------------------------------ */

typedef struct piece {
  int64_t off, end, phys;
  size_t rank;             /* place in key order: larger wins */
  int32_t src;
  const ostio__logent *lost; /* its entry when its bytes are lost, else NULL */
} piece;

static int add_piece(ostio__logres *r, int64_t off, int64_t end, int64_t phys, size_t rank,
                     int32_t src, const ostio__logent *lost)
{
  int rc = grow(&r->piece, &r->cappiece, r->npiece + 1, sizeof(piece));
  if (rc < 0) return rc;
  ((piece *)r->piece)[r->npiece++] = (piece){off, end, phys, rank, src, lost};
  return 0;
}

/* The pieces of entry x that intersect [lo, hi), clipped. A good WRITE has
 * at most its data log's size in pieces (its physical end is within the
 * log); a lost one (lost != 0) may claim any count (a forged record, issue
 * 27), so it stays one piece spanning its clipped logical extent, which
 * lost_check walks arithmetically. */
static int pieces_of(ostio__logres *r, const ostio__logent *x, size_t rank, int64_t lo,
                     int64_t hi)
{
  const ostio__logrec *w = &x->r;
  r->visited++;
  if (w->type == OSTIO__LOGREC_TRUNC) {
    int64_t a = w->lstart > lo ? w->lstart : lo;
    return a < hi ? add_piece(r, a, hi, 0, rank, -1, NULL) : 0;
  }
  if (ostio__logrec_end(w) <= lo || w->lstart >= hi) return 0;
  if (x->lost) { /* one piece over its clipped span: never count pieces (lost_check) */
    int64_t a = w->lstart > lo ? w->lstart : lo, b = ostio__logrec_end(w);
    return add_piece(r, a, b < hi ? b : hi, 0, rank, x->src, x);
  }
  int64_t i0 = 0, i1 = 0;
  if (w->count > 1) {
    i0 = lo - w->lstart - w->length < 0 ? 0 : (lo - w->lstart - w->length) / w->lstride + 1;
    i1 = (hi - 1 - w->lstart) / w->lstride;
    if (i1 > w->count - 1) i1 = w->count - 1;
  }
  for (int64_t i = i0; i <= i1; i++) {
    int64_t a = w->lstart + i * w->lstride, b = a + w->length;
    int64_t ca = a > lo ? a : lo, cb = b < hi ? b : hi;
    if (ca >= cb) continue;
    int rc = add_piece(r, ca, cb, w->pstart + i * w->length + (ca - a), rank, x->src,
                       x->lost ? x : NULL);
    if (rc < 0) return rc;
  }
  return 0;
}

static _Thread_local const piece *sort_p;
static int piece_cmp(const void *a, const void *b)
{
  int64_t x = sort_p[*(const size_t *)a].off, y = sort_p[*(const size_t *)b].off;
  return (x > y) - (x < y);
}

static void heap_push(size_t *h, size_t *n, const piece *p, size_t v)
{
  size_t i = (*n)++;
  while (i > 0 && p[h[(i - 1) / 2]].rank < p[v].rank) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = v;
}

static void heap_pop(size_t *h, size_t *n, const piece *p)
{
  size_t v = h[--*n], i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && p[h[c + 1]].rank > p[h[c]].rank) c++;
    if (p[h[c]].rank <= p[v].rank) break;
    h[i] = h[c];
    i = c;
  }
  if (*n > 0) h[i] = v;
}

static int emit(ostio__logres *r, int64_t off, int64_t len, int32_t src, int64_t phys)
{
  if (r->nseg > 0) {
    ostio__logseg *l = &r->seg[r->nseg - 1];
    if (l->src == src && l->off + l->len == off && (src < 0 || l->phys + l->len == phys)) {
      l->len += len;
      return 0;
    }
  }
  int rc = grow((void **)&r->seg, &r->capseg, r->nseg + 1, sizeof *r->seg);
  if (rc < 0) return rc;
  r->seg[r->nseg++] = (ostio__logseg){off, len, src, src < 0 ? 0 : phys};
  return 0;
}

/* ---- lost records ------------------------------------------------------------------ */

/* The next run of the union of the good pieces ranked above rank, taken from
 * order[*u] on (good pieces by offset); 0 when there is none. */
static int next_run(const piece *p, const size_t *order, size_t ng, size_t *u, size_t rank,
                    int64_t *ra, int64_t *rb)
{
  while (*u < ng && p[order[*u]].rank <= rank) (*u)++;
  if (*u == ng) return 0;
  *ra = p[order[*u]].off;
  *rb = p[order[*u]].end;
  for ((*u)++; *u < ng; (*u)++) {
    const piece *q = &p[order[*u]];
    if (q->rank <= rank) continue;
    if (q->off > *rb) break;
    if (q->end > *rb) *rb = q->end;
  }
  return 1;
}

/* The first byte of lost piece l (a lost record's clipped span) that no good
 * piece of a later key covers, i.e. where the lost record wins: 1 with
 * [*at, *to) and the physical offset, else 0. Walks the record's pieces
 * against the runs of that union, jumping over every piece a run covers:
 * the work is the good pieces, never the record's count. */
static int first_win(const piece *p, const size_t *order, size_t ng, const piece *l,
                     int64_t *at, int64_t *to, int64_t *phys)
{
  const ostio__logrec *w = &l->lost->r;
  int64_t i = 0, last = 0, ra = INT64_MAX, rb = INT64_MIN;
  size_t u = 0;
  if (w->count > 1) {
    i = l->off - w->lstart - w->length < 0 ? 0 : (l->off - w->lstart - w->length) / w->lstride + 1;
    last = (l->end - 1 - w->lstart) / w->lstride;
    if (last > w->count - 1) last = w->count - 1;
  }
  while (i <= last) {
    int64_t a = w->lstart + i * w->lstride, b = a + w->length;
    int64_t ca = a > l->off ? a : l->off, cb = b < l->end ? b : l->end;
    while (rb <= ca)
      if (!next_run(p, order, ng, &u, l->rank, &ra, &rb)) ra = rb = INT64_MAX;
    if (ra > ca || rb < cb) { /* uncovered from ca, or from the run's end */
      *at = ra > ca ? ca : rb;
      int64_t nra = ra, nrb = rb;
      if (ra <= ca && !next_run(p, order, ng, &u, l->rank, &nra, &nrb)) nra = INT64_MAX;
      *to = nra < cb ? nra : cb;
      *phys = w->pstart + i * w->length + (*at - a);
      return 1;
    }
    if (w->count == 1) break;
    /* Covered: on to the first piece ending after the run. */
    int64_t t = rb - w->length - w->lstart, j = t < 0 ? 0 : t / w->lstride + 1;
    i = j > i ? j : i + 1;
  }
  return 0;
}

/* A read fails where a lost record wins a byte (docs/containers.md): lost
 * data is an error, never zeros. The first such byte of the range is named
 * (at the same byte, the later record). Then the lost pieces leave the list:
 * they win nowhere. */
static int lost_check(ostio__logres *r)
{
  piece *p = r->piece;
  size_t np = r->npiece, ng = 0, nlost = 0;
  for (size_t k = 0; k < np; k++) nlost += p[k].lost != NULL;
  if (nlost == 0) return 0;
  int rc = grow((void **)&r->cand, &r->capcand, np + 1, sizeof *r->cand);
  if (rc < 0) return rc;
  size_t *order = r->cand;
  for (size_t k = 0; k < np; k++)
    if (!p[k].lost) order[ng++] = k;
  sort_p = p;
  if (ng > 1) qsort(order, ng, sizeof *order, piece_cmp);
  const piece *win = NULL;
  int64_t wat = 0, wto = 0, wph = 0;
  for (size_t k = 0; k < np; k++) {
    int64_t at, to, ph;
    if (!p[k].lost || !first_win(p, order, ng, &p[k], &at, &to, &ph)) continue;
    if (!win || at < wat || (at == wat && p[k].rank > win->rank)) {
      win = &p[k];
      wat = at, wto = to, wph = ph;
    }
  }
  if (win) {
    const ostio__logrec *w = &win->lost->r;
    if (win->lost->lost == 2) /* staged elsewhere (log_stage.h): may still arrive */
      return ostio__fail(OSTIO_ESTAGED, "logical bytes [%lld, %lld) are staged on another "
                         "node and not drained yet (writer %" PRIu32 ", session %" PRIu64
                         "); `ostio stage status` says where, `ostio stage drain` on that "
                         "node moves them", (long long)wat, (long long)wto, w->writer,
                         (uint64_t)w->session);
    return ostio__fail(OSTIO_EFORMAT, "logical bytes [%lld, %lld) are lost: their index "
                       "record (writer %" PRIu32 ", session %" PRIu64 ": %lld piece%s of %lld "
                       "byte%s from data-log byte %lld) places them at bytes [%lld, %lld) of "
                       "data.%" PRIu64 ".%" PRIu32 ", which %s; `ostio container check` names "
                       "the damage, `ostio container recover` drops the record (accepting the "
                       "loss)", (long long)wat, (long long)wto, w->writer, (uint64_t)w->session,
                       (long long)w->count, w->count == 1 ? "" : "s", (long long)w->length,
                       w->length == 1 ? "" : "s", (long long)w->pstart, (long long)wph, (long long)(wph + (wto - wat)),
                       (uint64_t)w->session, w->writer, win->src < 0 ? "does not exist" : "is shorter");
  }
  size_t j = 0;
  for (size_t k = 0; k < np; k++)
    if (!p[k].lost) p[j++] = p[k];
  r->npiece = j;
  return 0;
}

static int sweep(ostio__logres *r, int64_t lo, int64_t hi)
{
  piece *p = r->piece;
  size_t np = r->npiece, nh = 0, i = 0;
  int rc = grow((void **)&r->cand, &r->capcand, np + 1, sizeof *r->cand);
  if (rc == 0) rc = grow((void **)&r->heap, &r->capheap, np + 1, sizeof *r->heap);
  if (rc < 0) return rc;
  size_t *order = r->cand;
  for (size_t k = 0; k < np; k++) order[k] = k;
  sort_p = p;
  if (np > 1) qsort(order, np, sizeof *order, piece_cmp);
  for (int64_t cur = lo; cur < hi && rc == 0;) {
    while (i < np && p[order[i]].off <= cur) heap_push(r->heap, &nh, p, order[i++]);
    while (nh > 0 && p[r->heap[0]].end <= cur) heap_pop(r->heap, &nh, p);
    int64_t next = hi;
    if (i < np && p[order[i]].off < next) next = p[order[i]].off;
    if (nh > 0) {
      const piece *t = &p[r->heap[0]];
      if (t->end < next) next = t->end;
      rc = emit(r, cur, next - cur, t->src, t->src < 0 ? 0 : t->phys + (cur - t->off));
    } else {
      rc = emit(r, cur, next - cur, -1, 0);
    }
    cur = next;
  }
  return rc;
}

int ostio__logmap_resolve(ostio__logmap *m, const ostio__logent *extra, size_t nextra,
                          int64_t off, int64_t len, ostio__logres *r)
{
  r->npiece = r->nseg = r->visited = 0;
  if (len <= 0) return 0;
  if (off < 0 || len > INT64_MAX - off)
    return ostio__fail(OSTIO_EINVAL, "range offset %lld length %lld", (long long)off,
                       (long long)len);
  int64_t hi = off + len;
  int rc = 0;
  /* A tail that lookups keep scanning is indexed once its scans cost what
   * a build does (a read phase after writes would scan it on every call). */
  if (m->nsorted < m->n) {
    m->tail_work += m->n - m->nsorted;
    if (m->tail_work > m->n + TAIL_MAX && (rc = ostio__logmap_build(m)) < 0) return rc;
  }
  /* Indexed WRITEs, per length class: those starting in (off - the
   * class's longest span, hi), the only ones that can reach the range. */
  for (size_t k = 0; k < m->ncls && rc == 0; k++) {
    int64_t from = off - m->cls_max[k]; /* off >= 0, cls_max >= 0: no overflow */
    size_t a = m->cls_at[k], b = m->cls_at[k + 1];
    while (a < b) {
      size_t mid = a + (b - a) / 2;
      if (m->e[m->span[mid]].r.lstart <= from) a = mid + 1;
      else b = mid;
    }
    for (size_t j = a; j < m->cls_at[k + 1] && m->e[m->span[j]].r.lstart < hi && rc == 0; j++)
      rc = pieces_of(r, &m->e[m->span[j]], m->span[j], off, hi);
  }
  for (size_t t = 0; t < m->ntrunc && rc == 0; t++)
    rc = pieces_of(r, &m->e[m->trunc[t]], m->trunc[t], off, hi);
  for (size_t k = m->nsorted; k < m->n && rc == 0; k++) rc = pieces_of(r, &m->e[k], k, off, hi);
  for (size_t k = 0; k < nextra && rc == 0; k++)
    rc = pieces_of(r, &extra[k], m->n + k, off, hi);
  if (rc == 0) rc = lost_check(r);
  if (rc == 0) rc = sweep(r, off, hi);
  return rc;
}
