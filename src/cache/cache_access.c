/* The cooperative cache's independent reads and writes: each request is
 * split into page pieces (cache_plan.c); each piece is done under its set's
 * lock at the page's owner through the transport (cache_xport.c). See
 * docs/cache.md. */
#include "cache/cache_impl.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* One piece's state while its set is locked. */
typedef struct op {
  ostio__cache *c;
  const ostio__cache_piece *p;
  int is_write;
  unsigned char *buf;            /* the caller's bytes for this piece        */
  int64_t set;
  int64_t set_disp;
  ostio__cache_set_head *head;   /* c->meta                                  */
  ostio__cache_slot *slots;      /* c->meta after the head                   */
} op;

static int64_t data_disp(const op *o, int way)
{
  return ostio__cache_data_disp(&o->c->wl, o->set, way);
}

static int get_meta(op *o)
{
  return ostio__cache_xget(o->c, o->p->owner, o->set_disp, o->c->meta, o->c->wl.set_bytes,
                           "reading a set");
}

/* Puts back the set's clock and slots; never the lock words, which other
 * ranks change atomically while we hold the lock. */
static int put_meta(op *o)
{
  int64_t skip = (int64_t)offsetof(ostio__cache_set_head, clock);
  return ostio__cache_xput(o->c, o->p->owner, o->set_disp + skip, o->c->meta + skip,
                           o->c->wl.set_bytes - skip, "writing a set");
}

/* Frees slot `way` for page p: writes back a dirty victim (by this rank:
 * any rank may write any offset of a coherent file). 1 when the victim
 * could not be written back (it stays, dirty; the caller tries another). */
static int evict(op *o, int way)
{
  ostio__cache *c = o->c;
  ostio__cache_slot *v = &o->slots[way];
  if (v->page < 0) return 0;
  if (ostio__cache_slot_is_dirty(v)) {
    int rc = ostio__cache_xget(c, o->p->owner, data_disp(o, way) + v->dlo, c->bounce + v->dlo,
                               v->dhi - v->dlo, "reading a page to write back");
    if (rc < 0) return rc;
    /* A failed write-back keeps the page (nothing is lost); the next
     * collective flush retries it and reports what then fails. */
    if (ostio__cache_write_back(c, v, c->bounce) < 0) return 1;
  }
  ostio__stat_add(c->st, OSTIO__STAT_cache_evictions, 1);
  v->page = -1;
  return 0;
}

/* *way: a slot for the piece's page, read in from the file unless the
 * piece writes all of it; -1 when every slot holds a dirty page that cannot
 * be written back now (the piece then goes to the file directly). */
static int make_room(op *o, int *wayp)
{
  ostio__cache *c = o->c;
  unsigned skip = 0;
  int way;
  *wayp = -1;
  for (;;) {
    way = ostio__cache_set_victim(o->slots, (int)c->wl.ways, skip);
    if (way < 0) return 0;
    int rc = evict(o, way);
    if (rc < 0) return rc;
    if (rc == 0) break;
    skip |= 1u << way;
  }
  ostio__cache_slot *s = &o->slots[way];
  int whole = o->is_write && o->p->in_page == 0 && o->p->len == c->geom.page;
  if (!whole && c->shm) {
    /* Read straight into the slot. */
    int rc = c->b.read(c->b.ctx, o->p->page * c->geom.page,
                       c->peer[o->p->owner] + data_disp(o, way), (size_t)c->geom.page);
    if (rc < 0) return rc;
  } else if (!whole) {
    int rc = c->b.read(c->b.ctx, o->p->page * c->geom.page, c->bounce, (size_t)c->geom.page);
    if (rc < 0) return rc; /* the slot stays empty: evict cleared it */
    /* Complete (as every transport call) before the piece's own bytes land. */
    rc = ostio__cache_xput(c, o->p->owner, data_disp(o, way), c->bounce, c->geom.page,
                           "filling a page");
    if (rc < 0) return rc;
  }
  *s = (ostio__cache_slot){.page = o->p->page, .dlo = 0, .dhi = 0};
  *wayp = way;
  return 0;
}

/* The piece's bytes to or from the cached page. */
static int move(op *o, int way)
{
  ostio__cache *c = o->c;
  const ostio__cache_piece *p = o->p;
  int64_t at = data_disp(o, way) + p->in_page;
  int rc = o->is_write ? ostio__cache_xput(c, p->owner, at, o->buf, p->len, "writing page bytes")
                       : ostio__cache_xget(c, p->owner, at, o->buf, p->len, "reading page bytes");
  if (rc < 0) return rc;
  if (o->is_write) ostio__cache_slot_dirty(&o->slots[way], p->in_page, p->in_page + p->len);
  o->slots[way].stamp = ++o->head->clock;
  return put_meta(o);
}

/* The piece straight to or from the file, under the set's lock (so no
 * rank caches the page meanwhile from bytes about to change). */
static int direct(op *o)
{
  ostio__cache *c = o->c;
  int64_t off = o->p->page * c->geom.page + o->p->in_page;
  return o->is_write ? c->b.write(c->b.ctx, off, o->buf, (size_t)o->p->len)
                     : c->b.read(c->b.ctx, off, o->buf, (size_t)o->p->len);
}

static int locked(op *o, int allocate)
{
  ostio__cache *c = o->c;
  int rc = get_meta(o);
  if (rc < 0) return rc;
  int way = ostio__cache_set_find(o->slots, (int)c->wl.ways, o->p->page);
  if (way >= 0) {
    ostio__stat_add(c->st, OSTIO__STAT_cache_hits, 1);
    if (o->p->owner != c->rank) ostio__stat_add(c->st, OSTIO__STAT_cache_remote_hits, 1);
    return move(o, way);
  }
  ostio__stat_add(c->st, OSTIO__STAT_cache_misses, 1);
  int whole = o->is_write && o->p->in_page == 0 && o->p->len == c->geom.page;
  if (!allocate || (!whole && !c->can_fill)) return direct(o);
  rc = make_room(o, &way);
  if (rc < 0 || way < 0) {
    /* Victims may have been written back and emptied: store that first. */
    int r2 = put_meta(o);
    if (rc < 0) return rc;
    return r2 < 0 ? r2 : direct(o);
  }
  if (!o->is_write) {
    /* Read in just now: the piece is in the slot (shared memory) or in the
     * bounce buffer already. */
    const unsigned char *from = c->shm ? c->peer[o->p->owner] + data_disp(o, way) : c->bounce;
    memcpy(o->buf, from + o->p->in_page, (size_t)o->p->len);
    o->slots[way].stamp = ++o->head->clock;
    return put_meta(o);
  }
  return move(o, way);
}

static op make_op(ostio__cache *c, const ostio__cache_piece *p, int is_write, unsigned char *buf)
{
  op o = {.c = c, .p = p, .is_write = is_write, .buf = buf,
          .set = ostio__cache_set_of(&c->wl, p->page),
          .head = (ostio__cache_set_head *)c->meta,
          .slots = (ostio__cache_slot *)(c->meta + sizeof(ostio__cache_set_head))};
  o.set_disp = ostio__cache_set_disp(&c->wl, o.set);
  return o;
}

/* ---- holding a set: its lock, and on shared memory its sequence count ------------------- */

static int64_t *seq_word(ostio__cache *c, int owner, int64_t set)
{
  return (int64_t *)(void *)(c->peer[owner] + ostio__cache_set_disp(&c->wl, set) +
                             (int64_t)offsetof(ostio__cache_set_head, seq));
}

/* Takes the set's lock; on shared memory then makes its count odd, so a
 * lock-free reader (try_read) that overlaps anything this holder changes
 * sees the count move and retries under the lock. */
static int seq_odd(ostio__cache *c, int owner, int64_t set)
{
  if (c->shm) {
    __atomic_fetch_add(seq_word(c, owner, set), 1, __ATOMIC_ACQ_REL);
    /* The odd count is visible before any store of the holder's. */
    __atomic_thread_fence(__ATOMIC_RELEASE);
  }
  return 0;
}

static int hold(ostio__cache *c, int owner, int64_t set)
{
  int rc = ostio__cache_lock(c, owner, set);
  return rc < 0 ? rc : seq_odd(c, owner, set);
}

static int release(ostio__cache *c, int owner, int64_t set)
{
  if (c->shm) __atomic_fetch_add(seq_word(c, owner, set), 1, __ATOMIC_RELEASE);
  return ostio__cache_unlock(c, owner, set);
}

/* A read of a cached page without the lock (shared memory, non-atomic
 * mode): the slot's bytes are copied between two reads of the set's count;
 * 1 when the count was even and unchanged, so no holder changed the set
 * meanwhile and the bytes are the page's. 0: not cached or raced (the
 * caller takes the lock). Formally the copy races with a holder's stores;
 * a raced copy is thrown away (the seqlock rule). It does not refresh the
 * page's LRU stamp (docs/cache.md, "Reads without the lock"). */
static int try_read(ostio__cache *c, const ostio__cache_piece *p, unsigned char *buf)
{
  unsigned char *base = c->peer[p->owner];
  int64_t set = ostio__cache_set_of(&c->wl, p->page);
  unsigned char *h = base + ostio__cache_set_disp(&c->wl, set);
  const int64_t *seq = (const int64_t *)(void *)(h + offsetof(ostio__cache_set_head, seq));
  ostio__cache_slot *sl = (ostio__cache_slot *)(void *)(h + sizeof(ostio__cache_set_head));
  int64_t s1 = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
  if (s1 & 1) return 0;
  int way = -1;
  for (int w = 0; w < (int)c->wl.ways && way < 0; w++)
    if (__atomic_load_n(&sl[w].page, __ATOMIC_RELAXED) == p->page) way = w;
  if (way < 0) return 0;
  memcpy(buf, base + ostio__cache_data_disp(&c->wl, set, way) + p->in_page, (size_t)p->len);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  return __atomic_load_n(seq, __ATOMIC_RELAXED) == s1;
}

/* The set is busy and the page was not found without the lock: read the
 * piece from the file instead of waiting (non-atomic mode, shared memory).
 * Sound when this rank wrote nothing since the last collective flush: every
 * write another rank may see by MPI's rules (synced) was written back at
 * that flush, so the file has it; what a holder is doing now (filling the
 * page from the file, draining another rank's unsynced writes, writing a
 * victim back) changes nothing this read is owed. With writes of its own
 * pending, a rank waits for the lock (its bytes may be in a page that is
 * being written back right now). 1 when read. */
static int read_around(ostio__cache *c, const ostio__cache_piece *p, unsigned char *buf,
                       int *rc)
{
  /* A shipping rank (the one-client rule) reads no file it need not open. */
  if (c->wrote || c->ships) return 0;
  ostio__stat_add(c->st, OSTIO__STAT_cache_misses, 1);
  *rc = c->b.read(c->b.ctx, p->page * c->geom.page + p->in_page, buf, (size_t)p->len);
  return 1;
}

static int piece(ostio__cache *c, const ostio__cache_piece *p, int is_write, unsigned char *buf,
                 int allocate)
{
  int fast = !is_write && allocate && c->shm && !c->atomic;
  if (fast && try_read(c, p, buf)) {
    ostio__stat_add(c->st, OSTIO__STAT_cache_hits, 1);
    if (p->owner != c->rank) ostio__stat_add(c->st, OSTIO__STAT_cache_remote_hits, 1);
    return 0;
  }
  op o = make_op(c, p, is_write, buf);
  int rc = 0;
  if (fast && !ostio__cache_trylock(c, p->owner, o.set)) {
    if (read_around(c, p, buf, &rc)) return rc;
    rc = ostio__cache_lock(c, p->owner, o.set);
  } else if (!fast) {
    rc = ostio__cache_lock(c, p->owner, o.set);
  }
  if (rc == 0) rc = seq_odd(c, p->owner, o.set);
  if (rc < 0) return rc;
  rc = locked(&o, allocate);
  int r2 = release(c, p->owner, o.set);
  return rc < 0 ? rc : r2;
}

/* ---- write-behind: the buffer's pieces into the pages ------------------------------------ */

/* The n buffered pieces of one page (r[0..n), in write order) under the
 * page's set lock: into the cached page (read in first unless a piece
 * covers all of it), or straight to the file when the page cannot be
 * cached now (as an unbuffered write would). */
static int drain_page(ostio__cache *c, const ostio__cache_wrec *r, size_t n,
                      const unsigned char *arena)
{
  int64_t P = c->geom.page;
  int whole = 0;
  for (size_t k = 0; k < n; k++) whole |= r[k].in_page == 0 && r[k].len == P;
  ostio__cache_piece pp = {.page = r[0].page, .in_page = whole ? 0 : r[0].in_page,
                           .len = whole ? P : r[0].len, .owner = r[0].owner};
  op o = make_op(c, &pp, 1, NULL);
  int rc = hold(c, pp.owner, o.set);
  if (rc < 0) return rc;
  int way = -1;
  if ((rc = get_meta(&o)) == 0) {
    way = ostio__cache_set_find(o.slots, (int)c->wl.ways, pp.page);
    if (way >= 0) {
      ostio__stat_add(c->st, OSTIO__STAT_cache_hits, 1);
      if (pp.owner != c->rank) ostio__stat_add(c->st, OSTIO__STAT_cache_remote_hits, 1);
    } else {
      ostio__stat_add(c->st, OSTIO__STAT_cache_misses, 1);
      if (whole || c->can_fill) {
        rc = make_room(&o, &way);
        if (rc < 0 || way < 0) {
          int r2 = put_meta(&o);
          if (rc == 0) rc = r2;
        }
      }
    }
  }
  if (rc == 0 && way < 0) {
    for (size_t k = 0; rc == 0 && k < n; k++)
      rc = c->b.write(c->b.ctx, r[k].page * P + r[k].in_page, arena + r[k].at, (size_t)r[k].len);
  } else if (rc == 0) {
    int64_t at = data_disp(&o, way);
    for (size_t k = 0; rc == 0 && k < n; k++) {
      rc = ostio__cache_xput_later(c, pp.owner, at + r[k].in_page, arena + r[k].at, r[k].len,
                                   "writing page bytes");
      if (rc == 0) ostio__cache_slot_dirty(&o.slots[way], r[k].in_page, r[k].in_page + r[k].len);
    }
    int r2 = ostio__cache_xflush(c, pp.owner, "writing page bytes");
    if (rc == 0) rc = r2;
    /* The hull covers what landed, also after a failed put (the page
     * bytes between are the file's or newer: harmless to write back). */
    o.slots[way].stamp = ++o.head->clock;
    r2 = put_meta(&o);
    if (rc == 0) rc = r2;
  }
  int r2 = release(c, pp.owner, o.set);
  return rc < 0 ? rc : r2;
}

int ostio__cache_drain_recs(ostio__cache *c, ostio__cache_wrec *rec, size_t nrec,
                            const unsigned char *arena)
{
  if (nrec == 0) return 0;
  ostio__cache_wrec_order(rec, nrec);
  /* Ranks writing interleaved bytes hold the same pages and drain at about
   * the same time: each starts at its own share of its pages (rank r at
   * the r/P-th) and wraps around, so they rarely want one lock at once. One
   * lock is held at a time, so any order is free of deadlock. */
  size_t groups = 0, first = 0;
  for (size_t i = 0; i < nrec; i++) groups += i == 0 || rec[i].page != rec[i - 1].page;
  size_t skip = (size_t)((double)groups * c->rank / c->nprocs);
  for (size_t i = 0, g = 0; i < nrec; i++)
    if (i == 0 || rec[i].page != rec[i - 1].page) {
      if (g++ == skip) {
        first = i;
        break;
      }
    }
  int rc = 0;
  for (size_t n = 0, i = first, j; rc == 0 && n < nrec; n += j - i, i = j % nrec) {
    for (j = i + 1; j < nrec && rec[j].page == rec[i].page; j++) {
    }
    if ((rc = drain_page(c, &rec[i], j - i, arena)) == 0)
      for (size_t k = i; k < j; k++) rec[k].len = 0;
  }
  return rc;
}

int ostio__cache_drain(ostio__cache *c)
{
  ostio__cache_wbuf *w = &c->wb;
  if (w->nrec == 0) return 0;
  int rc = ostio__cache_drain_recs(c, w->rec, w->nrec, w->arena);
  ostio__cache_wbuf_compact(w, c->geom.page);
  return rc;
}

/* A small write in non-atomic mode: into the buffer (drained first when
 * full). 0 with *taken = 0 when the write is not for the buffer. */
static int buffer_write(ostio__cache *c, const ostio__cache_seg *sg, int *taken)
{
  *taken = 0;
  int64_t P = c->geom.page;
  size_t pages = (size_t)((sg->off + sg->len - 1) / P - sg->off / P + 1);
  if (!ostio__cache_wbuf_takes(&c->wb, sg->len, pages)) return 0;
  int rc = 0;
  if (!ostio__cache_wbuf_fits(&c->wb, sg->len, pages) && (rc = ostio__cache_drain(c)) < 0)
    return rc;
  if (!ostio__cache_wbuf_fits(&c->wb, sg->len, pages)) return 0; /* a failed page stayed */
  *taken = 1;
  ostio__cache_split sp;
  ostio__cache_piece p;
  const unsigned char *buf = sg->buf;
  int64_t off = sg->off;
  rc = ostio__cache_split_init(&sp, &c->geom, sg->off, sg->len);
  while (rc == 0 && (rc = ostio__cache_split_next(&sp, &p)) == 1) {
    ostio__cache_wbuf_add(&c->wb, &p, ostio__cache_set_of(&c->wl, p.page), off, buf);
    buf += p.len;
    off += p.len;
    rc = 0;
  }
  return rc;
}

/* One range in non-atomic mode. */
static int request(ostio__cache *c, const ostio__cache_seg *sg)
{
  int allocate = !ostio__cache_bypass(&c->geom, sg->off, sg->len);
  if (!allocate) ostio__stat_add(c->st, OSTIO__STAT_cache_bypass, 1);
  int taken = 0, rc0 = 0;
  if (sg->is_write && allocate && (rc0 = buffer_write(c, sg, &taken)) < 0) return rc0;
  if (taken) return 0;
  /* Anything else that meets buffered bytes comes after them. */
  if (ostio__cache_wbuf_overlaps(&c->wb, sg->off, sg->len) && (rc0 = ostio__cache_drain(c)) < 0)
    return rc0;
  ostio__cache_split sp;
  ostio__cache_piece p;
  unsigned char *buf = sg->buf;
  int rc = ostio__cache_split_init(&sp, &c->geom, sg->off, sg->len);
  while (rc == 0 && (rc = ostio__cache_split_next(&sp, &p)) == 1) {
    rc = piece(c, &p, sg->is_write, buf, allocate);
    buf += p.len;
  }
  return rc;
}

/* ---- atomic mode: every lock of the call first ------------------------------------------ */

typedef struct apiece {
  ostio__cache_piece p;
  int64_t set;
  unsigned char *buf;
  int is_write, allocate;
} apiece;

static int by_lock(const void *a, const void *b)
{
  const apiece *x = a, *y = b;
  if (x->p.owner != y->p.owner) return x->p.owner < y->p.owner ? -1 : 1;
  return x->set < y->set ? -1 : x->set > y->set;
}

/* The call's pieces, each with its set. *out malloc'ed. */
static int collect(ostio__cache *c, const ostio__cache_seg *sg, size_t n, apiece **out,
                   size_t *nout)
{
  size_t cap = 0, k = 0;
  for (size_t i = 0; i < n; i++) {
    if (sg[i].len <= 0) continue;
    int64_t pages = (sg[i].off + sg[i].len - 1) / c->geom.page - sg[i].off / c->geom.page + 1;
    if ((uint64_t)pages > SIZE_MAX / sizeof(apiece) - cap)
      return ostio__fail(OSTIO_ENOMEM, "cache: an atomic call of too many pages");
    cap += (size_t)pages;
  }
  apiece *a = malloc((cap ? cap : 1) * sizeof *a);
  if (!a) return ostio__fail(OSTIO_ENOMEM, "cache: out of memory for an atomic call's %zu "
                             "pages", cap);
  int rc = 0;
  for (size_t i = 0; rc == 0 && i < n; i++) {
    if (sg[i].len <= 0) continue;
    int allocate = !ostio__cache_bypass(&c->geom, sg[i].off, sg[i].len);
    ostio__cache_split sp;
    unsigned char *buf = sg[i].buf;
    rc = ostio__cache_split_init(&sp, &c->geom, sg[i].off, sg[i].len);
    while (rc == 0 && k < cap && (rc = ostio__cache_split_next(&sp, &a[k].p)) == 1) {
      a[k].set = ostio__cache_set_of(&c->wl, a[k].p.page);
      a[k].buf = buf;
      a[k].is_write = sg[i].is_write;
      a[k].allocate = allocate;
      buf += a[k].p.len;
      k++;
      rc = 0;
    }
  }
  if (rc < 0) {
    free(a);
    return rc;
  }
  *out = a;
  *nout = k;
  return 0;
}

/* Locks every (owner, set) of the call in increasing order -- a total order
 * all ranks share, so two atomic calls never wait for each other in a
 * cycle -- then moves every piece, then releases them all. */
static int atomic_call(ostio__cache *c, const ostio__cache_seg *sg, size_t n)
{
  apiece *a = NULL;
  size_t k = 0;
  int rc = collect(c, sg, n, &a, &k);
  if (rc < 0) return rc;
  apiece *order = malloc((k ? k : 1) * sizeof *order);
  if (!order) {
    free(a);
    return ostio__fail(OSTIO_ENOMEM, "cache: out of memory for an atomic call");
  }
  memcpy(order, a, k * sizeof *a);
  qsort(order, k, sizeof *order, by_lock);
  size_t held = 0;
  for (size_t i = 0; rc == 0 && i < k; i++) {
    if (i > 0 && by_lock(&order[i], &order[i - 1]) == 0) continue;
    if ((rc = hold(c, order[i].p.owner, order[i].set)) == 0) held = i + 1;
  }
  for (size_t i = 0; rc == 0 && i < k; i++) {
    op o = make_op(c, &a[i].p, a[i].is_write, a[i].buf);
    rc = locked(&o, a[i].allocate);
  }
  for (size_t i = held; i-- > 0;) {
    if (i > 0 && by_lock(&order[i], &order[i - 1]) == 0) continue;
    int r2 = release(c, order[i].p.owner, order[i].set);
    if (rc == 0) rc = r2;
  }
  free(order);
  free(a);
  return rc;
}

int ostio__cache_access(ostio__cache *c, const ostio__cache_seg *sg, size_t n)
{
  int rc = 0;
  for (size_t i = 0; i < n; i++) c->wrote |= sg[i].is_write && sg[i].len > 0;
  if (c->atomic) {
    /* Nothing is buffered in atomic mode (ostio__cache_set_atomic drained). */
    for (size_t i = 0; i < n; i++)
      if (sg[i].len > 0 && ostio__cache_bypass(&c->geom, sg[i].off, sg[i].len))
        ostio__stat_add(c->st, OSTIO__STAT_cache_bypass, 1);
    rc = atomic_call(c, sg, n);
  } else {
    for (size_t i = 0; rc == 0 && i < n; i++)
      if (sg[i].len > 0) rc = request(c, &sg[i]);
  }
  for (size_t i = 0; rc == 0 && i < n; i++)
    if (sg[i].is_write && sg[i].len > 0 && sg[i].off + sg[i].len > c->local_end)
      c->local_end = sg[i].off + sg[i].len;
  return rc;
}

int ostio__cache_write(ostio__cache *c, int64_t off, const void *buf, size_t len)
{
  ostio__cache_seg sg = {.off = off, .len = (int64_t)len, .buf = (void *)buf, .is_write = 1};
  return ostio__cache_access(c, &sg, 1);
}

int ostio__cache_read(ostio__cache *c, int64_t off, void *buf, size_t len)
{
  ostio__cache_seg sg = {.off = off, .len = (int64_t)len, .buf = buf, .is_write = 0};
  return ostio__cache_access(c, &sg, 1);
}
