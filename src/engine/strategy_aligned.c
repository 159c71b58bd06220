/* aligned: contiguous domains as in even, but every boundary on a stripe
 * boundary (Liao's alignment, ROMIO's read path on Lustre), so no stripe is
 * shared by two aggregators. */
#include "engine/strategy.h"

static int domains(const ostio__call *c, int naggr, ostio__domains *d)
{
  return ostio__domains_init(d, &ostio__domain_aligned, c->l, c->lo, c->hi, naggr, 1);
}

const ostio__strategy ostio__strategy_aligned = {
  .version = OSTIO__STRATEGY_VERSION, .name = "aligned", .exchange = 1,
  .want = ostio__strategy_contig_naggr, .domains = domains,
};
