/* The cooperative cache's geometry (issue 17), pure: no MPI, no I/O.
 * A file is cut into pages of `page` bytes from offset 0 (page i is
 * [i*page, (i+1)*page)); page is a positive multiple of the stripe size, by
 * default the stripe size itself. Each page has one owner rank in the job:
 * the rank that would aggregate the page's first stripe under the `ost`
 * domain rule (src/plan/domain.h), so with page == stripe size an owner's
 * pages are exactly the stripe objects it aggregates and a flush is one
 * process per object. Larger pages cover several stripes, of several objects:
 * the owner of the first one owns the page (docs/cache.md, "Pages"). */
#ifndef OSTIO_CACHE_CACHE_PLAN_H
#define OSTIO_CACHE_CACHE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "hints/hints.h"
#include "layout/layout.h"
#include "plan/domain.h"

#define OSTIO__CACHE_BYPASS_PAGES 4 /* default bypass bound, in pages */

/* The cache's hints as numbers (ostio__cache_params_from_hints), so tests
 * can state them directly. 0 means "the default" for page and bypass. */
typedef struct ostio__cache_params {
  int64_t page;      /* ostio_cache_page: bytes per page, 0 = stripe size   */
  int64_t size;      /* ostio_cache_size: bytes of pages per rank           */
  int64_t bypass;    /* ostio_cache_bypass: larger requests go around, 0 = 4 pages */
  int co_ratio;      /* romio_lustre_co_ratio: the `ost` rule's              */
} ostio__cache_params;

void ostio__cache_params_from_hints(const ostio__hints *h, ostio__cache_params *p);

typedef struct ostio__cache_geom {
  int64_t page;              /* bytes per page                               */
  int64_t stripe;            /* the first component's stripe size            */
  int64_t capacity;          /* bytes of pages one rank's pool may hold      */
  int64_t pool_pages;        /* capacity / page, >= 1                         */
  int64_t bypass;            /* requests of more bytes go around the cache   */
  int64_t last_page;         /* the highest page index (its first byte fits) */
  const int *aggr_ranks;     /* borrowed: aggregator index -> rank           */
  int naggr;
  ostio__domains dom;        /* the `ost` rule on the layout (borrowed)      */
} ostio__cache_geom;

/* Checks the parameters against the layout and sets g up. The layout and
 * aggr_ranks (naggr ranks, >= 1) are borrowed and must outlive g.
 * OSTIO_EHINT for a page size that is not a positive multiple of every
 * component's stripe size, a cache that holds no page, or a bypass bound
 * below 1; OSTIO_EINVAL for bad arguments; each with a detail. */
int ostio__cache_geom_init(ostio__cache_geom *g, const ostio_layout *l,
                           const ostio__cache_params *p, const int *aggr_ranks, int naggr);

/* Rank owning page index; OSTIO_ERANGE for an index outside
 * [0, g->last_page] or whose first byte lies past the layout. */
int ostio__cache_owner(const ostio__cache_geom *g, int64_t page);

/* 1 when a request of len bytes at off goes around the cache: longer than
 * g->bypass, or spanning more pages than one pool holds (every page of a
 * call may be owned by one rank and is pinned there during the call).
 * 0 for len <= 0 (nothing to cache) and for requests that fit. */
int ostio__cache_bypass(const ostio__cache_geom *g, int64_t off, int64_t len);

/* Pages of [off, off+len): index, offset inside the page, length, owner. */
typedef struct ostio__cache_piece {
  int64_t page, in_page, len;
  int owner;                 /* a rank of aggr_ranks                         */
} ostio__cache_piece;

/* A resumable split of one request into page pieces, in file order; the
 * work is one step per piece, whatever len is. */
typedef struct ostio__cache_split {
  const ostio__cache_geom *g;
  int64_t pos, end;
} ostio__cache_split;

/* OSTIO_ERANGE (with a detail) for off < 0, len < 0 or off + len past
 * INT64_MAX; len == 0 gives no piece. */
int ostio__cache_split_init(ostio__cache_split *s, const ostio__cache_geom *g, int64_t off,
                            int64_t len);
/* 1 and *p filled, 0 when done, negative (the owner's error) otherwise;
 * after an error the split stays where it was. */
int ostio__cache_split_next(ostio__cache_split *s, ostio__cache_piece *p);
/* Up to cap pieces into p (*n of them): 1 when more remain (call again),
 * 0 when the request is done, negative on error (*n pieces are good). */
int ostio__cache_split_fill(ostio__cache_split *s, ostio__cache_piece *p, size_t cap, size_t *n);

/* The one-client rule (docs/cache.md, "One writing client"): on a file
 * system that stops every client's caching of a file as soon as a second
 * client opens it, only the flusher's node touches the file, so only ranks
 * there may own pages. node_of[r] names rank r's node (equal ids: one node),
 * r < nprocs. Writes the aggregator candidates on the flusher's node to out
 * (room for neligible), in their order, and returns their count; OSTIO_EINVAL
 * (with a detail) when the flusher or a candidate is not a rank, or no
 * candidate shares the flusher's node. */
int ostio__cache_one_client_owners(const int *eligible, int neligible, const int *node_of,
                                   int nprocs, int flusher, int *out);

#endif
