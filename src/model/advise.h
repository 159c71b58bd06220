/* `ostio advise` (issue 18): for a pattern on a described cluster, which
 * strategy, stripe count and size, aggregator count and container kind to
 * use, each with the predicted gain and a one-line reason taken from the
 * simulator's results. Every candidate goes through the same path as
 * `ostio model`: ostio__model_add_call (the engine's plans) ->
 * ostio__model_traffic -> ostio__sim_run. Pure: no MPI, no I/O, no global
 * state; never aborts.
 *
 * Candidates (docs/model.md, "ostio advise"):
 *   stage A  a plain file with every strategy (ost, even, aligned,
 *            independent, fpp)
 *            x stripe counts 1, 2, 4, ... up to min(targets, 2000), that
 *              bound itself, and the current count
 *            x stripe sizes 1 MiB, 4 MiB and the current size,
 *            aggregators by the strategy's own rule           <= 5 x 13 x 3
 *   stage B  for ost, even and aligned at their best layout of stage A:
 *            aggregators one per node, two per node, half the rule's count
 *            and the current cb_nodes                          <= 3 x 4
 *   stage C  a log container and the cache (with the current strategy, or
 *            independent) at every stripe count and size of stage A, and a
 *            striped container at each strategy's best of stage A
 *                                                             <= 2 x 13 x 3 + 4
 *   the current choice, the recommendation with the cache switched, and
 *   the path from it to the recommendation, one knob at a time  <= 1 + 1 + 5
 * so at most OSTIO__ADVISE_MAX_SIMS simulations, each a full pass over the
 * pattern's calls. Memory: one traffic accumulator reused by every
 * simulation (the largest candidate's flows), two arrays of nranks, and a
 * table of OSTIO__ADVISE_MAX_SIMS results of about 200 bytes each. */
#ifndef OSTIO_MODEL_ADVISE_H
#define OSTIO_MODEL_ADVISE_H

#include <stddef.h>
#include <stdint.h>

#include "model/model_plan.h"
#include "model/sysdesc.h"
#include "ostio.h"

#define OSTIO__ADVISE_MAX_SIMS 320
/* A change is recommended only when it predicts at least 5 % more
 * bandwidth (the model is coarser than that); among the candidates within
 * 5 % of the best, the one that changes the fewest knobs wins. */
#define OSTIO__ADVISE_MIN_GAIN 1.05

/* One configuration. */
typedef struct ostio__advise_choice {
  int strategy;            /* ostio__mstrategy; OSTIO__MS_FPP: a file per process */
  int64_t stripe_count;    /* 1 .. OSTIO_MAX_STRIPE_COUNT                          */
  int64_t stripe_size;     /* bytes, 1 .. 2^32 - 1                                 */
  int64_t cb_nodes;        /* aggregators, 0 .. nranks; 0: the strategy's rule.
                            * Not used (taken as 0) by independent and fpp        */
  int container;           /* ostio__mcontainer: file (a shared file, or fpp),
                            * striped or log; a log container has no strategy,
                            * cache or aggregators (taken as independent, 0, 0) */
  int cache;               /* 1: ostio_cache=enable (file or striped; not fpp)    */
} ostio__advise_choice;

/* What a run's statistics warned about (stats/stats_advice.h's kinds), as
 * preferences: among the candidates within OSTIO__ADVISE_MIN_GAIN of the
 * fastest, one that follows every warning wins over one that does not, so
 * advise and the statistics report agree wherever the model cannot tell
 * their advice apart; where the model predicts it slower, advise says by
 * how much (ostio__advise_result.prefer_gain).
 *   small_writes            a collective strategy or the cache
 *   unaligned_writes        ost or aligned, or the cache (stripe-sized pages)
 *   objects_per_aggregator  ost, or the cache (its owners follow ost's rule)
 * A log container or a file per process follows none of them (the warnings
 * are about a shared file's writes). */
typedef enum ostio__advise_prefer {
  OSTIO__ADV_PREFER_SMALL = 0,
  OSTIO__ADV_PREFER_ALIGNED,
  OSTIO__ADV_PREFER_ONE_OBJECT,
  OSTIO__ADV_NPREFER
} ostio__advise_prefer;

/* "small_writes", "unaligned_writes", "objects_per_aggregator" -> the
 * preference, or -1 for another kind (rmw: no knob of advise). */
int ostio__advise_prefer_from_kind(const char *kind);
const char *ostio__advise_prefer_kind(int p);
/* What the statistics report says to try, in advise's words. */
const char *ostio__advise_prefer_advice(int p);
/* c with the knobs its container does not use set as the search keeps
 * them (fpp: a plain file, no cache; log: independent, no cache; no
 * aggregators without a collective strategy). */
ostio__advise_choice ostio__advise_normal(ostio__advise_choice c);

/* Whether c follows preference p. */
int ostio__advise_follows(const ostio__advise_choice *c, int p);

/* Fills ext[0 .. nranks) and n[0 .. nranks) with call k's per-rank extents
 * (each rank's sorted and disjoint, as ob_pattern_build gives them), valid
 * until the next call. 0, or a negative ostio error with a detail. */
typedef int (*ostio__advise_call_fn)(void *ctx, int k, const ostio_extent **ext, size_t *n);

typedef struct ostio__advise_input {
  const ostio__sys *sys;   /* the cluster                                          */
  int64_t nranks;          /* 1 .. 2^31 - 1, at most nodes x ranks_per_node        */
  int ranks_per_node;      /* 0: the system's                                      */
  int ncalls;              /* collective calls of the pattern, >= 1                */
  ostio__advise_call_fn call;
  void *ctx;
  ostio__advise_choice current;
  unsigned prefer;         /* bit p: preference p (the run's warnings)            */
  /* Called after each simulation (may be NULL): done so far, and the most
   * this call can make (its candidates, at most OSTIO__ADVISE_MAX_SIMS). */
  void (*progress)(void *arg, int done, int most);
  void *progress_arg;
} ostio__advise_input;

/* One simulated candidate: the simulator's result, summarised. */
typedef struct ostio__advise_eval {
  ostio__advise_choice c;
  double bandwidth;        /* bytes/s                                              */
  double time, t_meta, t_exchange, t_io, t_lock, t_queue; /* s: the split (sim.h)     */
  int64_t rpcs;            /* requests after cutting at rpc_bytes                  */
  double conflicts;        /* expected lock conflicts                              */
  int64_t max_osts_per_client, max_clients_per_ost;
  int64_t naggr;           /* aggregators of the collective calls (0: none)        */
  int bottleneck_kind;     /* ostio__sim_res                                       */
  char bottleneck[64];
} ostio__advise_eval;

typedef enum ostio__advise_knob_id {
  OSTIO__ADV_CONTAINER = 0,
  OSTIO__ADV_CACHE,
  OSTIO__ADV_STRATEGY,
  OSTIO__ADV_STRIPE_COUNT,
  OSTIO__ADV_STRIPE_SIZE,
  OSTIO__ADV_CB_NODES,
  OSTIO__ADV_NKNOBS
} ostio__advise_knob_id;

/* One line of advice. The knobs are applied in the order above, from the
 * current choice to the recommended one; a line's bandwidth is predicted
 * with it and the lines above applied, its gain is that bandwidth over the
 * line above's (the first line's: over the current choice), so the gains
 * multiply to the total and a kept knob has gain 1. */
typedef struct ostio__advise_knob {
  const char *name;        /* "container", "cache", "strategy", "stripe_count",
                            * "stripe_size", "cb_nodes"                            */
  char current[40], recommended[40]; /* as printed: "shared", "striped", "log",
                            * "fpp", "on", "off", "ost", "48", "4m",
                            * "96 (2 per node)", "-" when not used                */
  int change;              /* 1: change to recommended; 0: keep                    */
  double bandwidth;        /* bytes/s                                              */
  double gain;             /* this line's ratio (1 when kept)                      */
  char reason[256];        /* one line, from the simulator's results               */
} ostio__advise_knob;

typedef struct ostio__advise_result {
  ostio__advise_eval current, best;
  double gain;             /* best.bandwidth / current.bandwidth                   */
  ostio__advise_knob knob[OSTIO__ADV_NKNOBS];
  int64_t nodes;           /* nodes the ranks occupy                               */
  int ranks_per_node;      /* as used                                              */
  int nsims;               /* simulations run (<= OSTIO__ADVISE_MAX_SIMS)          */
  int nstripe_counts, nstripe_sizes; /* values tried                               */
  /* Per preference asked for: the fastest candidate that follows it over
   * the recommendation (1: followed or as fast; 0: none tried follows it). */
  double prefer_gain[OSTIO__ADV_NPREFER];
} ostio__advise_result;

/* Evaluates the candidates above and fills out. OSTIO_EINVAL with a detail
 * for a NULL argument, a system out of range, a rank count the system
 * cannot hold, ncalls < 1, a current choice out of range (strategy,
 * stripe count 1 .. 2000, stripe size 1 .. 2^32 - 1, cb_nodes 0 .. nranks,
 * container, cache 0 or 1), prefer bits beyond the preferences
 * or a pattern that writes no byte; the callback's and the model's errors
 * are passed on; OSTIO_ENOMEM. out is zeroed first. */
int ostio__advise(const ostio__advise_input *in, ostio__advise_result *out);

/* "1m", "4m", "64k", "1000": a size as the CLI's size flags take it. */
void ostio__advise_size_str(char *buf, size_t cap, int64_t bytes);

#endif
