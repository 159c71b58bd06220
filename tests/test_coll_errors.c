/* Bad input to the collective calls, on the last rank only and on every
 * rank: NULL handle / extents / buffer, negative offsets and lengths,
 * offset + length past INT64_MAX, overlapping extents (one rank's list or
 * across ranks), writes to read-only and reads of write-only files, bad hints
 * and a bad OSTIO_FAULT at open. Every rank returns the same code, the
 * failing rank has a detail, bytes nobody named keep their sentinel, and the
 * next call on the same handle works. Each strategy is tried. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collcase.h"

#define COMM MPI_COMM_WORLD
#define BASE 100               /* block i: LEN bytes at BASE + i * STRIDE, */
#define STRIDE 1000            /* owned by rank i % nprocs                 */
#define LEN 800
#define MAXR 64

static int rank, nprocs;
static cc_blocks blk;          /* 4 blocks a rank; [0, region) pre-filled */
static char dir[512], path[700], casename[160];
static uint32_t next_tag = 3;

static size_t pattern(int r, ostio_extent *e) { return cc_cyclic(r, nprocs, blk.nblocks, BASE, STRIDE, LEN, e); }
/* Rank 0: data blocks hold tag's bytes (CC_T_ANY: anything), holes the sentinel. */
static void check_file(uint32_t tag, const char *when) { cc_blocks_check(&blk, path, tag, casename, when); }

static MPI_Info base_info(const char *strategy)
{
  char hints[128];
  snprintf(hints, sizeof hints, "striping_factor=4;striping_unit=4096;cb_config_list=*:*;ostio_strategy=%s",
           strategy);
  return cc_info(hints);
}
static int xopen(const char *strategy, int amode, ostio_file **fh)
{
  MPI_Info info = base_info(strategy);
  int ok = cc_open(path, amode, info, fh, 0, casename);
  MPI_Info_free(&info);
  return ok;
}
/* A good write_all of a new tag, checked on disk (and read back). */
static void good_write(ostio_file *fh, int readback)
{
  ostio_extent e[4 * MAXR];
  size_t n = pattern(rank, e);
  uint32_t tag = next_tag++;
  uint8_t *b = cc_pack(e, n, tag);
  cc_expect_rc(ostio_write_all(fh, e, n, b), 0, casename, "the next write_all"); /* also a barrier */
  if (rank == 0) check_file(tag, "after the next write_all");
  if (readback) {
    memset(b, 0, n * LEN);
    cc_expect_rc(ostio_read_all(fh, e, n, b), 0, casename, "the next read_all");
    cc_check_each(b, e, n, tag, casename, "next read_all, block");
  }
  free(b);
}

enum { K_FH_NULL, K_EXT_NULL, K_BUF_NULL, K_NEG_OFF, K_NEG_LEN, K_OVERFLOW, K_OVL_SELF, K_OVL_CROSS, NK };
static const char *const kname[NK] = {"fh NULL", "ext NULL", "buf NULL", "negative offset",
  "negative length", "offset+length overflow", "overlap in one list", "overlap across ranks"};
static const int kcode[NK] = {OSTIO_EINVAL, OSTIO_EINVAL, OSTIO_EINVAL, OSTIO_EINVAL, OSTIO_EINVAL,
                              OSTIO_EINVAL, OSTIO_EOVERLAP, OSTIO_EOVERLAP};

static void bad_call(ostio_file *fh, const char *strategy, int kind, int is_write, int all)
{
  int bad = all || rank == nprocs - 1, peer = (rank + 1) % nprocs;
  ostio_extent e[4 * MAXR + 2];
  size_t n = pattern(rank, e);
  uint8_t *buf = calloc(n * LEN + 4096, 1);
  const ostio_extent *ep = e;
  void *bp = buf;
  ostio_file *f = fh;
  snprintf(casename, sizeof casename, "%s %s %s on %s", strategy, is_write ? "write_all" : "read_all",
           kname[kind], all ? "every rank" : "the last rank");
  cc_fill_ext(buf, e, n, next_tag + 1000);
  if (bad) switch (kind) {
    case K_FH_NULL: f = NULL; break;
    case K_EXT_NULL: ep = NULL; break;
    case K_BUF_NULL: bp = NULL; break;
    case K_NEG_OFF: e[0] = (ostio_extent){-100, 50}; break;
    case K_NEG_LEN: e[0].length = -5; break;
    case K_OVERFLOW: e[n++] = (ostio_extent){INT64_MAX - 10, 100}; break;
    case K_OVL_SELF: e[n++] = (ostio_extent){e[0].offset + 400, 100}; break;
    case K_OVL_CROSS: e[n++] = (ostio_extent){BASE + (int64_t)peer * STRIDE + 200, 100}; break;
  }
  int rc = is_write ? ostio_write_all(f, ep, n, bp) : ostio_read_all(f, ep, n, bp);
  if (bad) CHECKF(ostio_last_error()[0], "%s: no detail on the failing rank", casename);
  cc_expect_rc(rc, kcode[kind], casename, is_write ? "ostio_write_all" : "ostio_read_all");
  free(buf);
  if (rank == 0) check_file(CC_T_ANY, "after the failed call");
  good_write(fh, !is_write);
}

/* Bad hints (MPI_Info or OSTIO_HINTS) and a bad OSTIO_FAULT at open. */
static void open_errors(void)
{
  static const char *const hk[] = {"ostio_strategy", "cb_buffer_size", "cb_buffer_size", "cb_nodes",
                                   "cb_config_list", "romio_ds_write", "ostio_co_ratio", NULL};
  static const char *const hv[] = {"ylib", "0", "3g", "-2", "*:x", "maybe", "0"};
  for (int all = 1; all >= (nprocs > 1 ? 0 : 1); all--) {
    int bad = all || rank == nprocs - 1;
    for (int i = 0; i <= 8; i++) {
      ostio_file *fh = NULL;
      MPI_Info info = base_info("auto");
      int want = OSTIO_EHINT;
      const char *key = i < 7 ? hk[i] : NULL;
      if (i < 7) {
        snprintf(casename, sizeof casename, "open with %s=%s on %s", hk[i], hv[i], all ? "every rank" : "the last rank");
        if (bad) MPI_Info_set(info, hk[i], hv[i]);
      } else if (i == 7) {
        key = "ostio_strategy";
        snprintf(casename, sizeof casename, "OSTIO_HINTS=*:ostio_strategy=ylib on %s", all ? "every rank" : "the last rank");
        if (bad) setenv("OSTIO_HINTS", "*:ostio_strategy=ylib", 1);
      } else {
        key = "OSTIO_FAULT", want = OSTIO_EINVAL;
        snprintf(casename, sizeof casename, "OSTIO_FAULT=write:0:0:EIO on %s", all ? "every rank" : "the last rank");
        if (bad) setenv("OSTIO_FAULT", "write:0:0:EIO", 1);
      }
      int rc = ostio_open(COMM, path, MPI_MODE_RDWR, info, &fh);
      if (bad) CHECKF(strstr(ostio_last_error(), key), "%s: detail \"%s\" does not name %s", casename,
                      ostio_last_error(), key);
      unsetenv("OSTIO_HINTS");
      unsetenv("OSTIO_FAULT");
      MPI_Info_free(&info);
      cc_expect_rc(rc, want, casename, "ostio_open");
      CHECKF(fh == NULL, "%s: a handle after a failed open", casename);
      if (fh) ostio_close(&fh);
    }
  }
  snprintf(casename, sizeof casename, "open after the failed opens");
  ostio_file *fh = NULL;
  if (xopen("auto", MPI_MODE_RDWR, &fh)) {
    good_write(fh, 1);
    cc_expect_rc(ostio_close(&fh), 0, casename, "ostio_close");
  }
}

/* write_all on MPI_MODE_RDONLY, read_all on MPI_MODE_WRONLY. */
static void access_errors(void)
{
  ostio_extent e[4 * MAXR];
  size_t n = pattern(rank, e);
  uint8_t *buf = calloc(n * LEN + 1, 1);
  for (int wr = 1; wr >= 0; wr--)
    for (int all = 1; all >= (nprocs > 1 ? 0 : 1); all--) {
      ostio_file *fh = NULL;
      size_t m = all || rank == nprocs - 1 ? n : 0;
      snprintf(casename, sizeof casename, "%s on a %s file, data on %s", wr ? "write_all" : "read_all",
               wr ? "read-only" : "write-only", all ? "every rank" : "the last rank");
      if (!xopen("auto", wr ? MPI_MODE_RDONLY : MPI_MODE_WRONLY, &fh)) continue;
      int rc = wr ? ostio_write_all(fh, m ? e : NULL, m, m ? buf : NULL)
                  : ostio_read_all(fh, m ? e : NULL, m, m ? buf : NULL);
      if (m) CHECKF(ostio_last_error()[0], "%s: no detail", casename);
      cc_expect_rc(rc, OSTIO_EACCES, casename, wr ? "ostio_write_all" : "ostio_read_all");
      if (rank == 0) check_file(next_tag - 1, "after the refused call");
      if (wr) { /* the read-only handle still reads */
        memset(buf, 0, n * LEN);
        cc_expect_rc(ostio_read_all(fh, e, n, buf), 0, casename, "the next read_all");
        cc_check_each(buf, e, n, next_tag - 1, casename, "block");
      } else {
        good_write(fh, 0);
      }
      cc_expect_rc(ostio_close(&fh), 0, casename, "ostio_close");
    }
  free(buf);
}

int main(int argc, char **argv)
{
  static const char *const strategies[] = {"even", "independent", "auto", "aligned", "ost"};
  const char *all_env = getenv("OSTIO_TEST_ALL");
  /* Oversubscribed runs are slow: above 2 ranks, the argument checks (EINVAL)
   * run under even and independent only, the overlap checks under every
   * strategy (each has its own path to them). OSTIO_TEST_ALL=1: everything. */
  if (cc_init(&argc, &argv, "test_coll_errors", MAXR, &rank, &nprocs)) return 1;
  int full = nprocs <= 2 || (all_env && *all_env);
  int verbose = getenv("OSTIO_TEST_VERBOSE") && *getenv("OSTIO_TEST_VERBOSE");
  double t0 = MPI_Wtime();
  blk = (cc_blocks){BASE, STRIDE, LEN, 4 * nprocs, BASE + (int64_t)4 * nprocs * STRIDE + 1000};
  unsetenv("OSTIO_FAULT");
  unsetenv("OSTIO_HINTS");
  cc_watchdog(60, casename);
  cc_tmpdir(dir, sizeof dir, "collerrors");
  snprintf(path, sizeof path, "%s/file", dir);

  for (int s = 0; s < 5; s++) {
    ostio_file *fh = NULL;
    snprintf(casename, sizeof casename, "%s: create", strategies[s]);
    alarm(60);
    if (!xopen(strategies[s], MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) continue;
    if (rank == 0) cc_blocks_prefill(&blk, path); /* the sentinel everywhere */
    MPI_Barrier(COMM);
    good_write(fh, 1);
    for (int kind = 0; kind < NK; kind++)
      for (int wr = 1; wr >= 0; wr--)
        for (int all = 1; all >= 0; all--) {
          if ((kind == K_FH_NULL && !all) || (!all && nprocs == 1) ||
              (kind == K_OVL_CROSS && nprocs == 1))
            continue; /* a NULL handle has no communicator; one rank has no peer */
          if (!full && s >= 2 && kcode[kind] != OSTIO_EOVERLAP) continue;
          alarm(60);
          bad_call(fh, strategies[s], kind, wr, all);
        }
    snprintf(casename, sizeof casename, "%s: close", strategies[s]);
    cc_expect_rc(ostio_close(&fh), 0, casename, "ostio_close");
    if (verbose && rank == 0) fprintf(stderr, "# %-12s %6.2f s\n", strategies[s], MPI_Wtime() - t0);
  }
  alarm(120);
  access_errors();
  if (verbose && rank == 0) fprintf(stderr, "# access       %6.2f s\n", MPI_Wtime() - t0);
  open_errors();
  if (verbose && rank == 0) fprintf(stderr, "# open         %6.2f s\n", MPI_Wtime() - t0);
  {
    double v = 0;
    ostio_file *fh = NULL;
    snprintf(casename, sizeof casename, "ostio_stat_get of an unknown name");
    if (xopen("auto", MPI_MODE_RDONLY, &fh)) {
      CHECK(ostio_stat_get(fh, "no_such_counter", &v) == OSTIO_EINVAL && strstr(ostio_last_error(), "sys_writes"));
      cc_expect_rc(ostio_close(&fh), 0, casename, "ostio_close");
    }
  }
  alarm(0);
  return CC_FINISH();
}
