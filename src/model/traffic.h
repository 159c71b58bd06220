/* What one collective call (or one phase) of a pattern asks of a cluster,
 * as `ostio model` derives it from the same plan functions the engine runs
 * (src/plan): who writes how many bytes in how many requests to which
 * target and object, and what the ranks exchange first. The simulator
 * (sim.h) turns it into time on a described cluster (sysdesc.h). Pure
 * data. */
#ifndef OSTIO_MODEL_TRAFFIC_H
#define OSTIO_MODEL_TRAFFIC_H

#include <stddef.h>
#include <stdint.h>

/* One client's I/O to one object on one target. */
typedef struct ostio__flow {
  int64_t client;          /* rank doing the I/O, [0, nranks)                  */
  int64_t ost;             /* target index, [0, nost)                          */
  int64_t object;          /* the lock domain: one object of one file (a file
                            * per process has its own objects)                */
  int64_t bytes;           /* > 0                                              */
  int64_t requests;        /* contiguous requests, >= 1 (the simulator cuts
                            * longer ones at rpc_bytes)                        */
  int64_t tag;             /* model_plan.c's bookkeeping while it builds the
                            * traffic (the call and round of the bytes);
                            * ignored by the simulator                         */
} ostio__flow;

typedef struct ostio__traffic {
  int64_t nranks;
  ostio__flow *flow;       /* borrowed                                         */
  size_t nflow;
  /* The exchange before the I/O (two-phase), per rank: the bytes that
   * leave or reach the rank's node (a copy within a node is not
   * modelled); NULL: none. */
  const int64_t *send_bytes, *recv_bytes;
  const int64_t *send_msgs;  /* messages each rank sends                       */
  int64_t opens;           /* files opened or created (per process: nranks)    */
  int64_t syncs;           /* collective synchronisations, each a wait for
                            * every rank: two per collective call (agreement
                            * on entry and on exit) and one per exchange
                            * round; 0 for independent I/O                    */
} ostio__traffic;

#endif
