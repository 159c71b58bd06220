/* See fdio.h. */
#include "core/fdio.h"

#include <errno.h>
#include <sys/types.h>
#include <unistd.h>

int ostio__write_part(int fd, const void *buf, size_t len, int64_t off, size_t *done)
{
  const char *p = buf;
  size_t at = 0;
  int e = 0;
  while (at < len) {
    ssize_t n = off == OSTIO__FD_CUR ? write(fd, p + at, len - at)
                                     : pwrite(fd, p + at, len - at, (off_t)(off + (int64_t)at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      e = n < 0 ? errno : EIO;
      break;
    }
    at += (size_t)n;
  }
  if (done) *done = at;
  if (e) errno = e;
  return e;
}

int ostio__write_full(int fd, const void *buf, size_t len)
{
  return ostio__write_part(fd, buf, len, OSTIO__FD_CUR, NULL);
}

int ostio__pwrite_full(int fd, const void *buf, size_t len, int64_t off)
{
  return ostio__write_part(fd, buf, len, off, NULL);
}

int ostio__pread_full(int fd, void *buf, size_t len, int64_t off, size_t *got)
{
  char *p = buf;
  size_t at = 0;
  int e = 0;
  while (at < len) {
    ssize_t n = pread(fd, p + at, len - at, (off_t)(off + (int64_t)at));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) e = errno;
    if (n <= 0) break;
    at += (size_t)n;
  }
  *got = at;
  if (e) errno = e;
  return e;
}
