/* Collective I/O cases with the coverage of ROMIO's collective tests, part 1:
 * a 3-D block-distributed array, zero-length ranks, aggregator subsets, holes
 * at file-domain edges (with and without read-modify-write), offsets past
 * 2^32. Part 2 (more than 2 GiB in one call, statistics, the auto rule, the
 * independent calls, EXCL and DELETE_ON_CLOSE) is test_coll_cases2.c.
 * Every write is checked on disk with plain pread and read back with
 * ostio_read_all (cc_wr_case in collcase.c). OSTIO_TEST_VERBOSE=1 prints the
 * time of each section, OSTIO_TEST_ONLY=name,... runs only those. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collcase.h"

static int rank, nprocs;

static const char *const strategies[] = {"auto", "even", "aligned", "ost", "independent", "single"};
#define NSTRAT 6
static const char *want_of(const char *s) { return strcmp(s, "auto") ? s : NULL; }

/* ---- 1. 3-D block-distributed array --------------------------------------- */
#define NX 24
#define NY 19
#define NZ 37
static void t_array3d(void)
{
  int dims[3] = {0, 0, 0};
  MPI_Dims_create(nprocs, 3, dims);
  int c[3] = {rank / (dims[1] * dims[2]), rank / dims[2] % dims[1], rank % dims[2]};
  const int N[3] = {NX, NY, NZ};
  int lo[3], hi[3];
  for (int d = 0; d < 3; d++) lo[d] = c[d] * N[d] / dims[d], hi[d] = (c[d] + 1) * N[d] / dims[d];
  ostio_extent *e = malloc(sizeof *e * NX * NY);
  size_t n = 0, m = (size_t)(hi[0] - lo[0]) * (size_t)(hi[1] - lo[1]);
  for (int x = lo[0]; x < hi[0]; x++) /* one extent per row; odd ranks list them backwards */
    for (int y = lo[1]; y < hi[1]; y++, n++)
      e[rank % 2 ? m - 1 - n : n] = (ostio_extent){(((int64_t)x * NY + y) * NZ + lo[2]) * 8,
                                                   (int64_t)(hi[2] - lo[2]) * 8};
  for (int k = 0; k < 2 * NSTRAT; k++) { /* every strategy, default and 8 KiB buffers */
    const char *st = strategies[k / 2];
    char h[256];
    cc_outcome o;
    snprintf(h, sizeof h, "striping_factor=4;striping_unit=4096;cb_config_list=*:*;ostio_strategy=%s%s",
             st, k % 2 ? ";cb_buffer_size=8192" : "");
    cc_wr_case(h, e, n, 0, want_of(st), 0, &o);
    double rounds = cc_reduce_d(o.rounds, MPI_MAX);
    CHECKF(!(k % 2) || !cc_is_coll(st) || rounds >= 2, "array3d [%s]: %g rounds", h, rounds);
  }
  free(e);
}

/* ---- 2. zero-length ranks and extents -------------------------------------- */
static void t_zero(void)
{
  /* kind 0: data (plus zero-length extents); 1: n = 0, ext NULL; 2: only empty extents */
  int kind = rank % 3, ndata = (nprocs + 2) / 3, me = rank / 3;
  ostio_extent e[64];
  size_t n = 0;
  if (kind == 0) {
    n = cc_cyclic(me, ndata, 24, 0, 2500, 2500, e);
    e[n++] = (ostio_extent){1250, 0};            /* inside someone's data */
    e[n++] = (ostio_extent){1000000000, 0};      /* far past the end      */
    ostio_extent t = e[0];
    e[0] = e[n - 2], e[n - 2] = t;
  } else if (kind == 2) {
    e[0] = (ostio_extent){3750, 0}, e[1] = (ostio_extent){0, 0}, e[2] = (ostio_extent){INT64_MAX / 2, 0};
    n = 3;
  }
  for (int k = 0; k < NSTRAT; k++) {
    char h[256];
    snprintf(h, sizeof h, "striping_factor=4;striping_unit=4096;cb_config_list=*:*;"
             "romio_cb_write=enable;ostio_strategy=%s", strategies[k]);
    cc_wr_case(h, kind == 1 ? NULL : e, n, 0, want_of(strategies[k]), CC_ZERO_CALL, NULL);
  }
}

/* ---- 3. aggregator subsets ------------------------------------------------- */
static void t_subsets(void)
{
  static const char *const cfg[] = {"cb_nodes=1;cb_config_list=*:*", "cb_nodes=2;cb_config_list=*:*",
                                    "cb_config_list=*:1", "cb_config_list=*:2"};
  const int naggr[] = {1, nprocs < 2 ? nprocs : 2, 1, nprocs < 2 ? nprocs : 2};
  ostio_extent e[64];
  size_t n = cc_cyclic(rank, nprocs, 48, 11, 1777, 1777, e);
  for (int k = 0; k < 4 * NSTRAT; k++) {
    char h[256];
    cc_outcome o;
    snprintf(h, sizeof h, "striping_factor=4;striping_unit=4096;romio_cb_write=enable;"
             "romio_cb_read=enable;ostio_strategy=%s;%s", strategies[k % NSTRAT], cfg[k / NSTRAT]);
    cc_wr_case(h, e, n, 0, want_of(strategies[k % NSTRAT]), 0, &o);
    double active = cc_reduce_d(o.aggr_calls > 0, MPI_SUM);
    /* single wants one aggregator; only cb_nodes raises it */
    int want = !strcmp(o.strategy, "single") && !strstr(cfg[k / NSTRAT], "cb_nodes") ? 1 : naggr[k / NSTRAT];
    CHECKF(!cc_is_coll(o.strategy) || active == want, "subsets [%s]: %g ranks aggregated, "
           "expected %d", h, active, want);
  }
}

/* ---- 4. holes at file-domain edges ------------------------------------------ */
#define H_LO 100
#define H_BLOCKS 164
#define H_PRE 170000
static int i64_cmp(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}
/* Rank r's blocks of 1000 bytes (963 of data), minus 400-byte windows around
 * every stripe boundary and every boundary of an even split over nprocs. */
static size_t holes_pattern(int r, ostio_extent *e)
{
  int64_t win[128];
  int nw = 0;
  const int64_t hi = H_LO + (H_BLOCKS - 1) * 1000 + 963, dom = (hi - H_LO + nprocs - 1) / nprocs;
  for (int64_t b = 4096; b < hi - 400; b += 4096) win[nw++] = b;
  for (int k = 1; k < nprocs; k++) win[nw++] = H_LO + k * dom;
  qsort(win, (size_t)nw, sizeof win[0], i64_cmp);
  size_t n = 0;
  for (int i = r; i < H_BLOCKS; i += nprocs) {
    int64_t p = H_LO + (int64_t)i * 1000, z = p + 963;
    for (int w = 0; w < nw && p < z; w++) {
      int64_t wa = win[w] - 200, wz = win[w] + 200;
      if (wz <= p) continue;
      if (wa >= z) break;
      if (wa > p) e[n++] = (ostio_extent){p, wa - p};
      p = wz;
    }
    if (p < z) e[n++] = (ostio_extent){p, z - p};
  }
  return n;
}
static void t_holes(void)
{
  static const char *const ds[] = {"romio_ds_write=automatic", "romio_ds_write=enable",
                                   "romio_ds_write=enable;cb_buffer_size=6000", "romio_ds_write=disable"};
  static const char *const strat[] = {"even", "aligned"};
  ostio_extent *e = malloc(sizeof *e * 1024);
  size_t n = holes_pattern(rank, e);
  for (int k = 0; k < 8; k++) {
    char h[256];
    cc_outcome o = {0};
    snprintf(h, sizeof h, "striping_factor=4;striping_unit=4096;cb_config_list=*:*;romio_cb_write=enable;"
             "romio_cb_read=enable;ostio_strategy=%s;%s", strat[k / 4], ds[k % 4]);
    cc_wr_case(h, e, n, H_PRE, strat[k / 4], 0, &o);
    double rmw = cc_reduce_d(o.rmw, MPI_SUM);
    CHECKF(k % 4 != 3 || rmw == 0, "holes [%s]: %g read-modify-writes although disabled", h, rmw);
  }
  free(e);
}

/* ---- 5. offsets past 2^31 and 2^32 (sparse file) ---------------------------- */
static void t_far(void)
{
  const int64_t base[3] = {((int64_t)1 << 31) - 3000, ((int64_t)1 << 32) - 3000,
                           ((int64_t)1 << 32) + 7 * ((int64_t)1 << 20) + 123};
  ostio_extent e[16];
  size_t n = 0;
  for (int b = 2; b >= 0; b--) n += cc_cyclic(rank, nprocs, 2 * nprocs, base[b], 1024, 1000, e + n);
  for (int k = 0; k < NSTRAT; k++) {
    char h[256];
    snprintf(h, sizeof h, "striping_factor=4;striping_unit=1m;cb_config_list=*:*;ostio_strategy=%s",
             strategies[k]);
    cc_wr_case(h, e, n, 0, want_of(strategies[k]), 0, NULL);
  }
}

int main(int argc, char **argv)
{
  static const cc_section sec[] = {{"array3d", t_array3d, 64}, {"zero", t_zero, 64},
    {"subsets", t_subsets, 64}, {"holes", t_holes, 64}, {"far", t_far, 64}};
  cc_init(&argc, &argv, "test_coll_cases", 0, &rank, &nprocs);
  return cc_run_sections(sec, sizeof sec / sizeof sec[0], __FILE__);
}
