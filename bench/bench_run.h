/* ostio-bench runner internals shared by bench_run.c (the phases) and
 * best_run.c (mpiio:best's sweep): one run's state, one plan's buffers and
 * the calls the sweep makes. Not installed; bench.h is the runner's API. */
#ifndef OSTIO_BENCH_RUN_H
#define OSTIO_BENCH_RUN_H

#include "bench.h"

typedef struct side {                 /* one plan (what this rank writes or reads) */
  ob_plan plan;
  int have_plan;
  uint8_t *buf;                       /* the bytes of all steps back to back       */
  int64_t *off;                       /* offset of step s in buf                   */
  MPI_Datatype *types;                /* hindexed filetype per step (MPI-IO)       */
  char *contig;                       /* step s is one run on every rank (MPI-IO)  */
  int64_t *start;                     /* where this rank's run of step s starts    */
} side;

typedef struct run {
  const ob_config *c;
  const ob_api *api;
  int rank, nprocs;
  MPI_Comm comm;                      /* WORLD, or SELF with -F                    */
  char path[OB_PATH_MAX + 64];
  ostio_file *ofh;
  MPI_File mfh;
  int view;                           /* a file view other than the default is set */
  int fd;
  const ob_hintset *extra;            /* mpiio:best's hints for this phase, or NULL */
  char msg[512];                      /* first local failure                       */
} run;

/* Collective over WORLD: the most severe code of any rank (the lowest failing
 * rank's code and message win). */
int ob__agree(run *x, int rc);
/* Removes x's file (or container) of x->api; collective (barrier). */
void ob__remove_file(run *x);
/* One timed phase of x->api (with x->extra's hints for mpiio:best); collective. */
int ob__run_phase(run *x, int write, side *sd, uint8_t *vbuf, ob_result *r);
/* best_run.c: decides mpiio:best's hints per phase (given or swept) into
 * res->sweep before the iterations; *vfail is set when a candidate's bytes
 * did not verify. Collective; 0 without mpiio:best. */
int ob__best_decide(run *x, ob_results *res, side *w, side *rd, uint8_t *vbuf, int *vfail);

#endif
