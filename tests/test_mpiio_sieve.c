/* Independent reads through a noncontiguous view are sieved (issue 27;
 * src/mpiio/mpiio_sieve.c, docs/mpiio.md): libostio-mpiio linked before
 * MPI. A file whose byte at offset o is pat(o) is read through views of
 * blocks with holes, and every byte read is checked against pat, with the
 * status count: holes of 1 and 2 bytes, a window that crosses the end of
 * the file, a view that starts 5 bytes before the end, ind_rd_buffer_size
 * smaller than a block and smaller than a window, romio_ds_read disable /
 * enable / automatic with large holes, in a plain file, a striped and a log
 * container, and the plain file read through ostio_cache. On the plain file the test counts the pread calls the read
 * makes (it defines pread, which the library's calls reach): a sieved read
 * needs one per window, not one per block. Any rank count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "testutil.h"

static int rank, nprocs;
static int cached; /* read with ostio_cache=enable */
static int counting;
static long npread;

/* Counts this process's pread calls while `counting` (the library's io
 * layer and container code call pread; the symbol here wins). */
__attribute__((visibility("default"))) ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
  if (counting) npread++;
  return syscall(SYS_pread64, fd, buf, n, off);
}

static unsigned char pat(int64_t off)
{
  return (unsigned char)(off * 131 + 7 + (off >> 9));
}

/* A new file of size bytes of pat, written by rank 0 through the
 * interposer (so containers get their own format). */
static void make_file(const char *path, const char *kind, int64_t size)
{
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ostio_mpiio", "enable");
  if (kind) MPI_Info_set(info, "ostio_container", kind);
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
  CHECKF(rc == MPI_SUCCESS, "create %s (%s)", path, kind ? kind : "plain");
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) return;
  unsigned char *b = malloc((size_t)size);
  for (int64_t o = 0; o < size; o++) b[o] = pat(o);
  if (rank == 0)
    CHECK(MPI_File_write_at(fh, 0, b, (int)size, MPI_BYTE, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  free(b);
  CHECK(MPI_File_sync(fh) == MPI_SUCCESS);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
}

typedef struct {
  const char *ds, *bufsize; /* romio_ds_read, ind_rd_buffer_size (NULL: default) */
  int64_t disp;             /* view displacement (plus 3 * rank)            */
  int blk, stride;          /* blocks of blk bytes every stride bytes       */
  int count;                /* bytes asked                                  */
} view_case;

/* Reads c through its view with MPI_File_read_at (independent) and checks
 * every byte and the count against pat and fsize. Returns the pread calls
 * of this rank's read. */
static long read_case(const char *path, const view_case *c, int64_t fsize)
{
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "ostio_mpiio", "enable");
  if (c->ds) MPI_Info_set(info, "romio_ds_read", c->ds);
  if (c->bufsize) MPI_Info_set(info, "ind_rd_buffer_size", c->bufsize);
  if (cached) MPI_Info_set(info, "ostio_cache", "enable");
  MPI_File fh;
  int rc = MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh);
  MPI_Info_free(&info);
  CHECKF(rc == MPI_SUCCESS, "open %s", path);
  if (rc != MPI_SUCCESS) return -1;
  MPI_Datatype blk, ft;
  MPI_Type_contiguous(c->blk, MPI_BYTE, &blk);
  MPI_Type_create_resized(blk, 0, c->stride, &ft);
  MPI_Type_commit(&ft);
  int64_t disp = c->disp + 3 * rank;
  CHECK(MPI_File_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL) == MPI_SUCCESS);
  unsigned char *b = malloc((size_t)c->count);
  memset(b, 0xee, (size_t)c->count);
  MPI_Status st;
  counting = 1;
  npread = 0;
  rc = MPI_File_read_at(fh, 0, b, c->count, MPI_BYTE, &st);
  counting = 0;
  long calls = npread;
  CHECKF(rc == MPI_SUCCESS, "read_at (ds %s, buffer %s, blocks %d/%d)", c->ds ? c->ds : "-",
         c->bufsize ? c->bufsize : "-", c->blk, c->stride);
  int64_t avail = 0, bad = 0, first_bad = -1;
  for (int i = 0; i < c->count; i++) {
    int64_t off = disp + (int64_t)(i / c->blk) * c->stride + i % c->blk;
    if (off >= fsize) break;
    avail++;
    if (b[i] != pat(off) && bad++ == 0) first_bad = i;
  }
  int got = -1;
  MPI_Get_count(&st, MPI_BYTE, &got);
  CHECKF(got == avail, "count %d, expected %lld (ds %s, buffer %s, blocks %d/%d, disp %lld)",
         got, (long long)avail, c->ds ? c->ds : "-", c->bufsize ? c->bufsize : "-", c->blk,
         c->stride, (long long)disp);
  CHECKF(bad == 0, "%lld wrong bytes, the first at %lld (ds %s, buffer %s, blocks %d/%d)",
         (long long)bad, (long long)first_bad, c->ds ? c->ds : "-",
         c->bufsize ? c->bufsize : "-", c->blk, c->stride);
  free(b);
  CHECK(MPI_File_close(&fh) == MPI_SUCCESS);
  MPI_Type_free(&ft);
  MPI_Type_free(&blk);
  return calls;
}

#define FSIZE 20000
#define BIG (3 * 65536 + 100)

static void run_kind(const char *dir, const char *kind)
{
  char path[600], big[600];
  snprintf(path, sizeof path, "%s/%s%s", dir, kind ? kind : "plain", cached ? "-cached" : "");
  snprintf(big, sizeof big, "%s/%s%s-big", dir, kind ? kind : "plain", cached ? "-cached" : "");
  make_file(path, kind, FSIZE);
  make_file(big, kind, BIG);
  const int plain = kind == NULL && !cached; /* pread counts: the plain file, no cache */
  /* One-byte blocks, holes of 2: default hints sieve them. */
  view_case one = {NULL, NULL, 0, 1, 3, 4000};
  long n = read_case(path, &one, FSIZE);
  if (plain) CHECKF(n >= 1 && n <= 2, "one-byte blocks: %ld preads for 4000 blocks", n);
  /* romio_ds_read=disable: one read per block, the same bytes. */
  view_case off = {"disable", NULL, 0, 1, 3, 4000};
  n = read_case(path, &off, FSIZE);
  if (plain) CHECKF(n == 4000, "romio_ds_read=disable: %ld preads for 4000 blocks", n);
  /* The window crosses the end of the file: 7000 blocks of 3 asked. */
  view_case eof = {NULL, NULL, 11, 2, 3, 14000};
  n = read_case(path, &eof, FSIZE);
  if (plain) CHECKF(n >= 1 && n <= 2, "window past the end of the file: %ld preads", n);
  /* A view 5 bytes before the end (3 bytes per rank past it, not counted). */
  view_case tail = {NULL, NULL, FSIZE - 5 - 3 * (nprocs - 1), 1, 2, 10};
  read_case(path, &tail, FSIZE);
  /* ind_rd_buffer_size 7: blocks of 10 bytes (larger than the buffer) read
   * one by one; blocks of 3 every 4 bytes two to a window. */
  view_case wide = {NULL, "7", 0, 10, 12, 1000};
  n = read_case(path, &wide, FSIZE);
  if (plain) CHECKF(n == 100, "blocks larger than ind_rd_buffer_size: %ld preads for 100", n);
  view_case small = {NULL, "7", 1, 3, 4, 3000};
  n = read_case(path, &small, FSIZE);
  if (plain) CHECKF(n == 500, "windows of at most 7 bytes: %ld preads, expected 500", n);
  /* Holes of 64 KiB: automatic reads block by block, enable sieves. */
  view_case sparse = {NULL, NULL, 0, 10, 65536, 40};
  n = read_case(big, &sparse, BIG);
  if (plain) CHECKF(n == 4, "automatic, 64 KiB holes: %ld preads for 4 blocks", n);
  view_case dense = {"enable", NULL, 0, 10, 65536, 40};
  n = read_case(big, &dense, BIG);
  if (plain) CHECKF(n == 1, "enable, 64 KiB holes: %ld preads for 4 blocks", n);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_File_delete(path, MPI_INFO_NULL);
    MPI_File_delete(big, MPI_INFO_NULL);
  }
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  char dir[512] = "";
  if (rank == 0 && tu_tmpdir(dir, sizeof dir, "sieve") != 0) dir[0] = '\0';
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  run_kind(dir, NULL);
  run_kind(dir, "striped");
  run_kind(dir, "log");
  cached = 1; /* the same reads through the cooperative cache (plain file) */
  run_kind(dir, NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) tu_rmtree(dir);
  int rc = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return rc;
}
