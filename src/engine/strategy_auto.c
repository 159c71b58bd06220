/* auto: picks one of the others per call by the rule in plan/auto.c
 * (docs/collective-auto.md); the choice is counted in the statistics. */
#include <string.h>

#include "engine/strategy.h"
#include "plan/aggr.h"

static const ostio__strategy *choose(const ostio__call *c, const char **why)
{
  int64_t ss = 0;
  int k = 1;
  int ci = ostio__layout_component_at(c->l, c->lo);
  if (ci >= 0) ss = c->l->comp[ci].stripe_size;
  for (int i = 0; i < c->l->ncomp; i++)
    if (c->l->comp[i].stripe_count > k) k = c->l->comp[i].stripe_count;
  ostio__auto_in in = {
    .nprocs = c->nprocs, .is_write = c->is_write,
    .cb_hint = c->is_write ? c->h->romio_cb_write : c->h->romio_cb_read,
    .coll_threshold = c->h->romio_lustre_coll_threshold, .interleaved = c->interleaved,
    .total_bytes = c->bytes, .total_extents = c->nextents, .stripe_size = ss,
    .stripe_count = k,
  };
  const char *name = ostio__auto_choose(&in, why);
  if (name && strcmp(name, "even") == 0) return &ostio__strategy_even;
  if (name && strcmp(name, "aligned") == 0) return &ostio__strategy_aligned;
  if (name && strcmp(name, "independent") == 0) return &ostio__strategy_independent;
  return &ostio__strategy_ost;
}

const ostio__strategy ostio__strategy_auto = {
  .name = "auto", .id = OSTIO__STRAT_AUTO, .exchange = 1, .choose = choose,
};
