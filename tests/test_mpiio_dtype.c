/* The datatype flattener of libostio-mpiio (src/mpiio/dtype.h): exact block
 * lists per combiner, the range walk as pure code, the cache and its delete
 * callback, the limits, and a randomized comparison with MPI_Pack over a few
 * thousand nested types (fixed seeds; OSTIO_TEST_SEED picks another). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "mpiio/dtype.h"
#include "testutil.h"

#define B(o, l) ((ostio__dtype_block){(o), (l)})

/* The map of t must be exactly blocks[n] with lb / extent. */
static void expect(const char *what, MPI_Datatype t, int64_t lb, int64_t extent,
                   const ostio__dtype_block *blocks, int n)
{
  ostio__dtype_map *m = NULL;
  int rc = ostio__dtype_flatten(t, &m);
  CHECKF(rc == 0, "%s: flatten: %s", what, ostio_last_error());
  if (rc)
    return;
  int same = m->nblocks == n && m->lb == lb && m->extent == extent;
  for (int i = 0; same && i < n; i++)
    same = m->blocks[i].off == blocks[i].off && m->blocks[i].len == blocks[i].len;
  if (!same) {
    fprintf(stderr, "%s: lb %lld extent %lld blocks", what, (long long)m->lb,
            (long long)m->extent);
    for (int64_t i = 0; i < m->nblocks; i++)
      fprintf(stderr, " (%lld,%lld)", (long long)m->blocks[i].off, (long long)m->blocks[i].len);
    fprintf(stderr, "\n");
  }
  CHECKF(same, "%s: blocks", what);
  ostio__dtype_map_release(m);
}

static void test_combiners(void)
{
  MPI_Datatype t, u;
  expect("MPI_INT", MPI_INT, 0, 4, (ostio__dtype_block[]){B(0, 4)}, 1);
  expect("MPI_SHORT_INT", MPI_SHORT_INT, 0, 8, (ostio__dtype_block[]){B(0, 2), B(4, 4)}, 2);
  MPI_Type_contiguous(3, MPI_INT, &t);
  expect("contiguous", t, 0, 12, (ostio__dtype_block[]){B(0, 12)}, 1);
  MPI_Type_free(&t);
  MPI_Type_vector(3, 2, 4, MPI_INT, &t);
  expect("vector", t, 0, 40, (ostio__dtype_block[]){B(0, 8), B(16, 8), B(32, 8)}, 3);
  MPI_Type_dup(t, &u);
  expect("dup", u, 0, 40, (ostio__dtype_block[]){B(0, 8), B(16, 8), B(32, 8)}, 3);
  MPI_Type_free(&u);
  MPI_Type_free(&t);
  MPI_Type_vector(2, 1, -3, MPI_INT, &t);
  expect("vector, negative stride", t, -12, 16, (ostio__dtype_block[]){B(0, 4), B(-12, 4)}, 2);
  MPI_Type_free(&t);
  MPI_Type_create_hvector(2, 1, 10, MPI_SHORT, &t);
  expect("hvector", t, 0, 12, (ostio__dtype_block[]){B(0, 2), B(10, 2)}, 2);
  MPI_Type_free(&t);
  MPI_Type_indexed(3, (int[]){2, 0, 1}, (int[]){5, 1, 0}, MPI_INT, &t);
  expect("indexed, zero-length block", t, 0, 28, (ostio__dtype_block[]){B(20, 8), B(0, 4)}, 2);
  MPI_Type_free(&t);
  MPI_Type_create_hindexed(2, (int[]){1, 1}, (MPI_Aint[]){8, 12}, MPI_INT, &t);
  expect("hindexed, merged", t, 8, 8, (ostio__dtype_block[]){B(8, 8)}, 1);
  MPI_Type_free(&t);
  MPI_Type_create_indexed_block(3, 1, (int[]){0, 2, 1}, MPI_DOUBLE, &t);
  expect("indexed_block, type-map order", t, 0, 24,
         (ostio__dtype_block[]){B(0, 8), B(16, 8), B(8, 8)}, 3);
  MPI_Type_free(&t);
  MPI_Type_create_hindexed_block(2, 2, (MPI_Aint[]){0, 100}, MPI_CHAR, &t);
  expect("hindexed_block", t, 0, 102, (ostio__dtype_block[]){B(0, 2), B(100, 2)}, 2);
  MPI_Type_free(&t);
  MPI_Type_create_struct(3, (int[]){1, 2, 0}, (MPI_Aint[]){0, 8, 4},
                         (MPI_Datatype[]){MPI_INT, MPI_DOUBLE, MPI_CHAR}, &t);
  expect("struct", t, 0, 24, (ostio__dtype_block[]){B(0, 4), B(8, 16)}, 2);
  MPI_Type_free(&t);
  MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 1}, MPI_ORDER_C, MPI_INT,
                           &t);
  expect("subarray C", t, 0, 80, (ostio__dtype_block[]){B(24, 12), B(44, 12)}, 2);
  MPI_Type_free(&t);
  MPI_Type_create_subarray(2, (int[]){4, 5}, (int[]){2, 3}, (int[]){1, 1}, MPI_ORDER_FORTRAN,
                           MPI_INT, &t);
  expect("subarray Fortran", t, 0, 80, (ostio__dtype_block[]){B(20, 8), B(36, 8), B(52, 8)}, 3);
  MPI_Type_free(&t);
  int dflt = MPI_DISTRIBUTE_DFLT_DARG;
  MPI_Type_create_darray(4, 1, 2, (int[]){4, 4},
                         (int[]){MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
                         (int[]){dflt, dflt}, (int[]){2, 2}, MPI_ORDER_C, MPI_INT, &t);
  expect("darray block", t, 0, 64, (ostio__dtype_block[]){B(8, 8), B(24, 8)}, 2);
  MPI_Type_free(&t);
  MPI_Type_create_darray(2, 1, 1, (int[]){7}, (int[]){MPI_DISTRIBUTE_CYCLIC}, (int[]){2},
                         (int[]){2}, MPI_ORDER_C, MPI_INT, &t);
  expect("darray cyclic(2)", t, 0, 28, (ostio__dtype_block[]){B(8, 8), B(24, 4)}, 2);
  MPI_Type_free(&t);
  MPI_Type_create_darray(2, 0, 2, (int[]){3, 2},
                         (int[]){MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE},
                         (int[]){dflt, dflt}, (int[]){2, 1}, MPI_ORDER_FORTRAN, MPI_CHAR, &t);
  expect("darray cyclic + none, Fortran", t, 0, 6,
         (ostio__dtype_block[]){B(0, 1), B(2, 2), B(5, 1)}, 3);
  MPI_Type_free(&t);
  MPI_Type_create_resized(MPI_INT, -4, 12, &t);
  expect("resized", t, -4, 12, (ostio__dtype_block[]){B(0, 4)}, 1);
  MPI_Type_free(&t);
  /* Huge but contiguous: one block, no work per element. */
  MPI_Type_contiguous(1 << 30, MPI_INT, &t);
  expect("contiguous 2^30 ints", t, 0, INT64_C(4) << 30,
         (ostio__dtype_block[]){B(0, INT64_C(4) << 30)}, 1);
  MPI_Type_free(&t);
}

/* Absolute addresses: a struct over two variables used with MPI_BOTTOM. */
static void test_bottom(void)
{
  static int a = 0x11223344;
  static double d[2] = {1.5, -2.25};
  MPI_Aint aa, ad;
  MPI_Get_address(&a, &aa);
  MPI_Get_address(d, &ad);
  MPI_Datatype t;
  MPI_Type_create_struct(2, (int[]){2, 1}, (MPI_Aint[]){ad, aa},
                         (MPI_Datatype[]){MPI_DOUBLE, MPI_INT}, &t);
  MPI_Type_commit(&t);
  ostio__dtype_map *m = NULL;
  CHECK(ostio__dtype_flatten(t, &m) == 0);
  if (m) {
    char packed[64], mine[64];
    /* MPICH's MPI_Pack refuses MPI_BOTTOM (a null pointer): send to self. */
    MPI_Status st;
    int pos = 0;
    MPI_Sendrecv(MPI_BOTTOM, 1, t, 0, 7, packed, sizeof packed, MPI_BYTE, 0, 7, MPI_COMM_SELF,
                 &st);
    MPI_Get_count(&st, MPI_BYTE, &pos);
    CHECK_EQ_I64(pos, 20);
    CHECK_EQ_I64(m->size, 20);
    int64_t k = 0;
    for (int64_t i = 0; i < m->nblocks; i++) {
      memcpy(mine + k, (const char *)(intptr_t)m->blocks[i].off, (size_t)m->blocks[i].len);
      k += m->blocks[i].len;
    }
    CHECK(k == 20 && memcmp(packed, mine, 20) == 0);
    CHECK_EQ_I64(m->blocks[0].off, (int64_t)ad);
    ostio__dtype_map_release(m);
  }
  MPI_Type_free(&t);
}

/* ---- the range walk, pure ---------------------------------------------- */

static void walk(const char *what, const ostio__dtype_map *m, int64_t base, int64_t count,
                 int64_t start, int64_t nbytes, const ostio__dtype_block *want, int n)
{
  ostio__dtype_iter it;
  ostio__dtype_block got[64];
  int rc = ostio__dtype_iter_init(&it, m, base, count, start, nbytes);
  CHECKF(rc == 0, "%s: init: %s", what, ostio_last_error());
  int64_t k = rc ? -1 : ostio__dtype_iter_fill(&it, got, 64);
  int same = k == n;
  for (int i = 0; same && i < n; i++)
    same = got[i].off == want[i].off && got[i].len == want[i].len;
  if (!same && k >= 0) {
    fprintf(stderr, "%s:", what);
    for (int64_t i = 0; i < k; i++)
      fprintf(stderr, " (%lld,%lld)", (long long)got[i].off, (long long)got[i].len);
    fprintf(stderr, "\n");
  }
  CHECKF(same, "%s: pieces", what);
}

static void test_walk(void)
{
  ostio__dtype_map *m;
  /* Building: zero-length blocks dropped, touching ones merged. */
  CHECK(ostio__dtype_map_new((ostio__dtype_block[]){B(0, 0), B(4, 4), B(8, 4), B(20, 0),
                                                    B(12, 1), B(-3, 2)},
                             6, -8, 32, &m) == 0);
  CHECK(m->nblocks == 2 && m->blocks[0].off == 4 && m->blocks[0].len == 9
        && m->blocks[1].off == -3 && m->size == 11 && m->pos[1] == 9 && m->pos[2] == 11);
  CHECK(m->true_lb == -3 && m->true_extent == 16 && m->lb == -8 && m->extent == 32);
  ostio__dtype_map_release(m);
  CHECK(ostio__dtype_map_new((ostio__dtype_block[]){B(0, -1)}, 1, 0, 1, &m) == OSTIO_EINVAL);

  /* Two blocks with a gap, extent 16. */
  ostio__dtype_map_new((ostio__dtype_block[]){B(0, 4), B(8, 4)}, 2, 0, 16, &m);
  walk("3 instances", m, 0, 3, 0, 24,
       (ostio__dtype_block[]){B(0, 4), B(8, 4), B(16, 4), B(24, 4), B(32, 4), B(40, 4)}, 6);
  walk("offset inside an instance, based", m, 100, 3, 2, 8,
       (ostio__dtype_block[]){B(102, 2), B(108, 4), B(116, 2)}, 3);
  walk("start in the second instance's second block", m, 0, 2, 13, 3,
       (ostio__dtype_block[]){B(25, 3)}, 1);
  walk("view without end, count ends inside", m, 1000, -1, 0, 6,
       (ostio__dtype_block[]){B(1000, 4), B(1008, 2)}, 2);
  ostio__dtype_iter it;
  CHECK(ostio__dtype_iter_init(&it, m, 0, 1, 0, 9) == OSTIO_EINVAL);
  CHECK(ostio__dtype_iter_init(&it, m, 0, 1, -1, 1) == OSTIO_EINVAL);
  int64_t off, len;
  CHECK(ostio__dtype_iter_init(&it, m, INT64_MAX - 20, -1, 0, 100) == 0);
  int rc = 0;
  while ((rc = ostio__dtype_iter_next(&it, &off, &len)) == 1)
    ;
  CHECK(rc == OSTIO_ERANGE);
  ostio__dtype_map_release(m);

  /* Seam: the last block ends where the next instance's first starts. */
  ostio__dtype_map_new((ostio__dtype_block[]){B(0, 4), B(8, 8)}, 2, 0, 16, &m);
  CHECK(m->seam == 1);
  walk("merged across instances", m, 0, 2, 0, 24,
       (ostio__dtype_block[]){B(0, 4), B(8, 12), B(24, 8)}, 3);
  ostio__dtype_map_release(m);

  /* Dense: one piece for any count, no work or memory per instance. */
  ostio__dtype_map_new((ostio__dtype_block[]){B(0, 8)}, 1, 0, 8, &m);
  walk("huge count", m, 0, INT64_MAX / 16, 5, INT64_C(1) << 60,
       (ostio__dtype_block[]){B(5, INT64_C(1) << 60)}, 1);
  walk("count past int64 bytes saturates", m, 0, INT64_MAX, 0, 16,
       (ostio__dtype_block[]){B(0, 16)}, 1);
  ostio__dtype_map_release(m);
  /* Sparse with a huge count: a window far into the stream. */
  ostio__dtype_map_new((ostio__dtype_block[]){B(4, 4)}, 1, 0, 16, &m);
  walk("window at instance 2^40", m, 0, INT64_C(1) << 50, (INT64_C(1) << 42) + 2, 8,
       (ostio__dtype_block[]){B((INT64_C(1) << 44) + 6, 2), B((INT64_C(1) << 44) + 20, 4),
                              B((INT64_C(1) << 44) + 36, 2)},
       3);
  ostio__dtype_map_release(m);
  /* Negative extent: instances go down. */
  ostio__dtype_map_new((ostio__dtype_block[]){B(0, 4)}, 1, -16, -16, &m);
  walk("negative extent", m, 0, 2, 0, 8, (ostio__dtype_block[]){B(0, 4), B(-16, 4)}, 2);
  ostio__dtype_map_release(m);
  /* No data. */
  ostio__dtype_map_new(NULL, 0, 0, 8, &m);
  walk("zero-size type, zero bytes", m, 0, 1000, 0, 0, NULL, 0);
  CHECK(ostio__dtype_iter_init(&it, m, 0, -1, 0, 1) == OSTIO_EINVAL);
  CHECK(m->true_extent == 0 && m->size == 0);
  ostio__dtype_map_release(m);
}

/* ---- the cache --------------------------------------------------------- */

static void test_cache(void)
{
  MPI_Datatype t, u;
  ostio__dtype_map *a, *b, *c, *n1, *n2;
  MPI_Type_vector(4, 1, 3, MPI_INT, &t);
  MPI_Type_commit(&t);
  int64_t drops = ostio__dtype_cache_drops();
  CHECK(ostio__dtype_flatten(t, &a) == 0 && ostio__dtype_flatten(t, &b) == 0);
  CHECK(a == b && a->refs == 3);
  MPI_Type_dup(t, &u); /* the copy callback shares the map */
  CHECK(ostio__dtype_flatten(u, &c) == 0 && c == a);
  /* MPICH deletes t's attributes only when u, made from it, is gone too. */
  MPI_Type_free(&t);
  MPI_Type_free(&u);
  CHECK_EQ_I64(ostio__dtype_cache_drops(), drops + 2);
  CHECK(a->refs == 3 && a->nblocks == 4); /* the callers' references keep it */
  ostio__dtype_map_release(a);
  ostio__dtype_map_release(b);
  ostio__dtype_map_release(c);
  CHECK(ostio__dtype_flatten(MPI_DOUBLE, &n1) == 0 && ostio__dtype_flatten(MPI_DOUBLE, &n2) == 0);
  CHECK(n1 == n2 && n1->size == 8);
  ostio__dtype_map_release(n1);
  ostio__dtype_map_release(n2);
  CHECK_EQ_I64(ostio__dtype_cache_drops(), drops + 2);
}

/* ---- limits and errors ------------------------------------------------- */

static void refused(const char *what, MPI_Datatype t, int code, const char *needle)
{
  ostio__dtype_map *m = NULL;
  int rc = ostio__dtype_flatten(t, &m);
  CHECKF(rc == code && !m && strstr(ostio_last_error(), needle),
         "%s: rc %d (%s), want %d with \"%s\"", what, rc, ostio_last_error(), code, needle);
  ostio__dtype_map_release(m);
}

static void test_limits(void)
{
  MPI_Datatype t, u;
  double t0 = MPI_Wtime();
  MPI_Type_vector(1 << 30, 1, 2, MPI_BYTE, &t);
  refused("2^30 blocks", t, OSTIO_ERANGE, "MPI_Type_vector");
  refused("2^30 blocks", t, OSTIO_ERANGE, "67108864");
  MPI_Type_free(&t);
  CHECKF(MPI_Wtime() - t0 < 1.0, "refusal took %.2f s", MPI_Wtime() - t0);
  if (MPI_Type_create_hvector(4, 1, (MPI_Aint)(INT64_MAX / 2), MPI_INT, &t) == MPI_SUCCESS) {
    refused("stride overflow", t, OSTIO_ERANGE, "MPI_Type_create_hvector");
    MPI_Type_free(&t);
  }
  int64_t old = ostio__dtype_set_max_blocks(10);
  MPI_Type_vector(11, 1, 2, MPI_INT, &t);
  refused("limit 10", t, OSTIO_ERANGE, "more than 10 blocks");
  MPI_Type_create_hvector(11, 1, 4, MPI_INT, &u); /* touching: one block */
  ostio__dtype_map *m = NULL;
  CHECK(ostio__dtype_flatten(u, &m) == 0 && m && m->nblocks == 1);
  ostio__dtype_map_release(m);
  MPI_Type_free(&u);
  MPI_Type_free(&t);
  ostio__dtype_set_max_blocks(old);
  CHECK_EQ_I64(ostio__dtype_set_max_blocks(0), OSTIO__DTYPE_MAX_BLOCKS);
  /* Too deep: a chain of dups. */
  MPI_Type_dup(MPI_INT, &t);
  for (int i = 0; i < OSTIO__DTYPE_MAX_DEPTH + 2; i++) {
    MPI_Type_dup(t, &u);
    MPI_Type_free(&t);
    t = u;
  }
  refused("deep", t, OSTIO_ERANGE, "deeper");
  MPI_Type_free(&t);
  refused("null", MPI_DATATYPE_NULL, OSTIO_EINVAL, "MPI_DATATYPE_NULL");
  /* darray: 2^29 cyclic runs are refused before any is listed, unless
   * another dimension leaves this process nothing. */
  int dflt = MPI_DISTRIBUTE_DFLT_DARG;
  t0 = MPI_Wtime();
  MPI_Type_create_darray(2, 0, 1, (int[]){1 << 30}, (int[]){MPI_DISTRIBUTE_CYCLIC},
                         (int[]){dflt}, (int[]){2}, MPI_ORDER_C, MPI_BYTE, &t);
  refused("darray 2^29 runs", t, OSTIO_ERANGE, "MPI_Type_create_darray");
  MPI_Type_free(&t);
  MPI_Type_create_darray(4, 1, 2, (int[]){1 << 30, 1},
                         (int[]){MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK},
                         (int[]){dflt, dflt}, (int[]){2, 2}, MPI_ORDER_C, MPI_BYTE, &t);
  m = NULL;
  CHECKF(ostio__dtype_flatten(t, &m) == 0 && m && m->nblocks == 0 && m->size == 0,
         "empty darray: %s", ostio_last_error());
  ostio__dtype_map_release(m);
  MPI_Type_free(&t);
  CHECKF(MPI_Wtime() - t0 < 1.0, "darray refusals took %.2f s", MPI_Wtime() - t0);
}

/* ---- random types against MPI_Pack ------------------------------------- */

static MPI_Datatype leaf(tu_rng *r)
{
  MPI_Datatype leaves[] = {MPI_BYTE, MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE, MPI_SHORT_INT,
                           MPI_DOUBLE_INT};
  return leaves[tu_rng_range(r, 0, (int64_t)(sizeof leaves / sizeof leaves[0]) - 1)];
}

static int64_t rnd(tu_rng *r, int64_t lo, int64_t hi) { return tu_rng_range(r, lo, hi); }

static void free_derived(MPI_Datatype *t)
{
  int ni, na, nd, comb;
  MPI_Type_get_envelope(*t, &ni, &na, &nd, &comb);
  if (comb != MPI_COMBINER_NAMED)
    MPI_Type_free(t);
}

/* A random type of nesting at most depth; *what names the outer combiner. */
static MPI_Datatype gen(tu_rng *r, int depth, const char **what);

/* A child for a constructor: MPICH 4's MPI_Pack divides by the extent and
 * the size of old types (SIGFPE), so children with extent <= 0 or no data
 * are left to the hand-written and pure tests; zero-length blocks still
 * come from zero block lengths. */
static MPI_Datatype gen_child(tu_rng *r, int depth)
{
  const char *w;
  MPI_Datatype c = gen(r, depth, &w);
  MPI_Count lb, ext;
  MPI_Count size;
  MPI_Type_get_extent_x(c, &lb, &ext);
  MPI_Type_size_x(c, &size);
  if (ext > 0 && size > 0)
    return c;
  free_derived(&c);
  return leaf(r);
}

static MPI_Datatype gen(tu_rng *r, int depth, const char **what)
{
  *what = "named";
  if (depth == 0 || rnd(r, 0, 5) == 0)
    return leaf(r);
  MPI_Datatype c = gen_child(r, depth - 1), t = MPI_DATATYPE_NULL;
  int n = (int)rnd(r, 0, 4), bl[4], di[4], ok;
  MPI_Aint da[4];
  for (int i = 0; i < 4; i++) {
    bl[i] = (int)rnd(r, 0, 3);
    di[i] = (int)rnd(r, -5, 8);
    da[i] = (MPI_Aint)rnd(r, -40, 80);
  }
  switch (rnd(r, 0, 12)) {
  case 0: *what = "contiguous"; ok = MPI_Type_contiguous((int)rnd(r, 0, 4), c, &t); break;
  case 1: {
    /* Open MPI 4.1 gives vector(2, 1, -1, MPI_BYTE) lb 0 and packs it
     * as if contiguous, against the standard's type map (blocks at 0 and
     * -1): negative strides whose blocks touch or overlap are left out. */
    int stride = (int)rnd(r, -4, 4);
    if (stride < 0 && -stride <= bl[0])
      stride = -bl[0] - 1;
    *what = "vector";
    ok = MPI_Type_vector(n, bl[0], stride, c, &t);
    break;
  }
  case 2: {
    MPI_Count clb, cext; /* the same for hvector, in bytes */
    MPI_Type_get_extent_x(c, &clb, &cext);
    if (da[0] < 0 && -da[0] <= bl[0] * cext)
      da[0] = -(MPI_Aint)(bl[0] * cext) - 1;
    *what = "hvector";
    ok = MPI_Type_create_hvector(n, bl[0], da[0], c, &t);
    break;
  }
  case 3: *what = "indexed"; ok = MPI_Type_indexed(n, bl, di, c, &t); break;
  case 4: *what = "hindexed"; ok = MPI_Type_create_hindexed(n, bl, da, c, &t); break;
  case 5: *what = "indexed_block"; ok = MPI_Type_create_indexed_block(n, bl[0], di, c, &t); break;
  case 6:
    *what = "hindexed_block";
    ok = MPI_Type_create_hindexed_block(n, bl[0], da, c, &t);
    break;
  case 7: {
    *what = "struct";
    MPI_Datatype ts[4] = {c, c, c, c};
    for (int i = 1; i < 4; i++)
      ts[i] = rnd(r, 0, 1) ? gen_child(r, depth - 1) : leaf(r);
    n = n ? n : 1;
    ok = MPI_Type_create_struct(n, bl, da, ts, &t);
    for (int i = 1; i < 4; i++)
      free_derived(&ts[i]);
    break;
  }
  case 8: {
    *what = "subarray";
    int nd = (int)rnd(r, 1, 3), sz[3], sub[3], st[3];
    for (int i = 0; i < nd; i++) {
      sz[i] = (int)rnd(r, 1, 5);
      sub[i] = (int)rnd(r, 1, sz[i]);
      st[i] = (int)rnd(r, 0, sz[i] - sub[i]);
    }
    ok = MPI_Type_create_subarray(nd, sz, sub, st, rnd(r, 0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN,
                                  c, &t);
    break;
  }
  case 9: {
    *what = "darray";
    int nd = (int)rnd(r, 1, 3), g[3], dist[3], darg[3], p[3], size = 1;
    for (int i = 0; i < nd; i++) {
      g[i] = (int)rnd(r, 1, 8);
      dist[i] = (int)rnd(r, 0, 2);
      p[i] = dist[i] == 0 ? 1 : (int)rnd(r, 1, 3);
      size *= p[i];
      darg[i] = MPI_DISTRIBUTE_DFLT_DARG;
      if (dist[i] == 0) {
        dist[i] = MPI_DISTRIBUTE_NONE;
      } else if (dist[i] == 1) {
        dist[i] = MPI_DISTRIBUTE_BLOCK;
        if (rnd(r, 0, 1))
          darg[i] = (g[i] + p[i] - 1) / p[i] + (int)rnd(r, 0, 2);
      } else {
        dist[i] = MPI_DISTRIBUTE_CYCLIC;
        if (rnd(r, 0, 1))
          darg[i] = (int)rnd(r, 1, 3);
      }
    }
    ok = MPI_Type_create_darray(size, (int)rnd(r, 0, size - 1), nd, g, dist, darg, p,
                                rnd(r, 0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN, c, &t);
    break;
  }
  case 10: {
    *what = "resized";
    MPI_Count lb, ext;
    MPI_Type_get_true_extent_x(c, &lb, &ext);
    ok = MPI_Type_create_resized(c, (MPI_Aint)(lb - rnd(r, 0, 16)), (MPI_Aint)(ext + rnd(r, -2, 16)),
                                 &t);
    break;
  }
  default: *what = "dup"; ok = MPI_Type_dup(c, &t); break;
  }
  free_derived(&c);
  if (ok != MPI_SUCCESS)
    return leaf(r);
  return t;
}

/* One random type: MPI_Pack of count instances against the bytes gathered
 * through the walk, whole and a random window; bounds against MPI. */
/* The type tree on stderr, to reproduce a failure by hand. */
static void describe(MPI_Datatype t, int indent)
{
  int ni, na, nd, comb;
  MPI_Count lb, ext, size;
  MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
  MPI_Type_get_extent_x(t, &lb, &ext);
  MPI_Type_size_x(t, &size);
  fprintf(stderr, "%*scombiner %d lb %lld extent %lld size %lld", indent, "", comb,
          (long long)lb, (long long)ext, (long long)size);
  if (comb == MPI_COMBINER_NAMED) {
    fprintf(stderr, "\n");
    return;
  }
  int *iv = malloc(sizeof(int) * ((size_t)ni + 1));
  MPI_Aint *av = malloc(sizeof(MPI_Aint) * ((size_t)na + 1));
  MPI_Datatype *tv = malloc(sizeof(MPI_Datatype) * ((size_t)nd + 1));
  MPI_Type_get_contents(t, ni, na, nd, iv, av, tv);
  fprintf(stderr, " ints");
  for (int i = 0; i < ni; i++)
    fprintf(stderr, " %d", iv[i]);
  fprintf(stderr, " addrs");
  for (int i = 0; i < na; i++)
    fprintf(stderr, " %lld", (long long)av[i]);
  fprintf(stderr, "\n");
  for (int i = 0; i < nd; i++) {
    describe(tv[i], indent + 2);
    free_derived(&tv[i]);
  }
  free(iv);
  free(av);
  free(tv);
}

static int compared, by_combiner[32];

static void random_one(tu_rng *r, uint64_t seed, int i, unsigned char *src, size_t srcsize,
                       unsigned char *packed, unsigned char *mine)
{
  const char *what;
  MPI_Datatype t = gen(r, (int)rnd(r, 1, 4), &what);
  MPI_Count size, lb, ext, tlb, text;
  MPI_Type_size_x(t, &size);
  MPI_Type_get_extent_x(t, &lb, &ext);
  MPI_Type_get_true_extent_x(t, &tlb, &text);
  int count = (int)rnd(r, 1, 3);
  /* Keep the buffers small; negative extents are left to the pure tests. */
  if (ext < 1 || size > 65536 || text > 65536 || ext > 65536) {
    free_derived(&t);
    return;
  }
  MPI_Type_commit(&t);
  ostio__dtype_map *m = NULL;
  int rc = ostio__dtype_flatten(t, &m);
  CHECKF(rc == 0, "seed %llu type %d (%s): %s", (unsigned long long)seed, i, what,
         ostio_last_error());
  if (!rc) {
    CHECKF(m->size == size && m->lb == lb && m->extent == ext, "seed %llu type %d (%s): size",
           (unsigned long long)seed, i, what);
    /* The map's bounds are the data's; MPI's true extent may also count
     * the places of zero-length parts (MPICH does): inside, equal without. */
    if (size > 0)
      CHECKF(m->true_lb >= tlb && m->true_lb + m->true_extent <= tlb + text,
             "seed %llu type %d (%s): true lb/extent %lld/%lld, MPI %lld/%lld",
             (unsigned long long)seed, i, what, (long long)m->true_lb,
             (long long)m->true_extent, (long long)tlb, (long long)text);
    /* The origin so that [tlb, (count-1)*ext + tlb + text) is inside src. */
    int64_t origin = 8 - tlb;
    if (origin + (int64_t)(count - 1) * ext + tlb + text + 8 <= (int64_t)srcsize) {
      int pos = 0;
      MPI_Pack(src + origin, count, t, packed, (int)srcsize, &pos, MPI_COMM_SELF);
      int64_t total = (int64_t)count * size, a0 = rnd(r, 0, total), b0 = rnd(r, a0, total);
      /* The whole stream, then a random window of it. */
      for (int pass = 0; pass < 2; pass++) {
        int64_t a = pass ? a0 : 0, b = pass ? b0 : total, off, len, k = 0;
        ostio__dtype_iter it;
        CHECK(ostio__dtype_iter_init(&it, m, origin, count, a, b - a) == 0);
        while (ostio__dtype_iter_next(&it, &off, &len) == 1 && k + len <= total) {
          memcpy(mine + k, src + off, (size_t)len);
          k += len;
        }
        if (!CHECKF(pos == total && k == b - a && memcmp(packed + a, mine, (size_t)k) == 0,
                    "seed %llu type %d (%s): bytes [%lld, %lld) of %d instances differ from "
                    "MPI_Pack",
                    (unsigned long long)seed, i, what, (long long)a, (long long)b, count))
          describe(t, 2);
      }
      int ni, na, nd, comb;
      MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
      compared++;
      by_combiner[comb % 32]++;
    }
    ostio__dtype_map_release(m);
  }
  free_derived(&t);
}

static void test_random(uint64_t seed)
{
  size_t srcsize = 4 << 20;
  unsigned char *src = malloc(srcsize), *packed = malloc(srcsize), *mine = malloc(srcsize);
  for (size_t i = 0; i < srcsize; i++)
    src[i] = (unsigned char)(i * 131 + (i >> 8) * 7 + 1);
  for (uint64_t s = seed; s < seed + 4; s++) {
    tu_rng r;
    tu_rng_seed(&r, s);
    for (int i = 0; i < 1000; i++)
      random_one(&r, s, i, src, srcsize, packed, mine);
  }
  free(src);
  free(packed);
  free(mine);
  /* The generator must reach every combiner, not only the small types. */
  int kinds = 0;
  for (int c = 0; c < 32; c++)
    kinds += by_combiner[c] > 0;
  printf("random: %d types compared with MPI_Pack, %d outer combiners\n", compared, kinds);
  CHECKF(compared >= 2000 && kinds >= 13, "%d types, %d combiners", compared, kinds);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  test_combiners();
  test_bottom();
  test_walk();
  test_cache();
  test_limits();
  test_random(tu_seed(16));
  int rc = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return rc;
}
