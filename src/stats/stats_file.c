/* Writing a statistics document to its path (OSTIO_STATS=json:PATH) so
 * that the path always holds a whole document. MPI-free: the collective
 * report (stats_report.c) and libostio-preload.so's per-process records
 * use it. Split from stats_report.c. */
#include "stats/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fdio.h"
#include "stats/stats_impl.h"

/* Writes doc to path so that path always holds a whole document: a
 * temporary next to it, then rename. A path that exists and is not a
 * regular file (a terminal, /dev/stdout, a FIFO with a reader) is written
 * in place, never blocking. 0 or an errno, with what failed in why. */
int ostio__stats_write_doc(const char *path, const char *doc, char *why, size_t cap)
{
  char q[80], *tmp = NULL, *real = NULL;
  struct stat st;
  int e = 0, fd;
  ostio__stats_quote(q, sizeof q, path);
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      e = errno;
      snprintf(why, cap, "OSTIO_STATS=json:%s: cannot open it for writing: %s", q, strerror(e));
      return e;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    e = ostio__write_full(fd, doc, strlen(doc));
    if (close(fd) != 0 && !e) e = errno;
    if (e) snprintf(why, cap, "OSTIO_STATS=json:%s: writing the statistics failed: %s", q,
                    strerror(e));
    return e;
  }
  /* A symbolic link is followed, not replaced. */
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) real = realpath(path, NULL);
  const char *target = real ? real : path;
  size_t n = strlen(target) + 48;
  tmp = malloc(n);
  if (!tmp) {
    free(real);
    snprintf(why, cap, "OSTIO_STATS=json:%s: out of memory", q);
    return ENOMEM;
  }
  snprintf(tmp, n, "%s.tmp.%ld", target, (long)getpid());
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
  if (fd < 0 && errno == EEXIST) { /* left by a crashed process that had our pid */
    unlink(tmp);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0666);
  }
  if (fd < 0) {
    e = errno;
    snprintf(why, cap, "OSTIO_STATS=json:%s: cannot create a file next to it: %s", q,
             strerror(e));
  } else {
    e = ostio__write_full(fd, doc, strlen(doc));
    if (close(fd) != 0 && !e) e = errno;
    if (!e && rename(tmp, target) != 0) e = errno;
    if (e) {
      snprintf(why, cap, "OSTIO_STATS=json:%s: writing the statistics failed: %s", q,
               strerror(e));
      unlink(tmp);
    }
  }
  free(tmp);
  free(real);
  return e;
}

