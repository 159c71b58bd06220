/* A template collective strategy, for tests only: "template" is two-phase
 * over equal contiguous domains, as even, but handed to the aggregators in
 * reverse order (the last aggregator owns the start of the span). It is
 * the whole of a strategy: one ostio__strategy (src/engine/strategy.h) over
 * a few small functions, here with its own domain rule built from the pure
 * pieces of src/plan/domain.h; no other file is touched. A real strategy
 * is src/engine/strategy_NAME.c, its X(NAME) line in the registry
 * (src/engine/strategies.c) and its source in the engine module of
 * CMakeLists.txt; this one takes the registry line through the test build
 * (-DOSTIO__STRATEGY_EXTRA=template, tests/CMakeLists.txt). The calls are
 * counted for tests/test_strategy_template.c. Copy it to start a strategy. */
#include "strategy_template.h"

ostio_test_strategy_calls ostio_test_strategy_template_calls;

/* ---- the domain rule: even's domains, reversed ---------------------------- */

static int setup(ostio__domains *d) { return ostio__domain_even.setup(d); }

static int owner(const ostio__domains *d, int64_t off, int64_t *run_end)
{
  ostio_test_strategy_template_calls.owner++;
  return d->naggr - 1 - (int)ostio__domain_index(d, off, run_end);
}

static int active(const ostio__domains *d) { return ostio__domain_even.active(d); }

static const ostio__domain_rule reversed = {
  .name = "reversed", .setup = setup, .owner = owner, .active = active,
};

/* ---- the strategy ---------------------------------------------------------- */

static int want(const ostio__call *c)
{
  ostio_test_strategy_template_calls.want++;
  return ostio__strategy_contig_naggr(c);
}

static int domains(const ostio__call *c, int naggr, ostio__domains *d)
{
  ostio_test_strategy_template_calls.domains++;
  return ostio__domains_init(d, &reversed, c->l, c->lo, c->hi, naggr, 1);
}

const ostio__strategy ostio__strategy_template = {
  .version = OSTIO__STRATEGY_VERSION, .name = "template", .exchange = 1,
  .want = want, .domains = domains,
};
