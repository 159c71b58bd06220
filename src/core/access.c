/* See access.h. */
#include "core/access.h"

#include <mpi.h>

#include "core/error.h"

int ostio__check_access(const char *path, int can_read, int can_write, int is_write,
                        const char *verb)
{
  if (is_write ? can_write : can_read) return 0;
  return ostio__fail(OSTIO_EACCES, "%s was opened %s; cannot %s", path,
                     is_write ? "MPI_MODE_RDONLY" : "MPI_MODE_WRONLY",
                     verb ? verb : is_write ? "write" : "read");
}

int ostio__check_amode(int amode)
{
  int access = amode & (MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR);
  if (access != MPI_MODE_RDONLY && access != MPI_MODE_WRONLY && access != MPI_MODE_RDWR)
    return ostio__fail(OSTIO_EINVAL, "amode 0x%x: give exactly one of MPI_MODE_RDONLY, "
                       "MPI_MODE_WRONLY, MPI_MODE_RDWR", (unsigned)amode);
  if (access == MPI_MODE_RDONLY && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
    return ostio__fail(OSTIO_EINVAL, "amode: MPI_MODE_RDONLY cannot be combined with "
                       "MPI_MODE_CREATE or MPI_MODE_EXCL");
  if (amode & MPI_MODE_SEQUENTIAL)
    return ostio__fail(OSTIO_ENOTSUP, "amode: MPI_MODE_SEQUENTIAL is not supported; ostio "
                       "calls take explicit offsets");
  return 0;
}
