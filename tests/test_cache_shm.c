/* The cache's shared memory when /dev/shm is short (docs/cache.md, "Two
 * transports"): open refuses with OSTIO_ENOMEM on every rank, the detail
 * naming the remedy (ostio_cache_size, /dev/shm), never another code, a
 * hang or a SIGBUS later; the file opens and works once there is room.
 *
 *   test_cache_shm          failures injected (OSTIO_FAULT=shm:...) at each
 *                           rank's reservation; runs anywhere
 *   test_cache_shm tmpfs    inside a small /dev/shm (test_cache_shm_tmpfs.sh
 *                           mounts one in a private mount namespace): a cache
 *                           larger than /dev/shm, and files opened until
 *                           their caches no longer fit, every page of the
 *                           open ones then written and read back */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "ostio.h"
#include "testutil.h"

#define COMM MPI_COMM_WORLD
#define PAGE 65536
#define MAXF 8

static int rank, nprocs;
static char dir[256];

static int open_file(const char *name, int64_t cache_size, ostio_file **fh)
{
  char path[400], v[32];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  MPI_Info info;
  MPI_Info_create(&info);
  if (cache_size > 0) {
    MPI_Info_set(info, "ostio_cache", "enable");
    MPI_Info_set(info, "striping_unit", "65536");
    MPI_Info_set(info, "striping_factor", "2");
    MPI_Info_set(info, "ostio_cache_page", "65536");
    snprintf(v, sizeof v, "%lld", (long long)cache_size);
    MPI_Info_set(info, "ostio_cache_size", v);
  }
  *fh = NULL;
  int rc = ostio_open(COMM, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, fh);
  MPI_Info_free(&info);
  return rc;
}

static unsigned char pat(int f, int64_t off)
{
  return (unsigned char)(f * 37 + off * 7 + off / 251);
}

/* Writes n pages of file f through fh, a page per call (under the cache's
 * bypass bound, so every page goes into a slot), ranks taking turns. */
static void fill(ostio_file *fh, int f, int64_t n)
{
  unsigned char *b = malloc(PAGE);
  for (int64_t p = rank; p < n; p += nprocs) {
    for (int64_t i = 0; i < PAGE; i++) b[i] = pat(f, p * PAGE + i);
    CHECKF(ostio_write_at(fh, p * PAGE, b, PAGE) == 0, "write: %s", ostio_last_error());
  }
  free(b);
}

/* Reads file f back without the cache: n pages of pat(f). */
static void verify(const char *name, int f, int64_t n)
{
  ostio_file *fh;
  CHECKF(open_file(name, 0, &fh) == 0, "reopen: %s", ostio_last_error());
  if (!fh) return;
  unsigned char *b = malloc(PAGE);
  int64_t bad = 0;
  for (int64_t p = 0; p < n; p++) {
    CHECK(ostio_read_at(fh, p * PAGE, b, PAGE) == 0);
    for (int64_t i = 0; i < PAGE; i++) bad += b[i] != pat(f, p * PAGE + i);
  }
  CHECKF(bad == 0, "%s: %lld wrong bytes", name, (long long)bad);
  free(b);
  CHECK(ostio_close(&fh) == 0);
}

/* rc is OSTIO_ENOMEM with the remedy, on this rank and (agreed) all. */
static void refused(int rc, ostio_file *fh, const char *what, const char *also)
{
  const char *d = ostio_last_error();
  CHECKF(rc == OSTIO_ENOMEM && fh == NULL, "%s: rc %d (%s), expected OSTIO_ENOMEM: %s", what,
         rc, ostio_errname(rc), d);
  CHECKF(strstr(d, "ostio_cache_size") && strstr(d, "/dev/shm"), "%s: no remedy in \"%s\"",
         what, d);
  if (also) CHECKF(strstr(d, also), "%s: \"%s\" not in \"%s\"", what, also, d);
  int lo = rc, hi = rc;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, COMM);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, COMM);
  CHECKF(lo == hi, "%s: ranks disagree (%d .. %d)", what, lo, hi);
}

static void injected(void)
{
  /* This process's reservations so far: one per open with the cache. */
  int64_t made = 0;
  const char *whats[] = {"ENOSPC", "ENOMEM", "EFBIG"};
  for (int k = 0; k < 3; k++) {
    char spec[64];
    int who = k % 2 ? nprocs - 1 : 0;
    snprintf(spec, sizeof spec, "shm:%d:%lld:%s", who, (long long)made + 1, whats[k]);
    setenv("OSTIO_FAULT", spec, 1);
    ostio_file *fh;
    int rc = open_file("inj", 4 * PAGE, &fh);
    made++;
    refused(rc, fh, spec, "injected by OSTIO_FAULT");
    if (fh) ostio_close(&fh);
  }
  /* Only OP shm's errno names. */
  setenv("OSTIO_FAULT", "shm:0:1:short", 1);
  ostio_file *fh;
  int rc = open_file("inj", 4 * PAGE, &fh);
  CHECKF(rc == OSTIO_EINVAL && strstr(ostio_last_error(), "shm"), "shm:0:1:short: %d %s", rc,
         ostio_last_error());
  if (fh) ostio_close(&fh);
  /* Without the fault the same open works and keeps its bytes; a fault
   * for a later reservation than this one does nothing here. */
  char later[64];
  snprintf(later, sizeof later, "shm:*:%lld:ENOSPC", (long long)made + 2);
  setenv("OSTIO_FAULT", later, 1);
  CHECKF(open_file("inj", 4 * PAGE, &fh) == 0, "open: %s", ostio_last_error());
  if (fh) {
    fill(fh, 1, 16);
    CHECK(ostio_close(&fh) == 0);
  }
  unsetenv("OSTIO_FAULT");
  verify("inj", 1, 16);
}

static int64_t shm_free(void)
{
  struct statvfs v;
  int64_t f = statvfs("/dev/shm", &v) == 0 ? (int64_t)v.f_bavail * (int64_t)v.f_frsize : 0;
  MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_INT64_T, MPI_MIN, COMM);
  return f;
}

static void tmpfs(void)
{
  int64_t avail = shm_free();
  if (rank == 0) printf("/dev/shm: %lld bytes free\n", (long long)avail);
  CHECKF(avail > 0 && avail < ((int64_t)1 << 30), "tmpfs mode wants a small /dev/shm, not %lld",
         (long long)avail);
  /* A cache larger than /dev/shm. */
  ostio_file *fh;
  int64_t big = (avail * 2 + PAGE) / PAGE * PAGE;
  int rc = open_file("big", big, &fh);
  refused(rc, fh, "a cache larger than /dev/shm", NULL);
  if (fh) ostio_close(&fh);

  /* Files opened until their caches do not fit (each 30 % of the free
   * space if every rank owns pages, 15 % if one does): an open that passed
   * but whose pages could not all be backed would die of SIGBUS below. */
  int64_t size = avail * 3 / 10 / nprocs / PAGE * PAGE, pages = size / PAGE * nprocs;
  ostio_file *f[MAXF] = {0};
  char name[MAXF][16];
  int n = 0;
  for (; n < MAXF; n++) {
    snprintf(name[n], sizeof name[n], "f%d", n);
    if ((rc = open_file(name[n], size, &f[n])) != 0) break;
  }
  if (rank == 0) printf("%d files of %lld cache bytes per rank opened\n", n, (long long)size);
  CHECKF(n >= 1 && n < MAXF, "%d of %d opens passed: a shortage went unnoticed", n, MAXF);
  if (n < MAXF) refused(rc, f[n], "one file too many", NULL);
  for (int i = 0; i < n; i++) fill(f[i], i, pages);
  for (int i = 0; i < n; i++) CHECK(ostio_close(&f[i]) == 0);
  for (int i = 0; i < n; i++) verify(name[i], i, pages);
  /* Their room is back. */
  CHECKF(open_file("again", size, &fh) == 0, "after closing: %s", ostio_last_error());
  if (fh) {
    fill(fh, 9, pages);
    CHECK(ostio_close(&fh) == 0);
    verify("again", 9, pages);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(COMM, &rank);
  MPI_Comm_size(COMM, &nprocs);
  unsetenv("OSTIO_CACHE_TRANSPORT");
  if (rank == 0) CHECK(tu_tmpdir(dir, sizeof dir, "cache_shm") == 0);
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, COMM);
  if (argc > 1 && !strcmp(argv[1], "tmpfs"))
    tmpfs();
  else
    injected();
  MPI_Barrier(COMM);
  if (rank == 0) tu_rmtree(dir);
  int st = tu_done_mpi(COMM, "", __FILE__);
  MPI_Finalize();
  return st;
}
