/* pl_posix DIR OUTDIR: POSIX and stdio calls on files in DIR, printing a
 * deterministic transcript. tests/preload/run_preload_tests.py runs it once
 * with DIR a plain directory and once with DIR inside OSTIO_PRELOAD_PATHS
 * under LD_PRELOAD=libostio-preload.so, and compares the transcripts line by
 * line. OUTDIR is a plain directory (never a preload path) for the other end
 * of copies. Lines starting with '#' are information (fd numbers, whether a
 * zero-copy call was served or refused) and are not compared.
 *
 * Calls whose result may legitimately differ (SEEK_DATA/SEEK_HOLE may report
 * a hole as data; copy_file_range, sendfile, splice, FICLONE and mmap may be
 * refused) print "consistent" when the result is one the kernel could give
 * and the data is right, so the transcripts still match line by line.
 * Plain executable: no ostio, no MPI. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pl_gen.h"

#define KIB 1024
#define MIB (1024 * 1024)

static const char *g_dir, *g_out;
static int g_bad; /* count of INCONSISTENT lines (exit status 1 at the end) */

__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
  fflush(stdout);
}

static const char *ename(int e)
{
  const char *n = strerrorname_np(e);
  return n ? n : "E?";
}

/* "name -> value" or "name -> -1 ENAME" */
static long long rep(const char *what, long long rc)
{
  if (rc < 0)
    say("%s -> -1 %s", what, ename(errno));
  else
    say("%s -> %lld", what, rc);
  return rc;
}

/* open-like calls: the number itself is information (the kernel gives the
 * lowest free one; the preload may hold descriptors of its own). */
static long long rep_fd(const char *what, long long rc)
{
  if (rc < 0) {
    say("%s -> -1 %s", what, ename(errno));
  } else {
    say("%s -> fd", what);
    say("# %s: fd %lld", what, rc);
  }
  return rc;
}

static char *path(const char *name)
{
  static char buf[4][4096];
  static int i;
  i = (i + 1) % 4;
  snprintf(buf[i], sizeof buf[i], "%s/%s", g_dir, name);
  return buf[i];
}

static char *opath(const char *name)
{
  static char buf[4][4096];
  static int i;
  i = (i + 1) % 4;
  snprintf(buf[i], sizeof buf[i], "%s/%s", g_out, name);
  return buf[i];
}

static void *xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (!p) {
    perror("malloc");
    exit(2);
  }
  return p;
}

/* Whole file through a new descriptor, read in odd-sized chunks. */
static void sum_file(const char *label, const char *p)
{
  int fd = open(p, O_RDONLY);
  if (fd < 0) {
    say("sum %s -> -1 %s", label, ename(errno));
    return;
  }
  uint64_t h = 0xcbf29ce484222325ULL;
  long long total = 0;
  unsigned char buf[70001];
  for (;;) {
    ssize_t r = read(fd, buf, sizeof buf);
    if (r < 0) {
      say("sum %s: read -> -1 %s", label, ename(errno));
      break;
    }
    if (r == 0) break;
    for (ssize_t i = 0; i < r; i++) h = (h ^ buf[i]) * 0x100000001b3ULL;
    total += r;
  }
  struct stat st;
  int s = fstat(fd, &st);
  say("sum %s: %lld bytes fnv %016" PRIx64 " fstat %s size %lld", label, total, h,
      s == 0 && S_ISREG(st.st_mode) ? "REG" : "not-REG", s == 0 ? (long long)st.st_size : -1LL);
  close(fd);
}

static void sum_buf(const char *label, const unsigned char *b, size_t n)
{
  say("%s: %zu bytes fnv %016" PRIx64, label, n, fnv(b, n));
}

/* Bytes as text, non-printable ones as '.'. */
static const char *show(const char *b, size_t n)
{
  static char out[256];
  if (n > sizeof out - 1) n = sizeof out - 1;
  for (size_t i = 0; i < n; i++) out[i] = b[i] >= 32 && b[i] < 127 ? b[i] : '.';
  out[n] = '\0';
  return out;
}

static long long fsize(int fd)
{
  struct stat st;
  if (fstat(fd, &st) < 0) return -1;
  return st.st_size;
}

static long long cur(int fd) { return lseek(fd, 0, SEEK_CUR); }

/* Full pread (loops over short reads); returns bytes read. */
static ssize_t pread_full(int fd, void *b, size_t n, off_t off)
{
  size_t done = 0;
  while (done < n) {
    ssize_t r = pread(fd, (char *)b + done, n - done, off + (off_t)done);
    if (r < 0) return -1;
    if (r == 0) break;
    done += (size_t)r;
  }
  return (ssize_t)done;
}

static ssize_t write_full(int fd, const void *b, size_t n)
{
  size_t done = 0;
  while (done < n) {
    ssize_t r = write(fd, (const char *)b + done, n - done);
    if (r <= 0) return -1;
    done += (size_t)r;
  }
  return (ssize_t)done;
}

static void bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void bad(const char *fmt, ...)
{
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  say("INCONSISTENT %s", line);
  g_bad++;
}

/* ---------------------------------------------------------------------- */

static void t_write_read(void)
{
  say("== write, pwrite, pread, lseek, fstat");
  int fd = (int)rep_fd("open p1 O_CREAT|O_RDWR|O_TRUNC", open(path("p1.bin"), O_CREAT | O_RDWR | O_TRUNC, 0644));
  if (fd < 0) return;
  size_t n = 100003 + 65536 + 7;
  unsigned char *b = xmalloc(n), *r = xmalloc(300000);
  gen(b, n, 1, 0);
  rep("write 100003", write(fd, b, 100003));
  rep("write 65536", write(fd, b + 100003, 65536));
  rep("write 7", write(fd, b + 100003 + 65536, 7));
  rep("lseek CUR", cur(fd));
  gen(b, 70000, 2, 12345);
  rep("pwrite 70000 at 12345", pwrite(fd, b, 70000, 12345));
  rep("offset after pwrite", cur(fd));
  ssize_t got = rep("pread 300000 at 0", pread(fd, r, 300000, 0));
  if (got > 0) sum_buf("pread data", r, (size_t)got);
  rep("pread 10 at 165546", pread(fd, r, 10, 165546));
  rep("pread 10 at size", pread(fd, r, 10, (off_t)n));
  rep("fstat size", fsize(fd));
  rep("lseek END -10", lseek(fd, -10, SEEK_END));
  got = rep("read 20", read(fd, r, 20));
  if (got > 0) sum_buf("read data", r, (size_t)got);
  rep("read at EOF", read(fd, r, 20));
  rep("lseek END +1000", lseek(fd, 1000, SEEK_END));
  rep("write 5 past EOF", write(fd, "hello", 5));
  rep("fstat size", fsize(fd));
  got = rep("pread hole 1000", pread(fd, r, 1000, (off_t)n));
  if (got > 0) {
    size_t z = 0;
    while (z < (size_t)got && r[z] == 0) z++;
    say("hole zeros: %zu", z);
  }
  rep("lseek SET -1", lseek(fd, -1, SEEK_SET));
  rep("lseek CUR -1000000", lseek(fd, -1000000, SEEK_CUR));
  rep("lseek whence 99", lseek(fd, 0, 99));
  rep("lseek SET 1e12", lseek(fd, (off_t)1000000000000LL, SEEK_SET));
  rep("read far past EOF", read(fd, r, 10));
  /* A large write crossing many stripes at an odd offset, read back. */
  unsigned char *big = xmalloc(3 * MIB + 333);
  gen(big, 3 * MIB + 333, 3, 4096 * 17 + 11);
  rep("pwrite 3 MiB+333 at 69643", pwrite(fd, big, 3 * MIB + 333, 4096 * 17 + 11));
  unsigned char *back = xmalloc(3 * MIB + 333);
  rep("pread_full it back", pread_full(fd, back, 3 * MIB + 333, 4096 * 17 + 11));
  say("big round trip: %s", memcmp(big, back, 3 * MIB + 333) ? "DIFFERS" : "equal");
  free(big);
  free(back);
  rep("close", close(fd));
  rep("close again", close(fd));
  sum_file("p1", path("p1.bin"));
  free(b);
  free(r);
}

static void t_vectors(void)
{
  say("== readv, writev, preadv, pwritev");
  int fd = (int)rep_fd("open p2", open(path("p2.bin"), O_CREAT | O_RDWR | O_TRUNC, 0644));
  if (fd < 0) return;
  size_t sz[4] = {1, 4095, 70001, 13};
  unsigned char *w[4], *r[4];
  struct iovec wi[4], ri[4];
  for (int i = 0; i < 4; i++) {
    w[i] = xmalloc(sz[i]);
    r[i] = xmalloc(sz[i]);
    gen(w[i], sz[i], 10 + (unsigned)i, 0);
    wi[i] = (struct iovec){w[i], sz[i]};
    ri[i] = (struct iovec){r[i], sz[i]};
  }
  rep("write 16", write(fd, "0123456789abcdef", 16));
  rep("lseek 333", lseek(fd, 333, SEEK_SET));
  rep("writev 4 iov at 333", writev(fd, wi, 4));
  rep("offset", cur(fd));
  rep("lseek 333", lseek(fd, 333, SEEK_SET));
  rep("readv 4 iov", readv(fd, ri, 4));
  int eq = 1;
  for (int i = 0; i < 4; i++) eq &= memcmp(w[i], r[i], sz[i]) == 0;
  say("readv data %s", eq ? "equal" : "DIFFERS");
  rep("pwritev at 3333", pwritev(fd, wi + 1, 3, 3333));
  rep("offset unchanged", cur(fd));
  rep("preadv at 3000", preadv(fd, ri, 4, 3000));
  unsigned char all[74110];
  size_t k = 0;
  for (int i = 0; i < 4; i++) {
    memcpy(all + k, r[i], sz[i]);
    k += sz[i];
  }
  sum_buf("preadv data", all, k);
  rep("preadv at 74000 (short)", preadv(fd, ri, 4, 74000));
  rep("pwritev2 at 100 flags 0", pwritev2(fd, wi, 2, 100, 0));
  rep("preadv2 at -1 (current offset)", preadv2(fd, ri, 1, -1, 0));
  rep("offset", cur(fd));
  rep("fstat size", fsize(fd));
  rep("close", close(fd));
  sum_file("p2", path("p2.bin"));
  for (int i = 0; i < 4; i++) {
    free(w[i]);
    free(r[i]);
  }
}

/* SEEK_DATA/SEEK_HOLE: a file system may report a hole as data, so check
 * the invariants, not the values. */
static void t_data_hole(void)
{
  say("== SEEK_DATA, SEEK_HOLE");
  int fd = (int)rep_fd("open p3", open(path("p3.bin"), O_CREAT | O_RDWR | O_TRUNC, 0644));
  if (fd < 0) return;
  const off_t size = 3 * MIB + 1234;
  const off_t d1 = MIB + 17, n1 = 5000, d2 = 2 * MIB + MIB / 2, n2 = 100;
  unsigned char *b = xmalloc((size_t)size);
  gen(b, (size_t)n1, 20, 0);
  rep("ftruncate 3 MiB+1234", ftruncate(fd, size));
  rep("pwrite 5000 at 1 MiB+17", pwrite(fd, b, (size_t)n1, d1));
  rep("pwrite 100 at 2.5 MiB", pwrite(fd, b, (size_t)n2, d2));
  rep("fstat size", fsize(fd));
  if (pread_full(fd, b, (size_t)size, 0) != size) {
    bad("pread of the whole sparse file");
    close(fd);
    free(b);
    return;
  }
  off_t probes[] = {0, 4096, d1 - 1, d1, d1 + 100, d1 + n1, d2 + n2 - 1, d2 + n2, size - 1, size, size + 5};
  int ok = 1;
  for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
    off_t o = probes[i];
    errno = 0;
    off_t d = lseek(fd, o, SEEK_DATA);
    int de = errno;
    errno = 0;
    off_t h = lseek(fd, o, SEEK_HOLE);
    int he = errno;
    say("# SEEK_DATA(%lld) = %lld %s, SEEK_HOLE = %lld %s", (long long)o, (long long)d,
        d < 0 ? ename(de) : "", (long long)h, h < 0 ? ename(he) : "");
    int inside = (o >= d1 && o < d1 + n1) || (o >= d2 && o < d2 + n2);
    if (o >= size) {
      if (d >= 0 || de != ENXIO || h >= 0 || he != ENXIO) {
        bad("SEEK_DATA/HOLE at %lld (>= size) should be ENXIO", (long long)o);
        ok = 0;
      }
      continue;
    }
    /* SEEK_DATA: bytes in [o, d) are zero; ENXIO only if [o, size) is zero. */
    off_t end = d < 0 ? size : d;
    if (d < 0 && de != ENXIO) ok = 0, bad("SEEK_DATA(%lld) error %s", (long long)o, ename(de));
    if (d >= 0 && (d < o || d >= size)) ok = 0, bad("SEEK_DATA(%lld) = %lld out of range", (long long)o, (long long)d);
    for (off_t x = o; x < end && x < size; x++)
      if (b[x]) {
        ok = 0;
        bad("SEEK_DATA(%lld) = %lld skips data at %lld", (long long)o, (long long)d, (long long)x);
        break;
      }
    if (inside && d != o) ok = 0, bad("SEEK_DATA(%lld) inside written data = %lld", (long long)o, (long long)d);
    /* SEEK_HOLE: o <= h <= size, written bytes are never a hole. */
    if (h < o || h > size) ok = 0, bad("SEEK_HOLE(%lld) = %lld out of range", (long long)o, (long long)h);
    else if (h < size && ((h >= d1 && h < d1 + n1) || (h >= d2 && h < d2 + n2)))
      ok = 0, bad("SEEK_HOLE(%lld) = %lld inside written data", (long long)o, (long long)h);
    if (inside && h == o) ok = 0, bad("SEEK_HOLE(%lld) says written data is a hole", (long long)o);
  }
  say("SEEK_DATA/SEEK_HOLE invariants: %s", ok ? "consistent" : "broken");
  rep("lseek SEEK_DATA leaves offset there", lseek(fd, d1, SEEK_DATA) < 0 ? -1 : cur(fd) == d1);
  rep("close", close(fd));
  sum_file("p3", path("p3.bin"));
  free(b);
}

static void t_append(void)
{
  say("== O_APPEND, F_GETFL, F_SETFL");
  int fd = (int)rep_fd("open p4 O_APPEND", open(path("p4.bin"), O_CREAT | O_WRONLY | O_APPEND | O_TRUNC, 0644));
  if (fd < 0) return;
  unsigned char b[5000];
  gen(b, sizeof b, 30, 0);
  rep("write 1000", write(fd, b, 1000));
  rep("lseek 0", lseek(fd, 0, SEEK_SET));
  rep("write 777 (appends)", write(fd, b + 1000, 777));
  rep("offset", cur(fd));
  int fd2 = (int)rep_fd("second open O_APPEND", open(path("p4.bin"), O_WRONLY | O_APPEND));
  int fd3 = (int)rep_fd("third open O_RDWR (no append)", open(path("p4.bin"), O_RDWR));
  rep("fd2 write 10", write(fd2, b + 2000, 10));
  rep("fd write 11", write(fd, b + 2010, 11));
  rep("fd3 write 3 at its offset 0", write(fd3, "ABC", 3));
  rep("fd2 write 12", write(fd2, b + 2021, 12));
  rep("pwrite O_APPEND at 0 (Linux appends)", pwrite(fd, "xyz", 3, 0));
  rep("fd offset", cur(fd));
  rep("fd3 offset", cur(fd3));
  int fl = fcntl(fd, F_GETFL);
  say("F_GETFL: accmode %s append %d", (fl & O_ACCMODE) == O_WRONLY ? "WRONLY" : "other", !!(fl & O_APPEND));
  rep("F_SETFL clear O_APPEND", fcntl(fd, F_SETFL, fl & ~O_APPEND));
  fl = fcntl(fd, F_GETFL);
  say("F_GETFL: append %d", !!(fl & O_APPEND));
  rep("lseek 5", lseek(fd, 5, SEEK_SET));
  rep("write 4 at 5 (overwrites)", write(fd, "WXYZ", 4));
  rep("F_SETFL set O_APPEND", fcntl(fd, F_SETFL, fl | O_APPEND));
  rep("write 2 (appends)", write(fd, "!!", 2));
  rep("fstat size", fsize(fd));
  int ro = (int)rep_fd("open O_RDONLY", open(path("p4.bin"), O_RDONLY));
  rep("write on O_RDONLY", write(ro, "x", 1));
  rep("read on O_WRONLY", read(fd, b, 1));
  close(ro);
  close(fd3);
  close(fd2);
  rep("close", close(fd));
  sum_file("p4", path("p4.bin"));
}

static void t_truncate(void)
{
  say("== ftruncate, truncate");
  int fd = (int)rep_fd("open p5", open(path("p5.bin"), O_CREAT | O_RDWR | O_TRUNC, 0644));
  if (fd < 0) return;
  unsigned char *b = xmalloc(300000);
  gen(b, 300000, 40, 0);
  rep("write 300000", write_full(fd, b, 300000));
  rep("ftruncate 4097", ftruncate(fd, 4097));
  rep("fstat size", fsize(fd));
  rep("offset stays", cur(fd));
  rep("pread 100 at 4090", pread(fd, b, 100, 4090));
  rep("ftruncate 200000 (grow)", ftruncate(fd, 200000));
  rep("fstat size", fsize(fd));
  unsigned char z[5000];
  ssize_t got = rep("pread 5000 at 4097", pread(fd, z, sizeof z, 4097));
  size_t nz = 0;
  for (ssize_t i = 0; i < got; i++) nz += z[i] == 0;
  say("zeros after grow: %zu", nz);
  rep("write 9 at the offset (300000)", write(fd, "123456789", 9));
  rep("fstat size", fsize(fd));
  rep("truncate(path) 100001", truncate(path("p5.bin"), 100001));
  rep("fstat size", fsize(fd));
  rep("ftruncate -1", ftruncate(fd, -1));
  int ro = (int)rep_fd("open O_RDONLY", open(path("p5.bin"), O_RDONLY));
  rep("ftruncate on O_RDONLY", ftruncate(ro, 10));
  close(ro);
  rep("ftruncate 0", ftruncate(fd, 0));
  rep("fstat size", fsize(fd));
  rep("pwrite 3 at 70000", pwrite(fd, "end", 3, 70000));
  rep("close", close(fd));
  rep_fd("open O_TRUNC existing", fd = open(path("p5.bin"), O_RDWR | O_TRUNC));
  rep("fstat size after O_TRUNC", fsize(fd));
  rep("write 6", write(fd, "abcdef", 6));
  close(fd);
  sum_file("p5", path("p5.bin"));
  free(b);
}

static void t_dup(void)
{
  say("== dup, dup2, dup3, F_DUPFD, shared offsets");
  int fd = (int)rep_fd("open p6", open(path("p6.bin"), O_CREAT | O_RDWR | O_TRUNC, 0644));
  if (fd < 0) return;
  unsigned char b[100000];
  gen(b, sizeof b, 50, 0);
  rep("write 100000", write(fd, b, sizeof b));
  int d1 = dup(fd);
  say("dup: %s", d1 >= 0 && d1 != fd ? "new fd" : "FAILED");
  rep("lseek fd 100", lseek(fd, 100, SEEK_SET));
  rep("dup offset", cur(d1));
  unsigned char r[64];
  rep("read 64 via dup", read(d1, r, sizeof r));
  rep("fd offset", cur(fd));
  sum_buf("read via dup", r, 64);
  int d2 = (int)rep("dup2 to 40", dup2(fd, 40));
  rep("fd 40 offset", cur(40));
  rep("write 5 via 40", write(40, "fortY", 5));
  rep("fd offset", cur(fd));
  int d3 = fcntl(fd, F_DUPFD, 50);
  say("F_DUPFD 50: %s", d3 >= 50 ? ">= 50" : "FAILED");
  int d4 = fcntl(fd, F_DUPFD_CLOEXEC, 3);
  say("F_DUPFD_CLOEXEC: %s, FD_CLOEXEC %d", d4 >= 3 ? "ok" : "FAILED", (fcntl(d4, F_GETFD) & FD_CLOEXEC) != 0);
  say("FD_CLOEXEC on fd: %d", (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
  int d5 = (int)rep("dup3 to 60 O_CLOEXEC", dup3(fd, 60, O_CLOEXEC));
  say("FD_CLOEXEC on 60: %d", (fcntl(60, F_GETFD) & FD_CLOEXEC) != 0);
  rep("F_SETFD 60 0", fcntl(60, F_SETFD, 0));
  say("FD_CLOEXEC on 60: %d", (fcntl(60, F_GETFD) & FD_CLOEXEC) != 0);
  rep("dup2(fd, fd)", dup2(fd, fd) == fd);
  rep("dup3(fd, fd)", dup3(fd, fd, 0));
  rep("lseek d3 END -7", lseek(d3, -7, SEEK_END));
  rep("d4 offset", cur(d4));
  rep("close fd", close(fd));
  rep("read 7 via d1 after closing fd", read(d1, r, 7));
  sum_buf("tail", r, 7);
  /* dup2 over a descriptor of another open container closes that one. */
  int other = (int)rep_fd("open p6b", open(path("p6b.bin"), O_CREAT | O_RDWR | O_TRUNC, 0644));
  rep("write 9 to p6b", write(other, "otherfile", 9));
  rep("dup2(d1, other)", dup2(d1, other) == other);
  rep("lseek other 0", lseek(other, 0, SEEK_SET));
  rep("read 10 via other (now p6)", read(other, r, 10));
  sum_buf("p6 head", r, 10);
  rep("dup2 onto a closed fd 70", dup2(d1, 70));
  rep("fstat size via 70", fsize(70));
  rep("dup2 of a bad fd", dup2(999, 71));
  for (int i = 0; i < 4; i++) close(i == 0 ? d2 : i == 1 ? d3 : i == 2 ? d4 : d5);
  close(70);
  close(other);
  close(d1);
  rep("fstat after every close", fsize(d1));
  sum_file("p6", path("p6.bin"));
  sum_file("p6b", path("p6b.bin"));
}

static void t_fds(void)
{
  say("== descriptors are real and unique");
  int a = open(path("p7a.bin"), O_CREAT | O_RDWR | O_TRUNC, 0644);
  int b = open(path("p7b.bin"), O_CREAT | O_RDWR | O_TRUNC, 0644);
  int c = open(path("p7a.bin"), O_RDONLY);
  int p = open(opath("plain7.bin"), O_CREAT | O_RDWR | O_TRUNC, 0644);
  say("opened: %d", a >= 0 && b >= 0 && c >= 0 && p >= 0);
  say("distinct: %d", a != b && a != c && b != c && p != a && p != b && p != c);
  int real = 1;
  int fds[4] = {a, b, c, p};
  for (int i = 0; i < 4; i++) {
    char pp[64];
    struct stat st;
    snprintf(pp, sizeof pp, "/proc/self/fd/%d", fds[i]);
    real &= lstat(pp, &st) == 0;
  }
  say("all in /proc/self/fd: %d", real);
  /* The kernel gives the lowest free number; reported, not compared. */
  int lowest = 3;
  while (fcntl(lowest, F_GETFD) >= 0) lowest++;
  int n = open(path("p7a.bin"), O_RDONLY);
  say("# fds %d %d %d %d; next open %d, lowest free was %d", a, b, c, p, n, lowest);
  close(n);
  rep("write 3 via a", write(a, "aaa", 3));
  rep("read 3 via c", read(c, (char[4]){0}, 3));
  close(a);
  close(b);
  close(c);
  close(p);
}

static void t_fork(void)
{
  say("== fork: shared offset, child writes, parent reads");
  int fd = (int)rep_fd("open p8", open(path("p8.bin"), O_CREAT | O_RDWR | O_TRUNC, 0644));
  if (fd < 0) return;
  unsigned char b[20000];
  gen(b, sizeof b, 60, 0);
  rep("write 20000", write(fd, b, sizeof b));
  rep("lseek 100", lseek(fd, 100, SEEK_SET));
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) {
    int ok = write(fd, "child-wrote-this-with-exit(0)!!!", 32) == 32;
    exit(ok ? 0 : 3);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  say("child 1: exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  rep("parent offset after child's write", cur(fd));
  char r[64] = {0};
  rep("pread 32 at 100", pread(fd, r, 32, 100));
  say("data: %s", show(r, 32));
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    int ok = write(fd, "_exit-child", 11) == 11;
    ok &= pwrite(fd, "grows-the-file", 14, 30000) == 14;
    _exit(ok ? 0 : 3);
  }
  waitpid(pid, &st, 0);
  say("child 2: exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  rep("parent offset after _exit child", cur(fd));
  rep("fstat size", fsize(fd));
  memset(r, 0, sizeof r);
  rep("pread 11 at 132", pread(fd, r, 11, 132));
  say("data: %s", show(r, 11));
  memset(r, 0, sizeof r);
  rep("pread 14 at 30000", pread(fd, r, 14, 30000));
  say("data: %s", show(r, 14));
  /* The child closes its copy; the parent's stays usable. */
  fflush(stdout);
  pid = fork();
  if (pid == 0) _exit(close(fd) == 0 ? 0 : 3);
  waitpid(pid, &st, 0);
  say("child 3 (close): exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  rep("parent write 6 after child's close", write(fd, "parent", 6));
  rep("offset", cur(fd));
  /* The child reads what the parent wrote, through the inherited fd. */
  fflush(stdout);
  int pipefd[2];
  if (pipe(pipefd) < 0) return;
  pid = fork();
  if (pid == 0) {
    char c[7] = {0};
    ssize_t k = pread(fd, c, 6, 143);
    if (write(pipefd[1], c, 6) != 6) _exit(4);
    _exit(k == 6 ? 0 : 3);
  }
  close(pipefd[1]);
  char c[7] = {0};
  ssize_t k = read(pipefd[0], c, 6);
  close(pipefd[0]);
  waitpid(pid, &st, 0);
  say("child 4 read %zd: %s, exit %d", k, show(c, 6), WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  rep("close", close(fd));
  sum_file("p8", path("p8.bin"));
  /* fork and exec: stdin of a new program is the container at offset 1000. */
  fd = open(path("p8.bin"), O_RDONLY);
  lseek(fd, 1000, SEEK_SET);
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    dup2(fd, 0);
    close(fd);
    execlp("wc", "wc", "-c", (char *)NULL);
    _exit(127);
  }
  waitpid(pid, &st, 0);
  say("exec wc -c < container at offset 1000: exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  rep("parent offset after wc -c (fstat and lseek only)", cur(fd));
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    dup2(fd, 0);
    close(fd);
    execlp("md5sum", "md5sum", (char *)NULL);
    _exit(127);
  }
  waitpid(pid, &st, 0);
  say("exec md5sum < container at offset 1000: exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  rep("parent offset after md5sum read to the end", cur(fd));
  close(fd);
  /* fork and exec: stdout of a new program is a container opened O_APPEND. */
  fd = open(path("p8.bin"), O_WRONLY | O_APPEND);
  fflush(stdout);
  pid = fork();
  if (pid == 0) {
    dup2(fd, 1);
    close(fd);
    execlp("printf", "printf", "appended by an exec'ed printf %s\\n", "42", (char *)NULL);
    _exit(127);
  }
  waitpid(pid, &st, 0);
  say("exec printf >> container: exit %d", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
  rep("parent offset after the child appended", cur(fd));
  rep("fstat size", fsize(fd));
  close(fd);
  sum_file("p8 after exec", path("p8.bin"));
}

static void t_stdio(void)
{
  say("== stdio");
  FILE *f = fopen(path("p9.txt"), "w+");
  say("fopen w+: %s", f ? "ok" : ename(errno));
  if (!f) return;
  for (int i = 0; i < 500; i++) fprintf(f, "line %04d value %d\n", i, i * 7919 % 10007);
  unsigned char b[10000];
  gen(b, sizeof b, 70, 0);
  for (size_t i = 0; i < sizeof b; i++) b[i] = (unsigned char)('a' + b[i] % 26);
  rep("fwrite 10000", (long long)fwrite(b, 1, sizeof b, f));
  rep("fputc", fputc('\n', f));
  rep("fflush", fflush(f));
  rep("ftell", ftell(f));
  rep("fseek 0 SET", fseek(f, 0, SEEK_SET));
  char line[256];
  say("fgets: %s", fgets(line, sizeof line, f) ? strtok(line, "\n") : "NULL");
  rep("ftell", ftell(f));
  int n = 0, v = 0;
  rep("fscanf", fscanf(f, "line %d value %d\n", &n, &v));
  say("scanned %d %d", n, v);
  rep("fseek -100 END", fseek(f, -100, SEEK_END));
  char r[200];
  rep("fread 200 (100 left)", (long long)fread(r, 1, sizeof r, f));
  say("feof %d", feof(f) != 0);
  sum_buf("fread tail", (unsigned char *)r, 100);
  rewind(f);
  char *lp = NULL;
  size_t cap = 0;
  long lines = 0, chars = 0;
  ssize_t k;
  while ((k = getline(&lp, &cap, f)) > 0) lines++, chars += k;
  say("getline: %ld lines, %ld chars", lines, chars);
  rep("fseeko 5 SET", fseeko(f, 5, SEEK_SET));
  rep("getc", getc(f));
  rep("ungetc Q", ungetc('Q', f));
  rep("fgetc", fgetc(f));
  fpos_t pos;
  rep("fgetpos", fgetpos(f, &pos));
  rep("fseek 3 CUR", fseek(f, 3, SEEK_CUR));
  rep("fputs at 10", fputs("[mid]", f));
  rep("fsetpos", fsetpos(f, &pos));
  rep("ftello", (long long)ftello(f));
  rep("fileno fstat size", fsize(fileno(f)));
  rep("fclose", fclose(f));
  f = fopen(path("p9.txt"), "a");
  rep("fopen a: fprintf", f ? fprintf(f, "appended %s\n", "tail") : -1);
  rep("ftell in a mode", f ? ftell(f) : -1);
  if (f) fclose(f);
  f = fopen(path("p9.txt"), "r+");
  if (f) {
    rep("r+ fseek 7", fseek(f, 7, SEEK_SET));
    rep("fputc X", fputc('X', f));
    rep("fseek 0 CUR (switch to read)", fseek(f, 0, SEEK_CUR));
    rep("fgetc", fgetc(f));
    fclose(f);
  }
  f = fopen(path("p9b.bin"), "wb");
  if (f) {
    rep("setvbuf unbuffered", setvbuf(f, NULL, _IONBF, 0));
    for (int i = 0; i < 1000; i++) fwrite(b + i, 1, 3, f);
    rep("fwrite_unlocked", (long long)fwrite_unlocked(b, 1, 5000, f));
    fclose(f);
  }
  int fd = open(path("p9b.bin"), O_RDONLY);
  f = fd >= 0 ? fdopen(fd, "r") : NULL;
  if (f) {
    char s[4000];
    rep("fdopen fread_unlocked", (long long)fread_unlocked(s, 1, sizeof s, f));
    sum_buf("fdopen data", (unsigned char *)s, sizeof s);
    rep("fclose", fclose(f));
  }
  f = fopen(path("p9-does-not-exist"), "r");
  say("fopen r missing: %s", f ? "opened" : ename(errno));
  f = fopen(path("p9b.bin"), "wx");
  say("fopen wx existing: %s", f ? "opened" : ename(errno));
  if (f) fclose(f);
  f = freopen(path("p9c.txt"), "w", stdin);
  say("freopen w over stdin: %s", f ? "ok" : ename(errno));
  if (f) {
    fprintf(f, "via freopen\n");
    fclose(f);
  }
  free(lp);
  sum_file("p9", path("p9.txt"));
  sum_file("p9b", path("p9b.bin"));
  sum_file("p9c", path("p9c.txt"));
}

static void t_names(void)
{
  say("== names: errors, stat, rename, unlink, directory listing, times");
  int fd;
  rep_fd("open O_EXCL existing", open(path("p1.bin"), O_CREAT | O_EXCL | O_WRONLY, 0644));
  rep_fd("open missing", open(path("nope.bin"), O_RDONLY));
  rep_fd("open O_DIRECTORY on a file", open(path("p1.bin"), O_RDONLY | O_DIRECTORY));
  rep_fd("open O_PATH|O_DIRECTORY on a file (cp: is the target a directory?)",
         open(path("p1.bin"), O_RDONLY | O_PATH | O_DIRECTORY));
  rep("opendir on a file", opendir(path("p1.bin")) ? 0 : -1);
  rep("mkdir over a file", mkdir(path("p1.bin"), 0755));
  rep("rmdir a file", rmdir(path("p1.bin")));
  rep_fd("open file/child", open(path("p1.bin/x"), O_RDONLY));
  rep("creat in a missing subdir", open(path("nodir/x.bin"), O_CREAT | O_WRONLY, 0644));
  rep("access R_OK|W_OK", access(path("p1.bin"), R_OK | W_OK));
  rep("access X_OK", access(path("p2.bin"), X_OK));
  rep("faccessat F_OK", faccessat(AT_FDCWD, path("p2.bin"), F_OK, 0));
  struct stat st;
  rep("stat", stat(path("p1.bin"), &st));
  say("stat: %s size %lld nlink-ok %d", S_ISREG(st.st_mode) ? "REG" : "not-REG", (long long)st.st_size,
      st.st_nlink >= 1);
  rep("lstat", lstat(path("p2.bin"), &st));
  say("lstat: %s size %lld", S_ISREG(st.st_mode) ? "REG" : "not-REG", (long long)st.st_size);
  int dfd = open(g_dir, O_RDONLY | O_DIRECTORY);
  rep("fstatat", fstatat(dfd, "p3.bin", &st, 0));
  say("fstatat: %s size %lld", S_ISREG(st.st_mode) ? "REG" : "not-REG", (long long)st.st_size);
  struct statx sx;
  rep("statx", statx(dfd, "p4.bin", 0, STATX_BASIC_STATS, &sx));
  say("statx: %s size %llu", S_ISREG(sx.stx_mode) ? "REG" : "not-REG", (unsigned long long)sx.stx_size);
  rep("fstatat AT_SYMLINK_NOFOLLOW", fstatat(dfd, "p5.bin", &st, AT_SYMLINK_NOFOLLOW));
  say("fstatat: %s size %lld", S_ISREG(st.st_mode) ? "REG" : "not-REG", (long long)st.st_size);
  /* times: cp -p and tar x set them */
  struct timespec ts[2] = {{1000000000, 0}, {1500000000, 123456789}};
  rep("utimensat p1", utimensat(AT_FDCWD, path("p1.bin"), ts, 0));
  stat(path("p1.bin"), &st);
  say("mtime %lld.%09ld atime %lld", (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, (long long)st.st_atim.tv_sec);
  fd = open(path("p2.bin"), O_RDWR);
  ts[1].tv_sec = 1600000000;
  rep("futimens p2", futimens(fd, ts));
  fstat(fd, &st);
  say("mtime %lld", (long long)st.st_mtim.tv_sec);
  close(fd);
  rep("chmod p2 0600", chmod(path("p2.bin"), 0600));
  stat(path("p2.bin"), &st);
  say("# mode after chmod 0600: %o", (unsigned)(st.st_mode & 07777));
  /* rename and unlink */
  rep("rename p6b -> p6c", rename(path("p6b.bin"), path("p6c.bin")));
  rep("stat old name", stat(path("p6b.bin"), &st));
  rep("stat new name", stat(path("p6c.bin"), &st));
  say("p6c size %lld", (long long)st.st_size);
  rep("rename p7b over p7a (replaces)", rename(path("p7b.bin"), path("p7a.bin")));
  rep("renameat2 p6c -> p1 NOREPLACE", renameat2(dfd, "p6c.bin", dfd, "p1.bin", RENAME_NOREPLACE));
  rep("renameat p6c -> p6d", renameat(dfd, "p6c.bin", dfd, "p6d.bin"));
  rep("unlink p6d", unlink(path("p6d.bin")));
  rep("unlink again", unlink(path("p6d.bin")));
  rep("unlinkat p7a", unlinkat(dfd, "p7a.bin", 0));
  rep("unlinkat AT_REMOVEDIR on a file", unlinkat(dfd, "p8.bin", AT_REMOVEDIR));
  /* an open container survives unlink of its name */
  fd = open(path("p5.bin"), O_RDONLY);
  rep("unlink open p5", unlink(path("p5.bin")));
  char r[6] = {0};
  rep("read the unlinked p5", pread(fd, r, 6, 0));
  say("data %s", show(r, 6));
  close(fd);
  rep("stat p5", stat(path("p5.bin"), &st));
  /* a real subdirectory and a file in it */
  rep("mkdir sub", mkdir(path("sub"), 0755));
  fd = open(path("sub/in.bin"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  rep("write in sub", write(fd, "in a subdirectory\n", 18));
  close(fd);
  rep("rmdir non-empty sub", rmdir(path("sub")));
  close(dfd);
  /* listing: sorted names with types */
  DIR *d = opendir(g_dir);
  if (!d) {
    say("opendir -> %s", ename(errno));
    return;
  }
  char names[64][300];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 64) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    const char *t = e->d_type == DT_REG ? "REG" : e->d_type == DT_DIR ? "DIR" : "?";
    if (e->d_type == DT_UNKNOWN) {
      struct stat s2;
      if (fstatat(dirfd(d), e->d_name, &s2, AT_SYMLINK_NOFOLLOW) == 0)
        t = S_ISREG(s2.st_mode) ? "REG" : S_ISDIR(s2.st_mode) ? "DIR" : "other";
      say("# d_type UNKNOWN for %s", e->d_name);
    }
    snprintf(names[n++], sizeof names[0], "%s %s", e->d_name, t);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof names[0], (int (*)(const void *, const void *))strcmp);
  for (int i = 0; i < n; i++) say("entry %s", names[i]);
}

/* ---- zero-copy calls and mmap: served correctly, or refused cleanly ---- */

static int refusal_ok(int e)
{
  return e == ENOSYS || e == ENOTTY || e == ENOTSUP || e == EOPNOTSUPP || e == EINVAL || e == EBADF ||
         e == EXDEV || e == ETXTBSY || e == EPERM || e == EACCES || e == ENODEV;
}

/* dst holds 1000 'd' bytes; after the call it must hold either that (refused)
 * or the expected copy. */
static void expect_copy(const char *what, int served, int err, const char *dstpath, off_t doff,
                        const unsigned char *want, size_t n)
{
  int fd = open(dstpath, O_RDONLY);
  long long sz = fsize(fd);
  unsigned char *got = xmalloc((size_t)(doff + (off_t)n + 1000));
  ssize_t k = pread_full(fd, got, (size_t)(doff + (off_t)n + 1000), 0);
  close(fd);
  int ok;
  if (served) {
    ok = sz == (long long)((off_t)n + doff > 1000 ? (off_t)n + doff : 1000) && k == sz &&
         memcmp(got + doff, want, n) == 0;
    for (off_t i = 0; i < doff; i++) ok &= got[i] == 'd';
  } else {
    ok = refusal_ok(err) && sz == 1000;
    for (ssize_t i = 0; i < k; i++) ok &= got[i] == 'd';
  }
  say("# %s: %s%s", what, served ? "served" : "refused ", served ? "" : ename(err));
  if (ok)
    say("%s: consistent", what);
  else
    bad("%s: %s, destination size %lld", what, served ? "served with wrong data" : "refused but not cleanly", sz);
  free(got);
  if (!served && ok && want) {
    /* the caller's fallback (cp, shutil): read and write */
    fd = open(dstpath, O_WRONLY);
    if (fd < 0 || pwrite(fd, want, n, doff) != (ssize_t)n) bad("%s: fallback write failed", what);
    close(fd);
  }
}

static void prep_dst(const char *p)
{
  int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  char d[1000];
  memset(d, 'd', sizeof d);
  if (fd < 0 || write(fd, d, sizeof d) != (ssize_t)sizeof d) say("prep %s failed", p);
  close(fd);
}

typedef enum { CFR, SENDFILE } zc_kind;

static void zc_case(zc_kind kind, const char *label, const char *src, const char *dst)
{
  const off_t soff = 4096 + 3, doff = 100;
  const size_t n = 300000;
  int in = open(src, O_RDONLY);
  unsigned char *want = xmalloc(n);
  ssize_t k = pread_full(in, want, n, soff);
  if (k != (ssize_t)n) {
    bad("%s: source too short", label);
    close(in);
    free(want);
    return;
  }
  prep_dst(dst);
  int out = open(dst, O_WRONLY);
  size_t done = 0;
  int err = 0;
  loff_t io = soff, oo = doff;
  off_t so = soff;
  if (kind == SENDFILE) lseek(out, doff, SEEK_SET);
  while (done < n) {
    ssize_t r = kind == CFR ? copy_file_range(in, &io, out, &oo, n - done, 0) : sendfile(out, in, &so, n - done);
    if (r < 0) {
      err = errno;
      break;
    }
    if (r == 0) break;
    done += (size_t)r;
  }
  close(out);
  close(in);
  if (err && done) {
    bad("%s: failed with %s after copying %zu bytes (callers cannot fall back)", label, ename(err), done);
  } else if (!err && done != n) {
    bad("%s: stopped after %zu of %zu bytes", label, done, n);
  } else {
    expect_copy(label, err == 0, err, dst, doff, want, n);
  }
  free(want);
}

static void t_zerocopy(void)
{
  say("== copy_file_range, sendfile, FICLONE, splice, mmap: served or refused cleanly");
  char c1[4096]; /* the 3 MiB+ container written above (path() buffers rotate) */
  snprintf(c1, sizeof c1, "%s", path("p1.bin"));
  int fd = open(opath("plain-src.bin"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
  unsigned char *b = xmalloc(400000);
  gen(b, 400000, 80, 0);
  if (write_full(fd, b, 400000) < 0) say("write plain-src failed");
  close(fd);
  zc_case(CFR, "copy_file_range container -> plain", c1, opath("cfr1.bin"));
  zc_case(CFR, "copy_file_range plain -> container", opath("plain-src.bin"), path("cfr2.bin"));
  zc_case(CFR, "copy_file_range container -> container", c1, path("cfr3.bin"));
  zc_case(SENDFILE, "sendfile container -> plain", c1, opath("sf1.bin"));
  zc_case(SENDFILE, "sendfile plain -> container", opath("plain-src.bin"), path("sf2.bin"));
  sum_file("cfr2", path("cfr2.bin"));
  sum_file("cfr3", path("cfr3.bin"));
  sum_file("sf2", path("sf2.bin"));

  /* FICLONE: ext4 refuses it; a container must be refused or cloned right. */
  for (int dir = 0; dir < 2; dir++) {
    const char *src = dir ? opath("plain-src.bin") : c1;
    const char *dst = dir ? path("clone2.bin") : opath("clone1.bin");
    const char *label = dir ? "FICLONE plain -> container" : "FICLONE container -> plain";
    prep_dst(dst);
    int in = open(src, O_RDONLY), out = open(dst, O_WRONLY);
    int r = ioctl(out, FICLONE, in);
    int e = errno;
    long long ssz = fsize(in);
    close(in);
    close(out);
    if (r == 0) {
      /* whole-file clone: dst equals src */
      int a = open(src, O_RDONLY);
      unsigned char *want = xmalloc((size_t)ssz);
      pread_full(a, want, (size_t)ssz, 0);
      close(a);
      say("# %s: served", label);
      int o = open(dst, O_RDONLY);
      unsigned char *got = xmalloc((size_t)ssz);
      int ok = pread_full(o, got, (size_t)ssz, 0) == ssz && fsize(o) == ssz && !memcmp(got, want, (size_t)ssz);
      close(o);
      if (ok)
        say("%s: consistent", label);
      else
        bad("%s: served with wrong data", label);
      free(want);
      free(got);
    } else {
      expect_copy(label, 0, e, dst, 0, NULL, 0);
      /* the caller's fallback: a plain copy of the whole file */
      int a = open(src, O_RDONLY), o = open(dst, O_WRONLY | O_TRUNC);
      unsigned char *all = xmalloc((size_t)ssz);
      ssize_t k = pread_full(a, all, (size_t)ssz, 0);
      if (k != ssz || write_full(o, all, (size_t)ssz) != ssz) bad("%s: fallback copy failed", label);
      close(a);
      close(o);
      free(all);
    }
  }

  sum_file("clone2", path("clone2.bin"));
  sum_file("cfr1 (plain)", opath("cfr1.bin"));
  sum_file("sf1 (plain)", opath("sf1.bin"));
  sum_file("clone1 (plain)", opath("clone1.bin"));

  /* splice container -> pipe */
  {
    int p[2];
    if (pipe(p) == 0) {
      int in = open(c1, O_RDONLY);
      loff_t off = 777;
      ssize_t r = splice(in, &off, p[1], NULL, 50000, 0);
      int e = errno;
      if (r > 0) {
        unsigned char *got = xmalloc((size_t)r), *want = xmalloc((size_t)r);
        ssize_t k = read(p[0], got, (size_t)r);
        pread_full(in, want, (size_t)r, 777);
        say("# splice container -> pipe: served %zd", r);
        if (k == r && !memcmp(got, want, (size_t)r))
          say("splice container -> pipe: consistent");
        else
          bad("splice container -> pipe: wrong data");
        free(got);
        free(want);
      } else if (r < 0 && refusal_ok(e)) {
        say("# splice container -> pipe: refused %s", ename(e));
        say("splice container -> pipe: consistent");
      } else {
        bad("splice container -> pipe: returned %zd %s", r, r < 0 ? ename(e) : "");
      }
      close(in);
      close(p[0]);
      close(p[1]);
    }
  }

  /* mmap in a child: a mapping that faults (SIGBUS) is not a clean refusal. */
  for (int mode = 0; mode < 3; mode++) {
    const char *label = mode == 0   ? "mmap PROT_READ MAP_PRIVATE"
                        : mode == 1 ? "mmap PROT_READ MAP_SHARED offset 64 KiB"
                                    : "mmap PROT_WRITE MAP_SHARED + msync";
    int p[2];
    if (pipe(p) < 0) return;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
      close(p[0]);
      int o = open(c1, mode == 2 ? O_RDWR : O_RDONLY);
      long long sz = fsize(o);
      off_t moff = mode == 1 ? 65536 : 0;
      if (sz <= moff) _exit(6);
      size_t len = (size_t)(sz - moff);
      void *m = mmap(NULL, len, mode == 2 ? PROT_READ | PROT_WRITE : PROT_READ,
                     mode == 0 ? MAP_PRIVATE : MAP_SHARED, o, moff);
      char msg[200];
      if (m == MAP_FAILED) {
        snprintf(msg, sizeof msg, "%s %s", refusal_ok(errno) ? "R" : "X", ename(errno));
      } else {
        unsigned char *want = xmalloc(len);
        pread_full(o, want, len, moff);
        int ok = !memcmp(m, want, len);
        if (mode == 2) {
          memcpy(m, "MMAPPED", 7);
          ok &= msync(m, len, MS_SYNC) == 0;
          char chk[8] = {0};
          ok &= pread(o, chk, 7, 0) == 7 && !memcmp(chk, "MMAPPED", 7);
          memcpy(m, want, 7); /* restore */
          msync(m, len, MS_SYNC);
        }
        munmap(m, len);
        snprintf(msg, sizeof msg, "%s", ok ? "S" : "W");
        free(want);
      }
      if (write(p[1], msg, strlen(msg)) < 0) _exit(5);
      _exit(0);
    }
    close(p[1]);
    char msg[200] = {0};
    ssize_t k = read(p[0], msg, sizeof msg - 1);
    close(p[0]);
    int st;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st)) {
      bad("%s: child killed by signal %s", label, sigabbrev_np(WTERMSIG(st)) ? sigabbrev_np(WTERMSIG(st)) : "?");
    } else if (k > 0 && msg[0] == 'S') {
      say("# %s: served", label);
      say("%s: consistent", label);
    } else if (k > 0 && msg[0] == 'R') {
      say("# %s: refused %s", label, msg + 2);
      say("%s: consistent", label);
    } else {
      bad("%s: %s", label, msg[0] == 'W' ? "served with wrong data" : msg);
    }
  }
  sum_file("p1 after mmap", c1);
  free(b);
}

int main(int argc, char **argv)
{
  if (argc != 3 || !strcmp(argv[1], "--help")) {
    fprintf(stderr, "usage: pl_posix DIR OUTDIR\n  POSIX/stdio calls on files in DIR (OUTDIR: plain scratch directory);\n"
                    "  prints a deterministic transcript ('#' lines are information).\n");
    return argc == 2 ? 0 : 2;
  }
  g_dir = argv[1];
  g_out = argv[2];
  signal(SIGPIPE, SIG_IGN);
  t_write_read();
  t_vectors();
  t_data_hole();
  t_append();
  t_truncate();
  t_dup();
  t_fds();
  t_fork();
  t_stdio();
  t_zerocopy();
  t_names();
  say("== end: %d inconsistencies", g_bad);
  return g_bad ? 1 : 0;
}
