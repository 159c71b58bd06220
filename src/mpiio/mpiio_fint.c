/* Fortran handles of ostio's files (docs/mpiio.md, "Tools and Fortran"):
 * MPI_File_c2f / MPI_File_f2c and their PMPI names.
 *
 * The MPI library's Fortran bindings hold an INTEGER per file and convert it
 * on every call: MPICH 4.0's mpif.h / `use mpi` bindings call MPI_File_c2f
 * after the open and MPI_File_f2c before every other call, its mpi_f08
 * bindings PMPI_File_open with MPI_File_c2f / MPI_File_f2c; Open MPI 4.1's
 * call PMPI_File_c2f / PMPI_File_f2c. Both libraries number their own files
 * from 0 or 1 up (ROMIO's ADIOI_Ftable, Open MPI's f_to_c table: indices of
 * a dense table, MPI_FILE_NULL = 0). An ostio file gets BASE + slot, slot
 * the lowest free entry of the table below: a value no MPI library reaches
 * before it has a billion files open. f2c of a value in ostio's range is
 * answered here; every other value goes to the next PMPI_File_f2c, after
 * one subtraction and compare (no lock on that path). */
#include <pthread.h>
#include <stdlib.h>

#include "mpiio/mfile.h"

#define FINT_BASE 0x40000000     /* 1073741824 */
#define FINT_SLOTS (1 << 20)     /* files open at once with a Fortran handle */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ostio__mfile **slots;
static int nslots;

/* mf's Fortran handle, given at its first c2f; 0 (MPI_FILE_NULL) when the
 * table cannot grow (c2f has no error to return). */
static MPI_Fint handle_of(ostio__mfile *mf)
{
  pthread_mutex_lock(&lock);
  if (mf->fint == 0) {
    int i = 0;
    while (i < nslots && slots[i]) i++;
    if (i == nslots && nslots < FINT_SLOTS) {
      int cap = nslots ? 2 * nslots : 16;
      ostio__mfile **n = realloc(slots, (size_t)cap * sizeof *n);
      if (n) {
        for (int k = nslots; k < cap; k++) n[k] = NULL;
        slots = n;
        nslots = cap;
      }
    }
    if (i < nslots) {
      slots[i] = mf;
      mf->fint = FINT_BASE + i;
    }
  }
  MPI_Fint f = mf->fint;
  pthread_mutex_unlock(&lock);
  return f;
}

void ostio__mpiio_fint_release(ostio__mfile *mf)
{
  pthread_mutex_lock(&lock);
  if (mf->fint != 0) {
    slots[mf->fint - FINT_BASE] = NULL;
    mf->fint = 0;
  }
  pthread_mutex_unlock(&lock);
}

OSTIO__MPIIO_API MPI_Fint MPI_File_c2f(MPI_File fh)
{
  ostio__mfile *mf = ostio__mpiio_lookup(fh);
  if (!mf) return ostio__mpiio_next.c2f(fh);
  return handle_of(mf);
}
OSTIO__MPIIO_PMPI(c2f);

/* Ours by construction; a closed file's value is MPI_FILE_NULL. Out of line,
 * so the pass-through path of f2c saves no registers. */
static __attribute__((noinline)) MPI_File file_of(unsigned slot)
{
  MPI_File fh = MPI_FILE_NULL;
  pthread_mutex_lock(&lock);
  if ((int)slot < nslots && slots[slot]) fh = (MPI_File)(void *)slots[slot];
  pthread_mutex_unlock(&lock);
  return fh;
}

OSTIO__MPIIO_API MPI_File MPI_File_f2c(MPI_Fint file)
{
  unsigned slot = (unsigned)file - (unsigned)FINT_BASE;
  if (__builtin_expect(slot >= FINT_SLOTS, 1)) return ostio__mpiio_next.f2c(file);
  return file_of(slot);
}
OSTIO__MPIIO_PMPI(f2c);
