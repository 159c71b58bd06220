/* A PMPI tool of the two shapes that meet libostio-mpiio.so (docs/mpiio.md,
 * "Tools and Fortran"; tests/mpiio/pmpi_tool.sh): it counts five MPI-IO calls
 * per process and the bytes the writes ask for, and writes the counts at exit
 * to $PMPI_TOOL_OUT.<pid> ("open 1" per line); it wraps MPI_Init and
 * MPI_Init_thread too, as Darshan does.
 *
 * Built twice:
 *   PMPI_TOOL_DLSYM=1  Darshan's shape: defines MPI_File_X and PMPI_File_X
 *                      (one function, two names) and forwards to the next
 *                      PMPI_File_X found with dlsym(RTLD_NEXT).
 *   PMPI_TOOL_DLSYM=0  the classic profiling library: defines MPI_File_X only
 *                      and calls PMPI_File_X by ordinary linking. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

static long n_open, n_close, n_write_at, n_write_at_all, n_read_at_all;
static long long bytes_written;

static void count(long *n)
{
  __atomic_add_fetch(n, 1, __ATOMIC_RELAXED);
}

static void count_bytes(int cnt, MPI_Datatype dt)
{
  int size = 0;
  if (PMPI_Type_size(dt, &size) == MPI_SUCCESS)
    __atomic_add_fetch(&bytes_written, (long long)cnt * size, __ATOMIC_RELAXED);
}

#if PMPI_TOOL_DLSYM
/* The next PMPI_X after this library, looked up at its first use. */
static void *next(const char *name)
{
  void *p = dlsym(RTLD_NEXT, name);
  if (!p) {
    fprintf(stderr, "pmpi_tool: %s: no next definition\n", name);
    exit(3);
  }
  return p;
}
#define FORWARD(name, ...)                                                               \
  do {                                                                                   \
    static __typeof__(P##name) *fn;                                                      \
    if (!fn) {                                                                           \
      void *p = next("P" #name);                                                         \
      memcpy(&fn, &p, sizeof p);                                                         \
    }                                                                                    \
    return fn(__VA_ARGS__);                                                              \
  } while (0)
#define PMPI_ALIAS(name) extern __typeof__(name) P##name __attribute__((alias(#name)))
#else
#define FORWARD(name, ...) return P##name(__VA_ARGS__)
#define PMPI_ALIAS(name) extern __typeof__(name) name
#endif

int MPI_File_open(MPI_Comm comm, const char *path, int amode, MPI_Info info, MPI_File *fh)
{
  count(&n_open);
  FORWARD(MPI_File_open, comm, path, amode, info, fh);
}
PMPI_ALIAS(MPI_File_open);

int MPI_File_close(MPI_File *fh)
{
  count(&n_close);
  FORWARD(MPI_File_close, fh);
}
PMPI_ALIAS(MPI_File_close);

int MPI_File_write_at(MPI_File fh, MPI_Offset off, const void *buf, int cnt, MPI_Datatype dt,
                      MPI_Status *st)
{
  count(&n_write_at);
  count_bytes(cnt, dt);
  FORWARD(MPI_File_write_at, fh, off, buf, cnt, dt, st);
}
PMPI_ALIAS(MPI_File_write_at);

int MPI_File_write_at_all(MPI_File fh, MPI_Offset off, const void *buf, int cnt,
                          MPI_Datatype dt, MPI_Status *st)
{
  count(&n_write_at_all);
  count_bytes(cnt, dt);
  FORWARD(MPI_File_write_at_all, fh, off, buf, cnt, dt, st);
}
PMPI_ALIAS(MPI_File_write_at_all);

int MPI_File_read_at_all(MPI_File fh, MPI_Offset off, void *buf, int cnt, MPI_Datatype dt,
                         MPI_Status *st)
{
  count(&n_read_at_all);
  FORWARD(MPI_File_read_at_all, fh, off, buf, cnt, dt, st);
}
PMPI_ALIAS(MPI_File_read_at_all);

/* MPI_Init as each shape has it (Darshan's: MPI_Init and PMPI_Init, forwarding
 * to the next PMPI_Init), so that libostio-mpiio.so, loaded after the tool, is
 * reached through the PMPI name and arms its MPI_Finalize cleanup right after
 * MPI_Init (the libattr case of tests/mpiio/finalize_open.c). */
int MPI_Init(int *argc, char ***argv)
{
  FORWARD(MPI_Init, argc, argv);
}
PMPI_ALIAS(MPI_Init);

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  FORWARD(MPI_Init_thread, argc, argv, required, provided);
}
PMPI_ALIAS(MPI_Init_thread);

__attribute__((destructor)) static void report(void)
{
  const char *out = getenv("PMPI_TOOL_OUT");
  if (!out) return;
  char path[4096];
  snprintf(path, sizeof path, "%s.%ld", out, (long)getpid());
  FILE *f = fopen(path, "w");
  if (!f) return;
  fprintf(f, "open %ld\nclose %ld\nwrite_at %ld\nwrite_at_all %ld\nread_at_all %ld\nbytes %lld\n",
          n_open, n_close, n_write_at, n_write_at_all, n_read_at_all, bytes_written);
  fclose(f);
}
