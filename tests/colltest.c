/* Helpers shared by the collective I/O tests; see colltest.h. */
#include "colltest.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK ((int64_t)1 << 20)
#define FULL_CHECK_MAX ((int64_t)256 << 20)
#define MARGIN ((int64_t)64 << 10)

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
static void neutralize(const ct_expect *e, int64_t off, int64_t len, uint8_t *act,
                       const uint8_t *exp, uint8_t *mask)
{
  if (!e || !e->holes_undefined) return;
  ct_expect_defined(e, off, len, mask);
  for (int64_t i = 0; i < len; i++)
    if (!mask[i]) act[i] = exp[i];
}

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

/* ---- checkers ------------------------------------------------------------------ */
/* "rank 3 call 1" / "nobody: sentinel" / "nobody: hole". */
static void who(const ct_expect *e, int64_t off, char *buf, size_t cap)
{
  uint32_t call = 0;
  int w = e ? ct_expect_writer(e, off, &call) : -1;
  if (!e) snprintf(buf, cap, "unknown");
  else if (w >= 0) snprintf(buf, cap, "written by rank %d in call %u", w, call);
  else if (off >= e->pf_lo && off < e->pf_hi) snprintf(buf, cap, "nobody writes it: sentinel");
  else snprintf(buf, cap, "nobody writes it: hole");
}

/* What the actual bytes look like: another writer's data, sentinel, zeros. */
static void guess(const ct_expect *e, int64_t off, const uint8_t *act, int64_t n, char *buf,
                  size_t cap)
{
  uint8_t tmp[16];
  if (n > 16) n = 16;
  snprintf(buf, cap, "%s", act[0] == CT_SENTINEL ? "sentinel (never written)"
                           : act[0] == 0 ? "zero (hole / never written)" : "unknown data");
  if (!e || act[0] == 0 || act[0] == CT_SENTINEL) return;
  for (int l = 0; l < e->nlayers; l++)
    for (int r = 0; r < e->layer[l]->nprocs; r++) {
      ct_data(off, n, r, e->call_id[l], tmp);
      if (!memcmp(tmp, act, (size_t)n)) {
        snprintf(buf, cap, "rank %d's data for this offset in call %u", r, e->call_id[l]);
        return;
      }
    }
}

typedef struct range {
  int64_t lo, hi;
} range;

static int range_cmp(const void *a, const void *b)
{
  const range *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* The ranges of [0, size) to check, sorted and merged. */
static range *check_ranges(const ct_expect *e, int fd, int64_t size, size_t *nr)
{
  size_t cap = 8, n = 0;
  range *r;
  if (size <= FULL_CHECK_MAX || !e) {
    r = ct_xmalloc(sizeof *r);
    r[0] = (range){0, size < FULL_CHECK_MAX ? size : FULL_CHECK_MAX};
    *nr = 1;
    return r;
  }
  for (int l = 0; l < e->nlayers; l++) cap += e->layer[l]->nsorted;
  cap += 4096;
  r = ct_xmalloc(cap * sizeof *r);
  r[n++] = (range){0, CHUNK};
  r[n++] = (range){size - MARGIN, size};
  if (e->pf_hi > e->pf_lo) {  /* its ends; the middle near extents comes below */
    r[n++] = (range){e->pf_lo, e->pf_lo + CHUNK < e->pf_hi ? e->pf_lo + CHUNK : e->pf_hi};
    r[n++] = (range){e->pf_hi - CHUNK > e->pf_lo ? e->pf_hi - CHUNK : e->pf_lo, e->pf_hi};
  }
  for (int l = 0; l < e->nlayers; l++)
    for (size_t i = 0; i < e->layer[l]->nsorted; i++) {
      const ct_piece *q = &e->layer[l]->sorted[i];
      r[n++] = (range){q->off - MARGIN, q->off + q->len + MARGIN};
    }
  /* Data the file system holds anywhere (stray writes far from any extent). */
  int64_t pos = 0;
  while (n < cap) {
    off_t d = lseek(fd, (off_t)pos, SEEK_DATA);
    if (d < 0) break;
    off_t h = lseek(fd, d, SEEK_HOLE);
    if (h <= d) break;
    r[n++] = (range){(int64_t)d, (int64_t)h};
    pos = (int64_t)h;
  }
  qsort(r, n, sizeof *r, range_cmp);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (r[i].lo < 0) r[i].lo = 0;
    if (r[i].hi > size) r[i].hi = size;
    if (r[i].hi <= r[i].lo) continue;
    if (m && r[i].lo <= r[m - 1].hi) {
      if (r[i].hi > r[m - 1].hi) r[m - 1].hi = r[i].hi;
    } else {
      r[m++] = r[i];
    }
  }
  int64_t total = 0;
  for (size_t i = 0; i < m; i++) {  /* cap the work (runaway data regions) */
    if (total + (r[i].hi - r[i].lo) > FULL_CHECK_MAX) r[i].hi = r[i].lo + (FULL_CHECK_MAX - total);
    total += r[i].hi - r[i].lo;
    if (total >= FULL_CHECK_MAX) {
      m = i + 1;
      break;
    }
  }
  *nr = m;
  return r;
}

/* The first bad byte of a scan (its bad run, up to 16 bytes kept) and a count. */
typedef struct scan {
  int64_t bad, first, run, where;  /* where: caller's position of first */
  int open;                        /* the first bad run may still grow */
  uint8_t act[16], exp[16];
} scan;

/* Compares len bytes at file offset off; where0 is the caller's position. */
static void scan_chunk(scan *sc, int64_t off, const uint8_t *act, const uint8_t *exp, int64_t len,
                       int64_t where0)
{
  if (sc->open && off != sc->first + sc->run) sc->open = 0;
  if (!memcmp(act, exp, (size_t)len)) {
    sc->open = 0;
    return;
  }
  for (int64_t i = 0; i < len; i++) {
    if (act[i] == exp[i]) {
      sc->open = 0;
      continue;
    }
    if (sc->bad++ == 0) {
      sc->first = off + i;
      sc->where = where0 + i;
      sc->open = 1;
    }
    if (sc->open && sc->run < 16) {
      sc->act[sc->run] = act[i];
      sc->exp[sc->run] = exp[i];
    }
    if (sc->open) sc->run++;
  }
}

/* Reads len bytes at off; what lies past EOF (or fails) reads as zeros. */
static void pread_full(int fd, uint8_t *buf, int64_t len, int64_t off)
{
  size_t got = 0;
  while (got < (size_t)len) {
    ssize_t k = pread(fd, buf + got, (size_t)len - got, (off_t)off + (off_t)got);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    got += (size_t)k;
  }
  memset(buf + got, 0, (size_t)len - got);
}

int ct_agree(MPI_Comm comm, int ok)
{
  int all = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm);
  return all;
}

/* Rank 0's part of ct_check_file / ct_compare_files: compares file a with
 * file b (path_b) or, when path_b is NULL, with the expectation. */
static int check_root(const char *path_a, const char *path_b, const ct_expect *e,
                      uint64_t seed, const char *what)
{
  int fa = open(path_a, O_RDONLY), fb = path_b ? open(path_b, O_RDONLY) : -1, ok = 1;
  struct stat sa, sb;
  if (fa < 0 || (path_b && fb < 0)) {
    fprintf(stderr, "MISMATCH %s: cannot open %s: %s [seed %llu]\n", what,
            fa < 0 ? path_a : path_b, strerror(errno), (unsigned long long)seed);
    if (fa >= 0) close(fa);
    return 0;
  }
  fstat(fa, &sa);
  int64_t size = (int64_t)sa.st_size, want = e ? ct_expect_size(e) : 0;
  if (path_b) {
    fstat(fb, &sb);
    want = (int64_t)sb.st_size;
  }
  if (size != want) {
    fprintf(stderr, "MISMATCH %s: %s has %lld bytes, expected %lld%s [seed %llu]\n", what,
            path_a, (long long)size, (long long)want,
            path_b ? " (size of the oracle file)" : " (max of pre-fill end and last written byte)",
            (unsigned long long)seed);
    ok = 0;
  }
  int64_t n = size > want ? size : want;
  uint8_t *act = ct_xmalloc((size_t)CHUNK), *exp = ct_xmalloc((size_t)CHUNK);
  uint8_t *mask = ct_xmalloc((size_t)CHUNK);
  scan sc = {.first = -1};
  size_t nr = 0;
  range *rg = check_ranges(e, fa, n, &nr);
  for (size_t k = 0; k < nr; k++)
    for (int64_t off = rg[k].lo; off < rg[k].hi; off += CHUNK) {
      int64_t len = rg[k].hi - off < CHUNK ? rg[k].hi - off : CHUNK;
      pread_full(fa, act, len, off);  /* past EOF: zeros (a size error already) */
      if (path_b) {
        pread_full(fb, exp, len, off);
      } else {
        ct_expect_fill(e, off, len, exp);
      }
      neutralize(e, off, len, act, exp, mask);
      scan_chunk(&sc, off, act, exp, len, off);
    }
  if (sc.bad) {
    char w[96], g[96];
    who(e, sc.first, w, sizeof w);
    guess(e, sc.first, sc.act, sc.run < 16 ? sc.run : 16, g, sizeof g);
    fprintf(stderr, "MISMATCH %s: %s offset %lld: expected 0x%02x (%s%s%s), actual 0x%02x "
            "(looks like %s); first bad run %lld bytes, %lld bad bytes in total [seed %llu]\n",
            what, path_a, (long long)sc.first, sc.exp[0], path_b ? "as in " : "",
            path_b ? path_b : "", path_b ? "" : w, sc.act[0], g, (long long)sc.run,
            (long long)sc.bad, (unsigned long long)seed);
    if (path_b && e) fprintf(stderr, "  the byte at %lld is %s\n", (long long)sc.first, w);
    ok = 0;
  }
  free(rg);
  free(mask);
  free(act);
  free(exp);
  close(fa);
  if (fb >= 0) close(fb);
  return ok;
}

int ct_check_file(MPI_Comm comm, const char *path, const ct_expect *e, uint64_t seed,
                  const char *what)
{
  return ct_compare_files(comm, path, NULL, e, seed, what);
}

int ct_compare_files(MPI_Comm comm, const char *path_a, const char *path_b,
                     const ct_expect *e, uint64_t seed, const char *what)
{
  int rank, ok = 1;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) ok = check_root(path_a, path_b, e, seed, what);
  return ct_agree(comm, ok);
}

int64_t ct_check_buf(const ct_expect *e, const ostio_extent *ext, size_t n,
                     const uint8_t *buf, int rank, uint64_t seed, const char *what)
{
  int64_t pos = 0;
  size_t ebad = 0;
  uint8_t *exp = ct_xmalloc((size_t)CHUNK), *tmp = ct_xmalloc((size_t)CHUNK);
  uint8_t *mask = ct_xmalloc((size_t)CHUNK);
  scan sc = {.first = -1};
  for (size_t i = 0; i < n; pos += ext[i++].length)
    for (int64_t d = 0; d < ext[i].length; d += CHUNK) {
      int64_t len = ext[i].length - d < CHUNK ? ext[i].length - d : CHUNK;
      int64_t off = ext[i].offset + d;
      memcpy(tmp, buf + pos + d, (size_t)len);
      ct_expect_fill(e, off, len, exp);
      neutralize(e, off, len, tmp, exp, mask);
      sc.open = 0;  /* a run never continues into another extent */
      int64_t before = sc.bad;
      scan_chunk(&sc, off, tmp, exp, len, pos + d);
      if (!before && sc.bad) ebad = i;
    }
  if (sc.bad) {
    char w[96], g[96];
    who(e, sc.first, w, sizeof w);
    guess(e, sc.first, sc.act, sc.run < 16 ? sc.run : 16, g, sizeof g);
    fprintf(stderr, "MISMATCH %s: rank %d extent #%zu [%lld, +%lld) file offset %lld (buffer "
            "position %lld): expected 0x%02x (%s), read 0x%02x (looks like %s); first bad run "
            "%lld bytes, %lld bad bytes in the buffer [seed %llu]\n", what, rank, ebad,
            (long long)ext[ebad].offset, (long long)ext[ebad].length, (long long)sc.first,
            (long long)sc.where, sc.exp[0], w, sc.act[0], g, (long long)sc.run,
            (long long)sc.bad, (unsigned long long)seed);
  }
  free(exp);
  free(tmp);
  free(mask);
  return sc.bad;
}

/* ---- setup ------------------------------------------------------------------- */
int ct_prefill(MPI_Comm comm, const char *path, int64_t lo, int64_t hi)
{
  int rank, rc = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0) {
      fprintf(stderr, "colltest: prefill %s: %s\n", path, strerror(errno));
      rc = -1;
    } else {
      uint8_t *s = ct_xmalloc((size_t)CHUNK);
      memset(s, CT_SENTINEL, (size_t)CHUNK);
      for (int64_t off = lo; off < hi && rc == 0; off += CHUNK) {
        size_t len = (size_t)(hi - off < CHUNK ? hi - off : CHUNK);
        if (pwrite(fd, s, len, (off_t)off) != (ssize_t)len) {
          fprintf(stderr, "colltest: prefill %s at %lld: %s\n", path, (long long)off,
                  strerror(errno));
          rc = -1;
        }
      }
      free(s);
      close(fd);
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
  MPI_Barrier(comm);
  return rc;
}

int ct_tmpdir(MPI_Comm comm, char *buf, size_t cap, const char *tag)
{
  int rank, rc = 0;
  MPI_Comm_rank(comm, &rank);
  if (rank == 0) {
    rc = tu_tmpdir(buf, cap, tag);
    if (rc < 0) fprintf(stderr, "colltest: mkdtemp: %s\n", strerror(errno));
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
  MPI_Bcast(buf, (int)cap, MPI_CHAR, 0, comm);
  return rc;
}

void ct_rmtree(MPI_Comm comm, const char *dir)
{
  int rank;
  MPI_Comm_rank(comm, &rank);
  MPI_Barrier(comm);
  if (rank == 0) tu_rmtree(dir);
  MPI_Barrier(comm);
}

int ct_info(const char *spec, MPI_Info *info)
{
  char word[512];
  MPI_Info_create(info);
  for (const char *p = spec ? spec : ""; *p;) {
    size_t sp = strspn(p, " \t\n");
    p += sp;
    size_t len = strcspn(p, " \t\n");
    if (!len) break;
    snprintf(word, sizeof word, "%.*s", (int)len, p);
    p += len;
    char *eq = strchr(word, '=');
    if (!eq || eq == word) {
      fprintf(stderr, "colltest: info word \"%s\" is not key=value\n", word);
      MPI_Info_free(info);
      *info = MPI_INFO_NULL;
      return -1;
    }
    *eq = '\0';
    MPI_Info_set(*info, word, eq + 1);
  }
  return 0;
}

void ct_spec_add(char *spec, size_t cap, const char *key, const char *fmt, ...)
{
  size_t len = strlen(spec);
  va_list ap;
  if (len + 2 >= cap) return;
  len += (size_t)snprintf(spec + len, cap - len, "%s%s=", len ? " " : "", key);
  if (len >= cap) return;
  va_start(ap, fmt);
  vsnprintf(spec + len, cap - len, fmt, ap);
  va_end(ap);
}
