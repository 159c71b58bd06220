/* Settled handles (issue 29; docs/collective-auto.md "Settled handles",
 * docs/errors.md): IOR's shape -- each rank one contiguous block per
 * ostio_write_all, ranks' spans side by side -- through `auto` costs MPI
 * collectives only in the first OSTIO__SETTLE_AFTER calls of a direction
 * and in every OSTIO__SETTLE_EVERY-th collective call of the handle; every
 * other call makes none (counted by the MPI collectives this program
 * defines, which forward to PMPI_*). The bytes read back and on disk name
 * their writer and call. Interleaved calls after settling still write the
 * right bytes, and the next re-agreement notices them: from then on every
 * call is agreed. An I/O error injected on one rank in a skipped call is
 * returned there at once, every rank goes on without a hang, and the next
 * agreement (ostio_sync; or the next re-agreed call, which then moves no
 * byte) returns it on every rank. A bad argument on one rank in a skipped
 * call fails that rank's call only and is not carried. Any rank count. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine/engine.h"
#include "ostio.h"
#include "testutil.h"

#define COMM MPI_COMM_WORLD
#define BLK 4096
#define K OSTIO__SETTLE_AFTER
#define N OSTIO__SETTLE_EVERY

static int rank, nprocs;
static int counting;
static long ncoll;

static void count(void)
{
  if (counting) ncoll++;
}

#define EXPORT __attribute__((visibility("default")))
EXPORT int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c)
{
  count();
  return PMPI_Allreduce(s, r, n, t, op, c);
}
EXPORT int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                         MPI_Datatype rt, MPI_Comm c)
{
  count();
  return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
EXPORT int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c)
{
  count();
  return PMPI_Bcast(b, n, t, root, c);
}
EXPORT int MPI_Barrier(MPI_Comm c)
{
  count();
  return PMPI_Barrier(c);
}
EXPORT int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn,
                        MPI_Datatype rt, MPI_Comm c)
{
  count();
  return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}
EXPORT int MPI_Alltoallv(const void *s, const int *sc, const int *sd, MPI_Datatype st, void *r,
                         const int *rc, const int *rd, MPI_Datatype rt, MPI_Comm c)
{
  count();
  return PMPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, c);
}

static unsigned char pat(int64_t off) { return (unsigned char)(off * 7 + off / BLK * 13 + 1); }

static void fill(unsigned char *b, int64_t off, size_t len)
{
  for (size_t j = 0; j < len; j++) b[j] = pat(off + (int64_t)j);
}

/* IOR's shape: call i writes block i * nprocs + rank. */
static int64_t ior_at(int i) { return ((int64_t)i * nprocs + rank) * BLK; }

static int open_(const char *path, int amode, const char *fault, ostio_file **fh)
{
  if (fault) setenv("OSTIO_FAULT", fault, 1);
  int rc = ostio_open(COMM, path, amode, MPI_INFO_NULL, fh);
  unsetenv("OSTIO_FAULT");
  CHECKF(rc == 0, "open %s: %s", path, ostio_last_error());
  return rc;
}

/* One collective call of len bytes at off (n extents of BLK from off,
 * each stride apart); returns its code and sets *cost to the collectives
 * it made. */
static int call(ostio_file *fh, int is_write, const int64_t *offs, size_t n, long *cost)
{
  ostio_extent e[4];
  unsigned char buf[4 * BLK];
  for (size_t j = 0; j < n; j++) {
    e[j] = (ostio_extent){offs[j], BLK};
    if (is_write) fill(buf + j * BLK, offs[j], BLK);
  }
  ncoll = 0;
  counting = 1;
  int rc = is_write ? ostio_write_all(fh, e, n, buf) : ostio_read_all(fh, e, n, buf);
  counting = 0;
  *cost = ncoll;
  if (!is_write && rc == 0)
    for (size_t j = 0; j < n; j++) {
      unsigned char want[BLK];
      fill(want, offs[j], BLK);
      CHECKF(memcmp(buf + j * BLK, want, BLK) == 0, "rank %d: read at %lld: wrong bytes",
             rank, (long long)offs[j]);
    }
  return rc;
}

/* Whether the h-th collective call of a handle (1-based) is agreed, when
 * the calls of its direction so far were all eligible; first is the
 * handle's call number of this direction's first call. */
static int agreed(int h, int first) { return h < first + K || h % N == 0; }

/* Write then read NC ior-shaped calls; count the collectives of each. */
static void settle_case(const char *path)
{
  const int NC = 2 * N + 8;
  ostio_file *fh = NULL;
  if (open_(path, MPI_MODE_CREATE | MPI_MODE_RDWR, NULL, &fh) != 0) return;
  int h = 0, bad = 0;
  for (int dir = 1; dir >= 0; dir--) {
    int first = h + 1;
    for (int i = 0; i < NC; i++) {
      long cost = 0;
      int64_t off = ior_at(i);
      CHECK(call(fh, dir, &off, 1, &cost) == 0);
      h++;
      int want = agreed(h, first);
      if (want ? cost == 0 : cost != 0) {
        if (bad++ < 5)
          CHECKF(0, "rank %d, %s call %d (handle call %d): %ld collectives, expected %s", rank,
                 dir ? "write" : "read", i, h, cost, want ? "> 0 (agreed)" : "0 (settled)");
      }
    }
  }
  CHECKF(bad == 0, "rank %d: %d calls with the wrong collective count", rank, bad);
  CHECK(strcmp(ostio_file_strategy(fh), "independent") == 0);
  double v = 0;
  CHECK(ostio_stat_get(fh, "coll_writes", &v) == 0);
  CHECK_EQ_I64((int64_t)v, NC);
  CHECK(ostio_close(&fh) == 0);
  /* The bytes on disk, by plain reads. */
  MPI_Barrier(COMM);
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  for (int i = 0; fd >= 0 && i < NC; i++) {
    unsigned char got[BLK], want[BLK];
    CHECK(pread(fd, got, BLK, ior_at(i)) == BLK);
    fill(want, ior_at(i), BLK);
    CHECKF(memcmp(got, want, BLK) == 0, "rank %d: block of call %d on disk is wrong", rank, i);
  }
  if (fd >= 0) close(fd);
}

/* Settle, then interleaved calls (two blocks per rank: i*2P + rank and
 * i*2P + P + rank) across the next re-agreement: skipped until it, agreed
 * from it on; all bytes right. */
static void change_case(const char *path)
{
  ostio_file *fh = NULL;
  if (open_(path, MPI_MODE_CREATE | MPI_MODE_RDWR, NULL, &fh) != 0) return;
  int h = 0;
  long cost = 0;
  for (int i = 0; i < N - 3; i++, h++) {
    int64_t off = ior_at(i);
    CHECK(call(fh, 1, &off, 1, &cost) == 0);
  }
  int64_t base = (int64_t)N * nprocs * BLK;
  for (int i = 0; i < 8; i++) {
    int64_t offs[2] = {base + ((int64_t)i * 2 * nprocs + rank) * BLK,
                       base + ((int64_t)i * 2 * nprocs + nprocs + rank) * BLK};
    CHECK(call(fh, 1, offs, 2, &cost) == 0);
    h++;
    /* h = N - 2, N - 1: settled; N: re-agreed (notices); then agreed. One
     * rank's blocks never interleave: it stays settled. */
    int want = nprocs > 1 ? h >= N : h % N == 0;
    CHECKF(want ? cost > 0 : cost == 0, "rank %d: interleaved call %d (handle call %d): %ld "
           "collectives, expected %s", rank, i, h, cost, want ? "> 0" : "0");
  }
  for (int i = 0; i < 8; i++) {
    int64_t offs[2] = {base + ((int64_t)i * 2 * nprocs + rank) * BLK,
                       base + ((int64_t)i * 2 * nprocs + nprocs + rank) * BLK};
    CHECK(call(fh, 0, offs, 2, &cost) == 0);
  }
  for (int i = 0; i < N - 3; i++) {
    int64_t off = ior_at(i);
    CHECK(call(fh, 0, &off, 1, &cost) == 0);
  }
  CHECK(ostio_close(&fh) == 0);
}

/* A write error injected on rank R in a skipped call (its own K + 3-th
 * system write, one per call). by_sync: ostio_sync reports it on every
 * rank; else the next re-agreed call (handle call N) does, and moves no
 * byte. Then the handle works again. */
static void error_case(const char *path, int R, int by_sync)
{
  char spec[64];
  snprintf(spec, sizeof spec, "write:%d:%d:EIO", R, K + 3);
  ostio_file *fh = NULL;
  if (open_(path, MPI_MODE_CREATE | MPI_MODE_RDWR, spec, &fh) != 0) return;
  long cost = 0;
  int h = 0;
  for (int i = 0; i < K + 3; i++) {
    int64_t off = ior_at(i);
    int rc = call(fh, 1, &off, 1, &cost);
    h++;
    int fails = rank == R && i == K + 2;
    CHECKF(fails ? rc == OSTIO_EIO : rc == 0, "rank %d, call %d: rc %d (%s)", rank, i, rc,
           ostio_last_error());
    if (i == K + 2) CHECKF(cost == 0, "rank %d: the failing call was not skipped", rank);
  }
  int rc = 0;
  if (by_sync) {
    rc = ostio_sync(fh);
    CHECKF(rc == OSTIO_EIO, "rank %d: ostio_sync gave %d, expected OSTIO_EIO", rank, rc);
  } else {
    for (int i = K + 3; h < N - 1; i++, h++) {
      int64_t off = ior_at(i);
      CHECK(call(fh, 1, &off, 1, &cost) == 0);
    }
    int64_t off = ior_at(N - 1); /* handle call N: re-agreed, fails, writes nothing */
    rc = call(fh, 1, &off, 1, &cost);
    h++;
    CHECKF(rc == OSTIO_EIO, "rank %d: re-agreed call gave %d, expected OSTIO_EIO", rank, rc);
    CHECK(cost > 0);
    CHECK(strstr(ostio_last_error(), "earlier collective call") != NULL);
  }
  int64_t off = ior_at(N + 1);
  CHECK(call(fh, 1, &off, 1, &cost) == 0);
  CHECK(cost > 0); /* agreed again after the error */
  CHECK(ostio_close(&fh) == 0);
  MPI_Barrier(COMM);
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  unsigned char got[BLK], want[BLK], zero[BLK] = {0};
  if (fd >= 0) {
    /* rank R's failed block is a hole; in the re-agreement case, no rank's
     * block of that call reached the file */
    int64_t at = ((int64_t)(K + 2) * nprocs + R) * BLK;
    CHECK(pread(fd, got, BLK, at) == BLK);
    CHECK(memcmp(got, zero, BLK) == 0);
    if (!by_sync) {
      CHECK(pread(fd, got, BLK, ior_at(N - 1)) == BLK);
      CHECK(memcmp(got, zero, BLK) == 0);
    }
    at = ior_at(N + 1);
    CHECK(pread(fd, got, BLK, at) == BLK);
    fill(want, at, BLK);
    CHECK(memcmp(got, want, BLK) == 0);
    close(fd);
  }
}

/* A bad argument on the last rank in a skipped call: that rank's call
 * fails with OSTIO_EINVAL and moves nothing, the others write theirs, no
 * rank hangs, and the error is not carried: ostio_sync returns 0. */
static void arg_case(const char *path)
{
  ostio_file *fh = NULL;
  if (open_(path, MPI_MODE_CREATE | MPI_MODE_RDWR, NULL, &fh) != 0) return;
  long cost = 0;
  for (int i = 0; i < K; i++) {
    int64_t off = ior_at(i);
    CHECK(call(fh, 1, &off, 1, &cost) == 0);
  }
  unsigned char buf[BLK];
  fill(buf, ior_at(K), BLK);
  ostio_extent e = {ior_at(K), rank == nprocs - 1 ? -1 : BLK};
  ncoll = 0;
  counting = 1;
  int rc = ostio_write_all(fh, &e, 1, buf);
  counting = 0;
  CHECK_EQ_I64(ncoll, 0);
  CHECKF(rank == nprocs - 1 ? rc == OSTIO_EINVAL : rc == 0, "rank %d: bad-argument call gave "
         "%d (%s)", rank, rc, ostio_last_error());
  CHECK(ostio_sync(fh) == 0);
  CHECK(ostio_close(&fh) == 0);
  MPI_Barrier(COMM);
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  unsigned char got[BLK], want[BLK];
  for (int r = 0; fd >= 0 && r < nprocs; r++) {
    int64_t at = ((int64_t)K * nprocs + r) * BLK;
    ssize_t g = pread(fd, got, BLK, at);
    if (r == nprocs - 1) {
      CHECKF(g == 0, "rank %d: the bad rank's block exists (%zd bytes)", rank, g);
    } else {
      fill(want, at, BLK);
      CHECK(g == BLK && memcmp(got, want, BLK) == 0);
    }
  }
  if (fd >= 0) close(fd);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &nprocs);
  char dir[512] = "";
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "settle") != 0) dir[0] = '\0';
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, COMM);
  char path[600];
  snprintf(path, sizeof path, "%s/ior", dir);
  settle_case(path);
  snprintf(path, sizeof path, "%s/change", dir);
  change_case(path);
  snprintf(path, sizeof path, "%s/arg", dir);
  arg_case(path);
  for (int R = 0; R < nprocs; R++)
    for (int by_sync = 0; by_sync < 2; by_sync++) {
      snprintf(path, sizeof path, "%s/err%d_%d", dir, R, by_sync);
      error_case(path, R, by_sync);
    }
  MPI_Barrier(COMM);
  if (rank == 0) tu_rmtree(dir);
  int rc = tu_done_mpi(COMM, "", __FILE__);
  MPI_Finalize();
  return rc;
}
