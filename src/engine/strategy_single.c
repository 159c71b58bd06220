/* single: one aggregator (cb_nodes raises the count), one contiguous domain
 * over the call's span, so one rank (the first eligible: rank 0's node, its
 * lowest rank, the rank that opens the file at ostio_open) does all the
 * I/O and, with deferred open, is the file's only opener. `auto` picks it on
 * file systems that stop client caching when a second client opens a file
 * (CephFS: plan/auto.c, docs/collective-auto.md rule c″). */
#include "engine/strategy.h"

static int want(const ostio__call *c)
{
  (void)c;
  return 1;
}

static int domains(const ostio__call *c, int naggr, ostio__domains *d)
{
  return ostio__domains_init(d, &ostio__domain_even, c->l, c->lo, c->hi, naggr, 1);
}

const ostio__strategy ostio__strategy_single = {
  .version = OSTIO__STRATEGY_VERSION, .name = "single", .exchange = 1,
  .want = want, .domains = domains,
};
