/* Files still open at MPI_Finalize (issue 28; docs/mpiio.md "Files left open
 * at MPI_Finalize"). An ostio file holds an RMA window (the shared file
 * pointer, mpiio_shared.c), a duplicated communicator and, for a log
 * container, an index record not yet written: MPI_Finalize with the window
 * alive aborts inside MPICH/UCX, and the log's last writes would be lost.
 *
 * MPI_Finalize deletes the attributes of MPI_COMM_SELF first, while MPI is
 * still fully usable, newest first (MPI-2.2 and later). We put one there
 * whose delete callback closes every ostio file left open, oldest first, with
 * MPI_File_close's own sequence (ostio__mpiio_close): ranks that left the same
 * files open close them together, and a rank that calls MPI_File_close while
 * its peer is already in MPI_Finalize meets it. The attribute is put right
 * after MPI_Init when the program calls it through us, so that it is the
 * oldest and its callback runs last: a library that closes its own files from
 * its own MPI_COMM_SELF callback (HDF5 does) still finds them open. A tool
 * loaded first reaches us through PMPI_Init, below. Without either (an
 * MPI_Init that reaches neither name) it is put at the first ostio open.
 *
 * Never fatal: a close that fails is reported in the warning line and
 * MPI_Finalize goes on. The file's error handler is not called (it may be
 * MPI_ERRORS_ARE_FATAL). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiio/mfile.h"

static pthread_mutex_t arm_lock = PTHREAD_MUTEX_INITIALIZER;
static int keyval = MPI_KEYVAL_INVALID;

/* One line per leaked file: on rank 0 of its communicator, and on any rank
 * whose close failed. */
static void report(const char *path, int rank, int rc)
{
  if (rc == 0 && rank == 0)
    fprintf(stderr, "ostio: file %s was still open at MPI_Finalize; closed it: its data is "
            "kept (call MPI_File_close before MPI_Finalize)\n", path);
  else if (rc < 0)
    fprintf(stderr, "ostio: file %s was still open at MPI_Finalize; closed it: failed on rank "
            "%d: %s\n", path, rank, ostio_last_error());
}

static int at_finalize(MPI_Comm comm, int kv, void *attr, void *extra)
{
  (void)comm, (void)attr, (void)extra;
  ostio__mfile *mf;
  while ((mf = ostio__mpiio_oldest()) != NULL) {
    char *path = strdup(mf->path);
    int rank = mf->rank;
    int rc = ostio__mpiio_close(mf); /* unregisters mf: the loop ends */
    report(path ? path : "(out of memory)", rank, rc);
    free(path);
    ostio__mpiio_destroy(mf);
  }
  pthread_mutex_lock(&arm_lock);
  MPI_Comm_free_keyval(&kv);
  keyval = MPI_KEYVAL_INVALID;
  pthread_mutex_unlock(&arm_lock);
  return MPI_SUCCESS;
}

void ostio__mpiio_finalize_arm(void)
{
  int init = 0, fini = 1;
  pthread_mutex_lock(&arm_lock);
  if (keyval == MPI_KEYVAL_INVALID && MPI_Initialized(&init) == MPI_SUCCESS && init &&
      MPI_Finalized(&fini) == MPI_SUCCESS && !fini &&
      MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &keyval, NULL) == MPI_SUCCESS &&
      MPI_Comm_set_attr(MPI_COMM_SELF, keyval, NULL) != MPI_SUCCESS)
    MPI_Comm_free_keyval(&keyval); /* sets it back to MPI_KEYVAL_INVALID */
  pthread_mutex_unlock(&arm_lock);
}

/* No next PMPI_Init: the MPI library comes before us in the search order
 * (mpiio_next.c has said so); its MPI_Init is the one programs reach, and a
 * caller that reaches ours gets an error instead of a call through NULL. */
static int no_next_init(const char *name)
{
  fprintf(stderr, "ostio-mpiio: %s: no next definition to call\n", name);
  return MPI_ERR_INTERN;
}

/* MPI_Init and PMPI_Init are one function (so are the _thread forms): a PMPI
 * tool loaded before us that forwards its MPI_Init to the next PMPI_Init
 * (Darshan) reaches it, and the attribute is put right after MPI_Init under
 * that tool too. It calls the next PMPI_Init by pointer (mpiio_next.h): by
 * name it would bind to our own PMPI_Init, or to such a tool's, and loop. */
OSTIO__MPIIO_API int MPI_Init(int *argc, char ***argv)
{
  if (!ostio__mpiio_next.init) return no_next_init("PMPI_Init");
  int rc = ostio__mpiio_next.init(argc, argv);
  if (rc == MPI_SUCCESS) ostio__mpiio_finalize_arm();
  return rc;
}
extern __typeof__(MPI_Init) PMPI_Init __attribute__((alias("MPI_Init"), visibility("default")));

OSTIO__MPIIO_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
  if (!ostio__mpiio_next.init_thread) return no_next_init("PMPI_Init_thread");
  int rc = ostio__mpiio_next.init_thread(argc, argv, required, provided);
  if (rc == MPI_SUCCESS) ostio__mpiio_finalize_arm();
  return rc;
}
extern __typeof__(MPI_Init_thread) PMPI_Init_thread
    __attribute__((alias("MPI_Init_thread"), visibility("default")));
