/* Collective I/O cases with the coverage of ROMIO's collective tests, part 2
 * (part 1 is test_coll_cases.c): more than 2 GiB in one call (1 and 2 ranks
 * only), statistics of the ost strategy, the auto rule, the independent
 * calls, EXCL and DELETE_ON_CLOSE. Every write is checked on disk with plain
 * pread and read back with ostio_read_all. OSTIO_TEST_VERBOSE=1 prints the
 * time of each section, OSTIO_TEST_ONLY=name,... runs only those. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collcase.h"

#define COMM MPI_COMM_WORLD
#define GIB ((int64_t)1 << 30)

static int rank, nprocs;

/* ---- 6. more than 2 GiB in one call (1 and 2 ranks only) ----------------- */
static void t_big(void)
{
  const char *what = "2 GiB + 12345 bytes in one write_all";
  const ostio_extent big[3] = {{GIB + 100, GIB}, {0, GIB}, {2 * GIB + 200, 12345}};
  const int64_t total = 2 * GIB + 12345, end = 2 * GIB + 200 + 12345;
  char path[720];
  ostio_file *fh = NULL;
  int writer = rank == nprocs - 1;
  uint8_t *buf = writer ? cc_pack(big, 3, 77) : NULL;
  CHECKF(!writer || buf, "%s: no memory for the buffer", what);
  size_t n = buf ? 3 : 0;
  cc_path("big", path, sizeof path);
  if (!cc_xopen("big", MPI_MODE_CREATE | MPI_MODE_RDWR,
                "striping_factor=4;striping_unit=1m;cb_config_list=*:*;ostio_strategy=ost", &fh, 0, what)) {
    free(buf);
    return;
  }
  int rc = ostio_write_all(fh, n ? big : NULL, n, buf);
  cc_expect_rc(rc, 0, what, "ostio_write_all");
  CHECKF(!strcmp(ostio_file_strategy(fh), "ost"), "%s: strategy %s", what, ostio_file_strategy(fh));
  if (buf) { /* stream the file back and compare with the buffer */
    int fd = open(path, O_RDONLY);
    int64_t pos = 0, bad = -1;
    uint8_t *chunk = malloc((size_t)CC_CHUNK);
    for (int i = 0; fd >= 0 && i < 3 && bad < 0; pos += big[i].length, i++)
      for (int64_t d = 0; d < big[i].length && bad < 0; d += CC_CHUNK) {
        int64_t c = big[i].length - d < CC_CHUNK ? big[i].length - d : CC_CHUNK;
        if (cc_pread_z(fd, chunk, c, big[i].offset + d) < 0 || memcmp(chunk, buf + pos + d, (size_t)c))
          bad = big[i].offset + d;
      }
    free(chunk);
    CHECKF(fd >= 0 && bad < 0, "%s: on disk the 4 MiB from %lld differ", what, (long long)bad);
    if (fd >= 0) {
      cc_disk_expect(fd, GIB, 100, CC_T_ZERO, what);
      cc_disk_expect(fd, 2 * GIB + 100, 100, CC_T_ZERO, what);
      close(fd);
    }
    struct stat sb;
    CHECKF(stat(path, &sb) == 0 && sb.st_size == end, "%s: size %lld", what, (long long)sb.st_size);
    memset(buf, 0, (size_t)total);
  }
  rc = ostio_read_all(fh, n ? big : NULL, n, buf);
  if (cc_expect_rc(rc, 0, what, "ostio_read_all") && buf) cc_check_buf(buf, big, 3, 77, what);
  free(buf);
  cc_expect_rc(ostio_close(&fh), 0, what, "ostio_close");
  if (rank == 0) unlink(path);
}

/* ---- 7. statistics: ost gives one object per aggregator, even does not ---- */
static void t_stats(void)
{
  ostio_extent e[64];
  size_t n = cc_cyclic(rank, nprocs, 8 * nprocs, 0, 3000, 3000, e);
  for (int k = 0; k < (nprocs > 1 ? 2 : 1); k++) { /* ost, then even */
    char h[256];
    cc_outcome o;
    snprintf(h, sizeof h, "striping_factor=%d;striping_unit=4096;cb_nodes=%d;cb_config_list=*:*;"
             "ostio_strategy=%s", nprocs, nprocs, k ? "even" : "ost");
    cc_wr_case(h, e, n, 0, k ? "even" : "ost", 0, &o);
    double omax = cc_reduce_d(o.objects_max, MPI_MAX), omin = cc_reduce_d(o.objects_max, MPI_MIN);
    double amin = cc_reduce_d(o.aggr_calls, MPI_MIN);
    CHECKF(k || (omin == 1 && omax == 1), "stats [%s]: objects_max %g..%g, expected 1", h, omin, omax);
    CHECKF(k || amin >= 1, "stats [%s]: a rank has aggr_calls %g", h, amin);
    CHECKF(!k || omax > 1, "stats [%s]: objects_max %g, expected more than 1", h, omax);
  }
}

/* ---- 8. the auto rule ------------------------------------------------------- */
static void t_auto(void)
{
  const char *hints = "striping_factor=4;striping_unit=4096;cb_config_list=*:*";
  ostio_extent e[64] = {{(int64_t)rank * 10000, 10000}};
  cc_outcome o;
  cc_wr_case(hints, e, 1, 0, NULL, 0, &o);
  CHECKF(!strcmp(o.strategy, "independent"), "auto, contiguous per rank: chose %s", o.strategy);
  if (nprocs < 2) return;
  size_t n = cc_cyclic(rank, nprocs, 40, 0, 1000, 1000, e);
  /* every rank of these tests is on one node: independent (docs/collective-auto.md, d') */
  cc_wr_case(hints, e, n, 0, NULL, 0, &o);
  CHECKF(!strcmp(o.strategy, "independent"), "auto, interleaved, one node: chose %s", o.strategy);
  /* ... unless collective buffering is asked for */
  cc_wr_case("striping_factor=4;striping_unit=4096;cb_config_list=*:*;romio_cb_write=enable", e, n,
             0, NULL, 0, &o);
  CHECKF(cc_is_coll(o.strategy), "auto, interleaved, romio_cb_write=enable: chose %s", o.strategy);
}

/* ---- 9. independent calls, sizes, sync ---------------------------------------- */
static void t_basic(void)
{
  const char *what = "independent calls";
  char path[720];
  ostio_file *fh = NULL;
  uint8_t b[1200];
  int64_t size = -1, want = (int64_t)(nprocs - 1) * 1000 + 805, me = (int64_t)rank * 1000 + 5;
  int64_t peer = (int64_t)((rank + 1) % nprocs) * 1000 + 5;
  struct stat sb;
  cc_path("basic", path, sizeof path);
  if (!cc_xopen("basic", MPI_MODE_CREATE | MPI_MODE_RDWR, "striping_factor=3;striping_unit=8192", &fh, 0, what))
    return;
  const ostio_layout *l = ostio_file_layout(fh);
  ostio_layout_component c = {0};
  CHECKF(l && ostio_layout_get_component(l, 0, &c) == 0 && c.stripe_count == 3 && c.stripe_size == 8192,
         "%s: new file layout %d x %lld, expected 3 x 8192", what, c.stripe_count, (long long)c.stripe_size);
  cc_fill(b, me, 800, 9);
  CHECK(ostio_write_at(fh, me, b, 800) == 0);
  cc_expect_rc(ostio_sync(fh), 0, what, "ostio_sync"); /* also a barrier */
  CHECKF(ostio_get_size(fh, &size) == 0 && size == want, "%s: size %lld", what, (long long)size);
  memset(b, 0, sizeof b);
  CHECK(ostio_read_at(fh, peer, b, 800) == 0 && cc_find(b, peer, 800, 9) < 0);
  CHECK(ostio_read_at(fh, want - 100, b, 300) == 0 && cc_find(b, want - 100, 100, 9) < 0 &&
        cc_find(b + 100, want, 200, CC_T_ZERO) < 0); /* zeros past EOF */
  for (int k = 0; k < 2; k++) { /* extend (zeros), then truncate */
    int64_t sz = k ? 300 : 50000;
    MPI_Barrier(COMM); /* everyone's reads are done */
    cc_expect_rc(ostio_set_size(fh, sz), 0, what, "ostio_set_size");
    CHECKF(ostio_get_size(fh, &size) == 0 && size == sz && stat(path, &sb) == 0 && sb.st_size == sz,
           "%s: size %lld (stat %lld) after set_size(%lld)", what, (long long)size,
           (long long)sb.st_size, (long long)sz);
    memset(b, 1, sizeof b);
    CHECK(ostio_read_at(fh, k ? 0 : 40000, b, k ? 400 : 1000) == 0);
    CHECK(k ? cc_find(b, 0, 5, CC_T_ZERO) < 0 && cc_find(b + 5, 5, 295, 9) < 0 &&
                  cc_find(b + 300, 300, 100, CC_T_ZERO) < 0
            : cc_find(b, 40000, 1000, CC_T_ZERO) < 0);
  }
  cc_expect_rc(ostio_set_size(fh, -1), OSTIO_EINVAL, what, "ostio_set_size(-1)");
  CHECK(ostio_write_at(fh, -1, b, 10) == OSTIO_EINVAL);
  CHECK(ostio_read_at(fh, 0, NULL, 10) == OSTIO_EINVAL);
  cc_expect_rc(ostio_close(&fh), 0, what, "ostio_close");
  if (rank == 0) unlink(path);
}

/* ---- 10. MPI_MODE_EXCL and MPI_MODE_DELETE_ON_CLOSE -------------------------- */
static void t_modes(void)
{
  const char *what = "EXCL / DELETE_ON_CLOSE";
  const int rw = MPI_MODE_RDWR, cx = MPI_MODE_CREATE | MPI_MODE_EXCL;
  char path[720];
  ostio_file *fh = NULL;
  cc_path("modes", path, sizeof path);
  if (cc_xopen("modes", cx | rw, NULL, &fh, 0, "EXCL of a new file")) ostio_close(&fh);
  cc_xopen("modes", cx | rw, NULL, &fh, OSTIO_EEXIST, "EXCL of an existing file");
  CHECKF(ostio_last_error()[0], "%s: no detail after EEXIST", what);
  cc_xopen("missing", MPI_MODE_RDONLY, NULL, &fh, OSTIO_ENOENT, "RDONLY of a missing file");
  if (cc_xopen("modes", rw | MPI_MODE_DELETE_ON_CLOSE, NULL, &fh, 0, what)) {
    ostio_extent e = {(int64_t)rank * 100, 100};
    uint8_t b[100];
    cc_fill(b, e.offset, 100, 5);
    cc_expect_rc(ostio_write_all(fh, &e, 1, b), 0, what, "ostio_write_all");
    cc_expect_rc(ostio_close(&fh), 0, what, "ostio_close");
  }
  MPI_Barrier(COMM);
  CHECKF(access(path, F_OK) != 0 && errno == ENOENT, "%s: the file is still there after close", what);
}

int main(int argc, char **argv)
{
  static const cc_section sec[] = {{"big", t_big, 2}, {"stats", t_stats, 64}, {"auto", t_auto, 64},
    {"basic", t_basic, 64}, {"modes", t_modes, 64}};
  cc_init(&argc, &argv, "test_coll_cases2", 0, &rank, &nprocs);
  return cc_run_sections(sec, sizeof sec / sizeof sec[0], __FILE__);
}
