/* The shared file pointer and the atomic-mode mutex (mfile.h): three int64 in
 * a window on rank 0 of the file's communicator, reached by passive-target
 * RMA (MPI_Fetch_and_op). No progress thread: MPI
 * libraries progress passive-target atomics on their own within a node;
 * across nodes they need the network's atomics or asynchronous progress
 * (MPICH: MPIR_CVAR_ASYNC_PROGRESS) -- docs/mpiio.md. */
#include <sched.h>
#include <time.h>

#include "mpiio/mfile.h"

#include "core/error.h"

/* The mutex is a ticket lock (next ticket, ticket served) built on
 * MPI_Fetch_and_op alone: Open MPI 4.1's osc/rdma crashes in
 * MPI_Compare_and_swap over its shared-memory transport. Fair, too. */
enum { SLOT_PTR = 0, SLOT_NEXT = 1, SLOT_SERVED = 2, NSLOTS = 3 };

int ostio__mpiio_shared_open(ostio__mfile *mf)
{
  int64_t *base = NULL;
  MPI_Aint size = mf->rank == 0 ? (MPI_Aint)(NSLOTS * sizeof(int64_t)) : 0;
  int mrc = MPI_Win_allocate(size, (int)sizeof(int64_t), MPI_INFO_NULL, mf->comm, &base,
                             &mf->win);
  if (mrc != MPI_SUCCESS) {
    mf->win = MPI_WIN_NULL;
    return ostio__fail(OSTIO_EMPI, "MPI_Win_allocate for the shared file pointer failed");
  }
  if (mf->rank == 0) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, mf->win);
    for (int i = 0; i < NSLOTS; i++) base[i] = 0;
    MPI_Win_unlock(0, mf->win);
  }
  MPI_Barrier(mf->comm);
  return 0;
}

void ostio__mpiio_shared_close(ostio__mfile *mf)
{
  if (mf->win != MPI_WIN_NULL) MPI_Win_free(&mf->win);
}

static int op(ostio__mfile *mf, int slot, int64_t in, int64_t *out, MPI_Op o)
{
  int64_t dummy;
  if (MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, mf->win) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "MPI_Win_lock on the shared file pointer failed");
  int mrc = MPI_Fetch_and_op(&in, out ? out : &dummy, MPI_INT64_T, 0, slot, o, mf->win);
  int mrc2 = MPI_Win_unlock(0, mf->win);
  if (mrc != MPI_SUCCESS || mrc2 != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "MPI_Fetch_and_op on the shared file pointer failed");
  return 0;
}

int ostio__mpiio_shared_fetch_add(ostio__mfile *mf, int64_t add, int64_t *old)
{
  return op(mf, SLOT_PTR, add, old, add ? MPI_SUM : MPI_NO_OP);
}

int ostio__mpiio_shared_set(ostio__mfile *mf, int64_t value)
{
  return op(mf, SLOT_PTR, value, NULL, MPI_REPLACE);
}

int ostio__mpiio_mutex_lock(ostio__mfile *mf)
{
  int64_t ticket = 0, served = -1;
  int rc = op(mf, SLOT_NEXT, 1, &ticket, MPI_SUM);
  for (int spin = 0; rc == 0; spin++) {
    if ((rc = op(mf, SLOT_SERVED, 0, &served, MPI_NO_OP)) < 0) break;
    if (served == ticket) return 0;
    /* Back off: yield first, then sleep up to 1 ms, so a holder sharing our
     * core (more ranks than cores) gets to run. */
    if (spin < 16) sched_yield();
    else nanosleep(&(struct timespec){0, spin < 64 ? 50000 : 1000000}, NULL);
  }
  return rc;
}

int ostio__mpiio_mutex_unlock(ostio__mfile *mf)
{
  return op(mf, SLOT_SERVED, 1, NULL, MPI_SUM);
}
