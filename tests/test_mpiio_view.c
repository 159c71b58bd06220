/* The file view of libostio-mpiio as pure data (src/mpiio/view.h): the
 * default view, vector and resized filetypes with a displacement, positions
 * inside a tile and ranges over several tiles (compared with a byte-by-byte
 * reference), huge positions, the capped walk, and every refusal with its
 * message. No MPI call. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/error.h"
#include "mpiio/view.h"
#include "testutil.h"

#define B(o, l) ((ostio__dtype_block){(o), (l)})
#define MAXEXT 4096

static ostio__dtype_map *mk(const ostio__dtype_block *b, int n, int64_t lb, int64_t extent)
{
  ostio__dtype_map *m = NULL;
  int rc = ostio__dtype_map_new(b, n, lb, extent, &m);
  CHECKF(rc == 0, "map_new: %s", ostio_last_error());
  return m;
}

typedef struct {
  ostio__dtype_block e[MAXEXT];
  int n, stop_at;
} sink;

static int collect(void *arg, int64_t off, int64_t len)
{
  sink *s = arg;
  if (s->n == s->stop_at)
    return 42;
  if (s->n < MAXEXT)
    s->e[s->n] = B(off, len);
  s->n++;
  return 0;
}

/* The extents by brute force: the file offset of every data byte, merged. */
static int reference(const ostio__view *v, int64_t pos, int64_t nbytes, ostio__dtype_block *out)
{
  const ostio__dtype_map *m = v->ftype;
  int n = 0;
  for (int64_t p = pos * v->etype_size; p < pos * v->etype_size + nbytes; p++) {
    int64_t inst = p / m->size, rem = p % m->size, i = 0;
    while (rem >= m->blocks[i].len)
      rem -= m->blocks[i++].len;
    int64_t off = v->disp + inst * m->extent + m->blocks[i].off + rem;
    if (n > 0 && out[n - 1].off + out[n - 1].len == off)
      out[n - 1].len++;
    else
      out[n++] = B(off, 1);
  }
  return n;
}

/* extents(pos, nbytes) must equal the reference, through the callback and
 * through the capped fill (cap 1 and 3: resumed walks give the same). */
static void same_as_reference(const char *what, const ostio__view *v, int64_t pos,
                              int64_t nbytes)
{
  static ostio__dtype_block ref[MAXEXT], got[MAXEXT];
  static sink s;
  int nref = reference(v, pos, nbytes, ref);
  s.n = 0;
  s.stop_at = -1;
  int rc = ostio__view_extents(v, pos, nbytes, collect, &s);
  CHECKF(rc == 0, "%s: extents(%lld, %lld): %s", what, (long long)pos, (long long)nbytes,
         ostio_last_error());
  int same = s.n == nref;
  for (int i = 0; same && i < nref; i++)
    same = s.e[i].off == ref[i].off && s.e[i].len == ref[i].len;
  CHECKF(same, "%s: extents(%lld, %lld): %d extents, reference %d", what, (long long)pos,
         (long long)nbytes, s.n, nref);
  for (int64_t cap = 1; cap <= 3; cap += 2) {
    ostio__dtype_iter it;
    CHECK(ostio__view_iter_init(&it, v, pos, nbytes) == 0);
    int64_t n = 0, k;
    while ((k = ostio__dtype_iter_fill(&it, got + n, cap)) > 0 && n < MAXEXT - 3)
      n += k;
    same = k == 0 && n == nref;
    for (int i = 0; same && i < nref; i++)
      same = got[i].off == ref[i].off && got[i].len == ref[i].len;
    CHECKF(same, "%s: fill cap %lld at (%lld, %lld)", what, (long long)cap, (long long)pos,
           (long long)nbytes);
  }
  if (nbytes > 0) {
    int64_t off = -1;
    CHECK(ostio__view_byte_offset(v, pos, &off) == 0);
    CHECKF(off == ref[0].off, "%s: byte_offset(%lld) = %lld, reference %lld", what,
           (long long)pos, (long long)off, (long long)ref[0].off);
  }
}

/* Every (position, length) over the first tiles of v. */
static void sweep(const char *what, const ostio__view *v, int64_t tiles)
{
  int64_t etypes = tiles * v->ftype->size / v->etype_size;
  for (int64_t pos = 0; pos <= etypes; pos++)
    for (int64_t nb = 0; nb <= (etypes - pos) * v->etype_size; nb += 1 + nb / 3)
      same_as_reference(what, v, pos, nb);
}

static void test_default(void)
{
  ostio__view v;
  ostio__view_default(&v);
  CHECK(ostio__view_check(&v) == 0);
  CHECK_EQ_I64(v.disp, 0);
  CHECK_EQ_I64(v.etype_size, 1);
  sink s = {.stop_at = -1};
  CHECK(ostio__view_extents(&v, 12345, 1 << 20, collect, &s) == 0);
  CHECK_EQ_I64(s.n, 1); /* contiguous: one extent however long */
  CHECK_EQ_I64(s.e[0].off, 12345);
  CHECK_EQ_I64(s.e[0].len, 1 << 20);
  int64_t off;
  CHECK(ostio__view_byte_offset(&v, INT64_C(1) << 50, &off) == 0);
  CHECK_EQ_I64(off, INT64_C(1) << 50);
  sweep("default", &v, 9);
  /* Zero bytes: nothing emitted, not an error. */
  s.n = 0;
  CHECK(ostio__view_extents(&v, 7, 0, collect, &s) == 0);
  CHECK_EQ_I64(s.n, 0);
}

static void test_vector(void)
{
  /* MPI_Type_vector(3, 2, 5, MPI_INT): ints 0-1, 5-6, 10-11; extent 48. */
  ostio__dtype_map *m = mk((ostio__dtype_block[]){B(0, 8), B(20, 8), B(40, 8)}, 3, 0, 48);
  if (!m)
    return;
  ostio__view v = {.disp = 100, .etype_size = 4, .ftype = m};
  CHECK(ostio__view_check(&v) == 0);
  sweep("vector", &v, 4);
  /* Inside a tile: etype 3 is the second int of block 1. */
  int64_t off;
  CHECK(ostio__view_byte_offset(&v, 3, &off) == 0);
  CHECK_EQ_I64(off, 100 + 24);
  /* At a tile's data end: the next tile's first byte. */
  CHECK(ostio__view_byte_offset(&v, 6, &off) == 0);
  CHECK_EQ_I64(off, 100 + 48);
  /* Spanning tiles: etypes 5..8 = block 2's second int, which ends where
   * tile 1's block 0 starts (merged), then tile 1's block 1. */
  sink s = {.stop_at = -1};
  CHECK(ostio__view_extents(&v, 5, 16, collect, &s) == 0);
  CHECK_EQ_I64(s.n, 2);
  CHECK(s.e[0].off == 144 && s.e[0].len == 12);
  CHECK(s.e[1].off == 168 && s.e[1].len == 4);
  /* The callback's non-zero return stops the walk and comes back. */
  s.n = 0;
  s.stop_at = 2;
  CHECK_EQ_I64(ostio__view_extents(&v, 0, 4096, collect, &s), 42);
  CHECK_EQ_I64(s.n, 2);

  /* Huge positions answered at once: 2^50 etypes, 6 per tile. */
  int64_t pos = INT64_C(1) << 50;
  clock_t t0 = clock();
  CHECK(ostio__view_byte_offset(&v, pos, &off) == 0);
  int64_t tile = pos / 6, in = pos % 6; /* 6 etypes per tile, 2 per block */
  CHECK_EQ_I64(off, 100 + tile * 48 + (in / 2) * 20 + (in % 2) * 4);
  s.n = 0;
  s.stop_at = -1;
  /* 2^50 % 6 = 4: block 2 of a tile, then 11 more blocks; each block 2
   * merges with the next tile's block 0, so 8 extents, the first 16 bytes. */
  CHECK(ostio__view_extents(&v, pos, 24 * 4, collect, &s) == 0);
  CHECK_EQ_I64(in, 4);
  CHECK_EQ_I64(s.n, 8);
  CHECK_EQ_I64(s.e[0].off, off);
  CHECK_EQ_I64(s.e[0].len, 16);
  CHECK_EQ_I64(s.e[7].off, 100 + (tile + 4) * 48 + 20);
  CHECK_EQ_I64(s.e[7].len, 8);
  CHECKF((double)(clock() - t0) / CLOCKS_PER_SEC < 0.5, "huge positions took %.3f s",
         (double)(clock() - t0) / CLOCKS_PER_SEC);
  ostio__dtype_map_release(m);
}

static void test_resized_and_seam(void)
{
  /* A struct of 2 blocks resized to an extent far larger than its data, with
   * lb -4: tiles at disp + k * 64 (lb does not shift the tiling). */
  ostio__dtype_map *m = mk((ostio__dtype_block[]){B(2, 3), B(9, 1)}, 2, -4, 64);
  if (!m)
    return;
  ostio__view v = {.disp = 7, .etype_size = 1, .ftype = m};
  CHECK(ostio__view_check(&v) == 0);
  sweep("resized", &v, 5);
  int64_t off;
  CHECK(ostio__view_byte_offset(&v, 4, &off) == 0); /* tile 1, byte 0 */
  CHECK_EQ_I64(off, 7 + 64 + 2);
  ostio__dtype_map_release(m);

  /* Blocks that touch across tiles (seam): blocks (0, 2), (6, 2) with extent
   * 8 make tile k's last block touch tile k + 1's first, so the walk merges
   * them into 4-byte extents. */
  m = mk((ostio__dtype_block[]){B(0, 2), B(6, 2)}, 2, 0, 8);
  if (!m)
    return;
  v = (ostio__view){.disp = 3, .etype_size = 2, .ftype = m};
  CHECK(ostio__view_check(&v) == 0);
  sweep("seam", &v, 5);
  sink s = {.stop_at = -1};
  CHECK(ostio__view_extents(&v, 1, 8, collect, &s) == 0);
  CHECK_EQ_I64(s.n, 2);
  CHECK(s.e[0].off == 3 + 6 && s.e[0].len == 4);
  CHECK(s.e[1].off == 3 + 14 && s.e[1].len == 4);
  ostio__dtype_map_release(m);

  /* A filetype whose only block is its extent (contiguous of 3 doubles):
   * one extent at any position, however long. */
  m = mk((ostio__dtype_block[]){B(0, 24)}, 1, 0, 24);
  if (!m)
    return;
  v = (ostio__view){.disp = 1, .etype_size = 8, .ftype = m};
  CHECK(ostio__view_check(&v) == 0);
  s.n = 0;
  CHECK(ostio__view_extents(&v, INT64_C(1) << 50, INT64_C(1) << 40, collect, &s) == 0);
  CHECK_EQ_I64(s.n, 1);
  CHECK_EQ_I64(s.e[0].off, 1 + (INT64_C(1) << 53));
  CHECK_EQ_I64(s.e[0].len, INT64_C(1) << 40);
  ostio__dtype_map_release(m);
}

/* rc must be code and the last error must contain want. */
static void refused(const char *what, int rc, int code, const char *want)
{
  CHECKF(rc == code, "%s: rc %d, want %d", what, rc, code);
  CHECKF(strstr(ostio_last_error(), want) != NULL, "%s: message \"%s\" lacks \"%s\"", what,
         ostio_last_error(), want);
}

static void check_map(const char *what, const ostio__dtype_block *b, int n, int64_t extent,
                      int64_t disp, int64_t esize, const char *want)
{
  ostio__dtype_map *m = mk(b, n, 0, extent);
  if (!m)
    return;
  ostio__view v = {.disp = disp, .etype_size = esize, .ftype = m};
  refused(what, ostio__view_check(&v), OSTIO_EINVAL, want);
  ostio__dtype_map_release(m);
}

/* A filetype of no data (issue 28): accepted with extent 0 or not, as MPI
 * does; its stream has no byte, so a walk of 0 bytes gives nothing and a
 * walk of more is refused. */
static void test_zero_size(void)
{
  int64_t extents[2] = {0, 16};
  for (int i = 0; i < 2; i++) {
    ostio__dtype_map *m = mk((ostio__dtype_block[]){B(4, 0)}, 1, 0, extents[i]);
    if (!m)
      return;
    ostio__view v = {.disp = 100, .etype_size = 4, .ftype = m};
    CHECKF(ostio__view_check(&v) == 0, "zero-size filetype, extent %lld: %s",
           (long long)extents[i], ostio_last_error());
    sink s = {.stop_at = -1};
    CHECK(ostio__view_extents(&v, 0, 0, collect, &s) == 0);
    CHECK_EQ_I64(s.n, 0);
    CHECK(ostio__view_extents(&v, 0, 8, collect, &s) == OSTIO_EINVAL);
    CHECK_EQ_I64(s.n, 0);
    ostio__dtype_map_release(m);
  }
}

static void test_refusals(void)
{
  ostio__view v;
  ostio__view_default(&v);
  v.disp = -1;
  refused("negative disp", ostio__view_check(&v), OSTIO_EINVAL, "displacement -1 is negative");
  ostio__view_default(&v);
  v.etype_size = 0;
  refused("etype 0", ostio__view_check(&v), OSTIO_EINVAL, "etype size 0 is not positive");
  ostio__view_default(&v);
  v.ftype = NULL;
  refused("no filetype", ostio__view_check(&v), OSTIO_EINVAL, "no filetype");

  ostio__dtype_block one = B(0, 12);
  check_map("size not multiple", &one, 1, 12, 0, 8,
            "filetype size 12 is not a multiple of the etype size 8");
  check_map("negative block", (ostio__dtype_block[]){B(-4, 2), B(0, 2)}, 2, 8, 0, 1,
            "block 0 has negative displacement -4");
  check_map("decreasing", (ostio__dtype_block[]){B(8, 2), B(0, 2)}, 2, 16, 0, 1,
            "displacements decrease: block 1 at 0 after block 0 at 8");
  check_map("overlap", (ostio__dtype_block[]){B(0, 4), B(2, 4)}, 2, 16, 0, 1,
            "blocks overlap: block 1 at 2 starts before block 0 ends at 4");
  check_map("extent 0", &one, 1, 0, 0, 1, "extent 0 is not positive");
  check_map("tiles overlap", (ostio__dtype_block[]){B(0, 2), B(6, 2)}, 2, 4, 0, 1,
            "tiles overlap: extent 4 is less than its data span 8");
  check_map("disp overflow", (ostio__dtype_block[]){B(INT64_C(1) << 62, 8)}, 1,
            (INT64_C(1) << 62) + 8, INT64_C(1) << 62, 1,
            "displacement 4611686018427387904 + filetype data end 4611686018427387912 "
            "overflows 64 bits");

  /* The walk's own refusals. */
  ostio__view_default(&v);
  sink s = {.stop_at = -1};
  int64_t off;
  refused("negative position", ostio__view_extents(&v, -1, 1, collect, &s), OSTIO_EINVAL,
          "position -1 etypes is negative");
  refused("negative length", ostio__view_extents(&v, 0, -5, collect, &s), OSTIO_EINVAL,
          "length -5 bytes is negative");
  refused("byte_offset negative", ostio__view_byte_offset(&v, -3, &off), OSTIO_EINVAL,
          "position -3 etypes is negative");
  v.etype_size = 16;
  refused("position overflow", ostio__view_byte_offset(&v, INT64_C(1) << 60, &off),
          OSTIO_ERANGE, "position 1152921504606846976 etypes of 16 bytes overflows 64 bits");
  /* A file offset past 64 bits: tile 2^58 of extent 64. */
  ostio__dtype_map *m = mk((ostio__dtype_block[]){B(0, 8)}, 1, 0, 64);
  if (m) {
    v = (ostio__view){.disp = 0, .etype_size = 8, .ftype = m};
    CHECK(ostio__view_check(&v) == 0);
    refused("offset overflow", ostio__view_byte_offset(&v, INT64_C(1) << 58, &off),
            OSTIO_ERANGE, "overflows 64 bits");
    refused("extents overflow", ostio__view_extents(&v, INT64_C(1) << 58, 8, collect, &s),
            OSTIO_ERANGE, "overflows 64 bits");
    /* The last tile that fits still answers. */
    CHECK(ostio__view_byte_offset(&v, (INT64_C(1) << 57) - 1, &off) == 0);
    CHECK_EQ_I64(off, INT64_MAX - 63);
    ostio__dtype_map_release(m);
  }
}

int main(void)
{
  test_default();
  test_vector();
  test_resized_and_seam();
  test_zero_size();
  test_refusals();
  return TEST_DONE();
}
