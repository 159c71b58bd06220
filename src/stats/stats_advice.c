/* See stats_advice.h. */
#include "stats/stats_advice.h"

#include <inttypes.h>
#include <stdio.h>

#define SMALL_CALLS 1024
#define SMALL_BYTES 65536
#define ALIGN_CALLS 64

static int add(ostio__stats_warning *w, int n, int cap, const char *kind)
{
  if (n >= cap) return 0;
  w[n].kind = kind;
  w[n].text[0] = '\0';
  return 1;
}

int ostio__stats_warnings(const ostio__stats_reduced *r, int64_t stripe_size,
                          ostio__stats_warning *w, int cap)
{
  int n = 0;
  const int64_t *sum = r->sum, *max = r->max;
  int64_t writes = sum[OSTIO__STAT_sys_writes], bytes = sum[OSTIO__STAT_bytes_written];
  if (writes >= SMALL_CALLS && bytes / writes < SMALL_BYTES && add(w, n, cap, "small_writes"))
    snprintf(w[n++].text, sizeof w->text,
             "many small writes: %" PRId64 " system writes of %" PRId64 " bytes on average; "
             "collective calls (ostio_write_all, MPI_File_write_all) or the cooperative cache "
             "(ostio_cache=enable) turn them into stripe-sized writes",
             writes, bytes / writes);
  int64_t aligned = sum[OSTIO__STAT_stripe_aligned_writes];
  if (stripe_size > 0 && writes >= ALIGN_CALLS && aligned < writes - aligned &&
      add(w, n, cap, "unaligned_writes"))
    snprintf(w[n++].text, sizeof w->text,
             "unaligned writes: %" PRId64 " of %" PRId64 " system writes start off a stripe "
             "boundary (stripe size %" PRId64 "); on Lustre a write across a boundary takes "
             "two OSTs' extent locks: align records to the stripe size, or let a collective "
             "strategy (ostio_strategy=ost or aligned) cut the data at stripe boundaries",
             writes - aligned, writes, stripe_size);
  if (max[OSTIO__STAT_objects_max] > 1 && add(w, n, cap, "objects_per_aggregator"))
    snprintf(w[n++].text, sizeof w->text,
             "one aggregator wrote %" PRId64 " objects (%" PRId64 " OSTs) in one collective "
             "call: on Lustre it then contends for every one of those OSTs' extent locks with "
             "the other aggregators; ostio_strategy=ost gives each aggregator one object "
             "(with cb_nodes at least the stripe count)",
             max[OSTIO__STAT_objects_max], max[OSTIO__STAT_osts_max]);
  if (sum[OSTIO__STAT_rmw] > 0 && add(w, n, cap, "rmw"))
    snprintf(w[n++].text, sizeof w->text,
             "%" PRId64 " read-modify-write operations: data sieving on writes "
             "(romio_ds_write) reads each span with holes before writing it, under a lock; "
             "writes that cover whole stripes, or romio_ds_write=disable, avoid them",
             sum[OSTIO__STAT_rmw]);
  return n;
}
