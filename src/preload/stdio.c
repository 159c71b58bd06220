/* stdio on containers. glibc's FILE functions reach the kernel through
 * internal calls that no wrapper sees, so a stream on a container is a
 * fopencookie FILE over the fd-level functions; every stdio function then
 * works on it (fread_unlocked, getdelim, fprintf, fseeko...). fileno answers
 * the container fd. Streams on other files are libc's own. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/preload.h"

#define PL_STREAM_BUF (32 << 10)

PL_DECL_REAL(fopen);
PL_DECL_REAL(fopen64);
PL_DECL_REAL(fdopen);
PL_DECL_REAL(freopen);
PL_DECL_REAL(freopen64);
PL_DECL_REAL(fileno);
PL_DECL_REAL(fileno_unlocked);

#define NFILES 256
static FILE *files[NFILES];
static int file_fd[NFILES];
static char *file_buf[NFILES]; /* the stream's buffer: freed after fclose */
static int nfiles;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* Remembers f (fd >= 0) or forgets it (fd < 0: returns its buffer, which
 * the caller frees once the stream is closed, or keeps). */
static char *remember(FILE *f, int fd, char *buf)
{
  char *old = NULL;
  pthread_mutex_lock(&mu);
  for (int i = 0; i < NFILES; i++) {
    if (fd >= 0 && !files[i]) {
      files[i] = f;
      file_fd[i] = fd;
      file_buf[i] = buf;
      nfiles++;
      break;
    }
    if (fd < 0 && files[i] == f) {
      files[i] = NULL;
      old = file_buf[i];
      file_buf[i] = NULL;
      nfiles--;
      break;
    }
  }
  pthread_mutex_unlock(&mu);
  return old;
}

static int cookie_fd_of(FILE *f)
{
  int fd = -1;
  if (!__atomic_load_n(&nfiles, __ATOMIC_RELAXED)) return -1;
  pthread_mutex_lock(&mu);
  for (int i = 0; i < NFILES && fd < 0; i++)
    if (files[i] == f) fd = file_fd[i];
  pthread_mutex_unlock(&mu);
  return fd;
}

static ssize_t c_read(void *c, char *buf, size_t len)
{
  return ostio__pl_fd_read((int)(intptr_t)c, buf, len);
}
static ssize_t c_write(void *c, const char *buf, size_t len)
{
  ssize_t n = ostio__pl_fd_write((int)(intptr_t)c, buf, len);
  return n < 0 ? 0 : n; /* fopencookie: 0 is the error return */
}
static int c_seek(void *c, off64_t *pos, int whence)
{
  off_t r = ostio__pl_fd_lseek((int)(intptr_t)c, *pos, whence);
  if (r < 0) return -1;
  *pos = r;
  return 0;
}
static int c_close(void *c)
{
  return ostio__pl_fd_close((int)(intptr_t)c);
}

/* The stream's buffer. setvbuf with a NULL buffer keeps glibc's BUFSIZ
 * (8 KiB), so it is allocated here. glibc's fread reads straight into the
 * caller's memory when a request is at least the buffer's size: 32 KiB lets
 * md5sum's and sha*sum's 32 KiB freads through without a copy, while
 * smaller requests (getline, fgets, fscanf) still see few, large calls. */
static size_t buf_size(void)
{
  const char *e = getenv("OSTIO_PL_STREAMBUF");
  return e && atol(e) > 0 ? (size_t)atol(e) : (size_t)PL_STREAM_BUF;
}

FILE *ostio__pl_cookie_file(int fd, const char *mode)
{
  cookie_io_functions_t io = {c_read, c_write, c_seek, c_close};
  FILE *f = fopencookie((void *)(intptr_t)fd, mode, io);
  if (!f) return NULL;
  size_t sz = buf_size();
  char *buf = malloc(sz);
  if (buf) setvbuf(f, buf, _IOFBF, sz);
  remember(f, fd, buf);
  return f;
}

/* open(2) flags of a fopen mode; -1 when it is not one. */
static int mode_flags(const char *m)
{
  int fl;
  switch (m[0]) {
  case 'r': fl = O_RDONLY; break;
  case 'w': fl = O_WRONLY | O_CREAT | O_TRUNC; break;
  case 'a': fl = O_WRONLY | O_CREAT | O_APPEND; break;
  default: return -1;
  }
  for (const char *p = m + 1; *p && *p != ','; p++) {
    if (*p == '+') fl = (fl & ~O_ACCMODE) | O_RDWR;
    else if (*p == 'x') fl |= O_EXCL;
    else if (*p == 'e') fl |= O_CLOEXEC;
  }
  return fl;
}

/* NULL with *done 0: not a container. */
static FILE *open_stream(const char *path, const char *mode, int *done)
{
  char norm[PL_PATH_MAX];
  *done = 0;
  int fl = mode ? mode_flags(mode) : -1;
  if (!path || fl < 0 || !ostio__pl_active()) return NULL;
  /* "x" (O_CREAT|O_EXCL) does not follow a final symlink, as open(2). */
  int nofollow = (fl & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
  int k = ostio__pl_classify_at(AT_FDCWD, path, norm, nofollow ? PL_NOFOLLOW : 0);
  if (k == PL_PATH_BELOW) {
    *done = 1;
    errno = ENOTDIR;
    return NULL;
  }
  if (k != PL_PATH_CTR && !(k == PL_PATH_NEW && (fl & O_CREAT))) return NULL;
  *done = 1;
  int fd = ostio__pl_open_ctr(norm, k == PL_PATH_CTR, fl, 0666);
  if (fd < 0) return NULL;
  FILE *f = ostio__pl_cookie_file(fd, mode);
  if (!f) {
    int e = errno;
    ostio__pl_fd_close(fd);
    errno = e;
  }
  return f;
}

PL_EXPORT FILE *fopen(const char *path, const char *mode)
{
  int done;
  FILE *f = open_stream(path, mode, &done);
  return done ? f : PL_REAL(fopen)(path, mode);
}

PL_EXPORT FILE *fopen64(const char *path, const char *mode)
{
  int done;
  FILE *f = open_stream(path, mode, &done);
  return done ? f : PL_REAL(fopen64)(path, mode);
}

PL_EXPORT FILE *fdopen(int fd, const char *mode)
{
  if (!OURS(fd)) return PL_REAL(fdopen)(fd, mode);
  return ostio__pl_cookie_file(fd, mode);
}

/* A container cannot be put under the old FILE: the new stream replaces
 * stdin/stdout/stderr when it was one of them, and is returned. */
static FILE *reopen(const char *path, const char *mode, FILE *old, int *done)
{
  FILE *f = open_stream(path, mode, done);
  if (!*done) return NULL;
  if (f) {
    if (old == stdin) stdin = f;
    else if (old == stdout) stdout = f;
    else if (old == stderr) stderr = f;
  }
  if (old) fclose(old);
  return f;
}

PL_EXPORT FILE *freopen(const char *path, const char *mode, FILE *old)
{
  int done;
  FILE *f = reopen(path, mode, old, &done);
  return done ? f : PL_REAL(freopen)(path, mode, old);
}

PL_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *old)
{
  int done;
  FILE *f = reopen(path, mode, old, &done);
  return done ? f : PL_REAL(freopen64)(path, mode, old);
}

PL_EXPORT int fileno(FILE *f)
{
  int fd = cookie_fd_of(f);
  return fd >= 0 ? fd : PL_REAL(fileno)(f);
}

PL_EXPORT int fileno_unlocked(FILE *f)
{
  int fd = cookie_fd_of(f);
  return fd >= 0 ? fd : PL_REAL(fileno_unlocked)(f);
}

/* fclose of a cookie stream reaches c_close; forget the FILE first. */
PL_DECL_REAL(fclose);
PL_EXPORT int fclose(FILE *f)
{
  char *buf = cookie_fd_of(f) >= 0 ? remember(f, -1, NULL) : NULL;
  int rc = PL_REAL(fclose)(f);
  free(buf);
  return rc;
}

/* fd 0, 1 or 2 became (or stopped being) a container fd through dup2/dup3
 * (a shell's redirection, `sort -o`): the standard stream over it is a
 * cookie stream while it is ours, the original one again afterwards. The
 * replaced cookie stream is flushed and left open (closing it would close
 * the fd). */
static FILE *saved_std[3];
void ostio__pl_std_swap(int fd)
{
  if (fd < 0 || fd > 2) return;
  FILE **std = fd == 0 ? &stdin : fd == 1 ? &stdout : &stderr;
  int ours = ostio__pl_fd_ours(fd), cookie = cookie_fd_of(*std) == fd;
  if (ours && !cookie) {
    FILE *f = ostio__pl_cookie_file(fd, fd == 0 ? "r" : "w");
    if (!f) return;
    fflush(*std);
    if (!saved_std[fd]) saved_std[fd] = *std;
    if (fd != 0) setvbuf(f, NULL, fd == 2 ? _IONBF : _IOFBF, 0);
    *std = f;
  } else if (!ours && cookie && saved_std[fd]) {
    fflush(*std);
    remember(*std, -1, NULL); /* left open: its buffer stays */
    *std = saved_std[fd];
    saved_std[fd] = NULL;
  }
}
