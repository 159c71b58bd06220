/* independent: no exchange; every rank writes or reads its own extents
 * (adjacent ones merged). When ranks' spans intersect, the engine still
 * routes the extents' offsets (not their data) through even domains over
 * all ranks, so overlaps between ranks are caught before any byte moves. */
#include "engine/strategy.h"

static int want(const ostio__call *c) { return c->nprocs; }

static int domains(const ostio__call *c, int naggr, ostio__domains *d)
{
  return ostio__domains_init(d, OSTIO__DOM_EVEN, c->l, c->lo, c->hi, naggr, 1);
}

const ostio__strategy ostio__strategy_independent = {
  .name = "independent", .id = OSTIO__STRAT_INDEPENDENT, .exchange = 0,
  .want = want, .domains = domains,
};
