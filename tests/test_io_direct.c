/* O_DIRECT (hints direct_read / direct_write, src/io/direct.c; docs/io.md).
 * On a disk file system (ext4/xfs: the first of $OSTIO_TEST_DISKDIR, the
 * working directory, /var/tmp, /tmp that is not tmpfs): unaligned extents
 * written and read with ostio_write_at / read_at and write_all / read_all,
 * ranks sharing file blocks, bytes compared in memory and on disk with a
 * plain pread, the direct path used (direct_bytes_* > 0, no fallback), a
 * read past end of file zero-filled as on the buffered path, and an injected
 * short write still leaving the right bytes, and an injected EINVAL on a
 * direct transfer (the file system refusing at run time) falling back to
 * buffered I/O with the same bytes and direct_fallbacks counted. On tmpfs (/dev/shm) Linux
 * before 6.6 refuses O_DIRECT (EINVAL): the same bytes, buffered, and
 * direct_fallbacks > 0; later kernels accept it, and the test says which it
 * saw. A striped container (objects: no O_DIRECT) always falls back: same
 * bytes, direct_fallbacks on every rank, no direct bytes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "ostio.h"
#include "testutil.h"

#define TMPFS_MAGIC_ 0x01021994
#define PIECE 10007   /* unaligned: ranks' pieces share blocks */
#define NPIECES 40

static int rank, nprocs;

static unsigned char pat(int64_t off, int salt)
{
  return (unsigned char)((off * 131 + (off >> 13) + salt * 17) ^ 0x5a);
}

static double sum_stat(ostio_file *fh, const char *name)
{
  double v = -1, s = 0;
  CHECK(ostio_stat_get(fh, name, &v) == 0);
  MPI_Allreduce(&v, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return s;
}

static ostio_file *open_direct(const char *path, int create)
{
  MPI_Info info;
  MPI_Info_create(&info);
  if (strstr(path, ".ctr")) MPI_Info_set(info, "ostio_container", "striped");
  MPI_Info_set(info, "direct_write", "true");
  MPI_Info_set(info, "direct_read", "true");
  MPI_Info_set(info, "cb_buffer_size", "1048576");
  ostio_file *fh = NULL;
  int rc = ostio_open(MPI_COMM_WORLD, path, (create ? MPI_MODE_CREATE : 0) | MPI_MODE_RDWR, info,
                      &fh);
  CHECKF(rc == 0, "open %s: %s", path, ostio_last_error());
  MPI_Info_free(&info);
  return fh;
}

/* Every byte of [0, len) on disk through a plain buffered pread (rank 0;
 * not for containers). */
static void check_disk(const char *path, int64_t len, int salt, const char *what)
{
  if (rank != 0 || strstr(path, ".ctr")) return;
  unsigned char *b = malloc((size_t)len);
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0 && pread(fd, b, (size_t)len, 0) == (ssize_t)len);
  int64_t bad = -1;
  for (int64_t i = 0; i < len && bad < 0; i++)
    if (b[i] != pat(i, salt)) bad = i;
  CHECKF(bad < 0, "%s: byte %lld on disk is %d, expected %d", what, (long long)bad,
         bad >= 0 ? b[bad] : 0, bad >= 0 ? pat(bad, salt) : 0);
  if (fd >= 0) close(fd);
  free(b);
}

/* What round_trip expects of the direct path on a file system. */
enum { DIRECT = 1, EITHER = 0, BUFFERED = -1 };

/* One round on path: independent then collective. on_disk: DIRECT must be
 * used; BUFFERED must fall back; EITHER: whichever the open chose. */
static void round_trip(const char *path, int on_disk)
{
  const int64_t total = (int64_t)PIECE * NPIECES;
  unsigned char *buf = malloc((size_t)total + 8192);

  /* independent: piece i belongs to rank i % nprocs, at offset 3 + i*PIECE */
  ostio_file *fh = open_direct(path, 1);
  if (!fh) { free(buf); return; }
  for (int i = rank; i < NPIECES; i += nprocs) {
    int64_t off = (int64_t)i * PIECE;
    for (int64_t j = 0; j < PIECE; j++) buf[j] = pat(off + j, 1);
    CHECKF(ostio_write_at(fh, off, buf, PIECE) == 0, "%s", ostio_last_error());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  /* every rank reads an unaligned window over everyone's pieces and past EOF */
  int64_t roff = 1 + rank * 777, rlen = total - roff + 5000;
  memset(buf, 0xee, (size_t)rlen);
  CHECKF(ostio_read_at(fh, roff, buf, (size_t)rlen) == 0, "%s", ostio_last_error());
  int64_t bad = -1;
  for (int64_t j = 0; j < rlen && bad < 0; j++)
    if (buf[j] != (roff + j < total ? pat(roff + j, 1) : 0)) bad = roff + j;
  CHECKF(bad < 0, "read_at %s: byte %lld wrong", path, (long long)bad);
  double dw = sum_stat(fh, "direct_bytes_written"), dr = sum_stat(fh, "direct_bytes_read");
  double fb = sum_stat(fh, "direct_fallbacks");
  if (rank == 0)
    printf("%s write_at/read_at: direct bytes written %.0f, read %.0f, fallbacks %.0f\n",
           path, dw, dr, fb);
  if (on_disk == EITHER) {
    on_disk = fb > 0 ? BUFFERED : DIRECT;
    if (rank == 0)
      printf("%s: O_DIRECT %s by this kernel\n", path, fb > 0 ? "refused" : "accepted");
  }
  if (on_disk == DIRECT) {
    CHECK(dw > 0 && dw < (double)total);   /* the middles direct, heads/tails buffered */
    CHECK(dr > 0);
    CHECK(fb == 0);
  } else {
    CHECK(dw == 0 && dr == 0);
    CHECK(fb >= nprocs);                   /* each rank fell back at open */
  }
  CHECK(ostio_close(&fh) == 0);
  check_disk(path, total, 1, "write_at");

  /* collective: extents of PIECE bytes, rank r owns pieces r, r+nprocs, ... */
  fh = open_direct(path, 0);
  if (!fh) { free(buf); return; }
  ostio_extent ext[NPIECES];
  size_t n = 0;
  int64_t at = 0;
  for (int i = rank; i < NPIECES; i += nprocs) {
    ext[n].offset = (int64_t)i * PIECE;
    ext[n].length = PIECE;
    for (int64_t j = 0; j < PIECE; j++) buf[at + j] = pat(ext[n].offset + j, 2);
    at += PIECE;
    n++;
  }
  CHECKF(ostio_write_all(fh, ext, n, buf) == 0, "%s", ostio_last_error());
  memset(buf, 0, (size_t)at);
  CHECKF(ostio_read_all(fh, ext, n, buf) == 0, "%s", ostio_last_error());
  bad = -1;
  at = 0;
  for (size_t k = 0; k < n && bad < 0; k++, at += PIECE)
    for (int64_t j = 0; j < PIECE && bad < 0; j++)
      if (buf[at + j] != pat(ext[k].offset + j, 2)) bad = ext[k].offset + j;
  CHECKF(bad < 0, "read_all: byte %lld wrong", (long long)bad);
  dw = sum_stat(fh, "direct_bytes_written");
  dr = sum_stat(fh, "direct_bytes_read");
  if (rank == 0)
    printf("%s write_all/read_all: direct bytes written %.0f, read %.0f\n", path, dw, dr);
  CHECK(on_disk == DIRECT ? dw > 0 && dr > 0 : dw == 0 && dr == 0);
  CHECK(ostio_close(&fh) == 0);
  check_disk(path, total, 2, "write_all");

  /* an injected short direct write (every rank's first write call after
   * open is the head or the direct middle) still leaves the right bytes */
  setenv("OSTIO_FAULT", "write:*:2:short", 1);
  fh = open_direct(path, 0);
  unsetenv("OSTIO_FAULT");
  if (fh) {
    for (int i = rank; i < NPIECES; i += nprocs) {
      int64_t off = (int64_t)i * PIECE;
      for (int64_t j = 0; j < PIECE; j++) buf[j] = pat(off + j, 3);
      CHECKF(ostio_write_at(fh, off, buf, PIECE) == 0, "%s", ostio_last_error());
    }
    CHECK(sum_stat(fh, "faults_injected") == nprocs);
    CHECK(ostio_close(&fh) == 0);
    check_disk(path, total, 3, "short");
  }

  /* the file system refusing O_DIRECT at run time (EINVAL on a direct
   * transfer, injected: this kernel's tmpfs and ext4 accept it): the
   * request and the rest go buffered, the bytes are right, and the
   * statistics show the fallback. Rank 0's first write call is the direct
   * middle of its piece at offset 0 (aligned: no buffered head). */
  if (on_disk == DIRECT) {
    setenv("OSTIO_FAULT", "write:0:1:EINVAL", 1);
    fh = open_direct(path, 0);
    unsetenv("OSTIO_FAULT");
    if (fh) {
      for (int i = rank; i < NPIECES; i += nprocs) {
        int64_t off = (int64_t)i * PIECE;
        for (int64_t j = 0; j < PIECE; j++) buf[j] = pat(off + j, 4);
        CHECKF(ostio_write_at(fh, off, buf, PIECE) == 0, "%s", ostio_last_error());
      }
      CHECK(sum_stat(fh, "faults_injected") == 1);
      CHECK(sum_stat(fh, "direct_fallbacks") == 1);
      CHECK(ostio_close(&fh) == 0);
      check_disk(path, total, 4, "refused at run time");
    }
  }
  free(buf);
}

/* A directory on a file system that is not tmpfs, or "" (rank 0 decides). */
static void disk_dir(char *out, size_t cap)
{
  const char *cand[] = {getenv("OSTIO_TEST_DISKDIR"), ".", "/var/tmp", "/tmp"};
  out[0] = '\0';
  if (rank == 0)
    for (size_t i = 0; i < sizeof cand / sizeof cand[0]; i++) {
      struct statfs s;
      if (!cand[i] || !*cand[i] || access(cand[i], W_OK) != 0 || statfs(cand[i], &s) != 0 ||
          s.f_type == TMPFS_MAGIC_)
        continue;
      snprintf(out, cap, "%s", cand[i]);
      break;
    }
  MPI_Bcast(out, (int)cap, MPI_CHAR, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  unsetenv("OSTIO_FAULT");
  char dir[256], path[512];
  long id = (long)getpid();
  MPI_Bcast(&id, 1, MPI_LONG, 0, MPI_COMM_WORLD);

  disk_dir(dir, sizeof dir);
  if (dir[0]) {
    snprintf(path, sizeof path, "%s/ostio-direct-%ld.dat", dir, id);
    round_trip(path, DIRECT);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink(path);
    snprintf(path, sizeof path, "%s/ostio-direct-%ld.ctr", dir, id);
    round_trip(path, BUFFERED);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      char cmd[600];
      snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
      CHECK(system(cmd) == 0);
    }
  } else if (rank == 0) {
    printf("no disk file system found (set OSTIO_TEST_DISKDIR): direct path not tested\n");
  }
  if (access("/dev/shm", W_OK) == 0) {
    snprintf(path, sizeof path, "/dev/shm/ostio-direct-%ld.dat", id);
    round_trip(path, EITHER);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink(path);
  }
  int rc = tu_done_mpi(MPI_COMM_WORLD, "", __FILE__);
  MPI_Finalize();
  return rc;
}
