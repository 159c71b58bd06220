/* One rank's page pool: hash table, LRU list, dirty ranges, accounting.
 * See cache_pool.h and docs/cache.md. Pure: no MPI, no I/O. */
#include "cache/cache_pool.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

#define BUCKETS_MIN 16

struct ostio__cache_pool {
  int64_t page, capacity, max_pages;
  int64_t npages, npinned, ndirty_pages, dirty_bytes, memory;
  ostio__cache_alloc a;
  ostio__cache_page **buckets;
  size_t nbuckets;                       /* a power of two                   */
  unsigned shift;                        /* 64 - log2(nbuckets)              */
  ostio__cache_page *lru_head, *lru_tail; /* head: most recently used        */
  ostio__cache_page *dirty_head;
};

/* ---- allocation ------------------------------------------------------------ */

static void *std_alloc(void *ctx, size_t bytes)
{
  (void)ctx;
  return malloc(bytes);
}

static void std_release(void *ctx, void *p, size_t bytes)
{
  (void)ctx;
  (void)bytes;
  free(p);
}

static void *take(ostio__cache_pool *pool, size_t bytes)
{
  return pool->a.alloc(pool->a.ctx, bytes);
}

static void give(ostio__cache_pool *pool, void *p, size_t bytes)
{
  pool->a.release(pool->a.ctx, p, bytes);
}

static size_t page_block(const ostio__cache_pool *pool)
{
  return sizeof(ostio__cache_page) + (size_t)pool->page;
}

/* ---- hash table ---------------------------------------------------------------- */

static size_t bucket_of(unsigned shift, int64_t index)
{
  return (size_t)(((uint64_t)index * UINT64_C(0x9E3779B97F4A7C15)) >> shift);
}

/* Doubles the table; OSTIO_ENOMEM with the table as it was. */
static int grow(ostio__cache_pool *pool)
{
  size_t n = pool->nbuckets * 2;
  ostio__cache_page **b = take(pool, n * sizeof *b);
  if (!b)
    return ostio__fail(OSTIO_ENOMEM, "cache: no memory for a page table of %zu entries", n);
  memset(b, 0, n * sizeof *b);
  unsigned shift = pool->shift - 1;
  for (size_t i = 0; i < pool->nbuckets; i++) {
    for (ostio__cache_page *p = pool->buckets[i], *next; p; p = next) {
      next = p->hnext;
      size_t k = bucket_of(shift, p->index);
      p->hnext = b[k];
      b[k] = p;
    }
  }
  give(pool, pool->buckets, pool->nbuckets * sizeof *b);
  pool->memory += (int64_t)((n - pool->nbuckets) * sizeof *b);
  pool->buckets = b;
  pool->nbuckets = n;
  pool->shift = shift;
  return 0;
}

/* ---- lists ------------------------------------------------------------------------ */

static void lru_unlink(ostio__cache_pool *pool, ostio__cache_page *pg)
{
  if (pg->prev) pg->prev->next = pg->next; else pool->lru_head = pg->next;
  if (pg->next) pg->next->prev = pg->prev; else pool->lru_tail = pg->prev;
  pg->prev = pg->next = NULL;
}

static void lru_push(ostio__cache_pool *pool, ostio__cache_page *pg)
{
  pg->prev = NULL;
  pg->next = pool->lru_head;
  if (pool->lru_head) pool->lru_head->prev = pg; else pool->lru_tail = pg;
  pool->lru_head = pg;
}

static int64_t dirty_sum(const ostio__cache_page *pg)
{
  int64_t sum = 0;
  for (int i = 0; i < pg->ndirty; i++) sum += pg->dirty[i].end - pg->dirty[i].start;
  return sum;
}

/* ---- create, free ------------------------------------------------------------------ */

int ostio__cache_pool_create(int64_t capacity, int64_t page, const ostio__cache_alloc *alloc,
                             ostio__cache_pool **out)
{
  if (!out) return ostio__fail(OSTIO_EINVAL, "cache pool: NULL result pointer");
  *out = NULL;
  if (page < 1 || capacity < page ||
      (uint64_t)page > SIZE_MAX - sizeof(ostio__cache_page))
    return ostio__fail(OSTIO_EINVAL, "cache pool: %" PRId64 " bytes of pages of %" PRId64
                       " bytes: expected a page size >= 1 and a capacity of at least one page",
                       capacity, page);
  ostio__cache_alloc a = {std_alloc, std_release, NULL};
  if (alloc && alloc->alloc && alloc->release) a = *alloc;
  ostio__cache_pool *pool = a.alloc(a.ctx, sizeof *pool);
  if (!pool) return ostio__fail(OSTIO_ENOMEM, "cache pool: no memory for the pool");
  *pool = (ostio__cache_pool){.page = page, .capacity = capacity, .max_pages = capacity / page,
                              .a = a, .nbuckets = BUCKETS_MIN, .shift = 64 - 4};
  pool->buckets = take(pool, BUCKETS_MIN * sizeof *pool->buckets);
  if (!pool->buckets) {
    give(pool, pool, sizeof *pool);
    return ostio__fail(OSTIO_ENOMEM, "cache pool: no memory for the page table");
  }
  memset(pool->buckets, 0, BUCKETS_MIN * sizeof *pool->buckets);
  pool->memory = (int64_t)(sizeof *pool + BUCKETS_MIN * sizeof *pool->buckets);
  *out = pool;
  return 0;
}

void ostio__cache_pool_free(ostio__cache_pool **poolp)
{
  if (!poolp || !*poolp) return;
  ostio__cache_pool *pool = *poolp;
  for (size_t i = 0; i < pool->nbuckets; i++) {
    for (ostio__cache_page *p = pool->buckets[i], *next; p; p = next) {
      next = p->hnext;
      give(pool, p, page_block(pool));
    }
  }
  give(pool, pool->buckets, pool->nbuckets * sizeof *pool->buckets);
  give(pool, pool, sizeof *pool);
  *poolp = NULL;
}

/* ---- pages ------------------------------------------------------------------------- */

ostio__cache_page *ostio__cache_pool_find(const ostio__cache_pool *pool, int64_t index)
{
  ostio__cache_page *p = pool->buckets[bucket_of(pool->shift, index)];
  while (p && p->index != index) p = p->hnext;
  return p;
}

int ostio__cache_pool_insert(ostio__cache_pool *pool, int64_t index, ostio__cache_page **out)
{
  if (index < 0) return ostio__fail(OSTIO_ERANGE, "cache pool: page index %" PRId64 " < 0", index);
  if (ostio__cache_pool_find(pool, index))
    return ostio__fail(OSTIO_EEXIST, "cache pool: page %" PRId64 " is already cached", index);
  if (pool->npages >= pool->max_pages)
    return ostio__fail(OSTIO_ENOSPC, "cache pool: full (%" PRId64 " pages of %" PRId64
                       " bytes); evict a page first", pool->npages, pool->page);
  ostio__cache_page *pg = take(pool, page_block(pool));
  if (!pg)
    return ostio__fail(OSTIO_ENOMEM, "cache pool: no memory for page %" PRId64 " (%zu bytes)",
                       index, page_block(pool));
  if ((uint64_t)pool->npages + 1 > pool->nbuckets) {
    int rc = grow(pool);
    if (rc < 0) {
      give(pool, pg, page_block(pool));
      return rc;
    }
  }
  *pg = (ostio__cache_page){.index = index, .data = (unsigned char *)(pg + 1)};
  size_t k = bucket_of(pool->shift, index);
  pg->hnext = pool->buckets[k];
  pool->buckets[k] = pg;
  lru_push(pool, pg);
  pool->npages++;
  pool->memory += (int64_t)page_block(pool);
  *out = pg;
  return 0;
}

void ostio__cache_pool_touch(ostio__cache_pool *pool, ostio__cache_page *pg)
{
  if (pg->pins) return;
  lru_unlink(pool, pg);
  lru_push(pool, pg);
}

void ostio__cache_pool_pin(ostio__cache_pool *pool, ostio__cache_page *pg)
{
  if (pg->pins++ == 0) {
    lru_unlink(pool, pg);
    pool->npinned++;
  }
}

void ostio__cache_pool_unpin(ostio__cache_pool *pool, ostio__cache_page *pg)
{
  if (pg->pins <= 0) return; /* not pinned: nothing to undo */
  if (--pg->pins == 0) {
    lru_push(pool, pg);
    pool->npinned--;
  }
}

ostio__cache_page *ostio__cache_pool_victim(const ostio__cache_pool *pool)
{
  return pool->lru_tail;
}

void ostio__cache_pool_clean(ostio__cache_pool *pool, ostio__cache_page *pg)
{
  if (!pg->ndirty) return;
  pool->dirty_bytes -= dirty_sum(pg);
  pg->ndirty = 0;
  if (pg->dprev) pg->dprev->dnext = pg->dnext; else pool->dirty_head = pg->dnext;
  if (pg->dnext) pg->dnext->dprev = pg->dprev;
  pg->dprev = pg->dnext = NULL;
  pool->ndirty_pages--;
}

int ostio__cache_pool_remove(ostio__cache_pool *pool, ostio__cache_page *pg, int discard_dirty)
{
  if (pg->pins)
    return ostio__fail(OSTIO_EINVAL, "cache pool: page %" PRId64 " is pinned (%d); unpin it "
                       "before removing it", pg->index, pg->pins);
  if (pg->ndirty && !discard_dirty)
    return ostio__fail(OSTIO_EINVAL, "cache pool: page %" PRId64 " has %" PRId64 " dirty "
                       "bytes; flush it before removing it", pg->index, dirty_sum(pg));
  ostio__cache_pool_clean(pool, pg);
  ostio__cache_page **link = &pool->buckets[bucket_of(pool->shift, pg->index)];
  while (*link != pg) link = &(*link)->hnext;
  *link = pg->hnext;
  lru_unlink(pool, pg);
  pool->npages--;
  pool->memory -= (int64_t)page_block(pool);
  give(pool, pg, page_block(pool));
  return 0;
}

/* ---- dirty ranges -------------------------------------------------------------------- */

int ostio__cache_ranges_add(ostio__cache_range *r, int *n, int cap, int64_t start, int64_t end,
                            int gaps_ok)
{
  if (start >= end) return 0;
  if (cap < 1 || cap > OSTIO__CACHE_DIRTY_MAX || *n < 0 || *n > cap)
    return ostio__fail(OSTIO_EINVAL, "cache: %d dirty ranges with room for %d (at most %d)", *n,
                       cap, OSTIO__CACHE_DIRTY_MAX);
  /* Ranges [lo, hi) overlap or touch [start, end): they merge with it. */
  int lo = 0, hi;
  while (lo < *n && r[lo].end < start) lo++;
  hi = lo;
  while (hi < *n && r[hi].start <= end) hi++;
  ostio__cache_range t[OSTIO__CACHE_DIRTY_MAX + 1], merged = {start, end};
  if (hi > lo) {
    if (r[lo].start < merged.start) merged.start = r[lo].start;
    if (r[hi - 1].end > merged.end) merged.end = r[hi - 1].end;
  }
  int m = 0;
  for (int i = 0; i < lo; i++) t[m++] = r[i];
  t[m++] = merged;
  for (int i = hi; i < *n; i++) t[m++] = r[i];
  if (m > cap) {
    if (!gaps_ok) return OSTIO__CACHE_NEED_FILL;
    /* The bytes between two ranges hold valid data: join the closest two. */
    int best = 0;
    for (int i = 1; i + 1 < m; i++)
      if (t[i + 1].start - t[i].end < t[best + 1].start - t[best].end) best = i;
    t[best].end = t[best + 1].end;
    memmove(&t[best + 1], &t[best + 2], (size_t)(m - best - 2) * sizeof t[0]);
    m--;
  }
  memcpy(r, t, (size_t)m * sizeof t[0]);
  *n = m;
  return 0;
}

int ostio__cache_pool_mark_dirty(ostio__cache_pool *pool, ostio__cache_page *pg, int64_t start,
                                 int64_t end)
{
  if (start < 0 || end > pool->page || start > end)
    return ostio__fail(OSTIO_EINVAL, "cache pool: dirty range [%" PRId64 ", %" PRId64 ") of page "
                       "%" PRId64 ": expected 0 <= start <= end <= %" PRId64, start, end,
                       pg->index, pool->page);
  int64_t before = dirty_sum(pg);
  int was_clean = pg->ndirty == 0;
  int rc = ostio__cache_ranges_add(pg->dirty, &pg->ndirty, OSTIO__CACHE_DIRTY_MAX, start, end,
                                   pg->full);
  if (rc != 0) return rc;
  pool->dirty_bytes += dirty_sum(pg) - before;
  if (was_clean && pg->ndirty) {
    pg->dprev = NULL;
    pg->dnext = pool->dirty_head;
    if (pool->dirty_head) pool->dirty_head->dprev = pg;
    pool->dirty_head = pg;
    pool->ndirty_pages++;
  }
  return 0;
}

/* Max-heap on index over h[0..n). */
static void sift_down(ostio__cache_page **h, size_t n, size_t i)
{
  for (;;) {
    size_t l = 2 * i + 1, big = i;
    if (l < n && h[l]->index > h[big]->index) big = l;
    if (l + 1 < n && h[l + 1]->index > h[big]->index) big = l + 1;
    if (big == i) return;
    ostio__cache_page *t = h[i];
    h[i] = h[big];
    h[big] = t;
    i = big;
  }
}

size_t ostio__cache_pool_dirty(const ostio__cache_pool *pool, int64_t after,
                               ostio__cache_page **out, size_t cap)
{
  size_t n = 0;
  if (!cap) return 0;
  for (ostio__cache_page *p = pool->dirty_head; p; p = p->dnext) {
    if (p->index <= after) continue;
    if (n < cap) {
      /* Push: sift up. */
      size_t i = n++;
      out[i] = p;
      while (i && out[(i - 1) / 2]->index < out[i]->index) {
        ostio__cache_page *t = out[i];
        out[i] = out[(i - 1) / 2];
        out[(i - 1) / 2] = t;
        i = (i - 1) / 2;
      }
    } else if (p->index < out[0]->index) {
      out[0] = p;
      sift_down(out, n, 0);
    }
  }
  for (size_t k = n; k > 1; k--) { /* heap sort: ascending */
    ostio__cache_page *t = out[0];
    out[0] = out[k - 1];
    out[k - 1] = t;
    sift_down(out, k - 1, 0);
  }
  return n;
}

void ostio__cache_pool_info_get(const ostio__cache_pool *pool, ostio__cache_pool_info *info)
{
  *info = (ostio__cache_pool_info){
      .page = pool->page, .capacity = pool->capacity, .max_pages = pool->max_pages,
      .pages = pool->npages, .pinned = pool->npinned, .dirty_pages = pool->ndirty_pages,
      .dirty_bytes = pool->dirty_bytes, .memory = pool->memory};
}
