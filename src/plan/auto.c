/* The `auto` strategy rule; see aggr.h and docs/collective-auto.md.
 * The first rule that applies decides; each has its one-line reason. */
#include "hints/hints.h"
#include "plan/aggr.h"

int ostio__auto_one_opener(const ostio__auto_in *in)
{
  if (!in || !in->is_write || !in->open_drops_cache || in->nnodes <= 1) return 0;
  return in->interleaved || in->nnodes <= OSTIO__AUTO_ONE_OPENER_NODES;
}

const char *ostio__auto_choose(const ostio__auto_in *in, const char **why)
{
  const char *name, *reason;
  if (!in) {
    name = "independent";
    reason = "no input: independent I/O needs no plan";
  } else if (in->cb_hint == OSTIO__TRI_DISABLE) {
    name = "independent";
    reason = in->is_write ? "romio_cb_write=disable: collective buffering is off for writes"
                          : "romio_cb_read=disable: collective buffering is off for reads";
  } else if (in->nprocs == 1) {
    name = "independent";
    reason = "one process: there is nothing to exchange";
  } else if (in->cb_hint != OSTIO__TRI_ENABLE && in->coll_threshold > 0 &&
             in->total_extents > 0 &&
             in->total_bytes / in->total_extents >= in->coll_threshold) {
    name = "independent";
    reason = "romio_lustre_coll_threshold: requests are this large on average, so they go "
             "straight to the file system";
  } else if (ostio__auto_one_opener(in)) {
    name = "single";
    reason = "a file system that stops client caching when a second client opens the file "
             "(CephFS), ranks on several nodes: one aggregator, so one client opens and caches";
  } else if (in->cb_hint != OSTIO__TRI_ENABLE && !in->interleaved) {
    name = "independent";
    reason = "ranks' ranges do not interleave: each rank accesses the file directly "
             "(ROMIO's automatic rule)";
  } else if (in->cb_hint != OSTIO__TRI_ENABLE && in->nnodes == 1) {
    name = "independent";
    reason = "all ranks on one node: no other client's locks to avoid, and the exchange "
             "costs more than the system calls it saves";
  } else if (in->stripe_count == 1) {
    name = "aligned";
    reason = "one stripe object: ost would leave a single aggregator; stripe-aligned domains "
             "spread the work over all aggregators";
  } else {
    name = "ost";
    reason = "one-to-one OST pattern: every aggregator talks to one stripe object";
  }
  if (why) *why = reason;
  return name;
}
