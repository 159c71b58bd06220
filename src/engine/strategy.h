/* Collective strategies: who aggregates which bytes. One file per strategy
 * behind this ops struct; strategies.c is the registry. A new strategy is
 * one file and one registry line. See docs/collective.md. */
#ifndef OSTIO_ENGINE_STRATEGY_H
#define OSTIO_ENGINE_STRATEGY_H

#include <stdint.h>

#include "hints/hints.h"
#include "layout/layout.h"
#include "plan/domain.h"

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

typedef struct ostio__strategy {
  const char *name;
  int id;                /* ostio__strategy_hint                           */
  int exchange;          /* 1: two-phase through aggregators; 0: each rank does its own I/O */
  /* Aggregators the strategy wants before cb_nodes / eligibility caps. */
  int (*want)(const ostio__call *c);
  /* Byte ownership for this call with naggr aggregators. */
  int (*domains)(const ostio__call *c, int naggr, ostio__domains *d);
  /* auto only: the strategy to run instead, and why (one line). */
  const struct ostio__strategy *(*choose)(const ostio__call *c, const char **why);
} ostio__strategy;

extern const ostio__strategy ostio__strategy_even;
extern const ostio__strategy ostio__strategy_aligned;
extern const ostio__strategy ostio__strategy_ost;
extern const ostio__strategy ostio__strategy_independent;
extern const ostio__strategy ostio__strategy_auto;

/* The strategy for a hint value (ostio__strategy_hint); NULL if none. */
const ostio__strategy *ostio__strategy_get(int id);
/* Largest stripe_count x co_ratio over the layout's components: the
 * aggregator count of ROMIO's Lustre driver, our default for every
 * exchanging strategy so they are compared with the same aggregators. */
int ostio__strategy_default_naggr(const ostio__call *c);
/* For contiguous domains (even, aligned): that, but at least one per node,
 * ROMIO's generic default (cb_config_list *:1). */
int ostio__strategy_contig_naggr(const ostio__call *c);

#endif
