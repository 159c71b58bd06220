/* libostio-mpiio.so beside libostio-preload.so (docs/mpiio.md, "POSIX calls
 * on the same files"). The preload serves the application's POSIX calls on
 * the interposer's paths (it takes OSTIO_MPIIO_PATHS when
 * OSTIO_PRELOAD_PATHS is unset; the marker below tells it that this library
 * is loaded). ostio's own code in this library makes the same system calls
 * on the containers' inner files (mkdir of a new container, the manifest,
 * the logs and indexes): those must reach libc, not the preload, which
 * would see a path below a container (ENOTDIR) or a new name to make a
 * container of. So every served call that may touch the file system runs
 * between posix_enter and posix_leave, which raise the preload's per-thread
 * "inside" depth, as the preload does around its own container code. */
#include <dlfcn.h>
#include <pthread.h>

#include "mpiio/mfile.h"

/* Exported (src/mpiio/mpiio.map): libostio-preload.so looks it up. */
OSTIO__MPIIO_API const char ostio__mpiio_marker[] = "libostio-mpiio";

static int (*preload_inside)(int delta);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void find_preload(void)
{
  preload_inside = (int (*)(int))dlsym(RTLD_DEFAULT, "ostio__preload_inside");
}

void ostio__mpiio_posix_enter(void)
{
  pthread_once(&once, find_preload);
  if (preload_inside) preload_inside(1);
}

void ostio__mpiio_posix_leave(void)
{
  if (preload_inside) preload_inside(-1);
}
