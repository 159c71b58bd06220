/* ostio-bench pattern generators (bench/patterns.c), serial: every rank's
 * plan is built in-process for several rank counts. Extents are sorted and
 * disjoint across ranks and steps, cover exactly the documented total size,
 * and match offsets computed by hand from ../shared/reference/patterns.md;
 * bad combinations give the documented sentences; ob_fill/ob_check. */
#include <stdlib.h>
#include <string.h>

#include "patterns.h"
#include "testutil.h"

typedef struct { int64_t off, len; } span;

static int span_cmp(const void *a, const void *b)
{
  const span *x = a, *y = b;
  return (x->off > y->off) - (x->off < y->off);
}

/* Builds all P plans and checks the invariants; returns the number of
 * steps (same on every rank) or -1. */
static int check_all(const ob_pattern_opts *o, int P, int64_t want_total)
{
  ob_plan *plans = calloc((size_t)P, sizeof *plans);
  char err[256];
  size_t n = 0;
  int ok = 1, nsteps = -1;
  for (int r = 0; r < P && ok; r++) {
    ok = ob_pattern_build(o, r, P, &plans[r], err, sizeof err) == 0;
    CHECKF(ok, "%s P=%d rank %d: %s", ob_pattern_name(o->kind), P, r, err);
    if (!ok) break;
    if (r == 0) nsteps = plans[0].nsteps;
    CHECKF(plans[r].nsteps == nsteps && plans[r].total_bytes == plans[0].total_bytes &&
               plans[r].file_size == plans[0].file_size,
           "%s P=%d: rank %d disagrees on steps/total/size", ob_pattern_name(o->kind), P, r);
    int64_t rb = 0;
    for (int s = 0; s < plans[r].nsteps; s++) {
      const ob_step *st = &plans[r].steps[s];
      int64_t sb = 0;
      for (size_t i = 0; i < st->n; i++) {
        sb += st->ext[i].length;
        if (i > 0 && st->ext[i].offset < st->ext[i - 1].offset + st->ext[i - 1].length) {
          CHECKF(0, "%s P=%d rank %d step %d: extent %zu unsorted or overlapping",
                 ob_pattern_name(o->kind), P, r, s, i);
          ok = 0;
          break;
        }
      }
      n += st->n;
      CHECK_EQ_I64(st->bytes, sb);
      rb += sb;
    }
    CHECK_EQ_I64(plans[r].rank_bytes, rb);
  }
  if (ok) {
    span *all = malloc((n ? n : 1) * sizeof *all);
    size_t k = 0;
    int64_t sum = 0, end = 0;
    for (int r = 0; r < P; r++)
      for (int s = 0; s < plans[r].nsteps; s++)
        for (size_t i = 0; i < plans[r].steps[s].n; i++) {
          all[k].off = plans[r].steps[s].ext[i].offset;
          all[k].len = plans[r].steps[s].ext[i].length;
          sum += all[k].len;
          k++;
        }
    qsort(all, n, sizeof *all, span_cmp);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
      if (all[i].len <= 0 || (i > 0 && all[i].off < all[i - 1].off + all[i - 1].len)) bad++;
      if (all[i].off + all[i].len > end) end = all[i].off + all[i].len;
    }
    CHECKF(bad == 0, "%s P=%d: %zu extents overlap or are empty", ob_pattern_name(o->kind), P,
           bad);
    CHECK_EQ_I64(sum, want_total);
    CHECK_EQ_I64(plans[0].total_bytes, want_total);
    CHECK_EQ_I64(plans[0].file_size, end);
    free(all);
  }
  for (int r = 0; r < P; r++) ob_plan_free(&plans[r]);
  free(plans);
  return ok ? nsteps : -1;
}

static void names(void)
{
  const char *nm[] = {"ior", "strided", "btio", "flash", "random"};
  for (int k = 0; k < 5; k++) {
    CHECK(ob_pattern_kind_from_name(nm[k]) == k);
    CHECK(strcmp(ob_pattern_name(k), nm[k]) == 0);
  }
  CHECK(ob_pattern_kind_from_name("IOR") == -1 && ob_pattern_kind_from_name(NULL) == -1);
  CHECK(strcmp(ob_pattern_name(9), "unknown") == 0);
  ob_pattern_opts o;
  ob_pattern_defaults(OB_PAT_IOR, &o);
  CHECK(o.kind == OB_PAT_IOR && o.block == 1048576 && o.transfer == 1048576 && o.segments == 1);
  CHECK(o.btio_class == 'A' && o.flash_blocks_base == 80 && o.flash_nxb == 16);
  ob_pattern_defaults(OB_PAT_STRIDED, &o);
  CHECK(o.block == 4096 && o.transfer == 4096 && o.segments == 1024);
  CHECK(ob_btio_grid('S') == 12 && ob_btio_grid('w') == 24 && ob_btio_grid('A') == 64 &&
        ob_btio_grid('B') == 102 && ob_btio_grid('C') == 162 && ob_btio_grid('D') == -1);
}

static void ior(void)
{
  ob_pattern_opts o;
  ob_pattern_defaults(OB_PAT_IOR, &o);
  o.block = 8, o.transfer = 2, o.segments = 2;
  for (int P = 1; P <= 5; P++) CHECK(check_all(&o, P, 2 * 8 * P) == 8);
  ob_plan p;
  char err[256];
  CHECK(ob_pattern_build(&o, 1, 3, &p, err, sizeof err) == 0);
  /* step k: segment k/4, transfer k%4 at (i*3 + 1)*8 + j*2 */
  static const int64_t want[8] = {8, 10, 12, 14, 32, 34, 36, 38};
  for (int k = 0; k < 8; k++) {
    CHECK(p.steps[k].n == 1 && p.steps[k].bytes == 2);
    CHECK_EQ_I64(p.steps[k].ext[0].offset, want[k]);
  }
  CHECK(p.rank_bytes == 16 && p.total_bytes == 48 && p.file_size == 48);
  ob_plan_free(&p);
  CHECK(p.steps == NULL && p.storage == NULL && p.nsteps == 0);
  ob_pattern_defaults(OB_PAT_IOR, &o);
  o.segments = 3;
  CHECK(check_all(&o, 4, 3 * 4 * 1048576) == 3);
}

static void strided(void)
{
  ob_pattern_opts o;
  ob_pattern_defaults(OB_PAT_STRIDED, &o);
  ob_plan p;
  char err[256];
  /* b == t: one step with all s pieces, rank r's i-th at (i*P + r)*t */
  o.block = 5, o.transfer = 5, o.segments = 4;
  CHECK(ob_pattern_build(&o, 2, 3, &p, err, sizeof err) == 0);
  CHECK(p.nsteps == 1 && p.steps[0].n == 4 && p.steps[0].bytes == 20);
  static const int64_t w1[4] = {10, 25, 40, 55};
  for (int i = 0; i < 4; i++)
    CHECK(p.steps[0].ext[i].offset == w1[i] && p.steps[0].ext[i].length == 5);
  CHECK(p.file_size == 60 && p.total_bytes == 60);
  ob_plan_free(&p);
  for (int P = 1; P <= 4; P++) CHECK(check_all(&o, P, 20 * P) == 1);
  /* b > t: one step per segment with b/t pieces */
  o.block = 15, o.transfer = 5, o.segments = 2;
  CHECK(ob_pattern_build(&o, 1, 3, &p, err, sizeof err) == 0);
  CHECK(p.nsteps == 2 && p.steps[1].n == 3);
  static const int64_t w2[3] = {50, 65, 80};
  for (int i = 0; i < 3; i++) CHECK_EQ_I64(p.steps[1].ext[i].offset, w2[i]);
  CHECK_EQ_I64(p.steps[0].ext[0].offset, 5);
  ob_plan_free(&p);
  for (int P = 1; P <= 4; P++) CHECK(check_all(&o, P, 30 * P) == 2);
  /* IO500 ior-hard shape */
  o.block = o.transfer = 47008, o.segments = 100;
  CHECK(check_all(&o, 4, 47008LL * 100 * 4) == 1);
}

static int64_t btio_runs(ob_plan *p, int step, size_t i) { return p->steps[step].ext[i].offset; }

static void btio(void)
{
  ob_pattern_opts o;
  ob_pattern_defaults(OB_PAT_BTIO, &o);
  ob_plan p;
  char err[256];
  o.btio_class = 'S'; /* N = 12 */
  for (int P = 1; P <= 49; P++) {
    int q = 1;
    while (q * q < P) q++;
    if (q * q == P) CHECK(check_all(&o, P, 40LL * 40 * 12 * 12 * 12) == 40);
  }
  /* class S, 4 ranks: p = 2, cells of 6 points, runs of 240 bytes;
   * rank 0 owns cells (0,0,0) and (1,1,1); rank 3 owns (1,1,0) and (0,0,1). */
  CHECK(ob_pattern_build(&o, 0, 4, &p, err, sizeof err) == 0);
  CHECK(p.nsteps == 40 && p.steps[0].n == 72 && p.steps[0].bytes == 72 * 240);
  CHECK(p.steps[0].ext[0].offset == 0 && p.steps[0].ext[0].length == 240);
  CHECK_EQ_I64(btio_runs(&p, 0, 1), 480);        /* y = 1: 40*12   */
  CHECK_EQ_I64(btio_runs(&p, 0, 6), 5760);       /* z = 1: 40*144  */
  CHECK_EQ_I64(btio_runs(&p, 0, 36), 37680);     /* 40*(6 + 12*(6 + 12*6)) */
  CHECK_EQ_I64(btio_runs(&p, 0, 71), 68880);     /* 40*(6 + 12*(11 + 12*11)) */
  CHECK_EQ_I64(btio_runs(&p, 1, 0), 69120);      /* step 1: + 40*12^3 */
  CHECK_EQ_I64(btio_runs(&p, 39, 71), 68880 + 39 * 69120);
  CHECK(p.rank_bytes == 40LL * 72 * 240 && p.total_bytes == 40LL * 69120);
  ob_plan_free(&p);
  CHECK(ob_pattern_build(&o, 3, 4, &p, err, sizeof err) == 0);
  CHECK_EQ_I64(btio_runs(&p, 0, 0), 3120);       /* 40*(6 + 12*6)  */
  CHECK_EQ_I64(btio_runs(&p, 0, 1), 3600);       /* y = 7          */
  CHECK_EQ_I64(btio_runs(&p, 0, 36), 34560);     /* 40*(12*(12*6)) */
  CHECK_EQ_I64(btio_runs(&p, 2, 36), 34560 + 2 * 69120);
  ob_plan_free(&p);
  /* class S, 9 ranks: p = 3, cells of 4 points, 16 runs of 160 B per cell;
   * rank 1's cell 1 is (2, 2, 1), rank 5's cell 2 is (1, 2, 2). */
  CHECK(ob_pattern_build(&o, 1, 9, &p, err, sizeof err) == 0);
  CHECK(p.steps[0].n == 48 && p.steps[0].ext[16].length == 160);
  CHECK_EQ_I64(btio_runs(&p, 0, 0), 160);        /* cell (1, 0, 0): 40*4 */
  CHECK_EQ_I64(btio_runs(&p, 0, 16), 27200);     /* 40*(8 + 12*(8 + 12*4)) */
  ob_plan_free(&p);
  CHECK(ob_pattern_build(&o, 5, 9, &p, err, sizeof err) == 0);
  CHECK_EQ_I64(btio_runs(&p, 0, 32), 50080);     /* 40*(4 + 12*(8 + 12*8)) */
  ob_plan_free(&p);
  /* class A, 4 ranks: 2,048 runs of 1,280 B per step; 40 * 10,485,760 B in all */
  o.btio_class = 'A';
  CHECK(check_all(&o, 4, 40LL * 10485760) == 40);
  CHECK(ob_pattern_build(&o, 2, 4, &p, err, sizeof err) == 0);
  CHECK(p.steps[0].n == 2048 && p.steps[0].ext[0].length == 1280 && p.steps[7].bytes == 2621440);
  ob_plan_free(&p);
  /* class C, 16 ranks: runs of 1,600-1,640 B (cells of 41, 41, 40, 40) */
  o.btio_class = 'C';
  CHECK(ob_pattern_build(&o, 5, 16, &p, err, sizeof err) == 0);
  size_t odd = 0;
  for (size_t i = 0; i < p.steps[0].n; i++) {
    int64_t l = p.steps[0].ext[i].length;
    if (l != 1600 && l != 1640) odd++;
  }
  CHECK(odd == 0 && p.nsteps == 40);
  ob_plan_free(&p);
  /* uneven cells for class W with 25 ranks (24 = 5+5+5+5+4): full coverage */
  o.btio_class = 'W';
  CHECK(check_all(&o, 25, 40LL * 40 * 24 * 24 * 24) == 40);
}

static void flash(void)
{
  ob_pattern_opts o;
  ob_pattern_defaults(OB_PAT_FLASH, &o);
  ob_plan p;
  char err[256];
  /* 2 ranks: 80 + 81 blocks of 16^3 doubles (32,768 B); variable v at v*161*32768 */
  CHECK(ob_pattern_build(&o, 1, 2, &p, err, sizeof err) == 0);
  CHECK(p.nsteps == 24 && p.steps[0].n == 1);
  CHECK_EQ_I64(p.steps[0].ext[0].offset, 2621440);
  CHECK_EQ_I64(p.steps[0].ext[0].length, 2654208);
  CHECK_EQ_I64(p.steps[23].ext[0].offset, 123961344);
  CHECK_EQ_I64(p.rank_bytes, 24LL * 2654208);
  CHECK_EQ_I64(p.total_bytes, 24LL * 161 * 32768);
  ob_plan_free(&p);
  CHECK(check_all(&o, 2, 24LL * 161 * 32768) == 24);
  CHECK(check_all(&o, 4, 24LL * (80 + 81 + 82 + 80) * 32768) == 24);
  /* shrunk: base 2, nxb 2 -> blocks 2,3,4,2,3,4,2: first blocks by hand */
  o.flash_blocks_base = 2, o.flash_nxb = 2;
  CHECK(check_all(&o, 7, 24LL * 20 * 64) == 24);
  CHECK(ob_pattern_build(&o, 6, 7, &p, err, sizeof err) == 0);
  CHECK_EQ_I64(p.steps[5].ext[0].offset, 5 * 20 * 64 + 18 * 64);
  CHECK_EQ_I64(p.steps[5].ext[0].length, 2 * 64);
  ob_plan_free(&p);
}

static void random_pattern(void)
{
  ob_pattern_opts o;
  ob_pattern_defaults(OB_PAT_RANDOM, &o);
  o.random_bytes = 3 * 1048576 + 17;
  for (int P = 1; P <= 6; P++) CHECK(check_all(&o, P, o.random_bytes * P) == 1);
  o.random_bytes = 0;
  CHECK(check_all(&o, 3, 0) == 1);
  o.random_bytes = 4000; /* small pieces, many ranks */
  CHECK(check_all(&o, 37, 4000 * 37) == 1);
  /* determinism, seed dependence, piece sizes 1 B .. 1 MiB, interleaving */
  o.random_bytes = 8 * 1048576;
  ob_plan a, b, c, d;
  char err[256];
  CHECK(ob_pattern_build(&o, 1, 3, &a, err, sizeof err) == 0);
  CHECK(ob_pattern_build(&o, 1, 3, &b, err, sizeof err) == 0);
  CHECK(a.steps[0].n == b.steps[0].n &&
        memcmp(a.steps[0].ext, b.steps[0].ext, a.steps[0].n * sizeof(ostio_extent)) == 0);
  size_t big = 0;
  for (size_t i = 0; i < a.steps[0].n; i++) {
    CHECK(a.steps[0].ext[i].length >= 1 && a.steps[0].ext[i].length <= 1048576);
    if (a.steps[0].ext[i].length > 65536) big++;
  }
  CHECK(a.steps[0].n > 20 && big > 0 && a.file_size > a.total_bytes);
  CHECK(ob_pattern_build(&o, 0, 3, &d, err, sizeof err) == 0);
  CHECK(d.steps[0].ext[0].offset < a.steps[0].ext[a.steps[0].n - 1].offset &&
        a.steps[0].ext[0].offset < d.steps[0].ext[d.steps[0].n - 1].offset);
  o.seed = 2;
  CHECK(ob_pattern_build(&o, 1, 3, &c, err, sizeof err) == 0);
  CHECK(c.steps[0].n != a.steps[0].n || c.steps[0].ext[0].offset != a.steps[0].ext[0].offset ||
        c.steps[0].ext[0].length != a.steps[0].ext[0].length);
  ob_plan_free(&a), ob_plan_free(&b), ob_plan_free(&c), ob_plan_free(&d);
}

static void expect_err(const ob_pattern_opts *o, int rank, int P, const char *want)
{
  ob_plan p;
  char err[256];
  memset(&p, 0xab, sizeof p);
  int rc = ob_pattern_build(o, rank, P, &p, err, sizeof err);
  CHECKF(rc == -1 && strcmp(err, want) == 0, "got rc %d \"%s\", want \"%s\"", rc, err, want);
  CHECK(p.steps == NULL && p.storage == NULL && p.nsteps == 0);
}

static void errors(void)
{
  ob_pattern_opts o;
  ob_pattern_defaults(OB_PAT_IOR, &o);
  o.block = 1000, o.transfer = 300;
  expect_err(&o, 0, 2, "-b 1000 is not a multiple of -t 300: -p ior writes each block in "
                       "transfers of -t bytes.");
  o.kind = OB_PAT_STRIDED;
  expect_err(&o, 0, 2, "-b 1000 is not a multiple of -t 300: -p strided writes each block in "
                       "transfers of -t bytes.");
  o.block = 0;
  expect_err(&o, 0, 2, "-p strided needs positive -b, -t and -s (got -b 0 -t 300 -s 1).");
  o.kind = OB_PAT_IOR, o.block = 1LL << 40, o.transfer = 1, o.segments = 1LL << 22;
  expect_err(&o, 0, 2, "-p ior: -s 4194304 times -b 1099511627776 times 2 ranks overflows a "
                       "64-bit file size.");
  o.segments = 1;
  expect_err(&o, 0, 2, "-p ior: -s 1 times -b/-t (1099511627776) calls is more than 2147483647.");
  ob_pattern_defaults(OB_PAT_IOR, &o);
  expect_err(&o, 2, 2, "rank 2 of 2 ranks is not a valid rank.");
  expect_err(&o, 0, 0, "rank 0 of 0 ranks is not a valid rank.");
  ob_pattern_defaults(OB_PAT_BTIO, &o);
  expect_err(&o, 0, 3, "-p btio needs a square number of ranks (1, 4, 9, 16, ...); got 3.");
  expect_err(&o, 1, 8, "-p btio needs a square number of ranks (1, 4, 9, 16, ...); got 8.");
  o.btio_class = 'D';
  expect_err(&o, 0, 4, "-p btio: class 'D' is unknown; use S, W, A, B or C.");
  o.btio_class = 'S';
  expect_err(&o, 0, 169, "-p btio class S: 169 ranks split the 12-point grid edge into 13 "
                         "cells, more than 12 points; use at most 144 ranks.");
  ob_pattern_defaults(OB_PAT_FLASH, &o);
  o.flash_nxb = 0;
  expect_err(&o, 0, 2, "-p flash needs at least 1 block per rank and 1 to 4096 cells per block "
                       "edge (got 80 blocks, 0 cells).");
  ob_pattern_defaults(OB_PAT_RANDOM, &o);
  o.random_bytes = -5;
  expect_err(&o, 0, 2, "-p random needs a non-negative number of bytes per rank (got -5).");
  o.kind = 17;
  expect_err(&o, 0, 2, "-p: pattern 17 is unknown; use ior, strided, btio, flash or random.");
}

static void data(void)
{
  /* extents at odd offsets and lengths, in and out of order */
  ostio_extent x[] = {{3, 13}, {100, 0}, {64, 64}, {1000003, 5}, {7, 1}, {200, 1}};
  size_t n = sizeof x / sizeof x[0];
  int64_t tot = 0;
  for (size_t i = 0; i < n; i++) tot += x[i].length;
  uint8_t *buf = malloc((size_t)tot), *one = malloc(64);
  ob_fill(buf, x, n, 7);
  CHECK(ob_check(buf, x, n, 7) == -1);
  CHECK(ob_check(buf, x, n, 8) != -1);
  /* byte at offset o depends only on (o, seed): refill byte by byte */
  int64_t pos = 0;
  for (size_t i = 0; i < n; i++)
    for (int64_t k = 0; k < x[i].length; k++, pos++) {
      ostio_extent b1 = {x[i].offset + k, 1};
      ob_fill(one, &b1, 1, 7);
      if (one[0] != buf[pos]) CHECKF(0, "byte %lld differs when filled alone", (long long)pos);
    }
  for (int64_t f = 0; f < tot; f++) {
    buf[f] ^= 0x10;
    int64_t got = ob_check(buf, x, n, 7);
    if (got != f) CHECKF(0, "flipped byte %lld reported as %lld", (long long)f, (long long)got);
    buf[f] ^= 0x10;
  }
  CHECK(ob_check(buf, x, n, 7) == -1);
  /* the bytes are not trivially constant */
  int same = 1;
  for (int64_t f = 1; f < tot; f++) same &= buf[f] == buf[0];
  CHECK(!same);
  free(buf);
  free(one);
  /* a large aligned extent: 16 MiB round trip and one flip far inside */
  ostio_extent big = {1 << 20, 16 << 20};
  buf = malloc((size_t)big.length);
  ob_fill(buf, &big, 1, 99);
  CHECK(ob_check(buf, &big, 1, 99) == -1);
  buf[12345679] ^= 1;
  CHECK(ob_check(buf, &big, 1, 99) == 12345679);
  free(buf);
}

int main(void)
{
  names();
  ior();
  strided();
  btio();
  flash();
  random_pattern();
  errors();
  data();
  return TEST_DONE();
}
