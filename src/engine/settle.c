/* Settled handles (docs/collective-auto.md, "Settled handles"): once a
 * handle's collective calls have been agreed OSTIO__SETTLE_AFTER times in a
 * row as independent and not interleaved, it skips the agreement and does
 * each rank's I/O at once, as ROMIO does with romio_cb_write=disable. Every
 * OSTIO__SETTLE_EVERY-th call, and the first call after ostio_sync or
 * ostio_set_size, is agreed again. Every decision here depends only on
 * agreed values and on the count of collective calls, so all ranks skip
 * the same calls. */
#include <stdio.h>

#include "core/error.h"
#include "engine/engine_impl.h"

/* The hints allow it: the strategy chooses per call (auto) or exchanges
 * nothing (independent), and collective buffering is not asked for. */
static int eligible_hints(const ostio__hints *h, int is_write)
{
  int cb = is_write ? h->romio_cb_write : h->romio_cb_read;
  const ostio__strategy *s = ostio__strategy_find(h->ostio_strategy);
  return cb != OSTIO__TRI_ENABLE && s && (s->choose || !s->exchange);
}

int ostio__settle_skip(ostio__settle *t, const ostio__hints *h, int is_write)
{
  t->ncalls++;
  return t->have[is_write] && t->streak[is_write] >= OSTIO__SETTLE_AFTER &&
         t->ncalls % OSTIO__SETTLE_EVERY != 0 && eligible_hints(h, is_write);
}

void ostio__settle_agreed(ostio__settle *t, const ostio__hints *h, int is_write, int worst,
                          const ostio__call *c, const ostio__strategy *s)
{
  t->skipped = 0;
  int ok = worst == 0 && eligible_hints(h, is_write) && s && !s->exchange && !c->interleaved;
  if (!ok) {
    t->streak[is_write] = 0;
    return;
  }
  if (t->streak[is_write] < OSTIO__SETTLE_AFTER) t->streak[is_write]++;
  t->call[is_write] = *c;
  t->have[is_write] = 1;
}

int ostio__settle_failed(ostio__settle *t, int rc)
{
  if (rc < 0 && t->pending == 0) {
    t->pending = rc;
    snprintf(t->detail, sizeof t->detail, "%s", ostio_last_error());
  }
  return rc;
}

int ostio__settle_take(ostio__settle *t)
{
  int rc = t->pending;
  if (rc == 0) return 0;
  t->pending = 0;
  return ostio__fail(rc, "%s (in an earlier collective call that ran without agreement; "
                     "docs/errors.md)", t->detail);
}

int ostio__engine_resettle(const ostio__engine_ctx *x, int *skipped)
{
  *skipped = 0;
  if (!x || !x->scratch) return 0;
  ostio__settle *t = &x->scratch->settle;
  *skipped = t->skipped > 0;
  t->skipped = 0;
  t->streak[0] = t->streak[1] = 0;
  return ostio__settle_take(t);
}
