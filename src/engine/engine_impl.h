/* What the engine's own files share (coll.c, twophase.c); nothing outside
 * src/engine includes this: the engine's interface is engine.h. */
#ifndef OSTIO_ENGINE_ENGINE_IMPL_H
#define OSTIO_ENGINE_ENGINE_IMPL_H

#include <stdint.h>

#include "engine/engine.h"
#include "engine/strategy.h"
#include "plan/plan.h"

/* The call summary each rank contributes to the first Allgather. */
enum { OSTIO__SUM_RC, OSTIO__SUM_LO, OSTIO__SUM_HI, OSTIO__SUM_BYTES, OSTIO__SUM_NEXT,
       OSTIO__SUM_N };

typedef struct ostio__span {
  int64_t lo, hi;
} ostio__span;

/* Per-handle arrays of a call, sized by the number of ranks. They are
 * allocated once at open, where a failure is agreed, so that no rank of a
 * collective call can fail an allocation that its peers did not and then
 * call a different collective. */
struct ostio__engine_scratch {
  int64_t *gather;            /* P * OSTIO__SUM_N: the call summaries        */
  ostio__span *spans;         /* P                                           */
  int *ranks, *scount, *sdisp, *rcount, *rdisp, *agg_rounds, *rounds_by_index; /* P each */
  int *gather2;               /* 2 * P: {code, rounds} per rank              */
  size_t *sp_start;           /* P + 1                                       */
  int64_t **src_sched;        /* P                                           */
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

/* OSTIO_EMPI naming the MPI call that failed. */
int ostio__engine_mpi_fail(const char *what);

#endif
