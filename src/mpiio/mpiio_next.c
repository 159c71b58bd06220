/* The next PMPI_File_* after libostio-mpiio.so (mpiio_next.h), found once
 * when the library is loaded. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "mpiio/mpiio_next.h"

ostio__mpiio_next_table ostio__mpiio_next;

/* A name with no next definition means the MPI library comes before this
 * one in the search order (linked as -lmpi -lostio-mpiio): the application's
 * MPI_File_* calls then reach the MPI library directly and ostio serves
 * nothing. Say so once, naming the first such call; no wrapper can run. */
static void missing(const char *name, int *said)
{
  if (*said) return;
  *said = 1;
  fprintf(stderr, "ostio-mpiio: %s: no definition after libostio-mpiio.so; the MPI library "
          "comes first in the search order, so ostio serves no file (link -lostio-mpiio "
          "before -lmpi, or LD_PRELOAD it)\n", name);
}

__attribute__((constructor)) static void resolve_next(void)
{
  int said = 0;
  void *p;
#define OSTIO__RESOLVE(n)                                                                \
  p = dlsym(RTLD_NEXT, "PMPI_File_" #n);                                                 \
  if (!p) missing("PMPI_File_" #n, &said);                                               \
  memcpy(&ostio__mpiio_next.n, &p, sizeof p);
  OSTIO__MPIIO_NEXT_CALLS(OSTIO__RESOLVE)
  OSTIO__MPIIO_NEXT_CALLS_C(OSTIO__RESOLVE)
#undef OSTIO__RESOLVE
  p = dlsym(RTLD_NEXT, "PMPI_Init");
  if (!p) missing("PMPI_Init", &said);
  memcpy(&ostio__mpiio_next.init, &p, sizeof p);
  p = dlsym(RTLD_NEXT, "PMPI_Init_thread");
  if (!p) missing("PMPI_Init_thread", &said);
  memcpy(&ostio__mpiio_next.init_thread, &p, sizeof p);
}
