/* The cooperative cache's independent reads and writes: each request is
 * split into page pieces (cache_plan.c); each piece is done under its set's
 * lock at the page's owner through the transport (cache_xport.c). See
 * docs/cache.md. */
#include "cache/cache_impl.h"

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
  if (!whole) {
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
    /* Read in just now: the piece is in the bounce buffer already. */
    memcpy(o->buf, c->bounce + o->p->in_page, (size_t)o->p->len);
    o->slots[way].stamp = ++o->head->clock;
    return put_meta(o);
  }
  return move(o, way);
}

static int piece(ostio__cache *c, const ostio__cache_piece *p, int is_write, unsigned char *buf,
                 int allocate)
{
  op o = {.c = c, .p = p, .is_write = is_write, .buf = buf,
          .set = ostio__cache_set_of(&c->wl, p->page),
          .head = (ostio__cache_set_head *)c->meta,
          .slots = (ostio__cache_slot *)(c->meta + sizeof(ostio__cache_set_head))};
  o.set_disp = ostio__cache_set_disp(&c->wl, o.set);
  int rc = ostio__cache_lock(c, p->owner, o.set);
  if (rc < 0) return rc;
  rc = locked(&o, allocate);
  int r2 = ostio__cache_unlock(c, p->owner, o.set);
  return rc < 0 ? rc : r2;
}

static int request(ostio__cache *c, int is_write, int64_t off, unsigned char *buf, size_t len)
{
  int allocate = !ostio__cache_bypass(&c->geom, off, (int64_t)len);
  if (!allocate) ostio__stat_add(c->st, OSTIO__STAT_cache_bypass, 1);
  ostio__cache_split sp;
  ostio__cache_piece p;
  int rc = ostio__cache_split_init(&sp, &c->geom, off, (int64_t)len);
  while (rc == 0 && (rc = ostio__cache_split_next(&sp, &p)) == 1) {
    rc = piece(c, &p, is_write, buf, allocate);
    buf += p.len;
  }
  if (rc < 0) return rc;
  if (is_write && off + (int64_t)len > c->local_end) c->local_end = off + (int64_t)len;
  return 0;
}

int ostio__cache_write(ostio__cache *c, int64_t off, const void *buf, size_t len)
{
  return request(c, 1, off, (unsigned char *)buf, len);
}

int ostio__cache_read(ostio__cache *c, int64_t off, void *buf, size_t len)
{
  return request(c, 0, off, buf, len);
}
