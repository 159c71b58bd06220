/* See access.h. */
#include "core/access.h"

#include "core/error.h"

int ostio__check_access(const char *path, int can_read, int can_write, int is_write,
                        const char *verb)
{
  if (is_write ? can_write : can_read) return 0;
  return ostio__fail(OSTIO_EACCES, "%s was opened %s; cannot %s", path,
                     is_write ? "MPI_MODE_RDONLY" : "MPI_MODE_WRONLY",
                     verb ? verb : is_write ? "write" : "read");
}
