/* The handle table (mfile.h): which MPI_File values are ostio's. A wrapper
 * asks on every call, so the common case -- no ostio file open -- is one
 * atomic load; then the file found last, another; otherwise a short scan
 * under a mutex (a process has few files open). Kept in open order (mpiio_finalize.c closes leftovers in it). Also the functions behind MPI_File_create_errhandler's handles. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpiio/mfile.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static ostio__mfile **files;
static int nfiles, capfiles;
int ostio__mpiio_open_count; /* read without the lock: atomic */

/* The file the last scan found, read without the lock (a program's calls
 * mostly go to one file). Cleared under the lock before its file is freed,
 * so a handle that reuses the freed address cannot match it. */
static ostio__mfile *last;

ostio__mfile *ostio__mpiio_find(MPI_File fh)
{
  ostio__mfile *found = __atomic_load_n(&last, __ATOMIC_ACQUIRE);
  if (found && (void *)found == (void *)fh) return found;
  found = NULL;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nfiles; i++)
    if ((void *)files[i] == (void *)fh) {
      found = files[i];
      __atomic_store_n(&last, found, __ATOMIC_RELEASE);
      break;
    }
  pthread_mutex_unlock(&lock);
  return found;
}

int ostio__mpiio_register(ostio__mfile *mf)
{
  int rc = 0;
  pthread_mutex_lock(&lock);
  if (nfiles == capfiles) {
    int cap = capfiles ? 2 * capfiles : 16;
    ostio__mfile **n = realloc(files, (size_t)cap * sizeof *n);
    if (!n) rc = OSTIO_ENOMEM;
    else files = n, capfiles = cap;
  }
  if (rc == 0) {
    files[nfiles++] = mf;
    __atomic_store_n(&ostio__mpiio_open_count, nfiles, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

void ostio__mpiio_unregister(ostio__mfile *mf)
{
  ostio__mpiio_fint_release(mf);
  pthread_mutex_lock(&lock);
  if (last == mf) __atomic_store_n(&last, NULL, __ATOMIC_RELEASE);
  for (int i = 0; i < nfiles; i++)
    if (files[i] == mf) {
      /* Keep open order: MPI_Finalize closes leftovers oldest first. */
      memmove(&files[i], &files[i + 1], (size_t)(nfiles - i - 1) * sizeof *files);
      nfiles--;
      break;
    }
  __atomic_store_n(&ostio__mpiio_open_count, nfiles, __ATOMIC_RELEASE);
  pthread_mutex_unlock(&lock);
}

ostio__mfile *ostio__mpiio_oldest(void)
{
  pthread_mutex_lock(&lock);
  ostio__mfile *mf = nfiles ? files[0] : NULL;
  pthread_mutex_unlock(&lock);
  return mf;
}

/* Error handlers made by MPI_File_create_errhandler: handle -> function. */
typedef struct {
  MPI_Errhandler eh;
  MPI_File_errhandler_function *fn;
} eh_entry;
static eh_entry *ehs;
static int nehs, capehs;

void ostio__mpiio_note_errhandler(MPI_Errhandler eh, MPI_File_errhandler_function *fn)
{
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nehs; i++)
    if (ehs[i].eh == eh) {
      ehs[i].fn = fn; /* a freed handle's value reused */
      pthread_mutex_unlock(&lock);
      return;
    }
  if (nehs == capehs) {
    int cap = capehs ? 2 * capehs : 8;
    eh_entry *n = realloc(ehs, (size_t)cap * sizeof *n);
    if (n) ehs = n, capehs = cap;
  }
  if (nehs < capehs) ehs[nehs++] = (eh_entry){eh, fn};
  pthread_mutex_unlock(&lock);
}

MPI_File_errhandler_function *ostio__mpiio_errhandler_fn(MPI_Errhandler eh)
{
  MPI_File_errhandler_function *fn = NULL;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < nehs; i++)
    if (ehs[i].eh == eh) fn = ehs[i].fn;
  pthread_mutex_unlock(&lock);
  return fn;
}
