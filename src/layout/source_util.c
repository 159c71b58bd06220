/* Helpers the layout sources share: the parent directory of a path, and
 * opening a file that is to get a new layout. (The registry that combines
 * the sources is container/layout_sources.c.) */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "layout/source.h"

void ostio__parent_dir(const char *path, char *buf, size_t cap)
{
  const char *slash = strrchr(path, '/');
  if (!slash) { snprintf(buf, cap, "."); return; }
  while (slash > path && slash[-1] == '/') slash--;  /* "a//b" */
  if (slash == path) { snprintf(buf, cap, "/"); return; }
  snprintf(buf, cap, "%.*s", (int)(slash - path), path);
}

int ostio__open_new_or_empty(const char *path, mode_t mode, int flags, int *created)
{
  struct stat st;
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | flags, mode);
  *created = fd >= 0;
  if (fd >= 0) return fd;
  if (errno != EEXIST)
    return ostio__fail(ostio__from_errno(errno), "%s: cannot create: %s", path, strerror(errno));
  /* O_NONBLOCK: a FIFO must be refused, not waited on. */
  fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0)
    return ostio__fail(ostio__from_errno(errno), "%s: cannot open: %s", path, strerror(errno));
  int rc = fstat(fd, &st) < 0 ? ostio__fail(ostio__from_errno(errno), "%s: %s", path, strerror(errno))
         : S_ISDIR(st.st_mode) ? ostio__fail(OSTIO_EISDIR, "%s: is a directory", path)
         : !S_ISREG(st.st_mode) ? ostio__fail(OSTIO_EINVAL, "%s: not a regular file", path)
         : st.st_size > 0 ? ostio__fail(OSTIO_ENOTEMPTY, "%s: holds %lld bytes; a layout can "
                                        "only be given to a new or empty file, as on Lustre",
                                        path, (long long)st.st_size)
         : 0;
  if (rc < 0) {
    close(fd);
    return rc;
  }
  return fd;
}
