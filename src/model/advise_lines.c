/* The lines of `ostio advise`'s result (see advise.h): for each knob, from
 * the current choice to the recommendation, the value, the predicted
 * bandwidth and gain and a one-line reason from the simulator's results.
 * docs/model.md, "The lines" and "The reasons". */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model/advise_impl.h"

typedef ostio__advise_choice choice;
typedef ostio__advise_eval eval;
typedef ostio__advise_ctx ctx;

static const char *const knob_names[OSTIO__ADV_NKNOBS] = {
  "container", "cache", "strategy", "stripe_count", "stripe_size", "cb_nodes"};

static int collective(int s) { return ostio__advise_collective(s); }

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

/* ---- the lines ---------------------------------------------------------------------------- */

static void knob_value(char *buf, size_t cap, int knob, const eval *e, int64_t nodes)
{
  const choice *c = &e->c;
  int kind = ostio__advise_kind(c), has = ostio__advise_has_strategy(c);
  switch (knob) {
  case OSTIO__ADV_CONTAINER: snprintf(buf, cap, "%s", ostio__advise_kind_name(kind)); break;
  case OSTIO__ADV_CACHE: snprintf(buf, cap, "%s", !has ? "-" : c->cache ? "on" : "off"); break;
  case OSTIO__ADV_STRATEGY:
    snprintf(buf, cap, "%s", kind == OSTIO__ADV_LOG ? "-" : ostio__mstrategy_name(c->strategy));
    break;
  case OSTIO__ADV_STRIPE_COUNT: snprintf(buf, cap, "%lld", (long long)c->stripe_count); break;
  case OSTIO__ADV_STRIPE_SIZE: ostio__advise_size_str(buf, cap, c->stripe_size); break;
  default:
    if (!collective(c->strategy) || !has) snprintf(buf, cap, "-");
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
  int ct = ostio__advise_kind(best) == ostio__advise_kind(c), ca = best->cache == c->cache;
  int both = ostio__advise_has_strategy(best) && ostio__advise_has_strategy(c);
  switch (knob) {
  case OSTIO__ADV_CONTAINER: return !ct;
  case OSTIO__ADV_CACHE: return ct && both && !ca && st && sc && ss;
  case OSTIO__ADV_STRATEGY: return ct && ca && both && !st && sc && ss;
  case OSTIO__ADV_STRIPE_COUNT: return ct && ca && st && !sc && ss && cb;
  case OSTIO__ADV_STRIPE_SIZE: return ct && ca && st && sc && !ss && cb;
  default: return ct && ca && st && sc && ss && !cb;
  }
}

/* A knob the choice does not use: the line says why. */
static int unused(char *buf, size_t cap, const choice *c, int knob)
{
  int kind = ostio__advise_kind(c);
  if ((knob == OSTIO__ADV_CACHE || knob == OSTIO__ADV_STRATEGY) &&
      !ostio__advise_has_strategy(c) && !(knob == OSTIO__ADV_STRATEGY && kind == OSTIO__ADV_FPP))
    snprintf(buf, cap, "not used: %s", kind == OSTIO__ADV_LOG
             ? "a log container appends each rank's bytes to its own log"
             : "a file per process has no shared-file cache");
  else if (knob == OSTIO__ADV_CB_NODES && (!collective(c->strategy) ||
                                           !ostio__advise_has_strategy(c)))
    snprintf(buf, cap, "not used: %s has no aggregators",
             kind == OSTIO__ADV_LOG ? "a log container" : ostio__mstrategy_name(c->strategy));
  else
    return 0;
  return 1;
}

/* A kept knob: what the best alternative value would give. */
static void keep_reason(char *buf, size_t cap, const ctx *x, const eval *best, int knob,
                        int64_t nodes)
{
  if (unused(buf, cap, &best->c, knob)) return;
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
  int both = ostio__advise_has_strategy(&c) && ostio__advise_has_strategy(best);
  switch (knob) {
  case OSTIO__ADV_CONTAINER:
    if (ostio__advise_kind(&c) != ostio__advise_kind(best)) {
      c.container = best->container;
      if (!both) {
        c.strategy = best->strategy;
        c.cache = best->cache;
        c.cb_nodes = 0;
      }
    }
    break;
  case OSTIO__ADV_CACHE:
    if (both) c.cache = best->cache;
    break;
  case OSTIO__ADV_STRATEGY:
    if (both) c.strategy = best->strategy;
    break;
  case OSTIO__ADV_STRIPE_COUNT: c.stripe_count = best->stripe_count; break;
  case OSTIO__ADV_STRIPE_SIZE: c.stripe_size = best->stripe_size; break;
  default: c.cb_nodes = best->cb_nodes;
  }
  return ostio__advise_normal(c);
}

/* Whether the recommendation changes knob k of the current choice. */
static int changed(const choice *cur, const choice *best, int k)
{
  int hc = ostio__advise_has_strategy(cur), hb = ostio__advise_has_strategy(best);
  switch (k) {
  case OSTIO__ADV_CONTAINER: return ostio__advise_kind(cur) != ostio__advise_kind(best);
  case OSTIO__ADV_CACHE: return hc != hb || cur->cache != best->cache;
  case OSTIO__ADV_STRATEGY: return hc != hb || cur->strategy != best->strategy;
  case OSTIO__ADV_STRIPE_COUNT: return cur->stripe_count != best->stripe_count;
  case OSTIO__ADV_STRIPE_SIZE: return cur->stripe_size != best->stripe_size;
  default:
    return (hc && collective(cur->strategy)) != (hb && collective(best->strategy)) ||
           (hb && collective(best->strategy) && cur->cb_nodes != best->cb_nodes);
  }
}

static void line_reason(ostio__advise_knob *kn, const ctx *x, const eval *prev, const eval *cur,
                        const eval *best, int k, int64_t nodes)
{
  if (!ostio__advise_same(&prev->c, &cur->c))
    compare(kn->reason, sizeof kn->reason, prev, cur, 0);
  else if (!kn->change)
    keep_reason(kn->reason, sizeof kn->reason, x, best, k, nodes);
  else if (!unused(kn->reason, sizeof kn->reason, &best->c, k))
    snprintf(kn->reason, sizeof kn->reason, "comes with the %s change",
             k == OSTIO__ADV_CB_NODES ? "strategy" : "container");
  /* A move the model cannot tell from keeping, made for the run's warning. */
  for (int p = 0; p < OSTIO__ADV_NPREFER; p++) {
    char why[256];
    if (!(x->in->prefer >> p & 1u) || !kn->change || kn->gain >= OSTIO__ADVISE_MIN_GAIN ||
        ostio__advise_follows(&prev->c, p) || !ostio__advise_follows(&cur->c, p))
      continue;
    snprintf(why, sizeof why, "%s", kn->reason);
    snprintf(kn->reason, sizeof kn->reason, "as the run's statistics advise (%s: %s); %.140s",
             ostio__advise_prefer_kind(p), ostio__advise_prefer_advice(p), why);
    break;
  }
}

int ostio__advise_fill_knobs(ctx *x, ostio__advise_result *out, int64_t nodes)
{
  const eval *prev = &out->current, *best = &out->best, *cur;
  for (int k = 0; k < OSTIO__ADV_NKNOBS; k++) {
    ostio__advise_knob *kn = &out->knob[k];
    kn->name = knob_names[k];
    int rc = ostio__advise_evaluate(x, step(prev->c, &best->c, k), &cur);
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
