/* See advise.h and docs/model.md, "ostio advise". */
#include "model/advise.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "layout/layout.h"
#include "model/sim.h"

#define MiB ((int64_t)1 << 20)
#define MAX_COUNTS 16              /* stripe counts tried: 11 powers, the bound, current */
#define MAX_SIZES 3
#define STRIPE_SIZE_MAX 0xFFFFFFFFll

static const char *const knob_names[OSTIO__ADV_NKNOBS] = {"container", "strategy", "stripe_count",
                                                          "stripe_size", "cb_nodes"};

typedef ostio__advise_choice choice;
typedef ostio__advise_eval eval;

typedef struct ctx {
  const ostio__advise_input *in;
  ostio__sys sys;                  /* the input's, with the ranks per node used */
  ostio__model_acc acc;            /* reused by every simulation                */
  const ostio_extent **ext;
  size_t *n;
  eval done[OSTIO__ADVISE_MAX_SIMS];
  int ndone;
  int64_t counts[MAX_COUNTS], sizes[MAX_SIZES];
  int ncounts, nsizes;
  int most;                        /* simulations this call can make           */
} ctx;

/* ---- small helpers ----------------------------------------------------------------------- */

static int collective(int s)
{
  return s == OSTIO__MS_OST || s == OSTIO__MS_EVEN || s == OSTIO__MS_ALIGNED;
}

static int fpp(const choice *c) { return c->strategy == OSTIO__MS_FPP; }

static choice normal(choice c)
{
  if (!collective(c.strategy)) c.cb_nodes = 0;
  return c;
}

static int same(const choice *a, const choice *b)
{
  return a->strategy == b->strategy && a->stripe_count == b->stripe_count &&
         a->stripe_size == b->stripe_size && a->cb_nodes == b->cb_nodes;
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

/* 4088.4 -> "4,088". */
static void count_str(char *buf, size_t cap, double x)
{
  char raw[32];
  snprintf(raw, sizeof raw, "%.0f", x < 0 ? 0 : x > 9e18 ? 9e18 : x);
  size_t len = strlen(raw), j = 0;
  for (size_t i = 0; i < len && j + 2 < cap; i++) {
    if (i > 0 && (len - i) % 3 == 0) buf[j++] = ',';
    buf[j++] = raw[i];
  }
  buf[j] = '\0';
}

/* Appends ", " (or "; ") and a formatted clause to buf. */
static void add(char *buf, size_t cap, const char *sep, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(char *buf, size_t cap, const char *sep, const char *fmt, ...)
{
  size_t len = strlen(buf);
  if (len + 1 >= cap) return;
  if (len) snprintf(buf + len, cap - len, "%s", sep);
  len = strlen(buf);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf + len, cap - len, fmt, ap);
  va_end(ap);
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
  return check_choice(&in->current, in->nranks);
}

/* ---- one simulation ----------------------------------------------------------------------- */

/* Empties the accumulator as ostio__model_acc_init leaves it, keeping its
 * allocations and the aggregator placement (the same ranks and ranks per
 * node for every candidate): every other field (present or added later to
 * model_plan.h) back to 0. */
static void acc_reset(ostio__model_acc *a)
{
  ostio__model_acc keep = *a;
  size_t P = (size_t)keep.nranks;
  memset(a, 0, sizeof *a);
  a->nranks = keep.nranks;
  a->flow = keep.flow;
  a->cap = keep.cap;
  a->send_bytes = keep.send_bytes;
  a->recv_bytes = keep.recv_bytes;
  a->send_msgs = keep.send_msgs;
  a->aggr_order = keep.aggr_order;
  a->aggr_eligible = keep.aggr_eligible;
  a->aggr_rpn = keep.aggr_rpn;
  a->hidx = keep.hidx;     /* hsync 0: rebuilt (emptied) at the first flow */
  a->hcap = keep.hcap;
  memset(a->send_bytes, 0, P * sizeof *a->send_bytes);
  memset(a->recv_bytes, 0, P * sizeof *a->recv_bytes);
  memset(a->send_msgs, 0, P * sizeof *a->send_msgs);
}

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
                        .nost = ostio__sys_nost(&x->sys), .co_ratio = 1, .cb_nodes = c->cb_nodes};
  acc_reset(&x->acc);
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

/* The candidate's result, simulated once: *out points into x->done. */
static int evaluate(ctx *x, choice c, const eval **out)
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

/* The best evaluated candidate of strategy s with the rule's aggregators. */
static const eval *best_rule(const ctx *x, int s)
{
  const eval *b = NULL;
  for (int i = 0; i < x->ndone; i++)
    if (x->done[i].c.strategy == s && x->done[i].c.cb_nodes == 0 &&
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

/* Knobs changed from cur to c (cb_nodes only where c has aggregators). */
static int nchanges(const choice *cur, const choice *c)
{
  int n = fpp(cur) != fpp(c) || (!fpp(c) && cur->strategy != c->strategy);
  n += (cur->stripe_count != c->stripe_count) + (cur->stripe_size != c->stripe_size);
  return n + (collective(c->strategy) && cur->cb_nodes != c->cb_nodes);
}

/* The fastest candidate; among those within OSTIO__ADVISE_MIN_GAIN of it,
 * the one that changes the fewest knobs (then the fastest). */
static const eval *select_best(const ctx *x, const choice *cur)
{
  double top = 0;
  for (int i = 0; i < x->ndone; i++)
    if (x->done[i].bandwidth > top) top = x->done[i].bandwidth;
  const eval *b = NULL;
  int bn = 0;
  for (int i = 0; i < x->ndone; i++) {
    const eval *e = &x->done[i];
    if (e->bandwidth * OSTIO__ADVISE_MIN_GAIN < top) continue;
    int n = nchanges(cur, &e->c);
    if (!b || n < bn || (n == bn && e->bandwidth > b->bandwidth)) {
      b = e;
      bn = n;
    }
  }
  return b;
}

/* ---- the lines ---------------------------------------------------------------------------- */

static void knob_value(char *buf, size_t cap, int knob, const eval *e, int64_t nodes)
{
  const choice *c = &e->c;
  switch (knob) {
  case OSTIO__ADV_CONTAINER: snprintf(buf, cap, "%s", fpp(c) ? "fpp" : "shared"); break;
  case OSTIO__ADV_STRATEGY: snprintf(buf, cap, "%s", ostio__mstrategy_name(c->strategy)); break;
  case OSTIO__ADV_STRIPE_COUNT: snprintf(buf, cap, "%lld", (long long)c->stripe_count); break;
  case OSTIO__ADV_STRIPE_SIZE: ostio__advise_size_str(buf, cap, c->stripe_size); break;
  default:
    if (!collective(c->strategy)) snprintf(buf, cap, "-");
    else if (e->naggr % nodes == 0)
      snprintf(buf, cap, "%s%lld, %lld/node", c->cb_nodes ? "" : "rule: ", (long long)e->naggr,
               (long long)(e->naggr / nodes));
    else
      snprintf(buf, cap, "%s%lld, %.2f/node", c->cb_nodes ? "" : "rule: ", (long long)e->naggr,
               (double)e->naggr / (double)nodes);
  }
}

/* The part of the time split that changes most from a to b. */
static void split_clause(char *buf, size_t cap, const eval *a, const eval *b)
{
  static const char *const what[] = {"metadata", "exchange", "I/O", "lock waits", "OST queueing"};
  double pa[] = {a->t_meta, a->t_exchange, a->t_io, a->t_lock, a->t_queue};
  double pb[] = {b->t_meta, b->t_exchange, b->t_io, b->t_lock, b->t_queue};
  int k = 0;
  for (int i = 1; i < 5; i++)
    if (fabs(pb[i] - pa[i]) > fabs(pb[k] - pa[k])) k = i;
  if (fabs(pb[k] - pa[k]) > 0.01 * (a->time > b->time ? a->time : b->time))
    add(buf, cap, "; ", "%s %.3g s instead of %.3g s", what[k], pb[k], pa[k]);
}

/* Why b is faster or slower than a, from their results: up to three
 * clauses; the bottleneck first when lead is set. Conflicts are named only
 * where locks cost time. */
static void compare(char *buf, size_t cap, const eval *a, const eval *b, int lead)
{
  char x[32], y[32];
  int n = 0, moved = a->bottleneck_kind != b->bottleneck_kind;
  if (lead)
    add(buf, cap, "; ", moved ? "bottleneck %s instead of %s" : "bottleneck stays %s",
        b->bottleneck, a->bottleneck);
  count_str(x, sizeof x, b->conflicts);
  count_str(y, sizeof y, a->conflicts);
  if (strcmp(x, y) && (a->t_lock > 0.01 * a->time || b->t_lock > 0.01 * b->time)) {
    add(buf, cap, "; ", "%s lock conflicts instead of %s", x, y);
    n++;
  }
  if (a->max_osts_per_client != b->max_osts_per_client) {
    add(buf, cap, "; ", "each %s writes %lld OST%s instead of %lld",
        collective(b->c.strategy) ? "aggregator" : "client", (long long)b->max_osts_per_client,
        b->max_osts_per_client == 1 ? "" : "s", (long long)a->max_osts_per_client);
    n++;
  }
  if (a->naggr != b->naggr && a->naggr && b->naggr) {
    add(buf, cap, "; ", "%lld aggregator%s instead of %lld", (long long)b->naggr,
        b->naggr == 1 ? "" : "s", (long long)a->naggr);
    n++;
  }
  if (n < 2 && (b->rpcs > a->rpcs + a->rpcs / 10 || a->rpcs > b->rpcs + b->rpcs / 10)) {
    count_str(x, sizeof x, (double)b->rpcs);
    count_str(y, sizeof y, (double)a->rpcs);
    add(buf, cap, "; ", "%s RPCs instead of %s", x, y);
    n++;
  }
  if (!lead && moved)
    add(buf, cap, "; ", "bottleneck moves from %s to %s", a->bottleneck, b->bottleneck);
  else if (!lead && n < 2)
    add(buf, cap, "; ", "bottleneck stays %s", b->bottleneck);
  if (n == 0) split_clause(buf, cap, a, b);
}

/* Whether c differs from best in knob only (the others equal). */
static int alternative(const choice *best, const choice *c, int knob)
{
  int st = best->strategy == c->strategy, sc = best->stripe_count == c->stripe_count;
  int ss = best->stripe_size == c->stripe_size, cb = best->cb_nodes == c->cb_nodes;
  switch (knob) {
  case OSTIO__ADV_CONTAINER: return fpp(best) != fpp(c);
  case OSTIO__ADV_STRATEGY: return !fpp(best) && !fpp(c) && !st && sc && ss;
  case OSTIO__ADV_STRIPE_COUNT: return st && !sc && ss && cb;
  case OSTIO__ADV_STRIPE_SIZE: return st && sc && !ss && cb;
  default: return st && sc && ss && !cb;
  }
}

/* A kept knob: what the best alternative value would give. */
static void keep_reason(char *buf, size_t cap, const ctx *x, const eval *best, int knob,
                        int64_t nodes)
{
  if (knob == OSTIO__ADV_CB_NODES && !collective(best->c.strategy)) {
    snprintf(buf, cap, "not used: %s has no aggregators", ostio__mstrategy_name(best->c.strategy));
    return;
  }
  const eval *alt = NULL;
  for (int i = 0; i < x->ndone; i++)
    if (alternative(&best->c, &x->done[i].c, knob) &&
        (!alt || x->done[i].bandwidth > alt->bandwidth))
      alt = &x->done[i];
  if (!alt) {
    snprintf(buf, cap, "keep: no other value tried");
    return;
  }
  char v[40], why[192] = "";
  knob_value(v, sizeof v, knob, alt, nodes);
  compare(why, sizeof why, best, alt, 1);
  snprintf(buf, cap, "keep: the next best, %s, gives x%.2f (%s)", v,
           alt->bandwidth / best->bandwidth, why);
}

/* The next step from prev towards best for knob. */
static choice step(choice c, const choice *best, int knob)
{
  switch (knob) {
  case OSTIO__ADV_CONTAINER:
    if (fpp(&c) != fpp(best)) {
      c.strategy = best->strategy;
      c.cb_nodes = 0;
    }
    break;
  case OSTIO__ADV_STRATEGY:
    if (!fpp(&c) && !fpp(best)) c.strategy = best->strategy;
    break;
  case OSTIO__ADV_STRIPE_COUNT: c.stripe_count = best->stripe_count; break;
  case OSTIO__ADV_STRIPE_SIZE: c.stripe_size = best->stripe_size; break;
  default: c.cb_nodes = best->cb_nodes;
  }
  return normal(c);
}

/* Whether the recommendation changes knob k of the current choice. */
static int changed(const choice *cur, const choice *best, int k)
{
  switch (k) {
  case OSTIO__ADV_CONTAINER: return fpp(cur) != fpp(best);
  case OSTIO__ADV_STRATEGY: return cur->strategy != best->strategy;
  case OSTIO__ADV_STRIPE_COUNT: return cur->stripe_count != best->stripe_count;
  case OSTIO__ADV_STRIPE_SIZE: return cur->stripe_size != best->stripe_size;
  default:
    return collective(cur->strategy) != collective(best->strategy) ||
           (collective(best->strategy) && cur->cb_nodes != best->cb_nodes);
  }
}

static void line_reason(ostio__advise_knob *kn, const ctx *x, const eval *prev, const eval *cur,
                        const eval *best, int k, int64_t nodes)
{
  if (!same(&prev->c, &cur->c))
    compare(kn->reason, sizeof kn->reason, prev, cur, 0);
  else if (!kn->change)
    keep_reason(kn->reason, sizeof kn->reason, x, best, k, nodes);
  else if (k == OSTIO__ADV_CB_NODES && !collective(best->c.strategy))
    snprintf(kn->reason, sizeof kn->reason, "not used: %s has no aggregators",
             ostio__mstrategy_name(best->c.strategy));
  else
    snprintf(kn->reason, sizeof kn->reason, "comes with the %s change",
             k == OSTIO__ADV_STRATEGY ? "container" : "strategy");
}

static int fill_knobs(ctx *x, ostio__advise_result *out, int64_t nodes)
{
  const eval *prev = &out->current, *best = &out->best, *cur;
  for (int k = 0; k < OSTIO__ADV_NKNOBS; k++) {
    ostio__advise_knob *kn = &out->knob[k];
    kn->name = knob_names[k];
    int rc = evaluate(x, step(prev->c, &best->c, k), &cur);
    if (rc < 0) return rc;
    knob_value(kn->current, sizeof kn->current, k, &out->current, nodes);
    knob_value(kn->recommended, sizeof kn->recommended, k, best, nodes);
    kn->change = changed(&out->current.c, &best->c, k);
    kn->bandwidth = cur->bandwidth;
    kn->gain = prev->bandwidth > 0 ? cur->bandwidth / prev->bandwidth : 1;
    line_reason(kn, x, prev, cur, best, k, nodes);
    prev = cur;
  }
  return 0;
}

/* ---- the whole ---------------------------------------------------------------------------- */

static int run(ctx *x, ostio__advise_result *out)
{
  const ostio__advise_input *in = x->in;
  int64_t rpn = x->sys.ranks_per_node, nodes = (in->nranks + rpn - 1) / rpn;
  const eval *e;
  choice cur = normal(in->current);
  value_lists(x);
  /* The current choice, stage A, stage B (3 strategies x 4), the path (4). */
  x->most = 1 + OSTIO__MS_COUNT * x->ncounts * x->nsizes + 3 * 4 + 4;
  if (x->most > OSTIO__ADVISE_MAX_SIMS) x->most = OSTIO__ADVISE_MAX_SIMS;
  int rc = evaluate(x, cur, &e);
  if (rc < 0) return rc;
  if (!(e->bandwidth > 0))
    return ostio__fail(OSTIO_EINVAL, "advise: the pattern writes no byte (%d calls, %lld ranks)",
                       in->ncalls, (long long)in->nranks);
  out->current = *e;
  if ((rc = stage_a(x)) < 0 || (rc = stage_b(x, nodes)) < 0) return rc;
  out->best = *select_best(x, &cur);
  out->gain = out->best.bandwidth / out->current.bandwidth;
  out->nodes = nodes;
  out->ranks_per_node = (int)rpn;
  out->nstripe_counts = x->ncounts;
  out->nstripe_sizes = x->nsizes;
  rc = fill_knobs(x, out, nodes);
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
