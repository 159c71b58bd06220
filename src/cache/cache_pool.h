/* One rank's local page pool for the cooperative cache (issue 17), pure:
 * no MPI, no I/O. At most capacity / page pages of `page` bytes each;
 * lookup by page index in a hash table (O(1)); LRU order over the pages not
 * pinned (a pinned page is locked by a call in progress and is never an
 * eviction candidate); per page a small sorted list of disjoint dirty byte
 * ranges, so a flush writes only dirty bytes; the dirty pages in increasing
 * page order for the two-phase flush. Memory is accounted to the byte
 * (ostio__cache_pool_memory): every block the pool asks its allocator for,
 * metadata included. Allocation failures return OSTIO_ENOMEM and leave the
 * pool as it was. Not thread-safe: one pool per open file and rank. */
#ifndef OSTIO_CACHE_CACHE_POOL_H
#define OSTIO_CACHE_CACHE_POOL_H

#include <stddef.h>
#include <stdint.h>

/* Dirty ranges kept per page (8 x 16 bytes inline: no allocation when
 * marking). Past this, a page whose every byte is valid (full) joins its two
 * closest ranges, so the gap between them becomes dirty (those bytes hold
 * the file's data or newer: rewriting them is harmless); a page that is not
 * full refuses the range with OSTIO__CACHE_NEED_FILL (the gap holds garbage,
 * which must never reach the file). */
#define OSTIO__CACHE_DIRTY_MAX 8
#define OSTIO__CACHE_NEED_FILL 1

typedef struct ostio__cache_range {
  int64_t start, end;          /* [start, end) inside the page, start < end */
} ostio__cache_range;

typedef struct ostio__cache_page ostio__cache_page;
struct ostio__cache_page {
  int64_t index;               /* page index in the file                      */
  unsigned char *data;         /* page bytes (uninitialised until written)    */
  int pins;                    /* > 0: locked, not an eviction candidate      */
  int full;                    /* every byte holds the file's data or newer   */
  int ndirty;                  /* ranges used in dirty[]                      */
  ostio__cache_range dirty[OSTIO__CACHE_DIRTY_MAX]; /* sorted, disjoint, not adjacent */
  /* The pool's links; do not touch. */
  ostio__cache_page *hnext;                /* hash chain                      */
  ostio__cache_page *prev, *next;          /* LRU list (unpinned pages)       */
  ostio__cache_page *dprev, *dnext;        /* dirty list                      */
};

/* The pool's allocator; NULL members mean malloc / free. Tests pass one that
 * fails on demand and counts bytes. */
typedef struct ostio__cache_alloc {
  void *(*alloc)(void *ctx, size_t bytes);
  void (*release)(void *ctx, void *p, size_t bytes);
  void *ctx;
} ostio__cache_alloc;

typedef struct ostio__cache_pool ostio__cache_pool;

/* A pool of at most capacity / page pages (>= 1). alloc may be NULL.
 * OSTIO_EINVAL for page < 1 or capacity < page, OSTIO_ENOMEM. */
int ostio__cache_pool_create(int64_t capacity, int64_t page, const ostio__cache_alloc *alloc,
                             ostio__cache_pool **out);
/* Frees every page, dirty or not (the caller flushed what it wanted);
 * sets *pool = NULL. */
void ostio__cache_pool_free(ostio__cache_pool **pool);

/* The page with this index, or NULL; does not change the LRU order. */
ostio__cache_page *ostio__cache_pool_find(const ostio__cache_pool *pool, int64_t index);
/* A new page (not full, clean, unpinned, most recently used) in *out.
 * OSTIO_EEXIST when the index is cached, OSTIO_ENOSPC when the pool holds
 * its maximum (evict first), OSTIO_ERANGE for index < 0, OSTIO_ENOMEM. */
int ostio__cache_pool_insert(ostio__cache_pool *pool, int64_t index, ostio__cache_page **out);
/* Marks pg most recently used (a pinned page becomes so when unpinned). */
void ostio__cache_pool_touch(ostio__cache_pool *pool, ostio__cache_page *pg);
/* Pins (locks) pg: out of the LRU order until the matching unpin, which
 * makes it the most recently used. */
void ostio__cache_pool_pin(ostio__cache_pool *pool, ostio__cache_page *pg);
void ostio__cache_pool_unpin(ostio__cache_pool *pool, ostio__cache_page *pg);
/* The eviction candidate: the least recently used unpinned page, or NULL
 * when every page is pinned (or there is none). O(1). */
ostio__cache_page *ostio__cache_pool_victim(const ostio__cache_pool *pool);
/* Drops pg. OSTIO_EINVAL when it is pinned, or dirty and discard_dirty is 0
 * (flush first: nothing written is dropped silently); set_size's truncation
 * passes 1. */
int ostio__cache_pool_remove(ostio__cache_pool *pool, ostio__cache_page *pg, int discard_dirty);

/* Adds [start, end) of pg to its dirty ranges (merging overlapping and
 * adjacent ones). 0, OSTIO__CACHE_NEED_FILL (pg unchanged: more than
 * OSTIO__CACHE_DIRTY_MAX ranges on a page that is not full; fill the page
 * from the file or flush it, then retry), OSTIO_EINVAL for a range outside
 * [0, page) or start > end. An empty range does nothing. */
int ostio__cache_pool_mark_dirty(ostio__cache_pool *pool, ostio__cache_page *pg, int64_t start,
                                 int64_t end);
/* Clears pg's dirty ranges (after a flush). */
void ostio__cache_pool_clean(ostio__cache_pool *pool, ostio__cache_page *pg);
/* Up to cap dirty pages with an index above `after` (-1: from the start), in
 * increasing index order, into out; returns how many. Resumable: pass the
 * last index returned. No allocation; O(dirty pages * log cap). */
size_t ostio__cache_pool_dirty(const ostio__cache_pool *pool, int64_t after,
                               ostio__cache_page **out, size_t cap);

/* Pure range arithmetic behind mark_dirty: adds [start, end) to the *n
 * sorted, disjoint, non-adjacent ranges of r (room for cap, 1 ..
 * OSTIO__CACHE_DIRTY_MAX). Past cap it joins the two closest ranges when
 * gaps_ok, else returns OSTIO__CACHE_NEED_FILL with r unchanged. */
int ostio__cache_ranges_add(ostio__cache_range *r, int *n, int cap, int64_t start, int64_t end,
                            int gaps_ok);

/* Counters, O(1). */
typedef struct ostio__cache_pool_info {
  int64_t page, capacity;      /* as created                                  */
  int64_t max_pages, pages;    /* capacity / page; pages held                 */
  int64_t pinned, dirty_pages; /* pages pinned; pages with dirty ranges       */
  int64_t dirty_bytes;         /* bytes in all dirty ranges                   */
  int64_t memory;              /* bytes allocated: pool, table, pages, data   */
} ostio__cache_pool_info;
void ostio__cache_pool_info_get(const ostio__cache_pool *pool, ostio__cache_pool_info *info);

#endif
