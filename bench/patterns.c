/* ostio-bench access patterns (issue 4): ior, strided, btio, flash, random
 * as per-rank lists of extents per collective call; ob_fill/ob_check, the
 * data as a function of (file offset, seed). Geometry and formulas:
 * docs/benchmarks-patterns.md. Pure C: no MPI calls, no I/O. */
#include "patterns.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIB ((int64_t)1024)
#define MIB (KIB * KIB)
#define RANDOM_MAX_PIECE MIB

static const char *const kind_names[] = {
    [OB_PAT_IOR] = "ior",     [OB_PAT_STRIDED] = "strided", [OB_PAT_BTIO] = "btio",
    [OB_PAT_FLASH] = "flash", [OB_PAT_RANDOM] = "random",
};
#define NKINDS ((int)(sizeof kind_names / sizeof kind_names[0]))

/* splitmix64: the mixer of both the random pattern and ob_fill. */
static uint64_t mix64(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

typedef struct { uint64_t s; } rng64;
static uint64_t rng_next(rng64 *r)
{
  r->s += 0x9e3779b97f4a7c15ULL;
  return mix64(r->s);
}

static void seterr(char *err, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t cap, const char *fmt, ...)
{
  if (!err || cap == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, cap, fmt, ap);
  va_end(ap);
}

static int mul_ok(int64_t a, int64_t b, int64_t *r) { return !__builtin_mul_overflow(a, b, r); }

void ob_pattern_defaults(int kind, ob_pattern_opts *o)
{
  memset(o, 0, sizeof *o);
  o->kind = kind;
  o->block = MIB;
  o->transfer = MIB;
  o->segments = 1;
  if (kind == OB_PAT_STRIDED) { /* 4 KiB interleaved pieces, 1,024 per rank, one call */
    o->block = 4 * KIB;
    o->transfer = 4 * KIB;
    o->segments = 1024;
  }
  o->btio_class = 'A';
  o->flash_blocks_base = 80;
  o->flash_nxb = 16;
  o->random_bytes = 16 * MIB;
  o->seed = 1;
}

int ob_pattern_kind_from_name(const char *name)
{
  if (!name) return -1;
  for (int k = 0; k < NKINDS; k++)
    if (strcmp(name, kind_names[k]) == 0) return k;
  return -1;
}

const char *ob_pattern_name(int kind)
{
  return (kind >= 0 && kind < NKINDS) ? kind_names[kind] : "unknown";
}

int ob_btio_grid(char cls)
{
  switch (cls) {
  case 'S': case 's': return 12;
  case 'W': case 'w': return 24;
  case 'A': case 'a': return 64;
  case 'B': case 'b': return 102;
  case 'C': case 'c': return 162;
  default: return -1;
  }
}

void ob_plan_free(ob_plan *p)
{
  if (!p) return;
  free(p->storage);
  free(p->steps);
  memset(p, 0, sizeof *p);
}

/* Allocates nsteps steps and next extents; steps filled by the caller. */
static int plan_alloc(ob_plan *p, int64_t nsteps, int64_t next, char *err, size_t cap)
{
  p->nsteps = (int)nsteps;
  p->steps = calloc(nsteps > 0 ? (size_t)nsteps : 1, sizeof *p->steps);
  p->storage = malloc((next > 0 ? (size_t)next : 1) * sizeof *p->storage);
  if (!p->steps || !p->storage) {
    seterr(err, cap, "out of memory building the plan (%lld calls, %lld extents per rank).",
           (long long)nsteps, (long long)next);
    return -1;
  }
  return 0;
}

static void plan_sums(ob_plan *p)
{
  p->rank_bytes = 0;
  for (int s = 0; s < p->nsteps; s++) {
    ob_step *st = &p->steps[s];
    st->bytes = 0;
    for (size_t i = 0; i < st->n; i++) st->bytes += st->ext[i].length;
    p->rank_bytes += st->bytes;
  }
}

/* ior and strided share -b/-t/-s checking. */
static int check_bts(const ob_pattern_opts *o, int nprocs, char *err, size_t cap)
{
  const char *pn = ob_pattern_name(o->kind);
  if (o->block <= 0 || o->transfer <= 0 || o->segments <= 0) {
    seterr(err, cap, "-p %s needs positive -b, -t and -s (got -b %lld -t %lld -s %lld).", pn,
           (long long)o->block, (long long)o->transfer, (long long)o->segments);
    return -1;
  }
  if (o->block % o->transfer != 0) {
    seterr(err, cap, "-b %lld is not a multiple of -t %lld: -p %s writes each block in "
           "transfers of -t bytes.", (long long)o->block, (long long)o->transfer, pn);
    return -1;
  }
  int64_t t;
  if (!mul_ok(o->segments, o->block, &t) || !mul_ok(t, nprocs, &t)) {
    seterr(err, cap, "-p %s: -s %lld times -b %lld times %d ranks overflows a 64-bit file "
           "size.", pn, (long long)o->segments, (long long)o->block, nprocs);
    return -1;
  }
  return 0;
}

static int build_ior(const ob_pattern_opts *o, int r, int P, ob_plan *p, char *err, size_t cap)
{
  if (check_bts(o, P, err, cap) < 0) return -1;
  int64_t per = o->block / o->transfer, nsteps;
  if (!mul_ok(o->segments, per, &nsteps) || nsteps > 0x7fffffff) {
    seterr(err, cap, "-p ior: -s %lld times -b/-t (%lld) calls is more than %d.",
           (long long)o->segments, (long long)per, 0x7fffffff);
    return -1;
  }
  if (plan_alloc(p, nsteps, nsteps, err, cap) < 0) return -1;
  for (int64_t k = 0; k < nsteps; k++) {
    int64_t i = k / per, j = k % per;
    p->storage[k].offset = (i * P + r) * o->block + j * o->transfer;
    p->storage[k].length = o->transfer;
    p->steps[k].ext = &p->storage[k];
    p->steps[k].n = 1;
  }
  p->total_bytes = o->segments * o->block * P;
  p->file_size = p->total_bytes;
  return 0;
}

static int build_strided(const ob_pattern_opts *o, int r, int P, ob_plan *p, char *err,
                         size_t cap)
{
  if (check_bts(o, P, err, cap) < 0) return -1;
  int64_t per = o->block / o->transfer, pieces = o->segments * per;
  int64_t nsteps = per == 1 ? 1 : o->segments;
  if (nsteps > 0x7fffffff) {
    seterr(err, cap, "-p strided: -s %lld calls is more than %d.", (long long)o->segments,
           0x7fffffff);
    return -1;
  }
  if (plan_alloc(p, nsteps, pieces, err, cap) < 0) return -1;
  for (int64_t i = 0; i < pieces; i++) {
    p->storage[i].offset = (i * P + r) * o->transfer;
    p->storage[i].length = o->transfer;
  }
  int64_t step_n = pieces / nsteps;
  for (int64_t s = 0; s < nsteps; s++) {
    p->steps[s].ext = p->storage + s * step_n;
    p->steps[s].n = (size_t)step_n;
  }
  p->total_bytes = pieces * o->transfer * P;
  p->file_size = p->total_bytes;
  return 0;
}

/* Cell k of p along an edge of N points: N/p points, the first N mod p one more. */
static int cell_size(int N, int p, int k) { return N / p + (k < N % p ? 1 : 0); }
static int cell_start(int N, int p, int k) { return k * (N / p) + (k < N % p ? k : N % p); }
/* Diagonal multi-partition: cell c of rank r is ((r mod p + c) mod p, (r/p - c) mod p, c). */
static int cell_x(int r, int p, int c) { return (r % p + c) % p; }
static int cell_y(int r, int p, int c) { return ((r / p - c) % p + p) % p; }

static int build_btio(const ob_pattern_opts *o, int r, int P, ob_plan *p, char *err, size_t cap)
{
  int N = ob_btio_grid(o->btio_class);
  if (N < 0) {
    seterr(err, cap, "-p btio: class '%c' is unknown; use S, W, A, B or C.",
           o->btio_class ? o->btio_class : '?');
    return -1;
  }
  int q = 0;
  while ((q + 1) * (q + 1) <= P) q++;
  if (q * q != P) {
    seterr(err, cap, "-p btio needs a square number of ranks (1, 4, 9, 16, ...); got %d.", P);
    return -1;
  }
  if (q > N) {
    seterr(err, cap, "-p btio class %c: %d ranks split the %d-point grid edge into %d "
           "cells, more than %d points; use at most %d ranks.", o->btio_class, P, N, q, N,
           N * N);
    return -1;
  }
  int64_t runs = 0;
  for (int c = 0; c < q; c++) {
    int cy = cell_y(r, q, c);
    runs += (int64_t)cell_size(N, q, cy) * cell_size(N, q, c);
  }
  if (plan_alloc(p, OB_BTIO_STEPS, runs * OB_BTIO_STEPS, err, cap) < 0) return -1;
  int64_t n3 = (int64_t)N * N * N, k = 0;
  for (int s = 0; s < OB_BTIO_STEPS; s++) {
    p->steps[s].ext = p->storage + k;
    p->steps[s].n = (size_t)runs;
    /* cell c lies in z-slab c, so c, z, y order is file order */
    for (int c = 0; c < q; c++) {
      int cx = cell_x(r, q, c), cy = cell_y(r, q, c), cz = c;
      int x0 = cell_start(N, q, cx), nx = cell_size(N, q, cx);
      int y0 = cell_start(N, q, cy), ny = cell_size(N, q, cy);
      int z0 = cell_start(N, q, cz), nz = cell_size(N, q, cz);
      for (int z = z0; z < z0 + nz; z++)
        for (int y = y0; y < y0 + ny; y++) {
          int64_t pt = x0 + (int64_t)N * (y + (int64_t)N * z) + n3 * s;
          p->storage[k].offset = 40 * pt; /* 8 * 5 * point index */
          p->storage[k].length = 40 * (int64_t)nx;
          k++;
        }
    }
  }
  p->total_bytes = (int64_t)OB_BTIO_STEPS * 40 * n3;
  p->file_size = p->total_bytes;
  return 0;
}

static int64_t flash_blocks(const ob_pattern_opts *o, int rank)
{
  return o->flash_blocks_base + rank % 3;
}

/* Blocks of ranks 0..rank-1. */
static int64_t flash_first_block(const ob_pattern_opts *o, int rank)
{
  int64_t full = rank / 3, rem = rank % 3;
  return (int64_t)rank * o->flash_blocks_base + full * 3 + (rem == 2 ? 1 : 0);
}

static int build_flash(const ob_pattern_opts *o, int r, int P, ob_plan *p, char *err,
                       size_t cap)
{
  if (o->flash_blocks_base < 1 || o->flash_nxb < 1 || o->flash_nxb > 4096) {
    seterr(err, cap, "-p flash needs at least 1 block per rank and 1 to 4096 cells per block "
           "edge (got %d blocks, %d cells).", o->flash_blocks_base, o->flash_nxb);
    return -1;
  }
  int64_t cells = (int64_t)o->flash_nxb * o->flash_nxb * o->flash_nxb;
  int64_t total_blocks = flash_first_block(o, P), var_bytes, all;
  if (!mul_ok(total_blocks, cells * 8, &var_bytes) || !mul_ok(var_bytes, OB_FLASH_NVARS, &all)) {
    seterr(err, cap, "-p flash: %lld blocks of %d^3 cells overflow a 64-bit file size.",
           (long long)total_blocks, o->flash_nxb);
    return -1;
  }
  if (plan_alloc(p, OB_FLASH_NVARS, OB_FLASH_NVARS, err, cap) < 0) return -1;
  for (int v = 0; v < OB_FLASH_NVARS; v++) {
    p->storage[v].offset = v * var_bytes + flash_first_block(o, r) * cells * 8;
    p->storage[v].length = flash_blocks(o, r) * cells * 8;
    p->steps[v].ext = &p->storage[v];
    p->steps[v].n = 1;
  }
  p->total_bytes = OB_FLASH_NVARS * var_bytes;
  p->file_size = p->total_bytes;
  return 0;
}

/* Every rank replays the same global sequence: a global stream picks the
 * next rank (uniformly among those with bytes left) and the gap before the
 * piece; each rank's own stream picks its piece sizes. Only O(P) state. */
static int build_random(const ob_pattern_opts *o, int r, int P, ob_plan *p, char *err,
                        size_t cap)
{
  if (o->random_bytes < 0) {
    seterr(err, cap, "-p random needs a non-negative number of bytes per rank (got %lld).",
           (long long)o->random_bytes);
    return -1;
  }
  int64_t all; /* holes add at most 64 KiB per piece: bound the file at 2^62 */
  if (!mul_ok(o->random_bytes, P, &all) || all > ((int64_t)1 << 40)) {
    seterr(err, cap, "-p random: %lld bytes per rank times %d ranks is more than 1 TiB.",
           (long long)o->random_bytes, P);
    return -1;
  }
  rng64 *own = malloc((size_t)P * sizeof *own);
  int64_t *left = malloc((size_t)P * sizeof *left);
  int *active = malloc((size_t)P * sizeof *active);
  size_t n = 0, ncap = 64;
  ostio_extent *ext = malloc(ncap * sizeof *ext);
  int rc = -1;
  if (!own || !left || !active || !ext) goto oom;
  int nact = 0;
  for (int q = 0; q < P; q++) {
    own[q].s = mix64(o->seed ^ mix64((uint64_t)q + 0x5851f42d4c957f2dULL));
    left[q] = o->random_bytes;
    if (left[q] > 0) active[nact++] = q;
  }
  rng64 g = {mix64(o->seed)};
  int64_t cursor = 0;
  while (nact > 0) {
    int idx = (int)(rng_next(&g) % (uint64_t)nact), q = active[idx];
    uint64_t h = rng_next(&g);
    if ((h & 3) == 0) cursor += 1 + (int64_t)((h >> 2) % (64 * KIB)); /* a hole, 1/4 of pieces */
    uint64_t e = rng_next(&own[q]) % 21, u = rng_next(&own[q]);
    int64_t len = 1 + (int64_t)(u % ((uint64_t)1 << e)); /* 1 B .. 1 MiB, log-spread */
    if (len > left[q]) len = left[q];
    if (q == r) {
      if (n == ncap) {
        ostio_extent *ne = realloc(ext, 2 * ncap * sizeof *ext);
        if (!ne) goto oom;
        ext = ne;
        ncap *= 2;
      }
      ext[n].offset = cursor;
      ext[n].length = len;
      n++;
    }
    cursor += len;
    left[q] -= len;
    if (left[q] == 0) active[idx] = active[--nact];
  }
  p->nsteps = 1;
  p->steps = calloc(1, sizeof *p->steps);
  if (!p->steps) goto oom;
  p->storage = ext;
  ext = NULL;
  p->steps[0].ext = p->storage;
  p->steps[0].n = n;
  p->total_bytes = o->random_bytes * P;
  p->file_size = cursor;
  rc = 0;
  goto done;
oom:
  seterr(err, cap, "out of memory building the -p random plan (%zu extents).", n);
done:
  free(ext);
  free(own);
  free(left);
  free(active);
  return rc;
}

int ob_pattern_build(const ob_pattern_opts *o, int rank, int nprocs, ob_plan *out, char *err,
                     size_t errcap)
{
  if (err && errcap) err[0] = '\0';
  memset(out, 0, sizeof *out);
  if (!o || nprocs < 1 || rank < 0 || rank >= nprocs) {
    seterr(err, errcap, "rank %d of %d ranks is not a valid rank.", rank, nprocs);
    return -1;
  }
  int rc;
  switch (o->kind) {
  case OB_PAT_IOR: rc = build_ior(o, rank, nprocs, out, err, errcap); break;
  case OB_PAT_STRIDED: rc = build_strided(o, rank, nprocs, out, err, errcap); break;
  case OB_PAT_BTIO: rc = build_btio(o, rank, nprocs, out, err, errcap); break;
  case OB_PAT_FLASH: rc = build_flash(o, rank, nprocs, out, err, errcap); break;
  case OB_PAT_RANDOM: rc = build_random(o, rank, nprocs, out, err, errcap); break;
  default:
    seterr(err, errcap, "-p: pattern %d is unknown; use ior, strided, btio, flash or random.",
           o->kind);
    rc = -1;
  }
  if (rc < 0) {
    ob_plan_free(out);
    return -1;
  }
  plan_sums(out);
  return 0;
}

/* ---- data: byte at file offset o is byte (o mod 8) of word(o / 8), little-endian ---- */

static inline uint64_t word_at(uint64_t w, uint64_t key) { return mix64(w ^ key); }

static inline void put_word(uint8_t *b, uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(b, &v, 8);
#else
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
#endif
}

static inline uint64_t get_word(const uint8_t *b)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  uint64_t v;
  memcpy(&v, b, 8);
  return v;
#else
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v |= (uint64_t)b[i] << (8 * i);
  return v;
#endif
}

static uint64_t data_key(uint64_t seed) { return mix64(seed * 0xd1b54a32d192ed03ULL + 1); }

void ob_fill(uint8_t *buf, const ostio_extent *ext, size_t n, uint64_t seed)
{
  uint64_t key = data_key(seed);
  for (size_t i = 0; i < n; i++) {
    uint64_t off = (uint64_t)ext[i].offset, end = off + (uint64_t)ext[i].length;
    while (off < end && (off & 7)) { /* head */
      *buf++ = (uint8_t)(word_at(off >> 3, key) >> (8 * (off & 7)));
      off++;
    }
    for (; off + 8 <= end; off += 8, buf += 8) put_word(buf, word_at(off >> 3, key));
    for (; off < end; off++) *buf++ = (uint8_t)(word_at(off >> 3, key) >> (8 * (off & 7)));
  }
}

int64_t ob_check(const uint8_t *buf, const ostio_extent *ext, size_t n, uint64_t seed)
{
  uint64_t key = data_key(seed);
  int64_t pos = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t off = (uint64_t)ext[i].offset, end = off + (uint64_t)ext[i].length;
    for (; off < end; off++, pos++) {
      if (!(off & 7) && off + 8 <= end) { /* whole words; fall back to bytes on a mismatch */
        uint64_t w = word_at(off >> 3, key);
        if (get_word(buf + pos) == w) {
          off += 7;
          pos += 7;
          continue;
        }
      }
      if (buf[pos] != (uint8_t)(word_at(off >> 3, key) >> (8 * (off & 7)))) return pos;
    }
  }
  return -1;
}
