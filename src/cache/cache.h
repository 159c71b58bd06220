/* The cooperative client cache (issue 17): small independent reads and
 * writes kept in the memory of the processes that opened the file, one copy
 * of each page in the whole job, at the page's owner, reached by passive-
 * target MPI RMA; written back in page-sized pieces by the owners at
 * collective points (sync, close, set_size, collective calls) and by any
 * rank when a page must make room. Design and rules: docs/cache.md.
 *
 * The cache sits above the file's kind: it reads and writes the file through
 * the backing calls it is given (the kind's independent read_at / write_at),
 * so it knows no kind. It is used only on kinds whose writes every process
 * sees at once (kind "coherent": plain, striped). */
#ifndef OSTIO_CACHE_CACHE_H
#define OSTIO_CACHE_CACHE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "hints/hints.h"
#include "layout/layout.h"
#include "stats/stats.h"

/* The file underneath: independent calls, len > 0; reads past the end of
 * file give zeros. */
typedef struct ostio__cache_backing {
  int (*write)(void *ctx, int64_t off, const void *buf, size_t len);
  int (*read)(void *ctx, int64_t off, void *buf, size_t len);
  void *ctx;
} ostio__cache_backing;

typedef struct ostio__cache ostio__cache;

/* What ostio__cache_open needs to know about the open file (borrowed
 * until ostio__cache_close). */
typedef struct ostio__cache_file {
  MPI_Comm comm;               /* the file's communicator                    */
  int rank, nprocs;
  const ostio__hints *hints;
  const ostio_layout *layout;  /* NULL: pages of ostio_cache_page (or 1 MiB) */
  const int *eligible;         /* aggregator candidates (the engine's list)  */
  int neligible;
  ostio__cache_backing backing;
  ostio__stats *stats;         /* the cache's counters go here               */
  int can_fill;                /* backing.read works here (0: a file this rank
                                * may only write: a write of part of a page
                                * that is not cached goes to the file)       */
  int one_client;              /* the file system stops every client's caching
                                * of a file at a second opener and the ranks
                                * span nodes: only home's node touches the
                                * file (docs/cache.md, "One writing client")  */
  int home;                    /* the rank holding the file open: the flusher */
} ostio__cache_file;

/* Collective. *out = NULL (and 0) when the hint ostio_cache is not
 * `enable`; otherwise allocates every rank's window. Bad cache hints fail
 * with OSTIO_EHINT on every rank (agreed). */
int ostio__cache_open(const ostio__cache_file *f, ostio__cache **out);
/* Collective: writes back every dirty page, frees the window, *c = NULL
 * (also on error). The outcome is agreed. */
int ostio__cache_close(ostio__cache **c);
/* Collective: every dirty page is written back by its owner; with drop,
 * every page leaves the cache afterwards (the file is then changed by a
 * path that does not go through the cache). Agreed; pages whose write-back
 * failed stay dirty and cached. */
int ostio__cache_flush(ostio__cache *c, int drop);
/* Independent: one contiguous range, len > 0, checked by the caller. */
int ostio__cache_write(ostio__cache *c, int64_t off, const void *buf, size_t len);
int ostio__cache_read(ostio__cache *c, int64_t off, void *buf, size_t len);
/* Collective: a collective read or write through the cache when every
 * extent of every rank is shorter than a page and within the bypass bound,
 * or in atomic mode (*served = 1, the outcome agreed); otherwise *served = 0 and nothing happened (the caller flushes
 * and uses the engine). Extents as ostio_write_all's; overlaps within a
 * rank are refused as the engine refuses them, across ranks they are not
 * checked on this path (docs/cache.md). */
int ostio__cache_coll(ostio__cache *c, int is_write, const ostio_extent *ext, size_t n,
                      void *buf, int *served);
/* Local (callers make it collective and agreed): MPI atomic mode on or off
 * (docs/cache.md, "Atomic mode"). Starts as the hint ostio_atomic. Turning
 * it on moves this rank's write-behind buffer into the pages first; an
 * error there leaves the mode unchanged. */
int ostio__cache_set_atomic(ostio__cache *c, int on);
int ostio__cache_get_atomic(const ostio__cache *c);
/* The end of the furthest byte this rank wrote through the cache since the
 * last collective flush (its own writes count in its file size at once). */
int64_t ostio__cache_local_end(const ostio__cache *c);
/* Bytes of memory the cache holds on this rank (window and buffers). */
int64_t ostio__cache_memory(const ostio__cache *c);

#endif
