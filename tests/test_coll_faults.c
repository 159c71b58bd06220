/* Injected I/O faults (OSTIO_FAULT) in collective calls: for every strategy
 * and every rank R, the first system write (read) of rank R fails. The call
 * returns the same code on every rank without hanging, exactly one fault
 * fired, bytes no rank named keep their sentinel, and the next call on the
 * same handle works with the right bytes. `short` succeeds with the right
 * bytes; `stuck` is OSTIO_EIO everywhere. Every rank does system I/O in each
 * call: cb_nodes = nprocs, stripe_count = nprocs and data in every domain. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collcase.h"

#define COMM MPI_COMM_WORLD
#define BASE 37                /* blocks of LEN bytes every STRIDE bytes,  */
#define STRIDE 5000            /* block i belongs to rank i % nprocs       */
#define LEN 4700
#define MAXB 64

static int rank, nprocs;
static char dir[512];
static char casename[160];
static cc_blocks blk;          /* 6 blocks a rank; [0, region) pre-filled */

static size_t pattern(int r, ostio_extent *e) { return cc_cyclic(r, nprocs, 6 * nprocs, BASE, STRIDE, LEN, e); }

static int faults_fired(ostio_file *fh)
{
  double v = 0;
  CHECK(ostio_stat_get(fh, "faults_injected", &v) == 0);
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, COMM);
  return (int)v;
}
/* Opens path RDWR (creating it when create), with OSTIO_FAULT=spec while
 * ostio_open reads it. Every rank agrees on the result. */
static int fopen_(const char *path, const char *strategy, const char *spec, int create, ostio_file **fh)
{
  char hints[256];
  snprintf(hints, sizeof hints, "striping_factor=%d;cb_nodes=%d;striping_unit=4096;cb_config_list=*:*;"
           "romio_cb_write=enable;romio_cb_read=enable;ostio_strategy=%s", nprocs, nprocs, strategy);
  MPI_Info info = cc_info(hints);
  if (spec) setenv("OSTIO_FAULT", spec, 1);
  int ok = cc_open(path, MPI_MODE_RDWR | (create ? MPI_MODE_CREATE : 0), info, fh, 0, casename);
  unsetenv("OSTIO_FAULT");
  MPI_Info_free(&info);
  return ok;
}

/* One case: the write fault wfault (or none) on rank R with the code the
 * first write_all must give, then the read fault rfault (or none) likewise. */
static void fault_case(const char *path, const char *strategy, int R, const char *wfault, int wrc,
                       const char *rfault, int rrc)
{
  ostio_extent e[MAXB];
  size_t n = pattern(rank, e);
  ostio_file *fh = NULL;
  char spec[64];
  static uint32_t ncase; /* the same on every rank */
  uint32_t tag = 3 + 2 * (++ncase % 30000);
  uint8_t *good = cc_pack(e, n, tag), *buf = calloc(n * LEN + 1, 1);
  if (wfault) {
    snprintf(casename, sizeof casename, "%s write:%d:1:%s", strategy, R, wfault);
    snprintf(spec, sizeof spec, "write:%d:1:%s", R, wfault);
    alarm(60);
    if (rank == 0) cc_blocks_prefill(&blk, path);
    MPI_Barrier(COMM);
    if (fopen_(path, strategy, spec, 0, &fh)) {
      uint8_t *other = cc_pack(e, n, tag + 1);
      cc_expect_rc(ostio_write_all(fh, e, n, other), wrc, casename, "first write_all");
      free(other);
      int fired = faults_fired(fh);
      CHECKF(fired == 1, "%s: %d faults fired, expected 1", casename, fired);
      if (rank == 0) cc_blocks_check(&blk, path, wrc ? CC_T_ANY : tag + 1, casename, "after the first call");
      cc_expect_rc(ostio_write_all(fh, e, n, good), 0, casename, "next write_all");
      CHECKF(!strcmp(ostio_file_strategy(fh), strategy), "%s: strategy %s", casename,
             ostio_file_strategy(fh));
      if (rank == 0) cc_blocks_check(&blk, path, tag, casename, "after the next call");
      cc_expect_rc(ostio_close(&fh), 0, casename, "ostio_close");
    }
  }
  if (rfault) {
    snprintf(casename, sizeof casename, "%s read:%d:1:%s", strategy, R, rfault);
    snprintf(spec, sizeof spec, "read:%d:1:%s", R, rfault);
    alarm(60);
    if (!wfault && fopen_(path, strategy, NULL, 0, &fh)) { /* lay down tag's bytes */
      cc_expect_rc(ostio_write_all(fh, e, n, good), 0, casename, "write_all before reads");
      cc_expect_rc(ostio_close(&fh), 0, casename, "ostio_close");
    }
    if (fopen_(path, strategy, spec, 0, &fh)) {
      int rc = ostio_read_all(fh, e, n, buf);
      if (cc_expect_rc(rc, rrc, casename, "first read_all") && rc == 0)
        cc_check_each(buf, e, n, tag, casename, "bytes of block");
      int fired = faults_fired(fh);
      CHECKF(fired == 1, "%s: %d faults fired, expected 1", casename, fired);
      memset(buf, 0, n * LEN);
      cc_expect_rc(ostio_read_all(fh, e, n, buf), 0, casename, "next read_all");
      CHECKF(!memcmp(buf, good, n * LEN), "%s: next read_all gave wrong bytes", casename);
      cc_expect_rc(ostio_close(&fh), 0, casename, "ostio_close");
    }
  }
  alarm(0);
  free(good), free(buf);
}

int main(int argc, char **argv)
{
  static const char *const strategies[] = {"even", "aligned", "ost", "independent"};
  if (cc_init(&argc, &argv, "test_coll_faults", 64, &rank, &nprocs)) return 1; /* at most 64 ranks */
  blk = (cc_blocks){BASE, STRIDE, LEN, 6 * nprocs, BASE + (int64_t)6 * nprocs * STRIDE + 500};
  unsetenv("OSTIO_FAULT");
  cc_watchdog(60, casename);
  cc_tmpdir(dir, sizeof dir, "collfaults");
  for (int s = 0; s < 4; s++) {
    char path[700];
    ostio_file *fh = NULL;
    snprintf(path, sizeof path, "%s/faults-%s", dir, strategies[s]);
    snprintf(casename, sizeof casename, "%s create", strategies[s]);
    if (!fopen_(path, strategies[s], NULL, 1, &fh)) continue;
    cc_expect_rc(ostio_close(&fh), 0, casename, "ostio_close");
    /* EIO on every rank in turn; short and stuck on one rank each, a
     * different one for every strategy; ENOSPC once (OSTIO_TEST_ALL=1: all
     * of them on every rank). */
    const char *all = getenv("OSTIO_TEST_ALL");
    for (int R = 0; R < nprocs; R++) {
      int one = all && *all;
      fault_case(path, strategies[s], R, "EIO", OSTIO_EIO, "EIO", OSTIO_EIO);
      if (one || (s == 0 && R == nprocs - 1))
        fault_case(path, strategies[s], R, "ENOSPC", OSTIO_ENOSPC, NULL, 0);
      if (one || R == (s + 1) % nprocs) fault_case(path, strategies[s], R, "short", 0, "short", 0);
      if (one || R == (s + 2) % nprocs) fault_case(path, strategies[s], R, "stuck", OSTIO_EIO, "stuck", OSTIO_EIO);
    }
  }
  return CC_FINISH();
}
