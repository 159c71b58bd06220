/* The model-based checker of log containers through ostio_open, shared by
 * test_log_mpi.c (writers=rank) and test_log_node.c (writers=node).
 *
 * Every rank generates the same random program from a shared seed:
 * independent writes (write_at), collective writes (write_all) whose extents
 * overlap across ranks and across calls, syncs and set_size (truncate to 0,
 * shrink, grow). Each rank applies the whole program to an in-memory model
 * under the documented rule (docs/containers.md): between two collective
 * calls, rank 0's independent writes, then rank 1's, ... in program order;
 * inside a write_all, higher ranks win (with writers=node this holds when
 * each node is a block of consecutive ranks, as OSTIO_TEST_RANKS_PER_NODE
 * makes them); TRUNC zeroes what lies beyond. The container must read back
 * as the model. */
#ifndef OSTIO_TESTS_LOGMODEL_H
#define OSTIO_TESTS_LOGMODEL_H

#include <stdint.h>
#include <mpi.h>

#include "ostio.h"

#define LM_SPAN (192 * 1024) /* model span */

/* Rank and size of MPI_COMM_WORLD (also to the caller); the model empty. */
void lm_init(int *rank, int *nprocs);
void lm_reset(void);
int64_t lm_size(void);
/* ostio_open with ostio_container=log plus `hints` ("key=value" words; NULL
 * for none). */
int lm_open(MPI_Comm comm, const char *path, int amode, const char *hints, ostio_file **fh);
/* nsteps random steps on fh from seed (every rank runs the same program);
 * indep = 0 leaves out independent writes (collective-only workloads). */
void lm_session(ostio_file *fh, uint64_t seed, int first_step, int nsteps, int indep);
/* Rank r's write_at of [off, off+len) at step (in the model on every rank,
 * applied at the next lm_flush). */
void lm_write_at(ostio_file *fh, int step, int r, int64_t off, int64_t len);
/* A write_all in which rank r writes [base + r*block, +block). */
void lm_blocks(ostio_file *fh, int step, int64_t base, int64_t block);
/* Applies the pending independent writes to the model (before a sync). */
void lm_flush(void);
/* read_all in 4 KiB blocks over comm, read_at of a random range, get_size:
 * all equal to the model. */
void lm_verify(ostio_file *fh, MPI_Comm comm, const char *what);
/* One process, the module API: size and bytes equal the model. */
void lm_serial_check(const char *path, const char *what);
/* Two write sessions of 60 steps created with `hints`, read back on the same
 * ranks, on another rank count, serially, after flatten, after compact, and
 * a third session after compact; DELETE_ON_CLOSE removes it (and the
 * flattened copy is removed). */
void lm_test_random(const char *dir, uint64_t seed, const char *hints);

#endif
