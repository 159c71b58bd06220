/* The collective engine's whole interface (docs/collective.md): two-phase
 * I/O through aggregators, or each rank's own I/O, for ostio_write_all /
 * ostio_read_all on the kinds stored behind the io layer (plain, striped).
 *
 * The engine never sees an ostio_file: the file layer fills one context per
 * handle at open (src/file/file.c) with what the engine reads, plus where it
 * reports (statistics, the strategy it ran). So the engine depends only on
 * the modules below it (plan, io, stats, layout, hints, core), and a test or
 * another front end can drive it without a file handle. */
#ifndef OSTIO_ENGINE_ENGINE_H
#define OSTIO_ENGINE_ENGINE_H

#include <mpi.h>
#include <stddef.h>

#include "hints/hints.h"
#include "io/io.h"
#include "layout/layout.h"
#include "ostio.h"
#include "stats/stats.h"

/* Per-handle arrays: sized by the number of ranks at open, or kept and
 * grown by the calls (engine_impl.h). */
typedef struct ostio__engine_scratch ostio__engine_scratch;

typedef struct ostio__engine_ctx {
  MPI_Comm comm;                /* every call is collective over it         */
  int rank, nprocs;
  int nnodes;                   /* nodes the ranks run on (for strategies)  */
  const int *eligible;          /* aggregator candidates, spread over nodes */
  int neligible;
  const ostio_layout *layout;
  const ostio__hints *hints;    /* agreed at open: equal on every rank      */
  ostio__io *io;                /* where the bytes go (timing, backends)    */
  /* Access, checked by the engine before its first agreement so that a
   * refused call is refused on every rank; path names the file in it. */
  const char *path;
  int can_read, can_write;
  ostio__engine_scratch *scratch; /* from ostio__engine_init               */
  /* Out: counters and times of the calls; the name of the strategy the
   * last call ran (a static string). */
  ostio__stats *stats;
  const char **last_strategy;
} ostio__engine_ctx;

/* Local: the per-handle arrays for nprocs ranks. Called at open, where the
 * caller agrees on a failure, so that no rank of a later call can fail an
 * allocation its peers did not and then take another collective path.
 * *out is set even on failure (free it with ostio__engine_fini). */
int ostio__engine_init(int nprocs, ostio__engine_scratch **out);
/* Frees what ostio__engine_init made and what the calls kept; NULL is
 * fine. */
void ostio__engine_fini(ostio__engine_scratch *x);

/* Collective over ctx->comm: one ostio_write_all (is_write = 1; buf is
 * only read) or ostio_read_all. Checks and agrees the arguments itself;
 * every rank returns the same code. */
int ostio__engine_coll(const ostio__engine_ctx *ctx, int is_write, const ostio_extent *ext,
                       size_t n, void *buf);
/* The same with local_rc, the outcome (0 or negative) of the caller's own
 * checks on this rank, carried in the call's first collective (the
 * Allgather of step 1): every rank returns the worst code when any rank's
 * local_rc is negative, and nothing moves. Saves the caller an agreement of
 * its own before the call (the MPI-IO interposer; issue 29). */
int ostio__engine_coll_checked(const ostio__engine_ctx *ctx, int local_rc, int is_write,
                               const ostio_extent *ext, size_t n, void *buf);

/* Settled handles (docs/collective-auto.md): after OSTIO__SETTLE_AFTER
 * agreed calls in a row that ran `independent` on spans that did not
 * interleave, a call of that direction skips the agreement, except every
 * OSTIO__SETTLE_EVERY-th collective call of the handle. */
enum { OSTIO__SETTLE_AFTER = 4, OSTIO__SETTLE_EVERY = 64 };

/* Local, but call it on every rank at the same point of a collective
 * (ostio_sync, ostio_set_size, ostio_close): the next call is agreed again.
 * Returns the error of a call this rank ran without agreement (0 if none)
 * for the caller to agree; *skipped is 1 when any call since the last
 * agreement skipped it (the same on every rank). */
int ostio__engine_resettle(const ostio__engine_ctx *ctx, int *skipped);

#endif
