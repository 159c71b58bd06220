/* Collective strategies: who aggregates which bytes. A strategy is one file
 * (src/engine/strategy_NAME.c) defining one ostio__strategy, and one X(NAME)
 * line in the registry (src/engine/strategies.c). Everything else finds it
 * through the registry: the ostio_strategy hint (checked at open), auto's
 * choice, the statistics' strategy_NAME counter, `ostio hints`, the
 * benchmarks' -a ostio:NAME. See docs/collective.md, "Strategies". */
#ifndef OSTIO_ENGINE_STRATEGY_H
#define OSTIO_ENGINE_STRATEGY_H

#include <stddef.h>
#include <stdint.h>

#include "hints/hints.h"
#include "layout/layout.h"
#include "plan/domain.h"
#include "stats/stats.h"

/* What a strategy may look at: the whole call, as every rank sees it. */
typedef struct ostio__call {
  const ostio_layout *l;
  const ostio__hints *h;
  int nprocs;
  int nnodes;            /* nodes the ranks run on                        */
  int is_write;
  int64_t lo, hi;        /* span of all ranks' non-empty extents          */
  int64_t bytes;         /* over all ranks                                 */
  int64_t nextents;      /* non-empty extents over all ranks               */
  int interleaved;       /* two ranks' [lo, hi) spans intersect            */
} ostio__call;

/* The struct's version; the registry ignores entries built for another. */
#define OSTIO__STRATEGY_VERSION 1
/* A name fits the statistics' counter slot (OSTIO__STATS_STRAT_NAME). */
#define OSTIO__STRATEGY_NAME_MAX (OSTIO__STATS_STRAT_NAME - 1)

typedef struct ostio__strategy {
  int version;           /* OSTIO__STRATEGY_VERSION, first                 */
  const char *name;      /* the hint's value; lower case, at most OSTIO__STRATEGY_NAME_MAX */
  int exchange;          /* 1: two-phase through aggregators; 0: each rank does its own I/O */
  /* Aggregators the strategy wants before cb_nodes / eligibility caps. */
  int (*want)(const ostio__call *c);
  /* Byte ownership for this call with naggr aggregators: usually
   * ostio__domains_init with one of plan/domain.h's rules. */
  int (*domains)(const ostio__call *c, int naggr, ostio__domains *d);
  /* A strategy that picks another per call (auto): the registry member to
   * run instead, and why (one line); NULL for the others. */
  const struct ostio__strategy *(*choose)(const ostio__call *c, const char **why);
} ostio__strategy;

/* The registry, in its order (the order of every list of strategies). */
int ostio__strategy_count(void);
const ostio__strategy *ostio__strategy_at(int i);
/* The strategy named name (as the hint keeps it: lower case); NULL if none. */
const ostio__strategy *ostio__strategy_find(const char *name);
/* "auto, even, aligned, ost, independent or single" into buf (cut to cap). */
void ostio__strategy_names(char *buf, size_t cap);

/* At open, on every rank before the hints are shared: 0 when the
 * ostio_strategy hint names a strategy, else OSTIO_EHINT naming the value
 * and the registry's names. Also names the statistics' strategy counters
 * (one per registry entry) in st, which may be NULL. */
int ostio__strategy_open(const ostio__hints *h, ostio__stats *st);

/* The strategy for call c: the hint's, or the one it chooses; counts each
 * in st's strategy counters. 0 and *out, or OSTIO_EHINT when a name is not
 * in the registry (the same on every rank: the inputs are agreed). */
int ostio__strategy_pick(const ostio__call *c, ostio__stats *st, const ostio__strategy **out);

/* Largest stripe_count x co_ratio over the layout's components: the
 * aggregator count of ROMIO's Lustre driver, our default for every
 * exchanging strategy so they are compared with the same aggregators. */
int ostio__strategy_default_naggr(const ostio__call *c);
/* For contiguous domains (even, aligned): that, but at least one per node,
 * ROMIO's generic default (cb_config_list *:1). */
int ostio__strategy_contig_naggr(const ostio__call *c);

#endif
