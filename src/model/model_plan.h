/* The traffic of a pattern under a strategy, from the same plan functions
 * the collective engine runs (issue 18): the aggregator count rules and
 * the aggregator placement (plan/aggr.h), the file domains (plan/domain.h)
 * and the layout math (layout/layout.h). Pure: no MPI, no I/O, so it runs
 * for 100,000 ranks on one core. What it does not model: the engine's
 * rounds (cb_buffer_size) -- an aggregator's bytes are one stream here --
 * and data sieving. See docs/model.md, "From plans to traffic". */
#ifndef OSTIO_MODEL_MODEL_PLAN_H
#define OSTIO_MODEL_MODEL_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "layout/layout.h"
#include "model/traffic.h"
#include "ostio.h"

/* What is modelled. ROMIO's behaviours are the domain rules the engine
 * shares with them: even = ROMIO's classic conforming domains, aligned =
 * its Lustre driver's stripe-aligned domains (docs/domains.md). */
typedef enum ostio__mstrategy {
  OSTIO__MS_OST = 0,        /* ostio's `ost`: one object per aggregator      */
  OSTIO__MS_EVEN,           /* contiguous equal domains                      */
  OSTIO__MS_ALIGNED,        /* contiguous stripe-aligned domains             */
  OSTIO__MS_INDEPENDENT,    /* each rank writes its own extents to the file  */
  OSTIO__MS_FPP,            /* a file per process, same layout each          */
  OSTIO__MS_COUNT
} ostio__mstrategy;

const char *ostio__mstrategy_name(int s);
/* "ost", "even", "aligned", "independent", "fpp" -> the enum, or -1. */
int ostio__mstrategy_from_name(const char *name);

/* Where the bytes go (issue 31; docs/model.md, "Containers and the cache").
 *   file     a plain file: one shared file, or a file per process (fpp)
 *   striped  a striped container: the shared file's objects, each its own
 *            file (the same flows; each rank also opens the K object files
 *            and the manifest)
 *   log      a log container (writers=rank): each rank appends a call's
 *            bytes to its own data log in one request, and 64 bytes per
 *            index record, one request each, to its own index log; two
 *            agreements per call and no exchange. The strategy is not used. */
typedef enum ostio__mcontainer {
  OSTIO__MC_FILE = 0,
  OSTIO__MC_STRIPED,
  OSTIO__MC_LOG,
  OSTIO__MC_COUNT
} ostio__mcontainer;

const char *ostio__mcontainer_name(int c);  /* "file", "striped", "log" */
int ostio__mcontainer_from_name(const char *name);

typedef struct ostio__model_job {
  const ostio_layout *l;    /* the file's layout (borrowed, valid)            */
  int64_t nranks;           /* >= 1, at most 2^31 - 1                         */
  int ranks_per_node;       /* >= 1: ranks r*k .. r*k+k-1 share node r        */
  int64_t nost;             /* targets in the system, >= 1                    */
  int64_t co_ratio;         /* romio_lustre_co_ratio, >= 1                    */
  int64_t cb_nodes;         /* aggregators; 0: the strategy's own rule        */
  int64_t round_bytes;      /* an aggregator's bytes per round; 0: 8 MiB, the
                             * engine's default (cb_buffer_size 16 MiB over
                             * its two pipelined buffers)                    */
  int container;            /* ostio__mcontainer; 0: a plain file            */
  int cache;                /* ostio_cache=enable (file or striped, not fpp):
                             * a call whose every extent is shorter than a
                             * page (the first component's stripe) goes
                             * through the cache: its bytes move to the
                             * pages' owners (the `ost` rule) and each owner
                             * writes them back, a request per page, with
                             * the synchronisations of a collective call
                             * (independent small writes made collective);
                             * other calls go the strategy's way            */
} ostio__model_job;

/* Traffic accumulated over the calls of a pattern. */
typedef struct ostio__model_acc {
  int64_t nranks;
  ostio__flow *flow;
  size_t nflow, cap;
  int64_t *send_bytes, *recv_bytes, *send_msgs;
  int64_t opens;
  int64_t syncs;            /* collective synchronisations (traffic.h)        */
  int64_t bytes;            /* every call's bytes, for the conservation check */
  int64_t naggr;            /* of the last collective call                    */
  int64_t tag;              /* the next request tag (model_plan.c)            */
  /* The aggregator placement (ostio__aggr_eligible's order), the same for
   * every collective call: computed at the first one, again only if a call
   * comes with other ranks per node. */
  int *aggr_order;          /* nranks entries, or NULL before the first      */
  int aggr_eligible;        /* ranks in aggr_order                           */
  int aggr_rpn;             /* the ranks per node it was computed for        */
  /* (client, object) -> its flow (open addressing, slots hold index + 1),
   * so a flow's bytes join their client and object's flow as they come
   * (the merge ostio__model_traffic makes): flows stay one per client and
   * object, not one per extent. Valid while hsync == nflow + 1; rebuilt
   * from the flows otherwise (ostio__model_traffic reorders them). */
  size_t *hidx;
  size_t hcap, hsync;
  /* Log containers: each rank's data and index log ends (nranks each). */
  int64_t *log_end, *log_iend;
} ostio__model_acc;

int ostio__model_acc_init(ostio__model_acc *a, int64_t nranks);
/* Empties a for another pattern or configuration of the same ranks, keeping
 * its allocations and aggregator placement. */
void ostio__model_acc_reset(ostio__model_acc *a);
void ostio__model_acc_free(ostio__model_acc *a);

/* Adds one call: rank r's extents are ext[r][0 .. n[r]), each rank's sorted
 * and disjoint (as ob_pattern_build gives them). OSTIO_EINVAL for a bad job
 * or extent, OSTIO_ERANGE for bytes past the layout, OSTIO_ENOMEM; each
 * with a detail. */
int ostio__model_add_call(ostio__model_acc *a, const ostio__model_job *j, int strategy,
                          const ostio_extent *const *ext, const size_t *n);

/* Merges the flows with the same (client, object) and points t at a's
 * arrays (valid until a is freed or added to). */
int ostio__model_traffic(ostio__model_acc *a, ostio__traffic *t);

#endif
