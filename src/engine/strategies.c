/* The strategy registry; see strategy.h. */
#include "engine/strategy.h"

static const ostio__strategy *const registry[] = {
  &ostio__strategy_auto, &ostio__strategy_even, &ostio__strategy_aligned,
  &ostio__strategy_ost, &ostio__strategy_independent,
};

const ostio__strategy *ostio__strategy_get(int id)
{
  for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
    if (registry[i]->id == id) return registry[i];
  return 0;
}

int ostio__strategy_default_naggr(const ostio__call *c)
{
  int64_t best = 1, r = c->h->romio_lustre_co_ratio;
  for (int i = 0; i < c->l->ncomp; i++) {
    int64_t n = (int64_t)c->l->comp[i].stripe_count * r;
    if (n > best) best = n;
  }
  return best > c->nprocs ? c->nprocs : (int)best;
}

int ostio__strategy_contig_naggr(const ostio__call *c)
{
  int n = ostio__strategy_default_naggr(c);
  int nodes = c->nnodes < c->nprocs ? c->nnodes : c->nprocs;
  return nodes > n ? nodes : n;
}
