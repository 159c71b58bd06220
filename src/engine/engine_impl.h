/* What the engine's own files share (coll.c, twophase.c); nothing outside
 * src/engine includes this: the engine's interface is engine.h. */
#ifndef OSTIO_ENGINE_ENGINE_IMPL_H
#define OSTIO_ENGINE_ENGINE_IMPL_H

#include <stdint.h>

#include "core/scratch.h"
#include "engine/engine.h"
#include "engine/strategy.h"
#include "engine/xfer.h"
#include "plan/plan.h"

/* A handle that settled on independent I/O (docs/collective-auto.md,
 * "Settled handles"); every field but pending and detail is the same on
 * every rank, because it changes only with agreed results and with the
 * count of collective calls, which every rank makes in the same order. */
typedef struct ostio__settle {
  int64_t ncalls;             /* collective calls of the engine so far       */
  int streak[2];              /* [is_write]: agreed calls in a row eligible  */
  int have[2];                /* call[is_write] holds an agreed summary      */
  ostio__call call[2];        /* the last eligible agreed summary            */
  int64_t skipped;            /* calls skipped since the last agreement      */
  int pending;                /* this rank: the error of a skipped call      */
  char detail[256];           /* its ostio_last_error()                      */
} ostio__settle;

/* The call summary each rank contributes to the first Allgather. STRIDE
 * and PLEN: the rank's extents are two or more of PLEN bytes each, STRIDE
 * bytes apart (both 0 otherwise): coll.c then proves interleaved ranks
 * disjoint without exchanging their offsets. */
enum { OSTIO__SUM_RC, OSTIO__SUM_LO, OSTIO__SUM_HI, OSTIO__SUM_BYTES, OSTIO__SUM_NEXT,
       OSTIO__SUM_STRIDE, OSTIO__SUM_PLEN, OSTIO__SUM_N };

typedef struct ostio__span {
  int64_t lo, hi;
} ostio__span;

/* Per-handle arrays of a call. Those sized by the number of ranks are
 * allocated once at open, where a failure is agreed, so that no rank of a
 * collective call can fail an allocation that its peers did not and then
 * call a different collective. Those sized by the call (extents, pieces,
 * rounds) are grow-only scratch (core/scratch.h), kept between calls and
 * freed at close: a malloc and a free per call would map and fault in
 * their pages on every call once they pass glibc's mmap threshold
 * (docs/benchmarks.md, the order of -a). A call that cannot grow one
 * fails as a call that could not malloc it did: with the same detail,
 * carried to the next agreement. */
struct ostio__engine_scratch {
  int64_t *gather;            /* P * OSTIO__SUM_N: the call summaries        */
  ostio__span *spans;         /* P                                           */
  int *ranks, *scount, *sdisp, *rcount, *rdisp, *agg_rounds, *rounds_by_index; /* P each */
  int *gather2;               /* 2 * P: {code, rounds} per rank              */
  size_t *sp_start;           /* P + 1                                       */
  int64_t **src_sched;        /* P                                           */
  /* sized by the call */
  ostio__scratch ext;         /* coll.c: the call's extents (plan_local_in)  */
  ostio__scratch local;       /* coll.c local_io: the requests               */
  ostio__scratch sp;          /* twophase.c: my pieces                              */
  ostio__scratch sbuf, rbuf;  /* twophase.c: (offset, length) pairs sent, received */
  ostio__scratch ap;          /* twophase.c: the aggregator's pieces         */
  ostio__scratch col, src_sched_buf; /* twophase.c: round schedules sent, received */
  ostio__xfer_scratch xfer;   /* xfer.c: the rounds' arrays                  */
  ostio__settle settle;       /* settle.c: skipping the agreement            */
};

/* Steps 3 to 8 of a call (docs/collective.md) for an exchanging strategy,
 * after the first agreement; with check_only, only the overlap check
 * between ranks (the independent strategy on interleaved spans).
 * Collective; returns the agreed outcome (twophase.c). */
int ostio__two_phase(const ostio__engine_ctx *x, int is_write, const ostio__strategy *s,
                     const ostio__call *c, const ostio__ext *e, size_t ne, char *buf,
                     int check_only);

/* Adds the objects and OSTs that n ranges touch to x->stats (elements
 * stride bytes apart, each starting with an ostio__range: plan/objcount.h). */
void ostio__engine_count_objects(const ostio__engine_ctx *x, const void *r, size_t n,
                                 size_t stride);

/* settle.c. Whether this call may skip the agreement (counts the call);
 * the same answer on every rank. */
int ostio__settle_skip(ostio__settle *t, const ostio__hints *h, int is_write);
/* After an agreed call: whether it leaves the handle closer to settled. */
void ostio__settle_agreed(ostio__settle *t, const ostio__hints *h, int is_write, int worst,
                          const ostio__call *c, const ostio__strategy *s);
/* A skipped call's local failure rc (returned), kept for the next agreement. */
int ostio__settle_failed(ostio__settle *t, int rc);
/* The pending error as this rank's contribution to an agreement (0 when
 * none; clears it and re-records its detail). */
int ostio__settle_take(ostio__settle *t);

/* OSTIO_EMPI naming the MPI call that failed. */
int ostio__engine_mpi_fail(const char *what);

#endif
