/* Bad input to the collective calls, on the last rank only and on every
 * rank: NULL handle / extents / buffer, negative offsets and lengths,
 * offset + length past INT64_MAX, overlapping extents (one rank's list or
 * across ranks), writes to read-only and reads of write-only files, bad hints
 * and a bad OSTIO_FAULT at open. Every rank returns the same code, the
 * failing rank has a detail, bytes nobody named keep their sentinel, and the
 * next call on the same handle works. Each strategy is tried. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>

#include "ostio.h"
#include "testutil.h"

#define COMM MPI_COMM_WORLD
#define SENT 0xA5
#define T_SENT 0u              /* tags: sentinel, any bytes, else data */
#define T_ANY 2u
#define BASE 100               /* block i: LEN bytes at BASE + i * STRIDE, */
#define STRIDE 1000            /* owned by rank i % nprocs                 */
#define LEN 800
#define MAXR 64

static int rank, nprocs, nblocks;
static int64_t region;
static char dir[512], path[700], casename[160];
static uint32_t next_tag = 3;

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
    memset(b, SENT, (size_t)len);
    return;
  }
  int64_t i = 0; /* byte k of a word is bits 8k..8k+7 of its hash */
  for (; i < len && ((off + i) & 7); i++) b[i] = (uint8_t)(pword((off + i) >> 3, tag) >> (8 * ((off + i) & 7)));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  for (uint64_t x; i + 8 <= len; i += 8) x = pword((off + i) >> 3, tag), memcpy(b + i, &x, 8);
#endif
  for (; i < len; i++) b[i] = (uint8_t)(pword((off + i) >> 3, tag) >> (8 * ((off + i) & 7)));
}
static int64_t efind(const uint8_t *b, int64_t off, int64_t len, uint32_t tag)
{
  uint8_t e[STRIDE];
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
  for (int i = r; i < nblocks; i += nprocs) e[n++] = (ostio_extent){BASE + (int64_t)i * STRIDE, LEN};
  return n;
}
/* Rank 0: data blocks hold tag's bytes (T_ANY: anything), holes the sentinel. */
static void check_file(uint32_t tag, const char *when)
{
  static uint8_t b[BASE + 4 * MAXR * STRIDE + STRIDE];
  int fd = open(path, O_RDONLY);
  ssize_t got = fd >= 0 ? pread(fd, b, (size_t)region, 0) : -1;
  if (fd >= 0) close(fd);
  if (!CHECKF(got == region, "%s %s: read %zd of %lld bytes", casename, when, got, (long long)region))
    return;
  for (int64_t pos = 0; pos < region;) {
    int64_t k = pos < BASE ? -1 : (pos - BASE) / STRIDE, bs = BASE + k * STRIDE;
    int data = k >= 0 && k < nblocks && pos < bs + LEN;
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
static int all_ok(int ok)
{
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, COMM);
  return ok;
}
static MPI_Info base_info(const char *strategy)
{
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "striping_factor", "4");
  MPI_Info_set(info, "striping_unit", "4096");
  MPI_Info_set(info, "cb_config_list", "*:*");
  MPI_Info_set(info, "ostio_strategy", strategy);
  return info;
}
static int xopen(const char *strategy, int amode, ostio_file **fh)
{
  MPI_Info info = base_info(strategy);
  int rc = ostio_open(COMM, path, amode, info, fh);
  MPI_Info_free(&info);
  int ok = expect_rc(rc, 0, "ostio_open");
  if (all_ok(ok && *fh)) return 1;
  if (*fh) ostio_close(fh);
  return 0;
}
/* A good write_all of a new tag, checked on disk (and read back). */
static void good_write(ostio_file *fh, int readback)
{
  ostio_extent e[4 * MAXR];
  size_t n = pattern(rank, e);
  uint32_t tag = next_tag++;
  uint8_t *b = malloc(n * LEN + 1);
  for (size_t i = 0; i < n; i++) efill(b + i * LEN, e[i].offset, LEN, tag);
  expect_rc(ostio_write_all(fh, e, n, b), 0, "the next write_all"); /* also a barrier */
  if (rank == 0) check_file(tag, "after the next write_all");
  if (readback) {
    memset(b, 0, n * LEN);
    expect_rc(ostio_read_all(fh, e, n, b), 0, "the next read_all");
    for (size_t i = 0; i < n; i++)
      CHECKF(efind(b + i * LEN, e[i].offset, LEN, tag) < 0, "%s: next read_all, block at %lld",
             casename, (long long)e[i].offset);
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
  for (size_t i = 0; i < n; i++) efill(buf + i * LEN, e[i].offset, LEN, next_tag + 1000);
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
  expect_rc(rc, kcode[kind], is_write ? "ostio_write_all" : "ostio_read_all");
  free(buf);
  if (rank == 0) check_file(T_ANY, "after the failed call");
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
      expect_rc(rc, want, "ostio_open");
      CHECKF(fh == NULL, "%s: a handle after a failed open", casename);
      if (fh) ostio_close(&fh);
    }
  }
  snprintf(casename, sizeof casename, "open after the failed opens");
  ostio_file *fh = NULL;
  if (xopen("auto", MPI_MODE_RDWR, &fh)) {
    good_write(fh, 1);
    expect_rc(ostio_close(&fh), 0, "ostio_close");
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
      expect_rc(rc, OSTIO_EACCES, wr ? "ostio_write_all" : "ostio_read_all");
      if (rank == 0) check_file(next_tag - 1, "after the refused call");
      if (wr) { /* the read-only handle still reads */
        memset(buf, 0, n * LEN);
        expect_rc(ostio_read_all(fh, e, n, buf), 0, "the next read_all");
        for (size_t i = 0; i < n; i++)
          CHECKF(efind(buf + i * LEN, e[i].offset, LEN, next_tag - 1) < 0, "%s: block at %lld",
                 casename, (long long)e[i].offset);
      } else {
        good_write(fh, 0);
      }
      expect_rc(ostio_close(&fh), 0, "ostio_close");
    }
  free(buf);
}

static void on_alarm(int sig)
{
  char m[256];
  (void)sig;
  int len = snprintf(m, sizeof m, "test_coll_errors: rank %d stuck for 60 s in case: %s\n", rank, casename);
  if (write(2, m, (size_t)len)) {}
  _exit(3);
}

int main(int argc, char **argv)
{
  static const char *const strategies[] = {"even", "independent", "auto", "aligned", "ost"};
  const char *all_env = getenv("OSTIO_TEST_ALL");
  /* Oversubscribed runs are slow: above 2 ranks, the argument checks (EINVAL)
   * run under even and independent only, the overlap checks under every
   * strategy (each has its own path to them). OSTIO_TEST_ALL=1: everything. */
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &nprocs);
  int full = nprocs <= 2 || (all_env && *all_env);
  int verbose = getenv("OSTIO_TEST_VERBOSE") && *getenv("OSTIO_TEST_VERBOSE");
  double t0 = MPI_Wtime();
  if (nprocs > MAXR) {
    if (rank == 0) printf("test_coll_errors: at most %d ranks\n", MAXR);
    MPI_Finalize();
    return 1;
  }
  nblocks = 4 * nprocs;
  region = BASE + (int64_t)nblocks * STRIDE + 1000;
  unsetenv("OSTIO_FAULT");
  unsetenv("OSTIO_HINTS");
  signal(SIGALRM, on_alarm);
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "collerrors") < 0) perror("mkdtemp");
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, COMM);
  snprintf(path, sizeof path, "%s/file", dir);

  for (int s = 0; s < 5; s++) {
    ostio_file *fh = NULL;
    snprintf(casename, sizeof casename, "%s: create", strategies[s]);
    alarm(60);
    if (!xopen(strategies[s], MPI_MODE_CREATE | MPI_MODE_RDWR, &fh)) continue;
    if (rank == 0) { /* the sentinel everywhere */
      uint8_t *b = malloc((size_t)region);
      memset(b, SENT, (size_t)region);
      int fd = open(path, O_WRONLY);
      CHECK(fd >= 0 && pwrite(fd, b, (size_t)region, 0) == region && ftruncate(fd, region) == 0);
      if (fd >= 0) close(fd);
      free(b);
    }
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
    expect_rc(ostio_close(&fh), 0, "ostio_close");
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
      expect_rc(ostio_close(&fh), 0, "ostio_close");
    }
  }
  alarm(0);
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
