/* auto: picks another registered strategy per call by the rule in
 * plan/auto.c (docs/collective-auto.md), which names it; the choice is
 * counted in the statistics (strategy_auto and the chosen one's). */
#include "engine/strategy.h"
#include "plan/aggr.h"

#include <string.h>

static const ostio__strategy *choose(const ostio__call *c, const char **why)
{
  int64_t ss = 0;
  int k = 1;
  int ci = ostio__layout_component_at(c->l, c->lo);
  if (ci >= 0) ss = c->l->comp[ci].stripe_size;
  for (int i = 0; i < c->l->ncomp; i++)
    if (c->l->comp[i].stripe_count > k) k = c->l->comp[i].stripe_count;
  ostio__auto_in in = {
    .nprocs = c->nprocs, .nnodes = c->nnodes, .is_write = c->is_write,
    .cb_hint = c->is_write ? c->h->romio_cb_write : c->h->romio_cb_read,
    .coll_threshold = c->h->romio_lustre_coll_threshold, .interleaved = c->interleaved,
    .total_bytes = c->bytes, .total_extents = c->nextents, .stripe_size = ss,
    .stripe_count = k, .open_drops_cache = strcmp(c->l->source, "ceph") == 0,
  };
  return ostio__strategy_find(ostio__auto_choose(&in, why));
}

const ostio__strategy ostio__strategy_auto = {
  .version = OSTIO__STRATEGY_VERSION, .name = "auto", .exchange = 1, .choose = choose,
};
