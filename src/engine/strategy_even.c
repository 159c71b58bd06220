/* even: ROMIO's classic two-phase. The span of the call is split into
 * naggr contiguous domains of equal size (the "conforming distribution"),
 * so on a striped file every aggregator meets every object. */
#include "engine/strategy.h"

static int domains(const ostio__call *c, int naggr, ostio__domains *d)
{
  return ostio__domains_init(d, &ostio__domain_even, c->l, c->lo, c->hi, naggr, 1);
}

const ostio__strategy ostio__strategy_even = {
  .version = OSTIO__STRATEGY_VERSION, .name = "even", .exchange = 1,
  .want = ostio__strategy_contig_naggr, .domains = domains,
};
