/* The strategy registry (see strategy.h). One X(NAME) line per strategy,
 * defining ostio__strategy_NAME in strategy_NAME.c; the order is the order
 * of every list (messages, `ostio hints`, statistics, benchmarks). A test
 * build adds one more with -DOSTIO__STRATEGY_EXTRA=NAME (tests/CMakeLists.txt
 * compiles this file again with template for tests/strategy_template.c). */
#include "engine/strategy.h"
#include "plan/aggr.h"

#include <stdio.h>
#include <string.h>

#include "core/error.h"

#ifdef OSTIO__STRATEGY_EXTRA
#define EXTRA_(X) X(OSTIO__STRATEGY_EXTRA)
#else
#define EXTRA_(X)
#endif

#define OSTIO__STRATEGIES(X) X(auto) X(even) X(aligned) X(ost) X(independent) X(single) EXTRA_(X)

/* Two steps, so that a NAME given as a macro is expanded before pasting. */
#define DECLARE_(n) DECLARE2_(n)
#define DECLARE2_(n) extern const ostio__strategy ostio__strategy_##n;
#define ENTRY_(n) ENTRY2_(n)
#define ENTRY2_(n) &ostio__strategy_##n,

OSTIO__STRATEGIES(DECLARE_)

static const ostio__strategy *const registry[] = {
  OSTIO__STRATEGIES(ENTRY_)
};
#define NREG ((int)(sizeof registry / sizeof registry[0]))
/* Each strategy has its counter slot in the statistics. */
_Static_assert(sizeof registry / sizeof registry[0] <= OSTIO__STATS_NSTRAT,
               "more strategies than OSTIO__STATS_NSTRAT counter slots");

static int usable(const ostio__strategy *s)
{
  return s->version == OSTIO__STRATEGY_VERSION && s->name &&
         strlen(s->name) <= OSTIO__STRATEGY_NAME_MAX;
}

int ostio__strategy_count(void) { return NREG; }

const ostio__strategy *ostio__strategy_at(int i)
{
  return i >= 0 && i < NREG && usable(registry[i]) ? registry[i] : NULL;
}

const ostio__strategy *ostio__strategy_find(const char *name)
{
  /* By name first (strcmp stops at the first differing byte); the full
   * check only on the match: this runs once or twice per collective call. */
  for (int i = 0; name && i < NREG; i++)
    if (registry[i]->name && (registry[i]->name == name || strcmp(registry[i]->name, name) == 0) &&
        usable(registry[i]))
      return registry[i];
  return NULL;
}

void ostio__strategy_names(char *buf, size_t cap)
{
  size_t len = 0;
  int n = 0, total = 0;
  if (!cap) return;
  buf[0] = '\0';
  for (int i = 0; i < NREG; i++) total += usable(registry[i]);
  for (int i = 0; i < NREG; i++) {
    if (!usable(registry[i])) continue;
    const char *sep = n == 0 ? "" : n + 1 == total ? " or " : ", ";
    int w = snprintf(buf + len, cap - len, "%s%s", sep, registry[i]->name);
    if (w < 0 || (size_t)w >= cap - len) break;
    len += (size_t)w;
    n++;
  }
}

static int unknown(const char *name)
{
  char list[256];
  ostio__strategy_names(list, sizeof list);
  return ostio__fail(OSTIO_EHINT, "hint ostio_strategy=\"%s\": expected one of %s", name, list);
}

int ostio__strategy_open(const ostio__hints *h, ostio__stats *st)
{
  for (int i = 0; st && i < NREG; i++)
    if (usable(registry[i])) ostio__stats_name_strategy(st, i, registry[i]->name);
  return ostio__strategy_find(h->ostio_strategy) ? 0 : unknown(h->ostio_strategy);
}

static void count(ostio__stats *st, const ostio__strategy *s)
{
  for (int i = 0; i < NREG; i++)
    if (registry[i] == s) ostio__stat_add(st, OSTIO__STAT_STRATEGY(i), 1);
}

int ostio__strategy_pick(const ostio__call *c, ostio__stats *st, const ostio__strategy **out)
{
  const ostio__strategy *s = ostio__strategy_find(c->h->ostio_strategy);
  if (!s) return unknown(c->h->ostio_strategy);
  if (s->choose) {
    const char *why = "";
    count(st, s);
    s = s->choose(c, &why);
    if (!s || !usable(s) || s->choose)
      return ostio__fail(OSTIO_EHINT, "strategy %s chose %s, which is not a strategy that runs "
                         "(%s)", c->h->ostio_strategy, s && s->name ? s->name : "none", why);
  }
  count(st, s);
  *out = s;
  return 0;
}

int ostio__strategy_default_naggr(const ostio__call *c)
{
  return ostio__aggr_default_count(c->l, c->h->romio_lustre_co_ratio, c->nprocs);
}

int ostio__strategy_contig_naggr(const ostio__call *c)
{
  return ostio__aggr_contig_count(c->l, c->h->romio_lustre_co_ratio, c->nprocs, c->nnodes);
}
