/* ost: Y-lib's one-to-one OST pattern. Aggregator a owns every stripe of
 * the objects o with o mod naggr == a; with more aggregators than objects an
 * object's stripes rotate over at most co_ratio aggregators. Each
 * aggregator then talks to one object (one OST) and issues many
 * stripe-sized writes to it. */
#include "engine/strategy.h"

static int domains(const ostio__call *c, int naggr, ostio__domains *d)
{
  int co = c->h->romio_lustre_co_ratio > 1 << 20 ? 1 << 20 : (int)c->h->romio_lustre_co_ratio;
  return ostio__domains_init(d, &ostio__domain_ost, c->l, c->lo, c->hi, naggr, co);
}

const ostio__strategy ostio__strategy_ost = {
  .version = OSTIO__STRATEGY_VERSION, .name = "ost", .exchange = 1,
  .want = ostio__strategy_default_naggr, .domains = domains,
};
