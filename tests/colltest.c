/* Helpers shared by the collective I/O tests, part 1: data that encodes
 * its offset and writer, seeded patterns, the expected content. The
 * checkers and setup are in colltest_check.c. See colltest.h. */
#include "colltest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static void *xrealloc(void *p, size_t n)
{
  if (!(p = realloc(p, n ? n : 1))) {
    fprintf(stderr, "colltest: out of memory (%zu bytes)\n", n);
    abort();
  }
  return p;
}

void *ct_xmalloc(size_t n) { return xrealloc(NULL, n); }
static void *xcalloc(size_t n, size_t size) { return memset(ct_xmalloc(n * size), 0, n * size); }

uint64_t ct_mix(uint64_t a, uint64_t b)
{
  uint64_t z = a + 0x9E3779B97F4A7C15ull * (b + 1);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* ---- data ------------------------------------------------------------------ */
static uint64_t word_hash(int64_t off, int writer, uint32_t call_id)
{
  return ct_mix(((uint64_t)off >> 3) ^ ((uint64_t)(uint32_t)writer << 40),
                0x5151ull + ((uint64_t)call_id << 20));
}

static uint8_t fix_byte(uint8_t b) { return (b == 0 || b == CT_SENTINEL) ? (uint8_t)(b ^ 0x81u) : b; }

uint8_t ct_byte(int64_t off, int writer, uint32_t call_id)
{
  return fix_byte((uint8_t)(word_hash(off, writer, call_id) >> (8 * (off & 7))));
}

void ct_data(int64_t off, int64_t len, int writer, uint32_t call_id, uint8_t *out)
{
  uint64_t h = 0;
  for (int64_t i = 0; i < len; i++) {
    int64_t o = off + i;
    if (i == 0 || (o & 7) == 0) h = word_hash(o, writer, call_id);
    out[i] = fix_byte((uint8_t)(h >> (8 * (o & 7))));
  }
}

void ct_fill(uint8_t *buf, const ostio_extent *ext, size_t n, int writer, uint32_t call_id)
{
  for (size_t i = 0; i < n; i++) {
    ct_data(ext[i].offset, ext[i].length, writer, call_id, buf);
    buf += ext[i].length;
  }
}

/* ---- patterns ---------------------------------------------------------------- */
typedef struct vec {
  ostio_extent *a;
  size_t n, cap;
} vec;

static void vec_push(vec *v, int64_t off, int64_t len)
{
  if (v->n == v->cap) v->a = xrealloc(v->a, (v->cap = v->cap ? 2 * v->cap : 16) * sizeof *v->a);
  v->a[v->n++] = (ostio_extent){off, len};
}

static void shuffle(ostio_extent *a, size_t n, tu_rng *r)
{
  for (size_t i = n; i > 1; i--) {
    size_t j = (size_t)tu_rng_range(r, 0, (int64_t)i - 1);
    ostio_extent t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
  }
}

static int piece_cmp(const void *a, const void *b)
{
  const ct_piece *x = a, *y = b;
  return x->off < y->off ? -1 : x->off > y->off;
}

const char *ct_kind_name(int kind)
{
  static const char *const names[] = {"random", "strided", "contig", "sparse_high"};
  return kind >= 0 && kind < CT_NKINDS ? names[kind] : "?";
}

ct_params ct_params_default(int kind, int64_t base, int64_t span)
{
  ct_params p = {.kind = kind, .base = base, .span = span, .holes = 1, .zero_len = 1,
                 .empty_ranks = 1, .clusters = 3, .gap = (int64_t)1 << 30};
  p.block = span / 64 > 0 ? span / 64 : 1;
  if (kind == CT_SPARSE_HIGH) p.base = 0;
  return p;
}

/* Takes the per-rank lists (ownership moves into p) and builds the rest. */
static int finish(ct_pattern *p, vec *v, int nprocs)
{
  size_t total = 0;
  p->nprocs = nprocs;
  p->n = ct_xmalloc((size_t)nprocs * sizeof *p->n);
  p->ext = ct_xmalloc((size_t)nprocs * sizeof *p->ext);
  p->bytes = xcalloc((size_t)nprocs, sizeof *p->bytes);
  for (int r = 0; r < nprocs; r++) {
    p->n[r] = v[r].n;
    p->ext[r] = v[r].a ? v[r].a : ct_xmalloc(sizeof(ostio_extent));
    v[r].a = NULL;
    for (size_t i = 0; i < p->n[r]; i++) {
      p->bytes[r] += p->ext[r][i].length;
      total += p->ext[r][i].length > 0;
    }
    p->total += p->bytes[r];
  }
  p->sorted = ct_xmalloc(total * sizeof *p->sorted);
  for (int r = 0; r < nprocs; r++)
    for (size_t i = 0; i < p->n[r]; i++)
      if (p->ext[r][i].length > 0)
        p->sorted[p->nsorted++] = (ct_piece){p->ext[r][i].offset, p->ext[r][i].length, r};
  qsort(p->sorted, p->nsorted, sizeof *p->sorted, piece_cmp);
  if (p->nsorted) {
    p->lo = p->sorted[0].off;
    p->hi = p->sorted[p->nsorted - 1].off + p->sorted[p->nsorted - 1].len;
  }
  for (size_t i = 1; i < p->nsorted; i++)
    if (p->sorted[i - 1].off + p->sorted[i - 1].len > p->sorted[i].off) {
      fprintf(stderr, "colltest: generator bug: overlap at %lld\n", (long long)p->sorted[i].off);
      return -1;
    }
  return 0;
}

/* Zero-length entries at random offsets in [lo, hi]; a rank with no bytes
 * gets some only now and then. */
static void add_zero_len(vec *v, int nprocs, int64_t lo, int64_t hi, tu_rng *r)
{
  for (int k = 0; k < nprocs; k++) {
    int64_t m = tu_rng_range(r, 0, v[k].n ? 3 : 1);
    for (int64_t i = 0; i < m; i++) vec_push(&v[k], tu_rng_range(r, lo, hi), 0);
  }
}

static int64_t rand_len(tu_rng *r, int64_t block)
{
  switch (tu_rng_range(r, 0, 3)) {
  case 0: return tu_rng_range(r, 1, 16);
  case 1: return tu_rng_range(r, 1, block / 16 + 1);
  default: return tu_rng_range(r, 1, block);
  }
}

/* Random disjoint extents over [lo, hi) dealt to the active ranks. */
static void gen_random(vec *v, const int *active, int nactive, int64_t lo, int64_t hi,
                       const ct_params *prm, tu_rng *r)
{
  int64_t cur = lo;
  int owner = active[tu_rng_range(r, 0, nactive - 1)];
  while (cur < hi) {
    if (prm->holes) {
      int g = (int)tu_rng_range(r, 0, 2);
      cur += g == 0 ? 0 : g == 1 ? tu_rng_range(r, 1, 64) : tu_rng_range(r, 1, prm->block);
      if (cur >= hi) break;
    }
    int64_t len = rand_len(r, prm->block);
    if (len > hi - cur) len = hi - cur;
    if (tu_rng_range(r, 0, 1)) owner = active[tu_rng_range(r, 0, nactive - 1)];
    vec_push(&v[owner], cur, len);
    cur += len;
  }
}

int ct_pattern_make(ct_pattern *p, uint64_t seed, int nprocs, const ct_params *prm)
{
  memset(p, 0, sizeof *p);
  if (nprocs < 1 || !prm || prm->span < 0 || prm->base < 0 || prm->kind < 0 ||
      prm->kind >= CT_NKINDS || (prm->kind != CT_CONTIG && prm->block < 1))
    return -1;
  tu_rng r;
  tu_rng_seed(&r, ct_mix(seed, 0xC0FFEEu + (uint64_t)prm->kind));
  vec *v = xcalloc((size_t)nprocs, sizeof *v);
  int *active = ct_xmalloc(sizeof(int) * (size_t)nprocs);
  int nactive = 0, rc;
  for (int k = 0; k < nprocs; k++)
    if (!prm->empty_ranks || nprocs == 1 || tu_rng_range(&r, 0, 3) != 0) active[nactive++] = k;
  if (nactive == 0) active[nactive++] = (int)tu_rng_range(&r, 0, nprocs - 1);
  int64_t zlo = prm->base, zhi = prm->base + prm->span;
  switch (prm->kind) {
  case CT_RANDOM:
    gen_random(v, active, nactive, prm->base, prm->base + prm->span, prm, &r);
    break;
  case CT_STRIDED: {
    int64_t cycles = prm->span / ((int64_t)nprocs * prm->block);
    if (cycles < 1) cycles = 1;
    for (int k = 0; k < nprocs; k++)
      for (int64_t c = 0; c < cycles; c++)
        vec_push(&v[k], prm->base + (c * nprocs + k) * prm->block, prm->block);
    break;
  }
  case CT_CONTIG: {
    int64_t chunk = prm->span / nprocs;
    for (int k = 0; k < nprocs; k++) {
      int64_t a = prm->base + k * chunk;
      int64_t b = k == nprocs - 1 ? prm->base + prm->span : a + chunk;
      int cuts = (int)tu_rng_range(&r, 0, 3);
      for (int c = 0; c < cuts && b - a > 1; c++) {
        int64_t m = tu_rng_range(&r, a + 1, b - 1);
        vec_push(&v[k], a, m - a);
        a = m;
      }
      if (b > a) vec_push(&v[k], a, b - a);
    }
    break;
  }
  case CT_SPARSE_HIGH: {
    int64_t base = prm->base ? prm->base : ((int64_t)1 << 32) - prm->span / 2;
    int nclus = prm->clusters > 0 ? prm->clusters : 3;
    int64_t gap = prm->gap > prm->span ? prm->gap : ((int64_t)1 << 30);
    for (int c = 0; c < nclus; c++)
      gen_random(v, active, nactive, base + c * gap, base + c * gap + prm->span, prm, &r);
    zlo = base;
    zhi = base + (nclus - 1) * gap + prm->span;
    break;
  }
  }
  if (prm->zero_len) add_zero_len(v, nprocs, zlo, zhi, &r);
  for (int k = 0; k < nprocs; k++)
    if (prm->shuffle || prm->kind == CT_RANDOM || prm->kind == CT_SPARSE_HIGH)
      shuffle(v[k].a, v[k].n, &r);
  rc = finish(p, v, nprocs);
  for (int k = 0; k < nprocs; k++) free(v[k].a);
  free(v);
  free(active);
  if (rc < 0) ct_pattern_free(p);
  return rc;
}

int ct_pattern_reshuffle(ct_pattern *dst, const ct_pattern *src, uint64_t seed)
{
  tu_rng r;
  int np = src->nprocs, rc;
  memset(dst, 0, sizeof *dst);
  tu_rng_seed(&r, ct_mix(seed, 0x5EEDu));
  vec *v = xcalloc((size_t)np, sizeof *v);
  for (size_t i = 0; i < src->nsorted; i++) {
    int64_t off = src->sorted[i].off, end = off + src->sorted[i].len;
    int cuts = (int)tu_rng_range(&r, 0, 2);
    for (int c = 0; c < cuts && end - off > 1; c++) {
      int64_t m = tu_rng_range(&r, off + 1, end - 1);
      vec_push(&v[tu_rng_range(&r, 0, np - 1)], off, m - off);
      off = m;
    }
    vec_push(&v[tu_rng_range(&r, 0, np - 1)], off, end - off);
  }
  add_zero_len(v, np, src->lo, src->hi, &r);
  for (int k = 0; k < np; k++) shuffle(v[k].a, v[k].n, &r);
  rc = finish(dst, v, np);
  for (int k = 0; k < np; k++) free(v[k].a);
  free(v);
  if (rc < 0) ct_pattern_free(dst);
  return rc;
}

void ct_pattern_free(ct_pattern *p)
{
  if (p->ext)
    for (int r = 0; r < p->nprocs; r++) free(p->ext[r]);
  free(p->ext);
  free(p->n);
  free(p->bytes);
  free(p->sorted);
  memset(p, 0, sizeof *p);
}

void ct_pattern_describe(const ct_pattern *p, char *buf, size_t cap)
{
  size_t nent = 0;
  int empty = 0;
  for (int r = 0; r < p->nprocs; r++) {
    nent += p->n[r];
    empty += p->bytes[r] == 0;
  }
  snprintf(buf, cap, "%d ranks (%d without bytes), %zu entries (%zu non-empty), %lld bytes in "
           "[%lld, %lld)", p->nprocs, empty, nent, p->nsorted, (long long)p->total,
           (long long)p->lo, (long long)p->hi);
}

/* ---- expectations -------------------------------------------------------------- */
void ct_expect_init(ct_expect *e, int64_t pf_lo, int64_t pf_hi)
{
  memset(e, 0, sizeof *e);
  e->pf_lo = pf_lo;
  e->pf_hi = pf_hi > pf_lo ? pf_hi : pf_lo;
}

int ct_expect_add(ct_expect *e, const ct_pattern *p, uint32_t call_id)
{
  if (e->nlayers == CT_MAX_LAYERS) return -1;
  e->layer[e->nlayers] = p;
  e->call_id[e->nlayers++] = call_id;
  return 0;
}

int64_t ct_expect_size(const ct_expect *e)
{
  int64_t s = e->pf_hi > e->pf_lo ? e->pf_hi : 0;
  for (int i = 0; i < e->nlayers; i++)
    if (e->layer[i]->nsorted && e->layer[i]->hi > s) s = e->layer[i]->hi;
  return s;
}

/* First sorted piece whose end is past off. */
static size_t first_after(const ct_pattern *p, int64_t off)
{
  size_t lo = 0, hi = p->nsorted;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (p->sorted[mid].off + p->sorted[mid].len <= off) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void ct_expect_fill(const ct_expect *e, int64_t off, int64_t len, uint8_t *out)
{
  int64_t end = off + len;
  memset(out, 0, (size_t)len);
  int64_t a = e->pf_lo > off ? e->pf_lo : off, b = e->pf_hi < end ? e->pf_hi : end;
  if (b > a) memset(out + (a - off), CT_SENTINEL, (size_t)(b - a));
  for (int l = 0; l < e->nlayers; l++) {
    const ct_pattern *p = e->layer[l];
    for (size_t i = first_after(p, off); i < p->nsorted && p->sorted[i].off < end; i++) {
      const ct_piece *q = &p->sorted[i];
      a = q->off > off ? q->off : off;
      b = q->off + q->len < end ? q->off + q->len : end;
      ct_data(a, b - a, q->rank, e->call_id[l], out + (a - off));
    }
  }
}

void ct_expect_defined(const ct_expect *e, int64_t off, int64_t len, uint8_t *mask)
{
  int64_t end = off + len;
  memset(mask, 0, (size_t)len);
  int64_t a = e->pf_lo > off ? e->pf_lo : off, b = e->pf_hi < end ? e->pf_hi : end;
  if (b > a) memset(mask + (a - off), 1, (size_t)(b - a));
  for (int l = 0; l < e->nlayers; l++) {
    const ct_pattern *p = e->layer[l];
    for (size_t i = first_after(p, off); i < p->nsorted && p->sorted[i].off < end; i++) {
      a = p->sorted[i].off > off ? p->sorted[i].off : off;
      b = p->sorted[i].off + p->sorted[i].len < end ? p->sorted[i].off + p->sorted[i].len : end;
      memset(mask + (a - off), 1, (size_t)(b - a));
    }
  }
}

/* With holes_undefined, copies exp into act where the byte is undefined. */

int ct_expect_writer(const ct_expect *e, int64_t off, uint32_t *call_id)
{
  for (int l = e->nlayers - 1; l >= 0; l--) {
    const ct_pattern *p = e->layer[l];
    size_t i = first_after(p, off);
    if (i < p->nsorted && p->sorted[i].off <= off) {
      if (call_id) *call_id = e->call_id[l];
      return p->sorted[i].rank;
    }
  }
  if (call_id) *call_id = 0;
  return -1;
}
