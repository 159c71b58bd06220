/* The open family, close, the read/write family and lseek. A call on a fd
 * that is not ours (one array load) or a path outside OSTIO_PRELOAD_PATHS
 * goes straight to libc. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "preload/preload.h"

PL_DECL_REAL(open);
PL_DECL_REAL(openat);
PL_DECL_REAL(close);
PL_DECL_REAL(read);
PL_DECL_REAL(write);
PL_DECL_REAL(pread);
PL_DECL_REAL(pwrite);
PL_DECL_REAL(readv);
PL_DECL_REAL(writev);
PL_DECL_REAL(preadv);
PL_DECL_REAL(pwritev);
PL_DECL_REAL(preadv2);
PL_DECL_REAL(pwritev2);
PL_DECL_REAL(lseek);

/* ---- open ---------------------------------------------------------------------------- */

int ostio__pl_open_ctr(const char *norm, int exists, int flags, mode_t mode)
{
  ostio__pl_obj *o = NULL;
  ostio__pl_inside++;
  int reserved = PL_REAL(open)("/dev/null", O_RDONLY | O_CLOEXEC); /* the lowest free fd */
  int fd = -1, rc = ostio__pl_obj_open(norm, exists, flags, mode, &o);
  if (rc == 0 && (fd = ostio__pl_placeholder(o, reserved, flags)) < 0) rc = fd;
  if (rc < 0 && reserved >= 0) PL_REAL(close)(reserved);
  if (rc == 0) {
    int keep = O_ACCMODE | O_APPEND | O_NONBLOCK | O_SYNC | O_DSYNC | O_NOATIME | O_DIRECT;
    ostio__pl_desc *d = ostio__pl_desc_new(o, flags & keep);
    if (!d || ostio__pl_fdtab_set(fd, d) < 0) {
      rc = d ? -EMFILE : -ENOMEM;
      free(d);
      PL_REAL(close)(fd);
    }
  }
  if (rc < 0 && o) ostio__pl_obj_release(o);
  ostio__pl_inside--;
  if (rc < 0) return ostio__pl_errno(rc);
  ostio__pl_debug("ostio-preload: open %s flags 0x%x -> fd %d", norm, flags, fd);
  return fd;
}

/* -1 with *fd unset: not ours; else *fd is the result. */
static int try_open(int dirfd, const char *path, int flags, mode_t mode, int *fd)
{
  char norm[PL_PATH_MAX];
  if (!ostio__pl_active()) return -1;
  if ((flags & O_PATH) && !(flags & O_DIRECTORY)) return -1;
  int nofollow = (flags & O_NOFOLLOW) || (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
  int k = ostio__pl_classify_at(dirfd, path, norm, nofollow ? PL_NOFOLLOW : 0);
  if (k == PL_PATH_BELOW) { /* a container is a file: nothing is below it */
    errno = ENOTDIR;
    *fd = -1;
    return 0;
  }
  if ((flags & O_PATH) && k != PL_PATH_CTR) return -1;
  if (k == PL_PATH_CTR && (flags & O_DIRECTORY)) { /* cp: "is the target a directory?" */
    errno = ENOTDIR;
    *fd = -1;
    return 0;
  }
  if (k == PL_PATH_CTR || (k == PL_PATH_NEW && (flags & O_CREAT))) {
    *fd = ostio__pl_open_ctr(norm, k == PL_PATH_CTR, flags, mode);
    return 0;
  }
  return -1;
}

#define OPEN_MODE(flags, mode)                                                         \
  mode_t mode = 0;                                                                     \
  if ((flags) & (O_CREAT | __O_TMPFILE)) {                                             \
    va_list ap;                                                                        \
    va_start(ap, flags);                                                               \
    mode = (mode_t)va_arg(ap, int);                                                    \
    va_end(ap);                                                                        \
  }

/* The library's own fds (container directories, objects, logs) move above
 * the fd numbers programs use: a new open gets the number the kernel would
 * give without the library, and a dup2 onto a small number never hits one. */
static int relocate(int fd)
{
  static int high;
  PL_DECL_REAL(fcntl);
  if (fd < 0 || !ostio__pl_inside) return fd;
  if (!high) {
    int h = ostio__pl_fdtab_cap > 2048 ? 1024 : ostio__pl_fdtab_cap / 2;
    high = h > 64 ? h : 64;
  }
  if (fd >= high) return fd;
  int cl = PL_REAL(fcntl)(fd, F_GETFD) & FD_CLOEXEC;
  int nfd = PL_REAL(fcntl)(fd, cl ? F_DUPFD_CLOEXEC : F_DUPFD, high);
  if (nfd < 0) return fd; /* no room up there: keep it */
  PL_REAL(close)(fd);
  return nfd;
}

/* The container code's own read-only opens (directories it lists, the
 * manifest, logs) carry O_NOATIME when the kernel permits it (the owner):
 * reading a container must not change the directory's atime, which stat
 * shows as the file's (utimensat sets it). */
static int own_open(int dirfd, const char *path, int flags, mode_t mode)
{
  if ((flags & O_ACCMODE) == O_RDONLY && !(flags & (O_CREAT | O_PATH | O_NOATIME))) {
    int fd = PL_REAL(openat)(dirfd, path, flags | O_NOATIME, mode);
    if (fd >= 0 || errno != EPERM) return relocate(fd);
  }
  return relocate(PL_REAL(openat)(dirfd, path, flags, mode));
}

PL_EXPORT int open(const char *path, int flags, ...)
{
  OPEN_MODE(flags, mode);
  int fd;
  if (ostio__pl_inside) return own_open(AT_FDCWD, path, flags, mode);
  if (try_open(AT_FDCWD, path, flags, mode, &fd) == 0) return fd;
  return relocate(PL_REAL(open)(path, flags, mode));
}

PL_EXPORT int open64(const char *path, int flags, ...)
{
  OPEN_MODE(flags, mode);
  return open(path, flags | O_LARGEFILE, mode);
}

PL_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
  OPEN_MODE(flags, mode);
  int fd;
  if (ostio__pl_inside) return own_open(dirfd, path, flags, mode);
  if (try_open(dirfd, path, flags, mode, &fd) == 0) return fd;
  return relocate(PL_REAL(openat)(dirfd, path, flags, mode));
}

PL_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
  OPEN_MODE(flags, mode);
  return openat(dirfd, path, flags | O_LARGEFILE, mode);
}

/* Fortified forms (no mode: O_CREAT is refused by the caller's checks). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
PL_EXPORT int __open_2(const char *path, int flags) { return open(path, flags); }
PL_EXPORT int __open64_2(const char *path, int flags) { return open(path, flags | O_LARGEFILE); }
PL_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
  return openat(dirfd, path, flags);
}
PL_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
  return openat(dirfd, path, flags | O_LARGEFILE);
}
PL_EXPORT int creat(const char *path, mode_t mode)
{
  return open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
}
PL_EXPORT int creat64(const char *path, mode_t mode)
{
  return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_LARGEFILE, mode);
}

/* ---- close ---------------------------------------------------------------------------- */

int ostio__pl_fd_close(int fd)
{
  int ours;
  void *o = ostio__pl_fdtab_clear(fd, &ours);
  ostio__pl_inside++;
  int frc = o ? ostio__pl_obj_close(o) : 0;
  int rc = PL_REAL(close)(fd);
  ostio__pl_inside--;
  return rc == 0 && frc < 0 ? ostio__pl_errno(frc) : rc; /* closed, like the kernel's EIO */
}

PL_EXPORT int close(int fd)
{
  if (!OURS(fd)) return PL_REAL(close)(fd); /* a vfork child closes its own copy only */
  return ostio__pl_fd_close(fd);
}

/* ---- offsets ----------------------------------------------------------------------------
 * The offset lives in the description. The placeholder fd's kernel offset,
 * which fork, exec and spawned programs see, is written lazily: a changed
 * offset marks the description dirty, and every dirty one is written
 * before fork (the prepare handler), exec, posix_spawn, system and popen.
 * After a fork (desc->shared) the kernel's value is the truth: read back
 * before and written through after each call. */

static int offsets_dirty; /* a hint: some description may be dirty */

static int64_t off_get(ostio__pl_desc *d, int fd)
{
  if (d->shared) {
    off_t k = PL_REAL(lseek)(fd, 0, SEEK_CUR);
    if (k >= 0) d->off = k;
  }
  return d->off;
}

static void off_set(ostio__pl_desc *d, int fd, int64_t off)
{
  d->off = off;
  if (d->shared) {
    PL_REAL(lseek)(fd, (off_t)off, SEEK_SET);
  } else if (!d->kdirty) {
    d->kdirty = 1;
    __atomic_store_n(&offsets_dirty, 1, __ATOMIC_RELEASE);
  }
}

void ostio__pl_offsets_sync(void)
{
  if (!__atomic_exchange_n(&offsets_dirty, 0, __ATOMIC_ACQ_REL)) return;
  ostio__pl_fdtab_lock();
  for (int fd = 0; fd < ostio__pl_fdtab_cap; fd++) {
    ostio__pl_desc *d = ostio__pl_fdtab_slot[fd];
    if (!d || !d->kdirty) continue;
    pthread_mutex_lock(&d->mu);
    if (PL_REAL(lseek)(fd, (off_t)d->off, SEEK_SET) >= 0) d->kdirty = 0;
    pthread_mutex_unlock(&d->mu);
  }
  ostio__pl_fdtab_unlock();
}

/* One I/O on fd at off (-1: the description's offset, advanced). */
static ssize_t fd_io(int fd, const struct iovec *iov, int n, int64_t off, int write)
{
  ostio__pl_desc *d = ostio__pl_fdtab_get(fd);
  if (!d) {
    errno = EBADF;
    return -1;
  }
  if (!ostio__pl_desc_allows(d, write)) {
    ostio__pl_desc_release(d);
    errno = EBADF;
    return -1;
  }
  int use_off = off < 0;
  ssize_t done = 0, rc = 0;
  ostio__pl_inside++;
  if (use_off) pthread_mutex_lock(&d->mu);
  int64_t at = use_off ? off_get(d, fd) : off;
  for (int i = 0; i < n && rc >= 0; i++) {
    if (iov[i].iov_len == 0) continue;
    if (write) {
      int64_t end;
      rc = ostio__pl_obj_pwrite(d->obj, iov[i].iov_base, iov[i].iov_len, at,
                                !!(d->flags & O_APPEND), &end); /* pwrite too, as Linux */
      if (rc > 0) at = end;
    } else {
      rc = ostio__pl_obj_pread(d->obj, iov[i].iov_base, iov[i].iov_len, at);
      if (rc > 0) at += rc;
    }
    if (rc > 0) done += rc;
    if (rc < (ssize_t)iov[i].iov_len) break; /* short: end of file */
  }
  if (use_off) {
    if (done > 0) off_set(d, fd, at);
    pthread_mutex_unlock(&d->mu);
  }
  ostio__pl_inside--;
  ostio__pl_desc_release(d);
  if (rc < 0 && done == 0) return ostio__pl_errno((int)rc);
  return done;
}

ssize_t ostio__pl_fd_read(int fd, void *buf, size_t len)
{
  struct iovec v = {buf, len};
  return fd_io(fd, &v, 1, -1, 0);
}

ssize_t ostio__pl_fd_write(int fd, const void *buf, size_t len)
{
  struct iovec v = {(void *)buf, len};
  return fd_io(fd, &v, 1, -1, 1);
}

/* ---- read and write ----------------------------------------------------------------------- */

PL_EXPORT ssize_t read(int fd, void *buf, size_t len)
{
  if (!OURS(fd)) return PL_REAL(read)(fd, buf, len);
  return ostio__pl_fd_read(fd, buf, len);
}

PL_EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
  if (!OURS(fd)) return PL_REAL(write)(fd, buf, len);
  return ostio__pl_fd_write(fd, buf, len);
}

static ssize_t bad_off(void)
{
  errno = EINVAL;
  return -1;
}

PL_EXPORT ssize_t pread(int fd, void *buf, size_t len, off_t off)
{
  if (!OURS(fd)) return PL_REAL(pread)(fd, buf, len, off);
  if (off < 0) return bad_off();
  struct iovec v = {buf, len};
  return fd_io(fd, &v, 1, off, 0);
}

PL_EXPORT ssize_t pwrite(int fd, const void *buf, size_t len, off_t off)
{
  if (!OURS(fd)) return PL_REAL(pwrite)(fd, buf, len, off);
  if (off < 0) return bad_off();
  struct iovec v = {(void *)buf, len};
  return fd_io(fd, &v, 1, off, 1);
}

PL_EXPORT ssize_t pread64(int fd, void *buf, size_t len, off64_t off)
{
  return pread(fd, buf, len, off);
}
PL_EXPORT ssize_t pwrite64(int fd, const void *buf, size_t len, off64_t off)
{
  return pwrite(fd, buf, len, off);
}

PL_EXPORT ssize_t readv(int fd, const struct iovec *iov, int n)
{
  if (!OURS(fd)) return PL_REAL(readv)(fd, iov, n);
  return n < 0 ? bad_off() : fd_io(fd, iov, n, -1, 0);
}

PL_EXPORT ssize_t writev(int fd, const struct iovec *iov, int n)
{
  if (!OURS(fd)) return PL_REAL(writev)(fd, iov, n);
  return n < 0 ? bad_off() : fd_io(fd, iov, n, -1, 1);
}

PL_EXPORT ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
  if (!OURS(fd)) return PL_REAL(preadv)(fd, iov, n, off);
  return n < 0 || off < 0 ? bad_off() : fd_io(fd, iov, n, off, 0);
}

PL_EXPORT ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
  if (!OURS(fd)) return PL_REAL(pwritev)(fd, iov, n, off);
  return n < 0 || off < 0 ? bad_off() : fd_io(fd, iov, n, off, 1);
}

PL_EXPORT ssize_t preadv2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
  if (!OURS(fd)) return PL_REAL(preadv2)(fd, iov, n, off, flags);
  return n < 0 || off < -1 ? bad_off() : fd_io(fd, iov, n, off, 0);
}

PL_EXPORT ssize_t pwritev2(int fd, const struct iovec *iov, int n, off_t off, int flags)
{
  if (!OURS(fd)) return PL_REAL(pwritev2)(fd, iov, n, off, flags);
  return n < 0 || off < -1 ? bad_off() : fd_io(fd, iov, n, off, 1);
}

PL_EXPORT ssize_t preadv64(int fd, const struct iovec *iov, int n, off64_t off)
{
  return preadv(fd, iov, n, off);
}
PL_EXPORT ssize_t pwritev64(int fd, const struct iovec *iov, int n, off64_t off)
{
  return pwritev(fd, iov, n, off);
}
PL_EXPORT ssize_t preadv64v2(int fd, const struct iovec *iov, int n, off64_t off, int flags)
{
  return preadv2(fd, iov, n, off, flags);
}
PL_EXPORT ssize_t pwritev64v2(int fd, const struct iovec *iov, int n, off64_t off, int flags)
{
  return pwritev2(fd, iov, n, off, flags);
}

/* ---- lseek --------------------------------------------------------------------------------- */

off_t ostio__pl_fd_lseek(int fd, off_t off, int whence)
{
  ostio__pl_desc *d = ostio__pl_fdtab_get(fd);
  if (!d) return PL_REAL(lseek)(fd, off, whence);
  int64_t size = 0, at = -1;
  int rc = 0;
  ostio__pl_inside++;
  pthread_mutex_lock(&d->mu);
  int64_t cur = off_get(d, fd);
  if (whence == SEEK_END || whence == SEEK_DATA || whence == SEEK_HOLE)
    rc = ostio__pl_obj_size(d->obj, &size);
  if (rc == 0) {
    switch (whence) {
    case SEEK_SET: at = off; break;
    case SEEK_CUR: at = cur + off; break;
    case SEEK_END: at = size + off; break;
    case SEEK_DATA: /* no holes are reported: all of [0, size) is data */
      if (off >= size) rc = -ENXIO;
      else at = off;
      break;
    case SEEK_HOLE:
      if (off >= size) rc = -ENXIO;
      else at = size;
      break;
    default: rc = -EINVAL;
    }
  }
  if (rc == 0 && at < 0) rc = -EINVAL;
  if (rc == 0) off_set(d, fd, at);
  pthread_mutex_unlock(&d->mu);
  ostio__pl_inside--;
  ostio__pl_desc_release(d);
  if (rc < 0) return ostio__pl_errno(rc);
  return (off_t)at;
}

PL_EXPORT off_t lseek(int fd, off_t off, int whence)
{
  if (!OURS(fd)) return PL_REAL(lseek)(fd, off, whence);
  return ostio__pl_fd_lseek(fd, off, whence);
}

PL_EXPORT off64_t lseek64(int fd, off64_t off, int whence) { return lseek(fd, off, whence); }
