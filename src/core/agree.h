/* Collective agreement on an outcome: every rank returns the same code and
 * a detail that says which rank failed and why. */
#ifndef OSTIO_CORE_AGREE_H
#define OSTIO_CORE_AGREE_H

#include <mpi.h>

/* Collective over comm: the lowest code of all ranks (0 when all are 0).
 * Ranks other than the (lowest-numbered) failing one get its detail,
 * prefixed "rank R: ". An MPI failure is OSTIO_EMPI. */
int ostio__agree(MPI_Comm comm, int rc);
/* The same when every rank already knows the worst code and the rank that
 * holds it (e.g. after an Allgather): only the detail is broadcast. */
int ostio__agree_known(MPI_Comm comm, int rc, int worst, int worst_rank);

/* MPI_Barrier that yields the processor while it waits (MPI_Ibarrier,
 * then MPI_Test and sched_yield): a rank that arrives early does not spin
 * on a core that a rank still working shares with it (more ranks than
 * cores). OSTIO_EMPI with a detail naming what on failure. */
int ostio__barrier_yield(MPI_Comm comm, const char *what);

/* Splits comm into its nodes: MPI_COMM_TYPE_SHARED, or, when the test knob
 * OSTIO_TEST_RANKS_PER_NODE=N is set (N > 0), simulated nodes of N
 * consecutive ranks (rank r on node r / N), as scripts/pfs.sh mpiexec sets
 * it for ranks on separate CephFS clients. MPI's error code. */
int ostio__node_split(MPI_Comm comm, MPI_Comm *node);

#endif
