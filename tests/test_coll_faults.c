/* Injected I/O faults (OSTIO_FAULT) in collective calls: for every strategy
 * and every rank R, the first system write (read) of rank R fails. The call
 * returns the same code on every rank without hanging, exactly one fault
 * fired, bytes no rank named keep their sentinel, and the next call on the
 * same handle works with the right bytes. `short` succeeds with the right
 * bytes; `stuck` is OSTIO_EIO everywhere. Every rank does system I/O in each
 * call: cb_nodes = nprocs, stripe_count = nprocs and data in every domain. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ostio.h"
#include "testutil.h"

#define COMM MPI_COMM_WORLD
#define SENT 0xA5
#define T_SENT 0u              /* tags: sentinel, zeros, any bytes, else data */
#define T_ZERO 1u
#define T_ANY 2u
#define BASE 37                /* blocks of LEN bytes every STRIDE bytes,  */
#define STRIDE 5000            /* block i belongs to rank i % nprocs       */
#define LEN 4700
#define MAXB 64

static int rank, nprocs;
static char dir[512];
static char casename[160];
static int64_t region;         /* bytes pre-filled with the sentinel       */

/* ---- data pattern (the same encoding as test_coll_cases) ---------------- */
static uint64_t pword(int64_t w, uint32_t tag)
{
  uint64_t x = (uint64_t)w * 0x9E3779B97F4A7C15ull ^ ((uint64_t)tag * 0xBF58476D1CE4E5B9ull);
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  return x ^ (x >> 29);
}
static void efill(uint8_t *b, int64_t off, int64_t len, uint32_t tag)
{
  if (tag <= T_ANY) {
    memset(b, tag == T_SENT ? SENT : 0, (size_t)len);
    return;
  }
  int64_t i = 0; /* byte k of a word is bits 8k..8k+7 of its hash */
  for (; i < len && ((off + i) & 7); i++) b[i] = (uint8_t)(pword((off + i) >> 3, tag) >> (8 * ((off + i) & 7)));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  for (uint64_t x; i + 8 <= len; i += 8) x = pword((off + i) >> 3, tag), memcpy(b + i, &x, 8);
#endif
  for (; i < len; i++) b[i] = (uint8_t)(pword((off + i) >> 3, tag) >> (8 * ((off + i) & 7)));
}
/* First byte of b[0..len) that is not what tag puts at off, or -1. */
static int64_t efind(const uint8_t *b, int64_t off, int64_t len, uint32_t tag)
{
  static uint8_t e[STRIDE];
  if (tag == T_ANY) return -1;
  for (int64_t i = 0; i < len; i += STRIDE) {
    int64_t c = len - i < STRIDE ? len - i : STRIDE;
    efill(e, off + i, c, tag);
    for (int64_t j = 0; j < c; j++)
      if (b[i + j] != e[j]) return i + j;
  }
  return -1;
}

static size_t pattern(int r, ostio_extent *e)
{
  size_t n = 0;
  for (int i = r; i < 6 * nprocs; i += nprocs) e[n++] = (ostio_extent){BASE + (int64_t)i * STRIDE, LEN};
  return n;
}
static uint8_t *pack(const ostio_extent *e, size_t n, uint32_t tag)
{
  uint8_t *b = malloc(n * LEN + 1);
  for (size_t i = 0; b && i < n; i++) efill(b + i * LEN, e[i].offset, e[i].length, tag);
  return b;
}

/* Rank 0: the whole region on disk; data blocks hold tag, holes the sentinel. */
static void check_file(const char *path, uint32_t tag, const char *when)
{
  static uint8_t b[6 * 64 * STRIDE + BASE + STRIDE];
  int fd = open(path, O_RDONLY);
  ssize_t got = fd >= 0 ? pread(fd, b, (size_t)region, 0) : -1;
  if (fd >= 0) close(fd);
  if (!CHECKF(got == region, "%s %s: read %zd of %lld bytes", casename, when, got, (long long)region))
    return;
  for (int64_t pos = 0; pos < region;) {
    int64_t k = pos < BASE ? -1 : (pos - BASE) / STRIDE, bs = BASE + k * STRIDE;
    int data = k >= 0 && k < 6 * nprocs && pos < bs + LEN;
    int64_t next = k < 0 ? BASE : data ? bs + LEN : bs + STRIDE;
    if (next > region) next = region;
    int64_t bad = efind(b + pos, pos, next - pos, data ? tag : T_SENT);
    if (bad >= 0) {
      CHECKF(0, "%s %s: byte %lld is 0x%02x (%s expected)", casename, when, (long long)(pos + bad),
             b[pos + bad], data ? "data" : "sentinel");
      return;
    }
    pos = next;
  }
  CHECK(1);
}
static void prefill(const char *path)
{
  static uint8_t b[6 * 64 * STRIDE + BASE + STRIDE];
  memset(b, SENT, (size_t)region);
  int fd = open(path, O_WRONLY);
  CHECK(fd >= 0 && pwrite(fd, b, (size_t)region, 0) == region && ftruncate(fd, region) == 0);
  if (fd >= 0) close(fd);
}

/* ---- MPI helpers ------------------------------------------------------------ */
static int all_ok(int ok)
{
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, COMM);
  return ok;
}
static int expect_rc(int rc, int want, const char *call)
{
  int v[2] = {rc, -rc}; /* one reduction: the smallest and the largest code */
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MIN, COMM);
  int lo = v[0], hi = -v[1];
  CHECKF(lo == hi, "%s: %s returned different codes over ranks (%s..%s)", casename, call,
         ostio_errname(lo), ostio_errname(hi));
  return CHECKF(rc == want, "%s: %s gave %s, expected %s (%s)", casename, call, ostio_errname(rc),
                ostio_errname(want), ostio_last_error()) && lo == hi;
}
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
  MPI_Info info;
  MPI_Info_create(&info);
  snprintf(hints, sizeof hints, "%d", nprocs);
  MPI_Info_set(info, "striping_factor", hints);
  MPI_Info_set(info, "cb_nodes", hints);
  MPI_Info_set(info, "striping_unit", "4096");
  MPI_Info_set(info, "cb_config_list", "*:*");
  MPI_Info_set(info, "romio_cb_write", "enable");
  MPI_Info_set(info, "romio_cb_read", "enable");
  MPI_Info_set(info, "ostio_strategy", strategy);
  if (spec) setenv("OSTIO_FAULT", spec, 1);
  int rc = ostio_open(COMM, path, MPI_MODE_RDWR | (create ? MPI_MODE_CREATE : 0), info, fh);
  unsetenv("OSTIO_FAULT");
  MPI_Info_free(&info);
  int ok = expect_rc(rc, 0, "ostio_open");
  if (all_ok(ok && *fh)) return 1;
  if (*fh) ostio_close(fh);
  return 0;
}

static void on_alarm(int sig)
{
  char m[256];
  (void)sig;
  int len = snprintf(m, sizeof m, "test_coll_faults: rank %d stuck for 60 s in case: %s\n", rank, casename);
  if (write(2, m, (size_t)len)) {}
  _exit(3);
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
  uint8_t *good = pack(e, n, tag), *buf = calloc(n * LEN + 1, 1);
  if (wfault) {
    snprintf(casename, sizeof casename, "%s write:%d:1:%s", strategy, R, wfault);
    snprintf(spec, sizeof spec, "write:%d:1:%s", R, wfault);
    alarm(60);
    if (rank == 0) prefill(path);
    MPI_Barrier(COMM);
    if (fopen_(path, strategy, spec, 0, &fh)) {
      uint8_t *other = pack(e, n, tag + 1);
      expect_rc(ostio_write_all(fh, e, n, other), wrc, "first write_all");
      free(other);
      int fired = faults_fired(fh);
      CHECKF(fired == 1, "%s: %d faults fired, expected 1", casename, fired);
      if (rank == 0) check_file(path, wrc ? T_ANY : tag + 1, "after the first call");
      expect_rc(ostio_write_all(fh, e, n, good), 0, "next write_all");
      CHECKF(!strcmp(ostio_file_strategy(fh), strategy), "%s: strategy %s", casename,
             ostio_file_strategy(fh));
      if (rank == 0) check_file(path, tag, "after the next call");
      expect_rc(ostio_close(&fh), 0, "ostio_close");
    }
  }
  if (rfault) {
    snprintf(casename, sizeof casename, "%s read:%d:1:%s", strategy, R, rfault);
    snprintf(spec, sizeof spec, "read:%d:1:%s", R, rfault);
    alarm(60);
    if (!wfault && fopen_(path, strategy, NULL, 0, &fh)) { /* lay down tag's bytes */
      expect_rc(ostio_write_all(fh, e, n, good), 0, "write_all before reads");
      expect_rc(ostio_close(&fh), 0, "ostio_close");
    }
    if (fopen_(path, strategy, spec, 0, &fh)) {
      int rc = ostio_read_all(fh, e, n, buf);
      if (expect_rc(rc, rrc, "first read_all") && rc == 0)
        for (size_t i = 0; i < n; i++)
          CHECKF(efind(buf + i * LEN, e[i].offset, LEN, tag) < 0, "%s: bytes of block at %lld",
                 casename, (long long)e[i].offset);
      int fired = faults_fired(fh);
      CHECKF(fired == 1, "%s: %d faults fired, expected 1", casename, fired);
      memset(buf, 0, n * LEN);
      expect_rc(ostio_read_all(fh, e, n, buf), 0, "next read_all");
      CHECKF(!memcmp(buf, good, n * LEN), "%s: next read_all gave wrong bytes", casename);
      expect_rc(ostio_close(&fh), 0, "ostio_close");
    }
  }
  alarm(0);
  free(good), free(buf);
}

int main(int argc, char **argv)
{
  static const char *const strategies[] = {"even", "aligned", "ost", "independent"};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &nprocs);
  if (nprocs > 64) { /* the static buffers hold 64 ranks' blocks */
    if (rank == 0) printf("test_coll_faults: at most 64 ranks\n");
    MPI_Finalize();
    return 1;
  }
  region = BASE + (int64_t)6 * nprocs * STRIDE + 500;
  unsetenv("OSTIO_FAULT");
  signal(SIGALRM, on_alarm);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "collfaults") < 0) perror("mkdtemp");
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, COMM);
  for (int s = 0; s < 4; s++) {
    char path[700];
    ostio_file *fh = NULL;
    snprintf(path, sizeof path, "%s/faults-%s", dir, strategies[s]);
    snprintf(casename, sizeof casename, "%s create", strategies[s]);
    if (!fopen_(path, strategies[s], NULL, 1, &fh)) continue;
    expect_rc(ostio_close(&fh), 0, "ostio_close");
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
  MPI_Barrier(COMM);
  if (rank == 0) tu_rmtree(dir);
  long bad = tu_failed, allbad = 0;
  MPI_Allreduce(&bad, &allbad, 1, MPI_LONG, MPI_SUM, COMM);
  int status = 0;
  if (rank == 0) {
    printf("ranks %d: ", nprocs);
    tu_failed = allbad;
    status = TEST_DONE();
  }
  MPI_Bcast(&status, 1, MPI_INT, 0, COMM);
  MPI_Finalize();
  return status;
}
