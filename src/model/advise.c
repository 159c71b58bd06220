/* See advise.h and docs/model.md, "ostio advise". */
#include "model/advise.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "layout/layout.h"
#include "model/advise_impl.h"
#include "model/sim.h"

#define MiB ((int64_t)1 << 20)
#define MAX_COUNTS OSTIO__ADV_MAX_COUNTS
#define MAX_SIZES OSTIO__ADV_MAX_SIZES
#define STRIPE_SIZE_MAX 0xFFFFFFFFll

typedef ostio__advise_choice choice;
typedef ostio__advise_eval eval;
typedef ostio__advise_ctx ctx;

/* ---- small helpers ----------------------------------------------------------------------- */

int ostio__advise_collective(int s)
{
  return s == OSTIO__MS_OST || s == OSTIO__MS_EVEN || s == OSTIO__MS_ALIGNED;
}

static int collective(int s) { return ostio__advise_collective(s); }

int ostio__advise_kind(const choice *c)
{
  if (c->strategy == OSTIO__MS_FPP) return OSTIO__ADV_FPP;
  if (c->container == OSTIO__MC_LOG) return OSTIO__ADV_LOG;
  return c->container == OSTIO__MC_STRIPED ? OSTIO__ADV_STRIPED : OSTIO__ADV_SHARED;
}

const char *ostio__advise_kind_name(int kind)
{
  static const char *const names[] = {"shared", "striped", "log", "fpp"};
  return kind >= 0 && kind <= OSTIO__ADV_FPP ? names[kind] : "?";
}

int ostio__advise_has_strategy(const choice *c)
{
  int k = ostio__advise_kind(c);
  return k == OSTIO__ADV_SHARED || k == OSTIO__ADV_STRIPED;
}

choice ostio__advise_normal(choice c)
{
  if (c.strategy == OSTIO__MS_FPP) c.container = OSTIO__MC_FILE;
  if (c.container == OSTIO__MC_LOG) c.strategy = OSTIO__MS_INDEPENDENT;
  if (!ostio__advise_has_strategy(&c)) c.cache = 0;
  if (!collective(c.strategy) || !ostio__advise_has_strategy(&c)) c.cb_nodes = 0;
  return c;
}

static choice normal(choice c) { return ostio__advise_normal(c); }

int ostio__advise_same(const choice *a, const choice *b)
{
  return a->strategy == b->strategy && a->stripe_count == b->stripe_count &&
         a->stripe_size == b->stripe_size && a->cb_nodes == b->cb_nodes &&
         a->container == b->container && a->cache == b->cache;
}

static int same(const choice *a, const choice *b) { return ostio__advise_same(a, b); }

/* ---- the run's warnings ------------------------------------------------------------------- */

static const char *const prefer_kinds[OSTIO__ADV_NPREFER] = {"small_writes", "unaligned_writes",
                                                             "objects_per_aggregator"};
static const char *const prefer_advice[OSTIO__ADV_NPREFER] = {
  "collective calls or ostio_cache=enable", "ostio_strategy=ost or aligned",
  "ostio_strategy=ost"};

int ostio__advise_prefer_from_kind(const char *kind)
{
  for (int p = 0; kind && p < OSTIO__ADV_NPREFER; p++)
    if (!strcmp(kind, prefer_kinds[p])) return p;
  return -1;
}

const char *ostio__advise_prefer_kind(int p)
{
  return p >= 0 && p < OSTIO__ADV_NPREFER ? prefer_kinds[p] : "?";
}

const char *ostio__advise_prefer_advice(int p)
{
  return p >= 0 && p < OSTIO__ADV_NPREFER ? prefer_advice[p] : "?";
}

int ostio__advise_follows(const choice *c, int p)
{
  if (!ostio__advise_has_strategy(c)) return 0;
  int s = c->strategy;
  switch (p) {
  case OSTIO__ADV_PREFER_SMALL: return c->cache || collective(s);
  case OSTIO__ADV_PREFER_ALIGNED: return c->cache || s == OSTIO__MS_OST || s == OSTIO__MS_ALIGNED;
  case OSTIO__ADV_PREFER_ONE_OBJECT: return c->cache || s == OSTIO__MS_OST;
  default: return 0;
  }
}

/* Preferences asked for that c does not follow. */
static int violations(const ctx *x, const choice *c)
{
  int n = 0;
  for (int p = 0; p < OSTIO__ADV_NPREFER; p++)
    n += (x->in->prefer >> p & 1u) && !ostio__advise_follows(c, p);
  return n;
}

void ostio__advise_size_str(char *buf, size_t cap, int64_t v)
{
  static const char suffix[] = "kmgt";
  int k = -1;
  while (k < 3 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    k++;
  }
  if (k < 0) snprintf(buf, cap, "%lld", (long long)v);
  else snprintf(buf, cap, "%lld%c", (long long)v, suffix[k]);
}

/* ---- input -------------------------------------------------------------------------------- */

static int check_choice(const choice *c, int64_t nranks)
{
  if (c->strategy < 0 || c->strategy >= OSTIO__MS_COUNT)
    return ostio__fail(OSTIO_EINVAL, "advise: current strategy %d; accepted: 0 to %d (ost, even, "
                       "aligned, independent, fpp)", c->strategy, OSTIO__MS_COUNT - 1);
  if (c->stripe_count < 1 || c->stripe_count > OSTIO_MAX_STRIPE_COUNT)
    return ostio__fail(OSTIO_EINVAL, "advise: current stripe count %lld; accepted: 1 to %d",
                       (long long)c->stripe_count, OSTIO_MAX_STRIPE_COUNT);
  if (c->stripe_size < 1 || c->stripe_size > STRIPE_SIZE_MAX)
    return ostio__fail(OSTIO_EINVAL, "advise: current stripe size %lld; accepted: 1 to %lld bytes",
                       (long long)c->stripe_size, STRIPE_SIZE_MAX);
  if (c->cb_nodes < 0 || c->cb_nodes > nranks)
    return ostio__fail(OSTIO_EINVAL, "advise: current cb_nodes %lld; accepted: 0 (the strategy's "
                       "rule) to %lld (the ranks)", (long long)c->cb_nodes, (long long)nranks);
  if (c->container < 0 || c->container >= OSTIO__MC_COUNT)
    return ostio__fail(OSTIO_EINVAL, "advise: current container %d; accepted: 0 to %d (file, "
                       "striped, log)", c->container, OSTIO__MC_COUNT - 1);
  if (c->cache != 0 && c->cache != 1)
    return ostio__fail(OSTIO_EINVAL, "advise: current cache %d; accepted: 0 (off) or 1 (on)",
                       c->cache);
  return 0;
}

static int check_input(const ostio__advise_input *in, ostio__advise_result *out)
{
  if (!in || !out) return ostio__fail(OSTIO_EINVAL, "advise: NULL input or result");
  if (!in->sys || !in->call)
    return ostio__fail(OSTIO_EINVAL, "advise: NULL %s", in->sys ? "pattern callback" : "system");
  int rc = ostio__sys_check(in->sys);
  if (rc < 0) return rc;
  if (in->nranks < 1 || in->nranks > INT32_MAX)
    return ostio__fail(OSTIO_EINVAL, "advise: %lld ranks; accepted: 1 to %d", (long long)in->nranks,
                       INT32_MAX);
  if (in->ranks_per_node < 0 || in->ranks_per_node > 65536)
    return ostio__fail(OSTIO_EINVAL, "advise: %d ranks per node; accepted: 0 (the system's, %d) "
                       "to 65536", in->ranks_per_node, in->sys->ranks_per_node);
  int64_t rpn = in->ranks_per_node ? in->ranks_per_node : in->sys->ranks_per_node;
  if ((in->nranks + rpn - 1) / rpn > in->sys->nodes)
    return ostio__fail(OSTIO_EINVAL, "advise: %lld ranks at %lld per node need %lld nodes; "
                       "system %s has %lld", (long long)in->nranks, (long long)rpn,
                       (long long)((in->nranks + rpn - 1) / rpn), in->sys->name,
                       (long long)in->sys->nodes);
  if (in->ncalls < 1)
    return ostio__fail(OSTIO_EINVAL, "advise: %d calls in the pattern; accepted: 1 or more",
                       in->ncalls);
  if (in->prefer >> OSTIO__ADV_NPREFER)
    return ostio__fail(OSTIO_EINVAL, "advise: preference bits 0x%x; accepted: below 0x%x",
                       in->prefer, 1u << OSTIO__ADV_NPREFER);
  return check_choice(&in->current, in->nranks);
}

/* ---- one simulation ----------------------------------------------------------------------- */

static void summarise(eval *e, const choice *c, const ostio__sim_result *r, int64_t naggr)
{
  memset(e, 0, sizeof *e);
  e->c = *c;
  e->bandwidth = r->bandwidth;
  e->time = r->time;
  e->t_meta = r->t_meta;
  e->t_io = r->t_io;
  e->rpcs = r->rpcs;
  e->t_exchange = r->t_exchange;
  e->t_lock = r->t_lock;
  e->t_queue = r->t_queue;
  e->conflicts = r->conflicts;
  e->max_osts_per_client = r->max_osts_per_client;
  e->max_clients_per_ost = r->max_clients_per_ost;
  e->naggr = collective(c->strategy) ? naggr : 0;
  e->bottleneck_kind = (int)r->bottleneck_kind;
  snprintf(e->bottleneck, sizeof e->bottleneck, "%s", r->bottleneck);
}

static int simulate(ctx *x, const choice *c, eval *e)
{
  const ostio__advise_input *in = x->in;
  ostio_layout *l = NULL;
  ostio__sim_result res;
  ostio__traffic t;
  memset(&res, 0, sizeof res);
  int rc = ostio__layout_simple(c->stripe_size, (int32_t)c->stripe_count, -1, &l);
  ostio__model_job j = {.l = l, .nranks = in->nranks, .ranks_per_node = x->sys.ranks_per_node,
                        .nost = ostio__sys_nost(&x->sys), .co_ratio = 1, .cb_nodes = c->cb_nodes,
                        .container = c->container, .cache = c->cache};
  ostio__model_acc_reset(&x->acc);
  for (int k = 0; rc == 0 && k < in->ncalls; k++) {
    rc = in->call(in->ctx, k, x->ext, x->n);
    if (rc > 0)
      rc = ostio__fail(OSTIO_EINVAL, "advise: the pattern callback gave %d for call %d; "
                       "accepted: 0 or a negative ostio error", rc, k);
    if (rc == 0) rc = ostio__model_add_call(&x->acc, &j, c->strategy, x->ext, x->n);
  }
  /* No flow: nothing written (run() refuses it); the simulator is not asked. */
  if (rc == 0 && x->acc.nflow > 0) rc = ostio__model_traffic(&x->acc, &t);
  if (rc == 0 && x->acc.nflow > 0) rc = ostio__sim_run(&x->sys, &t, &res);
  if (rc == 0) summarise(e, c, &res, x->acc.naggr);
  ostio__sim_result_free(&res);
  ostio__layout_destroy(l);
  return rc < 0 ? rc : 0;
}

int ostio__advise_evaluate(ctx *x, choice c, const eval **out)
{
  c = normal(c);
  for (int i = 0; i < x->ndone; i++)
    if (same(&x->done[i].c, &c)) {
      *out = &x->done[i];
      return 0;
    }
  if (x->ndone == OSTIO__ADVISE_MAX_SIMS)
    return ostio__fail(OSTIO_EINVAL, "advise: more than %d simulations", OSTIO__ADVISE_MAX_SIMS);
  int rc = simulate(x, &c, &x->done[x->ndone]);
  if (rc < 0) return rc;
  *out = &x->done[x->ndone++];
  if (x->in->progress) x->in->progress(x->in->progress_arg, x->ndone, x->most);
  return 0;
}

static int evaluate(ctx *x, choice c, const eval **out)
{
  return ostio__advise_evaluate(x, c, out);
}

/* ---- the candidates ----------------------------------------------------------------------- */

static void add_value(int64_t *v, int *n, int cap, int64_t value)
{
  for (int i = 0; i < *n; i++)
    if (v[i] == value) return;
  if (*n == cap) return;
  int i = (*n)++;
  for (; i > 0 && v[i - 1] > value; i--) v[i] = v[i - 1];
  v[i] = value;
}

static void value_lists(ctx *x)
{
  int64_t nost = ostio__sys_nost(&x->sys);
  int64_t bound = nost < OSTIO_MAX_STRIPE_COUNT ? nost : OSTIO_MAX_STRIPE_COUNT;
  for (int64_t k = 1; k <= bound; k *= 2) add_value(x->counts, &x->ncounts, MAX_COUNTS, k);
  add_value(x->counts, &x->ncounts, MAX_COUNTS, bound);
  add_value(x->counts, &x->ncounts, MAX_COUNTS, x->in->current.stripe_count);
  add_value(x->sizes, &x->nsizes, MAX_SIZES, MiB);
  add_value(x->sizes, &x->nsizes, MAX_SIZES, 4 * MiB);
  add_value(x->sizes, &x->nsizes, MAX_SIZES, x->in->current.stripe_size);
}

/* Stage A: every strategy x stripe count x stripe size, aggregators by rule. */
static int stage_a(ctx *x)
{
  int rc = 0;
  const eval *e;
  for (int s = 0; rc == 0 && s < OSTIO__MS_COUNT; s++)
    for (int i = 0; rc == 0 && i < x->ncounts; i++)
      for (int k = 0; rc == 0 && k < x->nsizes; k++)
        rc = evaluate(x, (choice){.strategy = s, .stripe_count = x->counts[i],
                                  .stripe_size = x->sizes[k]}, &e);
  return rc;
}

/* The best evaluated candidate of strategy s in a plain file without the
 * cache, with the rule's aggregators. */
static const eval *best_rule(const ctx *x, int s)
{
  const eval *b = NULL;
  for (int i = 0; i < x->ndone; i++)
    if (x->done[i].c.strategy == s && x->done[i].c.cb_nodes == 0 &&
        x->done[i].c.container == OSTIO__MC_FILE && !x->done[i].c.cache &&
        (!b || x->done[i].bandwidth > b->bandwidth))
      b = &x->done[i];
  return b;
}

/* Stage B: aggregator counts for each collective strategy at its best layout. */
static int stage_b(ctx *x, int64_t nodes)
{
  int64_t P = x->in->nranks;
  int rc = 0;
  for (int s = 0; rc == 0 && s < OSTIO__MS_COUNT; s++) {
    const eval *b = collective(s) ? best_rule(x, s) : NULL;
    if (!b) continue;
    choice base = b->c;
    int64_t rule = b->naggr;
    int64_t opt[4] = {nodes, 2 * nodes, rule / 2, x->in->current.cb_nodes};
    for (int i = 0; rc == 0 && i < 4; i++) {
      int64_t cb = opt[i] < P ? opt[i] : P;
      if (cb < 1 || cb == rule) continue;
      const eval *e;
      base.cb_nodes = cb;
      rc = evaluate(x, base, &e);
    }
  }
  return rc;
}

/* Stage C: a log container and the cache at every layout of stage A, a
 * striped container at each strategy's best plain-file layout. */
static int stage_c(ctx *x, const choice *cur)
{
  int cs = ostio__advise_has_strategy(cur) ? cur->strategy : OSTIO__MS_INDEPENDENT;
  int cc = cur->container == OSTIO__MC_STRIPED ? OSTIO__MC_STRIPED : OSTIO__MC_FILE;
  const eval *e;
  int rc = 0;
  for (int i = 0; rc == 0 && i < x->ncounts; i++)
    for (int k = 0; rc == 0 && k < x->nsizes; k++) {
      choice c = {.strategy = OSTIO__MS_INDEPENDENT, .stripe_count = x->counts[i],
                  .stripe_size = x->sizes[k], .container = OSTIO__MC_LOG};
      rc = evaluate(x, c, &e);
      c = (choice){.strategy = cs, .stripe_count = x->counts[i], .stripe_size = x->sizes[k],
                   .container = cc, .cache = 1};
      if (rc == 0) rc = evaluate(x, c, &e);
    }
  for (int s = 0; rc == 0 && s < OSTIO__MS_COUNT; s++) {
    const eval *b = s == OSTIO__MS_FPP ? NULL : best_rule(x, s);
    if (!b) continue;
    choice c = b->c;
    c.container = OSTIO__MC_STRIPED;
    rc = evaluate(x, c, &e);
  }
  return rc;
}

/* Knobs changed from cur to c (cb_nodes only where c has aggregators). */
static int nchanges(const choice *cur, const choice *c)
{
  int both = ostio__advise_has_strategy(cur) && ostio__advise_has_strategy(c);
  int n = ostio__advise_kind(cur) != ostio__advise_kind(c);
  n += both && cur->strategy != c->strategy;
  n += both && cur->cache != c->cache;
  n += (cur->stripe_count != c->stripe_count) + (cur->stripe_size != c->stripe_size);
  return n + (collective(c->strategy) && c->cb_nodes != cur->cb_nodes &&
              ostio__advise_has_strategy(c));
}

/* The fastest candidate; among those within OSTIO__ADVISE_MIN_GAIN of it,
 * the one that follows the most of the run's warnings, then the one that
 * changes the fewest knobs, then the fastest. */
static const eval *select_best(const ctx *x, const choice *cur)
{
  double top = 0;
  for (int i = 0; i < x->ndone; i++)
    if (x->done[i].bandwidth > top) top = x->done[i].bandwidth;
  const eval *b = NULL;
  int bn = 0, bv = 0;
  for (int i = 0; i < x->ndone; i++) {
    const eval *e = &x->done[i];
    if (e->bandwidth * OSTIO__ADVISE_MIN_GAIN < top) continue;
    int n = nchanges(cur, &e->c), v = violations(x, &e->c);
    if (!b || v < bv || (v == bv && (n < bn || (n == bn && e->bandwidth > b->bandwidth)))) {
      b = e;
      bn = n;
      bv = v;
    }
  }
  return b;
}

/* For each preference asked for: the fastest candidate that follows it,
 * over the recommendation. */
static void prefer_gains(const ctx *x, ostio__advise_result *out)
{
  for (int p = 0; p < OSTIO__ADV_NPREFER; p++) {
    if (!(x->in->prefer >> p & 1u)) continue;
    double bw = 0;
    for (int i = 0; i < x->ndone; i++)
      if (ostio__advise_follows(&x->done[i].c, p) && x->done[i].bandwidth > bw)
        bw = x->done[i].bandwidth;
    out->prefer_gain[p] = ostio__advise_follows(&out->best.c, p) ? 1 : bw / out->best.bandwidth;
  }
}

/* ---- the whole ---------------------------------------------------------------------------- */

static int run(ctx *x, ostio__advise_result *out)
{
  const ostio__advise_input *in = x->in;
  int64_t rpn = x->sys.ranks_per_node, nodes = (in->nranks + rpn - 1) / rpn;
  const eval *e;
  choice cur = normal(in->current);
  value_lists(x);
  /* The current choice, stage A, stage B (3 strategies x 4), stage C (log
   * and cache at every layout, striped at 4 strategies), the recommendation
   * with the cache switched (1), the path (5). */
  x->most = 1 + OSTIO__MS_COUNT * x->ncounts * x->nsizes + 3 * 4 + 2 * x->ncounts * x->nsizes +
            4 + 1 + 5;
  if (x->most > OSTIO__ADVISE_MAX_SIMS) x->most = OSTIO__ADVISE_MAX_SIMS;
  int rc = evaluate(x, cur, &e);
  if (rc < 0) return rc;
  if (!(e->bandwidth > 0))
    return ostio__fail(OSTIO_EINVAL, "advise: the pattern writes no byte (%d calls, %lld ranks)",
                       in->ncalls, (long long)in->nranks);
  out->current = *e;
  if ((rc = stage_a(x)) < 0 || (rc = stage_b(x, nodes)) < 0 || (rc = stage_c(x, &cur)) < 0)
    return rc;
  out->best = *select_best(x, &cur);
  prefer_gains(x, out);
  /* The recommendation with the cache switched, for the cache line's reason. */
  choice flip = out->best.c;
  flip.cache = !flip.cache;
  if (ostio__advise_has_strategy(&flip) && (rc = evaluate(x, flip, &e)) < 0) return rc;
  out->gain = out->best.bandwidth / out->current.bandwidth;
  out->nodes = nodes;
  out->ranks_per_node = (int)rpn;
  out->nstripe_counts = x->ncounts;
  out->nstripe_sizes = x->nsizes;
  rc = ostio__advise_fill_knobs(x, out, nodes);
  out->nsims = x->ndone;
  return rc;
}

int ostio__advise(const ostio__advise_input *in, ostio__advise_result *out)
{
  if (out) memset(out, 0, sizeof *out);
  int rc = check_input(in, out);
  if (rc < 0) return rc;
  ctx *x = calloc(1, sizeof *x);
  if (!x) return ostio__fail(OSTIO_ENOMEM, "advise: out of memory");
  x->in = in;
  x->sys = *in->sys;
  if (in->ranks_per_node) x->sys.ranks_per_node = in->ranks_per_node;
  x->ext = calloc((size_t)in->nranks, sizeof *x->ext);
  x->n = calloc((size_t)in->nranks, sizeof *x->n);
  if (!x->ext || !x->n) rc = ostio__fail(OSTIO_ENOMEM, "advise: out of memory for %lld ranks",
                                         (long long)in->nranks);
  if (rc == 0) rc = ostio__model_acc_init(&x->acc, in->nranks);
  if (rc == 0) rc = run(x, out);
  ostio__model_acc_free(&x->acc);
  free(x->ext);
  free(x->n);
  free(x);
  return rc;
}
