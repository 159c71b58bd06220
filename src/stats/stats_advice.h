/* Warnings from one file's statistics, in the manner of Cray's
 * MPICH_MPIIO_STATS (issue 18): patterns known to be slow on Lustre, each
 * one sentence with the figure that shows it and what to try. Pure (no MPI,
 * no I/O); the text and JSON reports print them (docs/stats.md,
 * "Warnings"). `ostio advise` predicts the gain of each change for a
 * described cluster (docs/model.md). */
#ifndef OSTIO_STATS_STATS_ADVICE_H
#define OSTIO_STATS_STATS_ADVICE_H

#include <stdint.h>

#include "stats/stats.h"

#define OSTIO__STATS_NWARN 4

typedef struct ostio__stats_warning {
  const char *kind;   /* "small_writes", "unaligned_writes", "objects_per_aggregator", "rmw" */
  char text[448];
} ostio__stats_warning;

/* The warnings of r (at most cap, in a fixed order); stripe_size 0 when
 * unknown (no alignment warning then). Returns how many. Thresholds:
 *  small_writes            >= 1,024 system writes averaging < 64 KiB
 *  unaligned_writes        >= 64 system writes, under half starting on a
 *                          stripe boundary
 *  objects_per_aggregator  an aggregator wrote more than one object in one
 *                          collective call
 *  rmw                     any read-modify-write (data sieving on writes) */
int ostio__stats_warnings(const ostio__stats_reduced *r, int64_t stripe_size,
                          ostio__stats_warning *w, int cap);

#endif
