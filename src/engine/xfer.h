/* The data phase of a two-phase call: rounds of exchange (nonblocking
 * point-to-point with derived datatypes, no packing) and file I/O at the
 * aggregators, round r+1's exchange overlapping round r's I/O. Every rank
 * runs every round even after an I/O error (it then skips its I/O), so no
 * rank is left waiting; the caller agrees on the outcome afterwards. */
#ifndef OSTIO_ENGINE_XFER_H
#define OSTIO_ENGINE_XFER_H

#include "core/scratch.h"
#include "engine/engine.h"
#include "plan/plan.h"

/* The rounds' arrays (cursors, segments, datatype scratch, requests, the
 * read-modify-write span): sized by the call's pieces, kept in the handle
 * between calls (engine_impl.h, core/scratch.h) and freed at close. */
typedef struct ostio__xfer_scratch {
  ostio__scratch scur, tmp, blen, disp, start, fill, reqs, rmw;
  ostio__scratch segs[2], self[2], req[2], stat[2], types[2]; /* per round slot */
} ostio__xfer_scratch;

/* Frees what the calls kept in s; s is empty afterwards. */
void ostio__xfer_scratch_free(ostio__xfer_scratch *s);

typedef struct ostio__xfer {
  const ostio__engine_ctx *ctx; /* comm, rank, io, stats, hints          */
  ostio__xfer_scratch *mem;  /* the handle's arrays for the rounds            */
  int is_write;
  int pipeline;              /* ostio_pipeline                                */
  int rmw;                   /* read-modify-write allowed (romio_ds_write)    */
  const ostio__domains *d;
  int naggr, myagg;          /* myagg: this rank's aggregator index or -1     */
  const int *ranks;          /* rank of aggregator a                          */
  int nrounds;               /* R: rounds of the call (max over aggregators)  */
  /* source side */
  char *ubuf;                /* the caller's buffer                           */
  const ostio__xpiece *sp;   /* my pieces, sorted by (aggregator, key)        */
  const size_t *sp_start;    /* pieces of aggregator a: [sp_start[a], sp_start[a+1]) */
  const int64_t *const *src_sched; /* src_sched[a][r]: my bytes to a in round r */
  const int *agg_rounds;     /* rounds of aggregator a                        */
  /* aggregator side */
  const ostio__xpiece *ap;   /* everyone's pieces for me, in key order        */
  size_t nap;
  const int64_t *agg_sched;  /* [r * nprocs + s]: bytes of source s in round r */
  int my_rounds;
  int64_t cap;               /* bytes per round buffer                        */
} ostio__xfer;

typedef struct run_state ostio__xfer_state;
/* Sets up the rounds of x (x must outlive the state): the arrays from
 * x->mem, the round buffers from bufcache.h. A failure here is local: the
 * caller agrees on it before any rank starts the rounds, then calls
 * ostio__xfer_end in every case. */
int ostio__xfer_begin(const ostio__xfer *x, ostio__xfer_state **st);
/* Runs all rounds. Returns this rank's first error (I/O, MPI) or 0. */
int ostio__xfer_run(ostio__xfer_state *st);
void ostio__xfer_end(ostio__xfer_state *st);

#endif
