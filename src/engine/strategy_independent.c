/* independent: no exchange; every rank writes or reads its own extents
 * (adjacent ones merged). When ranks' spans intersect, the engine still
 * routes the extents' offsets (not their data) through even domains over
 * all ranks, so overlaps between ranks are caught before any byte moves. */
#include "engine/strategy.h"

static int want(const ostio__call *c) { return c->nprocs; }

static int domains(const ostio__call *c, int naggr, ostio__domains *d)
{
  return ostio__domains_init(d, &ostio__domain_even, c->l, c->lo, c->hi, naggr, 1);
}

const ostio__strategy ostio__strategy_independent = {
  .version = OSTIO__STRATEGY_VERSION, .name = "independent", .exchange = 0,
  .want = want, .domains = domains,
};
