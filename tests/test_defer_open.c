/* Deferred open (issue 30; docs/collective.md, "Deferred open"): on CephFS a
 * rank that merely holds a file open makes every client drop its cache, and
 * on Lustre an open costs the metadata server. A plain file is opened at
 * ostio_open only on the first aggregator; every other rank opens it at its
 * own first I/O. Counted here with an open() wrapper in this program
 * (opencount.c) and /proc/self/fd:
 *   - a strided 4 KiB collective write and read with cb_nodes=1 and an
 *     exchanging strategy (even: `auto` may do each rank's own I/O on one
 *     node, and then every rank opens, rightly): no rank but the aggregator
 *     ever opens the file; the bytes are checked and equal ROMIO's file
 *     written with the same hints;
 *   - sync, get_size and set_size do not open it either;
 *   - a striped container: its objects likewise (rank 0 opens them);
 *   - an independent call on a non-aggregator opens it then, and works;
 *     ostio_deferred_open=disable opens it on every rank at ostio_open;
 *   - a deferred open that fails (the file removed, or replaced by another
 *     file, after ostio_open): the independent call returns the error, a
 *     collective call returns it agreed on every rank, nothing hangs (a
 *     watchdog alarm turns a hang into a failure), and nothing is written
 *     to the file that took the name.
 * Run with 2 or more ranks on one node. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "colltest.h"
#include "opencount.h"
#include "ostio.h"
#include "testutil.h"

#define BLK 4096
#define PER_RANK 32

static int rank, nprocs;
static char dir[512];
static const char *current = "";

static void on_alarm(int sig)
{
  (void)sig;
  char msg[300];
  int n = snprintf(msg, sizeof msg, "FAIL rank %d: case \"%s\" did not finish in 60 s (hang)\n",
                   rank, current);
  if (write(2, msg, (size_t)n) < 0) _exit(3);
  _exit(3);
}

static void begin(const char *name)
{
  current = name;
  MPI_Barrier(MPI_COMM_WORLD);
  alarm(60);
}

/* The byte at file offset off, written by rank r. */
static unsigned char pat(int64_t off, int r) { return (unsigned char)(off * 7 + (off >> 12) + r * 31 + 1); }

/* Block i of the file belongs to rank i % nprocs; PER_RANK blocks each. */
static void extents_of(ostio_extent *e)
{
  for (int i = 0; i < PER_RANK; i++) e[i] = (ostio_extent){(int64_t)(i * nprocs + rank) * BLK, BLK};
}

static void fill(unsigned char *buf)
{
  for (int i = 0; i < PER_RANK; i++)
    for (int b = 0; b < BLK; b++) {
      int64_t off = (int64_t)(i * nprocs + rank) * BLK + b;
      buf[(size_t)i * BLK + (size_t)b] = pat(off, rank);
    }
}

static MPI_Info info_of(const char *spec)
{
  MPI_Info info = MPI_INFO_NULL;
  CHECK(ct_info(spec, &info) == 0);
  return info;
}

/* This rank's opens and held descriptors of path, checked on the ranks that
 * must not have opened it (every rank but 0, the first aggregator). */
static void none_but_root(const char *path, const char *when)
{
  if (rank == 0) return;
  CHECKF(oc_count() == 0, "rank %d opened %s %ld times by %s (want 0: not an aggregator)",
         rank, path, oc_count(), when);
  CHECKF(oc_held(path) == 0, "rank %d holds %s open after %s", rank, path, when);
}

static void test_collective(void)
{
  begin("collective write and read, cb_nodes=1");
  char path[600], romio[600];
  snprintf(path, sizeof path, "%s/coll.dat", dir);
  snprintf(romio, sizeof romio, "%s/romio.dat", dir);
  size_t n = (size_t)PER_RANK * BLK;
  unsigned char *buf = malloc(n), *back = malloc(n);
  ostio_extent e[PER_RANK];
  extents_of(e);
  fill(buf);
  MPI_Info info = info_of("cb_nodes=1 ostio_strategy=even");
  oc_watch(path);
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  CHECKF(rc == 0, "open: %s", ostio_last_error());
  none_but_root(path, "ostio_open");
  if (rc == 0) {
    CHECKF((rc = ostio_write_all(fh, e, PER_RANK, buf)) == 0, "write_all: %s", ostio_last_error());
    none_but_root(path, "ostio_write_all");
    memset(back, 0, n);
    CHECKF((rc = ostio_read_all(fh, e, PER_RANK, back)) == 0, "read_all: %s", ostio_last_error());
    CHECK(memcmp(back, buf, n) == 0);
    none_but_root(path, "ostio_read_all");
    CHECKF(ostio_sync(fh) == 0, "sync: %s", ostio_last_error());
    int64_t size = -1;
    CHECKF(ostio_get_size(fh, &size) == 0, "get_size: %s", ostio_last_error());
    CHECK_EQ_I64(size, (int64_t)n * nprocs);
    none_but_root(path, "ostio_sync and ostio_get_size");
    /* Grown by one block and back: set_size is served by the opener. */
    CHECKF(ostio_set_size(fh, (int64_t)(n * (size_t)nprocs + BLK)) == 0, "set_size: %s", ostio_last_error());
    CHECK(ostio_get_size(fh, &size) == 0 && size == (int64_t)(n * (size_t)nprocs + BLK));
    CHECKF(ostio_set_size(fh, (int64_t)(n * (size_t)nprocs)) == 0, "set_size: %s", ostio_last_error());
    none_but_root(path, "ostio_set_size");
    CHECKF(ostio_close(&fh) == 0, "close: %s", ostio_last_error());
    none_but_root(path, "ostio_close");
    if (rank == 0) CHECKF(oc_count() >= 1, "rank 0 (the aggregator) opened %s %ld times", path, oc_count());
  }
  oc_watch(NULL);
  /* ROMIO with the same hints (this program calls MPICH's own MPI-IO). */
  MPI_File mf;
  MPI_Aint offs[PER_RANK];
  int ok = MPI_File_open(MPI_COMM_WORLD, romio, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &mf) == MPI_SUCCESS;
  for (int i = 0; ok && i < PER_RANK; i++) offs[i] = (MPI_Aint)e[i].offset;
  MPI_Datatype ft = MPI_DATATYPE_NULL;
  int lens[PER_RANK];
  for (int i = 0; i < PER_RANK; i++) lens[i] = BLK;
  if (ok) {
    MPI_Type_create_hindexed(PER_RANK, lens, offs, MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    MPI_File_set_view(mf, 0, MPI_BYTE, ft, "native", info);
    ok = MPI_File_write_all(mf, buf, (int)n, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    MPI_File_close(&mf);
    MPI_Type_free(&ft);
  }
  CHECK(ok);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    FILE *a = fopen(path, "rb"), *b = fopen(romio, "rb");
    size_t total = n * (size_t)nprocs, same = 0, good = 0, got_a = 0, got_b = 0;
    unsigned char *x = malloc(total + 1), *y = malloc(total + 1);
    if (a && b && x && y) {
      got_a = fread(x, 1, total + 1, a);
      got_b = fread(y, 1, total + 1, b);
      for (size_t i = 0; i < total && i < got_a && i < got_b; i++) {
        same += x[i] == y[i];
        good += x[i] == pat((int64_t)i, (int)((i / BLK) % (size_t)nprocs));
      }
    }
    CHECKF(got_a == total && got_b == total, "sizes: ostio %zu, ROMIO %zu, want %zu", got_a, got_b, total);
    CHECKF(same == total && good == total, "bytes equal to ROMIO's %zu, as written %zu, of %zu", same, good, total);
    if (a) fclose(a);
    if (b) fclose(b);
    free(x);
    free(y);
  }
  MPI_Info_free(&info);
  free(buf);
  free(back);
}

static void test_independent(void)
{
  begin("independent call on a non-aggregator");
  char path[600];
  snprintf(path, sizeof path, "%s/indep.dat", dir);
  MPI_Info info = info_of("cb_nodes=1");
  oc_watch(path);
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  CHECKF(rc == 0, "open: %s", ostio_last_error());
  none_but_root(path, "ostio_open");
  unsigned char mine[BLK], got[BLK];
  for (int b = 0; b < BLK; b++) mine[b] = pat((int64_t)rank * BLK + b, rank);
  if (rc == 0) {
    CHECKF(ostio_write_at(fh, (int64_t)rank * BLK, mine, BLK) == 0, "write_at: %s", ostio_last_error());
    CHECKF(oc_count() >= 1 && oc_held(path) == 1, "rank %d: %ld opens, %d held after write_at",
           rank, oc_count(), oc_held(path));
    memset(got, 0, sizeof got);
    CHECK(ostio_read_at(fh, (int64_t)rank * BLK, got, BLK) == 0 && !memcmp(got, mine, BLK));
    CHECK(ostio_sync(fh) == 0);
    /* Every rank's block, read by rank 0. */
    for (int r = 0; rank == 0 && r < nprocs; r++) {
      CHECK(ostio_read_at(fh, (int64_t)r * BLK, got, BLK) == 0);
      int ok = 1;
      for (int b = 0; b < BLK; b++) ok = ok && got[b] == pat((int64_t)r * BLK + b, r);
      CHECKF(ok, "rank %d's block reads other bytes", r);
    }
    CHECK(ostio_close(&fh) == 0);
  }
  MPI_Info_free(&info);
  /* disable: every rank opens at ostio_open, as before. */
  info = info_of("cb_nodes=1 ostio_deferred_open=disable");
  oc_watch(path);
  rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
  CHECKF(rc == 0, "open (disable): %s", ostio_last_error());
  CHECKF(oc_count() >= 1 && oc_held(path) == 1, "ostio_deferred_open=disable: rank %d opened "
         "%ld times, holds %d", rank, oc_count(), oc_held(path));
  if (rc == 0) CHECK(ostio_close(&fh) == 0);
  oc_watch(NULL);
  MPI_Info_free(&info);
  /* A bad value names the accepted ones. */
  info = info_of("ostio_deferred_open=sometimes");
  rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &fh);
  CHECKF(rc == OSTIO_EHINT && strstr(ostio_last_error(), "automatic"), "bad value: %d %s", rc,
         ostio_last_error());
  MPI_Info_free(&info);
}

/* A striped container of 2 objects, stripe 64 KiB: the same collective write
 * and read; no rank but 0 opens obj.0000 until its own write_at. */
static void test_striped(void)
{
  begin("striped container, cb_nodes=1");
  char path[600];
  snprintf(path, sizeof path, "%s/striped.ctr", dir);
  size_t n = (size_t)PER_RANK * BLK;
  unsigned char *buf = malloc(n), *back = malloc(n);
  ostio_extent e[PER_RANK];
  extents_of(e);
  fill(buf);
  MPI_Info info = info_of("cb_nodes=1 ostio_strategy=even ostio_container=striped ostio_objects=2 striping_unit=65536");
  oc_watch("obj.0000");
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  CHECKF(rc == 0, "open: %s", ostio_last_error());
  char obj[700];
  snprintf(obj, sizeof obj, "%s/obj.0000", path);
  none_but_root(obj, "ostio_open");
  if (rc == 0) {
    CHECKF(ostio_write_all(fh, e, PER_RANK, buf) == 0, "write_all: %s", ostio_last_error());
    memset(back, 0, n);
    CHECKF(ostio_read_all(fh, e, PER_RANK, back) == 0, "read_all: %s", ostio_last_error());
    CHECK(memcmp(back, buf, n) == 0);
    CHECK(ostio_sync(fh) == 0);
    int64_t size = -1;
    CHECKF(ostio_get_size(fh, &size) == 0, "get_size: %s", ostio_last_error());
    CHECK_EQ_I64(size, (int64_t)n * nprocs);
    none_but_root(obj, "the collective calls, sync and get_size");
    /* An independent read on every rank: the late open, then the bytes. */
    memset(back, 0, BLK);
    CHECK(ostio_read_at(fh, e[1].offset, back, BLK) == 0 && !memcmp(back, buf + BLK, BLK));
    CHECKF(oc_held(obj) == 1, "rank %d holds obj.0000 %d times after read_at", rank, oc_held(obj));
    CHECKF(ostio_close(&fh) == 0, "close: %s", ostio_last_error());
  }
  oc_watch(NULL);
  MPI_Info_free(&info);
  free(buf);
  free(back);
}

/* The file is removed (or replaced) after ostio_open; rank 0 still holds
 * the one it opened. */
static void test_failed_open(int replace)
{
  begin(replace ? "deferred open finds another file" : "deferred open finds no file");
  char path[600], other[600];
  snprintf(path, sizeof path, "%s/gone%d.dat", dir, replace);
  oc_watch(path);
  snprintf(other, sizeof other, "%s/other%d.dat", dir, replace);
  /* Every rank may aggregate: the collective below needs rank 1's I/O. */
  MPI_Info info = info_of("cb_nodes=64");
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  CHECKF(rc == 0, "open: %s", ostio_last_error());
  MPI_Info_free(&info);
  if (rc != 0) return;
  none_but_root(path, "ostio_open");
  if (rank == 0) {
    if (replace) {
      FILE *f = fopen(other, "wb");
      CHECK(f && fputs("someone else's", f) >= 0 && fclose(f) == 0);
      CHECK(rename(other, path) == 0);
    } else {
      CHECK(unlink(path) == 0);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  unsigned char b[BLK];
  memset(b, 0xab, sizeof b);
  if (rank != 0) {
    rc = ostio_write_at(fh, 0, b, BLK);
    CHECKF(rc == (replace ? OSTIO_EIO : OSTIO_ENOENT), "rank %d: write_at after the file was %s: "
           "%d (%s)", rank, replace ? "replaced" : "removed", rc, ostio_last_error());
    CHECKF(strstr(ostio_last_error(), "deferred open"), "detail: %s", ostio_last_error());
    rc = ostio_read_at(fh, 0, b, BLK);
    CHECKF(rc < 0, "read_at after a failed deferred open: %d", rc);
  }
  /* Rank 1 does I/O in this one: the failure is agreed, no hang. */
  ostio_extent e = {(int64_t)rank * BLK, BLK};
  rc = ostio_write_all(fh, &e, 1, b);
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  CHECKF(nprocs == 1 || (rc < 0 && rc == worst), "rank %d: write_all %d, worst %d (%s)", rank, rc,
         worst, ostio_last_error());
  CHECKF(ostio_close(&fh) == 0, "close: %s", ostio_last_error());
  if (replace && rank == 0) {
    char text[64] = "";
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(text, 1, sizeof text - 1, f) : 0;
    if (f) fclose(f);
    CHECKF(got == 14 && !memcmp(text, "someone else's", 14), "the file that took the name was "
           "written: %zu bytes", got);
  }
}

int main(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  MPI_Init(NULL, NULL);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  signal(SIGALRM, on_alarm);
  if (ct_tmpdir(MPI_COMM_WORLD, dir, sizeof dir, "defer") < 0) {
    if (rank == 0) fprintf(stderr, "no temporary directory\n");
    MPI_Finalize();
    return 1;
  }
  test_collective();
  test_independent();
  test_striped();
  test_failed_open(0);
  test_failed_open(1);
  alarm(0);
  ct_rmtree(MPI_COMM_WORLD, dir);
  int st = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return st;
}
