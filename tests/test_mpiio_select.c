/* The interposer's pure pieces (src/mpiio/mfile.h): which paths
 * OSTIO_MPIIO_PATHS selects, and the data bytes of a view before a file
 * offset (MPI_SEEK_END, a read's end of file) against a byte-by-byte count.
 * No MPI call. */
#include <stdlib.h>

#include "core/error.h"
#include "mpiio/mfile.h"
#include "testutil.h"

#define B(o, l) ((ostio__dtype_block){(o), (l)})

static void paths(void)
{
  CHECK(ostio__mpiio_path_selected("/a/b", "/a/b"));
  CHECK(ostio__mpiio_path_selected("/a/b/c", "/a/b"));
  CHECK(ostio__mpiio_path_selected("/a/b/c", "/a/b/"));
  CHECK(ostio__mpiio_path_selected("/a/b/c", "/a/b///"));
  CHECK(!ostio__mpiio_path_selected("/a/bc", "/a/b"));
  CHECK(!ostio__mpiio_path_selected("/a", "/a/b"));
  CHECK(ostio__mpiio_path_selected("/x/y", "/q:/x"));
  CHECK(ostio__mpiio_path_selected("/x/y", "::/x::"));
  CHECK(!ostio__mpiio_path_selected("/x/y", "::"));
  CHECK(!ostio__mpiio_path_selected("/x/y", ""));
  CHECK(!ostio__mpiio_path_selected("/x/y", NULL));
  CHECK(ostio__mpiio_path_selected("/x/y", "/"));
  CHECK(ostio__mpiio_path_selected("/anything", "/tmp:/"));
  CHECK(!ostio__mpiio_path_selected("/scratch2/f", "/scratch"));
}

/* Data bytes before off, counted one file byte at a time. */
static int64_t brute(const ostio__view *v, int64_t off)
{
  const ostio__dtype_map *m = v->ftype;
  int64_t n = 0;
  for (int64_t x = v->disp; x < off; x++) {
    int64_t r = (x - v->disp) % m->extent;
    for (int64_t i = 0; i < m->nblocks; i++)
      if (r >= m->blocks[i].off && r < m->blocks[i].off + m->blocks[i].len) n++;
  }
  return n;
}

static void before(const char *what, const ostio__dtype_block *b, int n, int64_t extent,
                   int64_t disp)
{
  ostio__dtype_map *m = NULL;
  CHECKF(ostio__dtype_map_new(b, n, 0, extent, &m) == 0, "%s: %s", what, ostio_last_error());
  ostio__view v = {.disp = disp, .etype_size = 1, .ftype = m};
  CHECKF(ostio__view_check(&v) == 0, "%s: %s", what, ostio_last_error());
  for (int64_t off = 0; off < disp + 4 * extent + 3; off++) {
    int64_t got = -1;
    CHECK(ostio__view_data_before(&v, off, &got) == 0);
    CHECKF(got == brute(&v, off), "%s: before(%lld) = %lld, brute force %lld", what,
           (long long)off, (long long)got, (long long)brute(&v, off));
  }
  /* Huge offsets: no overflow for these, an error past 2^63 data bytes. */
  int64_t got = -1;
  CHECK(ostio__view_data_before(&v, INT64_MAX, &got) == 0);
  CHECK(got > 0 && got <= INT64_MAX - disp);
  ostio__dtype_map_release(m);
}

int main(void)
{
  paths();
  const ostio__dtype_block vec[] = {B(0, 4), B(12, 4), B(24, 4)};
  before("vector", vec, 3, 40, 0);
  before("vector+disp", vec, 3, 40, 7);
  const ostio__dtype_block one[] = {B(5, 1)};
  before("one byte, resized", one, 1, 9, 3);
  const ostio__dtype_block dense[] = {B(0, 8)};
  before("dense", dense, 1, 8, 0);
  return TEST_DONE();
}
