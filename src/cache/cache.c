/* The cooperative cache's window, locks and collective points: open, flush,
 * close. The independent reads and writes are in cache_access.c. See
 * cache.h and docs/cache.md. */
#define _POSIX_C_SOURCE 200809L
#include "cache/cache_impl.h"

#include <inttypes.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "core/agree.h"
#include "core/error.h"

#define DEFAULT_PAGE (INT64_C(1) << 20) /* a layout-less file's page */

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* ---- the ticket lock of one set ----------------------------------------------------- */

int ostio__cache_lock(ostio__cache *c, int owner, int64_t set)
{
  int64_t d = ostio__cache_set_disp(&c->wl, set), ticket = 0, now = 0;
  int rc = ostio__cache_xfao(c, owner, d + (int64_t)offsetof(ostio__cache_set_head, next), 1,
                             &ticket, "taking a ticket");
  for (int spin = 0; rc == 0; spin++) {
    rc = ostio__cache_xfao(c, owner, d + (int64_t)offsetof(ostio__cache_set_head, serving), 0,
                           &now, "polling a lock");
    if (rc < 0 || now == ticket) break;
    if (spin == 0) ostio__stat_add(c->st, OSTIO__STAT_cache_lock_waits, 1);
    /* Spin briefly (a holder on another core is done within microseconds),
     * then yield: a holder sharing our core runs, and we see the lock at
     * once when it is ours. Never sleep: the lock is FIFO, so a sleeping
     * waiter holding the next ticket stalls every later holder until it
     * wakes (measured: 60 us per 4 KiB write with 50 us sleeps). */
    if (spin < 200) cpu_relax();
    else sched_yield();
  }
  return rc;
}

int ostio__cache_trylock(ostio__cache *c, int owner, int64_t set)
{
  if (!c->shm) return 0;
  unsigned char *h = c->peer[owner] + ostio__cache_set_disp(&c->wl, set);
  int64_t *next = (int64_t *)(void *)(h + offsetof(ostio__cache_set_head, next));
  const int64_t *serving = (const int64_t *)(void *)(h + offsetof(ostio__cache_set_head, serving));
  int64_t now = __atomic_load_n(serving, __ATOMIC_ACQUIRE), want = now;
  /* Free means no ticket out beyond the one served: take exactly that one. */
  return __atomic_compare_exchange_n(next, &want, now + 1, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
}

int ostio__cache_unlock(ostio__cache *c, int owner, int64_t set)
{
  int64_t d = ostio__cache_set_disp(&c->wl, set), old;
  return ostio__cache_xfao(c, owner, d + (int64_t)offsetof(ostio__cache_set_head, serving), 1,
                           &old, "releasing a lock");
}

/* ---- open ---------------------------------------------------------------------------- */

/* The engine's aggregator count for `ost` (strategies.c's default rule,
 * then cb_nodes), so the cache's owners are the ranks that would aggregate. */
static int aggregators(const ostio__cache_file *f, const ostio_layout *l, int neligible)
{
  int64_t best = 1, r = f->hints->romio_lustre_co_ratio;
  for (int i = 0; i < l->ncomp; i++) {
    int64_t n = (int64_t)l->comp[i].stripe_count * (r < 1 ? 1 : r);
    if (n > best) best = n;
  }
  if (ostio__hints_given(f->hints, "cb_nodes")) best = f->hints->cb_nodes;
  if (best > neligible) best = neligible;
  if (best > f->nprocs) best = f->nprocs;
  return best < 1 ? 1 : (int)best;
}

/* Collective: node_of[r] = the lowest rank of rank r's node (as the engine
 * counts nodes: ostio__node_split, which honours OSTIO_TEST_RANKS_PER_NODE). */
static int node_ids(const ostio__cache_file *f, int **out)
{
  *out = NULL;
  MPI_Comm node;
  int leader = f->rank;
  int rc = ostio__node_split(f->comm, &node) == MPI_SUCCESS ? 0
           : ostio__fail(OSTIO_EMPI, "cache: cannot split the communicator into nodes");
  if (rc == 0) {
    MPI_Allreduce(&f->rank, &leader, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
  }
  int *ids = malloc((size_t)f->nprocs * sizeof *ids);
  if (rc == 0 && !ids) rc = ostio__fail(OSTIO_ENOMEM, "cache: out of memory for %d node ids",
                                        f->nprocs);
  if ((rc = ostio__agree(f->comm, rc)) == 0 &&
      MPI_Allgather(&leader, 1, MPI_INT, ids, 1, MPI_INT, f->comm) != MPI_SUCCESS)
    rc = ostio__fail(OSTIO_EMPI, "cache: MPI_Allgather of node ids failed");
  if (rc < 0) free(ids);
  else *out = ids;
  return rc;
}

/* The owners (c->owners, c->naggr candidates) and, under the one-client
 * rule, who ships its writes to the flusher (docs/cache.md, "One writing
 * client"). node_of: NULL without the rule. */
static int pick_owners(ostio__cache *c, const ostio__cache_file *f, const int *node_of)
{
  int n = f->neligible < 1 ? 1 : f->neligible;
  c->owners = malloc((size_t)n * sizeof *c->owners);
  c->shippers = malloc((size_t)c->nprocs * sizeof *c->shippers);
  if (!c->owners || !c->shippers)
    return ostio__fail(OSTIO_ENOMEM, "cache: out of memory for %d ranks' roles", c->nprocs);
  if (!node_of) {
    memcpy(c->owners, f->eligible, (size_t)f->neligible * sizeof *c->owners);
    return f->neligible;
  }
  c->one_client = 1;
  c->flusher = f->home;
  n = ostio__cache_one_client_owners(f->eligible, f->neligible, node_of, f->nprocs, f->home,
                                     c->owners);
  for (int r = 0; n > 0 && r < c->nprocs; r++)
    if (node_of[r] != node_of[f->home]) c->shippers[c->nshippers++] = r;
  c->ships = n > 0 && node_of[c->rank] != node_of[f->home];
  return n;
}

static int setup(ostio__cache *c, const ostio__cache_file *f, const int *node_of)
{
  int nowners = pick_owners(c, f, node_of);
  if (nowners < 0) return nowners;
  const ostio_layout *l = f->layout;
  if (!l) {
    int64_t page = f->hints->ostio_cache_page ? f->hints->ostio_cache_page : DEFAULT_PAGE;
    int rc = ostio__layout_simple(page, nowners < 1 ? 1 : nowners, -1, &c->own_layout);
    if (rc < 0) return rc;
    l = c->own_layout;
  }
  c->layout = l;
  ostio__cache_params p;
  ostio__cache_params_from_hints(f->hints, &p);
  c->naggr = aggregators(f, l, nowners);
  int rc = ostio__cache_geom_init(&c->geom, l, &p, c->owners, c->naggr);
  if (rc < 0) return rc;
  if (c->geom.page > INT_MAX)
    return ostio__fail(OSTIO_EHINT, "hint ostio_cache_page: a page of %" PRId64 " bytes is "
                       "larger than the cache moves in one transfer; accepted: at most %d",
                       c->geom.page, INT_MAX);
  if ((rc = ostio__cache_win_layout_init(&c->wl, c->geom.pool_pages, c->geom.page)) < 0)
    return rc;
  for (int a = 0; a < c->naggr; a++)
    if (c->owners[a] == c->rank) c->owner = 1;
  int64_t wb = c->ships ? ostio__cache_wbuf_bytes_shipping(p.size) : ostio__cache_wbuf_bytes(p.size);
  if ((rc = ostio__cache_wbuf_init(&c->wb, wb)) < 0) return rc;
  if (c->ships || (c->one_client && c->rank == c->flusher && c->nshippers > 0)) {
    c->ship_rec = malloc(OSTIO__CACHE_SHIP_RECS * sizeof *c->ship_rec);
    c->ship_data = malloc((size_t)OSTIO__CACHE_SHIP_BYTES);
    if (!c->ship_rec || !c->ship_data)
      return ostio__fail(OSTIO_ENOMEM, "cache: out of memory for a chunk of shipped writes");
  }
  c->meta = malloc((size_t)c->wl.set_bytes);
  c->bounce = malloc((size_t)c->geom.page);
  if (!c->meta || !c->bounce)
    return ostio__fail(OSTIO_ENOMEM, "cache: out of memory for a page buffer of %" PRId64
                       " bytes", c->geom.page);
  return 0;
}

static int make_window(ostio__cache *c)
{
  int rc = ostio__cache_xwin_create(c, c->owner ? c->wl.bytes : 0);
  if (rc < 0) return rc;
  if (c->owner) {
    memset(c->base, 0, (size_t)c->wl.data_off);
    for (int64_t s = 0; s < c->wl.nsets; s++) {
      ostio__cache_slot *sl = ostio__cache_local_slots(c, s);
      for (int64_t w = 0; w < c->wl.ways; w++) sl[w].page = -1;
    }
  }
  c->memory = (c->owner ? c->wl.bytes : 0) + c->wl.set_bytes + c->geom.page +
              ostio__cache_wbuf_memory(&c->wb) + (int64_t)sizeof *c +
              (c->ship_data ? OSTIO__CACHE_SHIP_BYTES +
                              OSTIO__CACHE_SHIP_RECS * (int64_t)sizeof *c->ship_rec : 0);
  return 0;
}

static void destroy(ostio__cache *c)
{
  if (!c) return;
  ostio__cache_xwin_free(c);
  ostio__layout_destroy(c->own_layout);
  free(c->peer);
  free(c->owners);
  free(c->shippers);
  free(c->ship_rec);
  free(c->ship_data);
  free(c->meta);
  free(c->bounce);
  ostio__cache_wbuf_free(&c->wb);
  free(c);
}

int ostio__cache_open(const ostio__cache_file *f, ostio__cache **out)
{
  *out = NULL;
  if (f->hints->ostio_cache != OSTIO__TRI_ENABLE) return 0;
  ostio__cache *c = calloc(1, sizeof *c);
  int rc = c ? 0 : ostio__fail(OSTIO_ENOMEM, "cache: out of memory");
  if (c) {
    *c = (ostio__cache){.comm = f->comm, .rank = f->rank, .nprocs = f->nprocs,
                        .b = f->backing, .can_fill = f->can_fill, .st = f->stats,
                        .win = MPI_WIN_NULL, .atomic = f->hints->ostio_atomic};
  }
  /* Collective on every rank (one_client is the same everywhere). */
  int *node_of = NULL;
  if (f->one_client) {
    int r = node_ids(f, &node_of);
    if (rc == 0) rc = r;
  }
  if (c && rc == 0) rc = setup(c, f, node_of);
  free(node_of);
  /* Everyone makes the window only when every rank's set-up worked. */
  if ((rc = ostio__agree(f->comm, rc)) < 0) goto fail;
  rc = make_window(c);
  if ((rc = ostio__agree(f->comm, rc)) < 0) goto fail;
  ostio__cache_xsync(c);
  /* Nobody touches a window before its owner has initialised it. */
  if (MPI_Barrier(c->comm) != MPI_SUCCESS)
    rc = ostio__fail(OSTIO_EMPI, "cache: MPI_Barrier failed");
  ostio__cache_xsync(c);
  if ((rc = ostio__agree(f->comm, rc)) < 0) goto fail;
  ostio__stat_max(c->st, OSTIO__STAT_cache_memory, c->memory);
  *out = c;
  return 0;
fail:
  destroy(c);
  return rc;
}

/* ---- collective flush ---------------------------------------------------------------- */

int ostio__cache_flush(ostio__cache *c, int drop)
{
  /* Each rank's buffered writes go to the pages first. Then every rank has
   * returned from its last cache access, and every one-sided access was
   * complete before it returned (cache.h); ostio__cache_xsync then makes them
   * visible to this rank's loads. A drain that failed keeps its pieces
   * (a later flush retries them) and its error is agreed below. */
  int rc = c->ships ? 0 : ostio__cache_drain(c);
  if (c->one_client) {
    /* The one-client rule: a shipping rank's writes go to the flusher, which
     * puts them in the pages; no byte leaves from its client. */
    int r = ostio__cache_ship(c);
    if (rc == 0) rc = r;
  }
  int rb = ostio__barrier_yield(c->comm, "cache: a flush");
  if (rc == 0) rc = rb;
  ostio__cache_xsync(c);
  for (int64_t s = 0; c->owner && s < c->wl.nsets; s++) {
    ostio__cache_slot *sl = ostio__cache_local_slots(c, s);
    for (int64_t w = 0; w < c->wl.ways; w++) {
      if (ostio__cache_slot_is_dirty(&sl[w])) {
        const unsigned char *data = c->base + ostio__cache_data_disp(&c->wl, s, w);
        int r = ostio__cache_write_back(c, &sl[w], data);
        if (r < 0 && rc == 0) rc = r;
      }
      if (drop && !ostio__cache_slot_is_dirty(&sl[w])) sl[w].page = -1;
    }
  }
  ostio__cache_xsync(c);
  rc = ostio__agree(c->comm, rc);
  if (rc == 0) {
    c->local_end = 0;
    c->wrote = 0;
    /* Shipped and in the pages (written back above): the buffer is empty.
     * After a failed flush a shipping rank keeps it all and ships it again
     * at the next flush (the same bytes in the same order: nothing lost,
     * nothing older put over newer). */
    if (c->ships) {
      for (size_t i = 0; i < c->wb.nrec; i++) c->wb.rec[i].len = 0;
      ostio__cache_wbuf_compact(&c->wb, c->geom.page);
    }
  }
  return rc;
}

int ostio__cache_write_back(ostio__cache *c, ostio__cache_slot *s, const unsigned char *data)
{
  int64_t off = s->page * c->geom.page + s->dlo, len = s->dhi - s->dlo;
  int rc = c->b.write(c->b.ctx, off, data + s->dlo, (size_t)len);
  if (rc < 0) return rc;
  ostio__stat_add(c->st, OSTIO__STAT_cache_flush_writes, 1);
  ostio__stat_add(c->st, OSTIO__STAT_cache_flush_bytes, len);
  s->dlo = s->dhi = 0;
  return 0;
}

int ostio__cache_close(ostio__cache **cp)
{
  if (!cp || !*cp) return 0;
  ostio__cache *c = *cp;
  *cp = NULL;
  int rc = ostio__cache_flush(c, 0);
  if (c->epoch && MPI_Win_unlock_all(c->win) != MPI_SUCCESS && rc == 0)
    rc = ostio__fail(OSTIO_EMPI, "cache: MPI_Win_unlock_all failed");
  c->epoch = 0;
  MPI_Comm comm = c->comm;
  destroy(c); /* MPI_Win_free is collective */
  return ostio__agree(comm, rc);
}

int64_t ostio__cache_local_end(const ostio__cache *c) { return c->local_end; }

int ostio__cache_set_atomic(ostio__cache *c, int on)
{
  /* Atomic calls do not look in the write-behind buffer: empty it first. */
  int rc = on ? ostio__cache_drain(c) : 0;
  if (rc == 0) c->atomic = !!on;
  return rc;
}

int ostio__cache_get_atomic(const ostio__cache *c) { return c->atomic; }

int64_t ostio__cache_memory(const ostio__cache *c) { return c->memory; }
