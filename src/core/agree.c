/* Collective agreement on an outcome; see agree.h. */
#include "core/agree.h"

#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"

#define DETAIL_MAX 512

int ostio__agree_known(MPI_Comm comm, int rc, int worst, int worst_rank)
{
  if (worst >= 0) return 0;
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  char text[DETAIL_MAX];
  if (rank == worst_rank) snprintf(text, sizeof text, "%s", ostio_last_error());
  if (MPI_Bcast(text, DETAIL_MAX, MPI_CHAR, worst_rank, comm) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "MPI_Bcast of an error detail failed");
  text[DETAIL_MAX - 1] = '\0';
  if (rank != worst_rank) {
    char msg[DETAIL_MAX + 32];
    snprintf(msg, sizeof msg, "rank %d: %s", worst_rank, text);
    ostio__set_detail(msg);
  }
  (void)rc;
  return worst;
}

int ostio__agree(MPI_Comm comm, int rc)
{
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  struct { int code, rank; } in = {rc < 0 ? rc : 0, rank}, out;
  if (MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MINLOC, comm) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "MPI_Allreduce to agree on an outcome failed");
  return ostio__agree_known(comm, rc, out.code, out.rank);
}

int ostio__barrier_yield(MPI_Comm comm, const char *what)
{
  MPI_Request req;
  if (MPI_Ibarrier(comm, &req) != MPI_SUCCESS)
    return ostio__fail(OSTIO_EMPI, "%s: MPI_Ibarrier failed", what);
  for (int spin = 0;; spin++) {
    int done = 0;
    if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return ostio__fail(OSTIO_EMPI, "%s: MPI_Test of a barrier failed", what);
    if (done) return 0;
    if (spin >= 64) sched_yield();
  }
}

int ostio__node_split(MPI_Comm comm, MPI_Comm *node)
{
  const char *knob = getenv("OSTIO_TEST_RANKS_PER_NODE");
  int rpn = knob ? atoi(knob) : 0, rank = 0;
  if (rpn <= 0) return MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, node);
  MPI_Comm_rank(comm, &rank);
  return MPI_Comm_split(comm, rank / rpn, rank, node);
}
