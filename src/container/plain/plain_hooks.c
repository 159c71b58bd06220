/* The plain kind's tool hook (src/file/kind.h, ctr_hooks.h): the data
 * extents flatten copies. A plain file has no container subcommands (ls,
 * stat, check, ...): its table leaves them NULL. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "container/ctr_hooks.h"
#include "core/error.h"

/* Its data regions, by SEEK_DATA/SEEK_HOLE. */
int ostio__plain_hook_extents(const char *path, int64_t size, ostio__ctr_extent_fn add, void *arg)
{
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return ostio__fail(ostio__from_errno(errno), "flatten: open %s: %s", path, strerror(errno));
  int rc = ostio__fd_extents(fd, size, path, add, arg);
  close(fd);
  return rc;
}
