/* The sieving plan (io/sieve_plan.h), without MPI or disks: known cases
 * (dense interleaved pieces read as spans of at most the buffer; huge or
 * relatively large holes never crossed; spans never cross an object;
 * `disable` never sieves), hostile input (unsorted, overlapping, negative,
 * zero-length, ends near 2^63-1, buffers of 1 and 2^63-1 bytes) planned
 * without overflow, and random pieces checked against the plan's rules. */
#include <stdlib.h>
#include <string.h>

#include "hints/hints.h"
#include "io/sieve_plan.h"
#include "testutil.h"

#define MIB 1048576

static ostio__sieve_chunk ch[4096];

static size_t plan(int mode, int64_t buf, const ostio__sieve_in *p, size_t n, size_t *spans,
                   int64_t *widest)
{
  return ostio__sieve_plan(mode, buf, p, n, ch, spans, widest);
}

/* The plan's promises for any input: chunks cover [0, n) in order; a span
 * holds valid pieces of one key in increasing order inside it, starts at its
 * first piece and ends at its last, fits buf, and reads at most
 * (1 + ratio) bytes per named byte (auto: every hole plus the piece after
 * it at most the step). Returns the bytes the plan reads. */
static int64_t add_sat(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }

static int64_t check_plan(int mode, int64_t buf, const ostio__sieve_in *p, size_t n, size_t nc,
                          size_t spans, int64_t widest)
{
  size_t next = 0, nspans = 0;
  int64_t wide = 0, read = 0;
  int64_t ratio = mode == OSTIO__TRI_AUTO ? OSTIO__SIEVE_AUTO_RATIO : OSTIO__SIEVE_ENABLE_RATIO;
  for (size_t i = 0; i < nc; i++) {
    const ostio__sieve_chunk *c = &ch[i];
    CHECKF(c->first == next && c->n >= 1, "chunk %zu first %zu n %zu", i, c->first, c->n);
    if (c->first != next || c->n < 1) return -1;
    next = c->first + c->n;
    if (c->n == 1) {
      CHECK(c->off == p[c->first].off && c->len == p[c->first].len);
      if (p[c->first].len > 0) read = add_sat(read, p[c->first].len);
      continue;
    }
    CHECK(mode != OSTIO__TRI_DISABLE);
    nspans++;
    if (c->len > wide) wide = c->len;
    CHECKF(c->len > 0 && c->len <= buf, "span %zu of %lld bytes, buffer %lld", i,
           (long long)c->len, (long long)buf);
    CHECK(c->off == p[c->first].off);
    int64_t data = 0, end = c->off;
    for (size_t k = c->first; k < next; k++) {
      CHECK(p[k].key == p[c->first].key && p[k].len > 0 && p[k].off >= end);
      if (mode == OSTIO__TRI_AUTO && k > c->first)
        CHECK(p[k].off - end + p[k].len <= OSTIO__SIEVE_AUTO_STEP);
      data += p[k].len;
      end = p[k].off + p[k].len;
    }
    CHECK(end == c->off + c->len);
    CHECKF(c->len - data <= ratio * data, "span %zu: %lld holes for %lld bytes", i,
           (long long)(c->len - data), (long long)data);
    read = add_sat(read, c->len);
  }
  CHECK(next == n);
  CHECK(nspans == spans && wide == widest);
  return read;
}

static void interleaved(void)
{
  /* Rank 0 of 2 reading 4 KiB pieces interleaved: 1024 pieces, every
   * other 4 KiB. A 4 MiB buffer takes 512 pieces (511 x 8 KiB + 4 KiB). */
  static ostio__sieve_in p[1024];
  for (size_t i = 0; i < 1024; i++) p[i] = (ostio__sieve_in){-1, (int64_t)i * 8192, 4096};
  size_t s;
  int64_t w;
  for (int mode = OSTIO__TRI_AUTO; mode <= OSTIO__TRI_ENABLE; mode++) {
    size_t nc = plan(mode, 4 * MIB, p, 1024, &s, &w);
    CHECK(nc == 2 && s == 2 && w == 511 * 8192 + 4096);
    CHECK(ch[0].first == 0 && ch[0].n == 512 && ch[1].first == 512 && ch[1].n == 512);
    CHECK(ch[1].off == 512 * 8192);
    check_plan(mode, 4 * MIB, p, 1024, nc, s, w);
  }
  size_t nc = plan(OSTIO__TRI_DISABLE, 4 * MIB, p, 1024, &s, &w);
  CHECK(nc == 1024 && s == 0 && w == 0);
  /* A buffer of 64 KiB: spans of 8 pieces (7 x 8 KiB + 4 KiB = 60 KiB). */
  nc = plan(OSTIO__TRI_AUTO, 65536, p, 1024, &s, &w);
  CHECK(nc == 128 && s == 128 && w == 61440);
  /* 4 ranks (12 KiB holes): automatic still sieves (12 + 4 <= 16 KiB). */
  for (size_t i = 0; i < 1024; i++) p[i].off = (int64_t)i * 16384;
  nc = plan(OSTIO__TRI_AUTO, 4 * MIB, p, 1024, &s, &w);
  CHECK(s > 0 && nc < 1024);
  check_plan(OSTIO__TRI_AUTO, 4 * MIB, p, 1024, nc, s, w);
  /* A buffer of one piece: nothing fits two pieces, nothing is sieved. */
  nc = plan(OSTIO__TRI_ENABLE, 4096, p, 1024, &s, &w);
  CHECK(nc == 1024 && s == 0);
  /* Pieces of the buffer's size are read alone. */
  nc = plan(OSTIO__TRI_ENABLE, 4097, p, 2, &s, &w);
  CHECK(nc == 2 && s == 0);
}

static void holes(void)
{
  static ostio__sieve_in p[64];
  size_t s, nc;
  int64_t w;
  /* Huge holes: 4 KiB every TiB. Never crossed, whatever the mode. */
  for (size_t i = 0; i < 64; i++) p[i] = (ostio__sieve_in){-1, (int64_t)i << 40, 4096};
  for (int mode = OSTIO__TRI_AUTO; mode <= OSTIO__TRI_DISABLE; mode++) {
    nc = plan(mode, INT64_MAX, p, 64, &s, &w);
    CHECK(nc == 64 && s == 0);
  }
  /* 4 KiB every MiB: a hole of 255x the data. enable caps holes at 64x the
   * named bytes, so even a buffer that would hold it does not cross. */
  for (size_t i = 0; i < 64; i++) p[i].off = (int64_t)i * MIB;
  nc = plan(OSTIO__TRI_ENABLE, 1LL << 40, p, 64, &s, &w);
  CHECK(nc == 64 && s == 0);
  /* 4 KiB every 64 KiB (15x): enable sieves, automatic does not (the hole
   * and the piece are more than 16 KiB of copying for one call saved). */
  for (size_t i = 0; i < 64; i++) p[i].off = (int64_t)i * 65536;
  nc = plan(OSTIO__TRI_ENABLE, 4 * MIB, p, 64, &s, &w);
  CHECK(nc == 1 && s == 1 && w == 63 * 65536 + 4096);
  nc = plan(OSTIO__TRI_AUTO, 4 * MIB, p, 64, &s, &w);
  CHECK(nc == 64 && s == 0);
  /* Tiny pieces (40 bytes, 200-byte holes, btio-like): automatic sieves. */
  for (size_t i = 0; i < 64; i++) p[i] = (ostio__sieve_in){-1, (int64_t)i * 240, 40};
  nc = plan(OSTIO__TRI_AUTO, 4 * MIB, p, 64, &s, &w);
  CHECK(nc == 1 && s == 1 && w == 63 * 240 + 40);
  /* 1-byte pieces 16 KiB apart: within the step, but 16383 hole bytes per
   * byte; the ratio stops it. */
  for (size_t i = 0; i < 64; i++) p[i] = (ostio__sieve_in){-1, (int64_t)i * 16384, 1};
  nc = plan(OSTIO__TRI_AUTO, 4 * MIB, p, 64, &s, &w);
  CHECK(nc == 64 && s == 0);
  /* A sparse piece in the middle of dense ones ends the span and starts
   * no bridge: [0..3] dense, then 1 TiB away, then dense again. */
  for (size_t i = 0; i < 8; i++)
    p[i] = (ostio__sieve_in){-1, (int64_t)(i < 4 ? 0 : 1LL << 40) + (int64_t)(i % 4) * 8192, 4096};
  nc = plan(OSTIO__TRI_ENABLE, INT64_MAX, p, 8, &s, &w);
  CHECK(nc == 2 && s == 2 && ch[0].n == 4 && ch[1].first == 4 && w == 3 * 8192 + 4096);
  check_plan(OSTIO__TRI_ENABLE, INT64_MAX, p, 8, nc, s, w);
}

static void objects(void)
{
  /* A striped container's pieces by (object, object offset): adjacent
   * offsets in two objects stay two spans. */
  ostio__sieve_in p[8];
  for (size_t i = 0; i < 8; i++) p[i] = (ostio__sieve_in){(int64_t)(i / 4), (int64_t)(i % 4) * 8192, 4096};
  size_t s;
  int64_t w;
  size_t nc = plan(OSTIO__TRI_AUTO, 4 * MIB, p, 8, &s, &w);
  CHECK(nc == 2 && s == 2 && ch[0].n == 4 && ch[1].n == 4 && ch[1].off == 0);
}

static void hostile(void)
{
  ostio__sieve_in p[] = {
    {-1, 100, 10},  {-1, 50, 10},   /* backwards */
    {-1, 55, 10},   {-1, 60, 10},   /* overlapping */
    {-1, -5, 10},   {-1, 200, 0},  {-1, 210, -3}, /* negative, empty */
    {-1, INT64_MAX - 20, 10}, {-1, INT64_MAX - 10, 10}, /* the last byte of int64 */
    {-1, INT64_MAX - 5, 10},  {-1, INT64_MAX, 1},       /* past it */
    {-1, 0, INT64_MAX}, {-1, 1, INT64_MAX},
  };
  size_t n = sizeof p / sizeof p[0], s;
  int64_t w;
  int64_t bufs[] = {1, 2, 4096, INT64_MAX - 1, INT64_MAX};
  for (int mode = OSTIO__TRI_AUTO; mode <= OSTIO__TRI_DISABLE; mode++) {
    for (size_t b = 0; b < sizeof bufs / sizeof bufs[0]; b++) {
      size_t nc = plan(mode, bufs[b], p, n, &s, &w);
      check_plan(mode, bufs[b], p, n, nc, s, w);
      /* Only [INT64_MAX-20, +10) and [INT64_MAX-10, +10) may form a span. */
      CHECK(s <= 1);
    }
  }
  size_t nc = plan(OSTIO__TRI_ENABLE, INT64_MAX, p, n, &s, &w);
  CHECK(nc == 12 && s == 1 && w == 20 && ch[7].n == 2 && ch[7].off == INT64_MAX - 20);
  CHECK(plan(OSTIO__TRI_AUTO, 4096, p, 0, &s, &w) == 0 && s == 0 && w == 0);
}

static void random_pieces(void)
{
  static ostio__sieve_in p[4096];
  tu_rng r;
  tu_rng_seed(&r, tu_seed(29));
  for (int it = 0; it < 2000; it++) {
    size_t n = (size_t)tu_rng_range(&r, 0, 4096);
    int64_t maxlen = tu_rng_range(&r, 0, 3) == 0 ? 100 : 70000;
    int64_t maxhole = (int64_t[]){0, 512, 20000, MIB, 1LL << 50}[tu_rng_range(&r, 0, 4)];
    int64_t key = 0, off = tu_rng_range(&r, 0, 1 << 20);
    for (size_t i = 0; i < n; i++) {
      if (tu_rng_range(&r, 0, 200) == 0) { key++; off = tu_rng_range(&r, 0, 4096); }
      p[i] = (ostio__sieve_in){key, off, tu_rng_range(&r, 1, maxlen)};
      off += p[i].len + tu_rng_range(&r, 0, maxhole);
    }
    int mode = (int)tu_rng_range(&r, 0, 2);
    int64_t buf = (int64_t[]){1, 4096, 65536, 4 * MIB, INT64_MAX}[tu_rng_range(&r, 0, 4)];
    size_t s;
    int64_t w, named = 0;
    size_t nc = plan(mode, buf, p, n, &s, &w);
    int64_t read = check_plan(mode, buf, p, n, nc, s, w);
    for (size_t i = 0; i < n; i++) named += p[i].len;
    /* Work in proportion to the data: at most (1 + ratio) bytes per named byte. */
    CHECKF(read <= named * (1 + OSTIO__SIEVE_ENABLE_RATIO), "it %d: read %lld for %lld", it,
           (long long)read, (long long)named);
    if (tu_failed) break;
  }
}

int main(void)
{
  interleaved();
  holes();
  objects();
  hostile();
  random_pieces();
  return TEST_DONE();
}
