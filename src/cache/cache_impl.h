/* The cache's private state, shared by cache.c (window, locks, collective
 * points) and cache_access.c (independent reads and writes). */
#ifndef OSTIO_CACHE_CACHE_IMPL_H
#define OSTIO_CACHE_CACHE_IMPL_H

#include "cache/cache.h"
#include "cache/cache_plan.h"
#include "cache/cache_slots.h"
#include "cache/cache_wbuf.h"

struct ostio__cache {
  MPI_Comm comm;                 /* the file's (borrowed)                    */
  int rank, nprocs;
  int owner;                     /* this rank holds pages (an aggregator)    */
  int naggr;
  const ostio_layout *layout;    /* the file's, or own_layout                */
  ostio_layout *own_layout;      /* pages of a layout-less file              */
  ostio__cache_geom geom;        /* page size, owners, bypass bound          */
  ostio__cache_win_layout wl;    /* the window's bytes                       */
  MPI_Win win;
  unsigned char *base;           /* this rank's window (NULL: owns no pages) */
  int shm;                       /* all ranks on one node: load/store        */
  unsigned char **peer;          /* shm: every rank's window, by rank        */
  int epoch;                     /* MPI_Win_lock_all is in force             */
  void *map;                     /* shm: every rank's window, one mapping    */
  int64_t map_bytes;
  ostio__cache_backing b;
  int can_fill;                  /* see ostio__cache_file                    */
  ostio__stats *st;
  unsigned char *meta;           /* one set's head and slots, fetched        */
  unsigned char *bounce;         /* one page: fills and write-backs          */
  int64_t local_end;             /* see ostio__cache_local_end               */
  int atomic;                    /* MPI atomic mode (ostio__cache_set_atomic) */
  int64_t memory;                /* bytes held on this rank                  */
  ostio__cache_wbuf wb;          /* this rank's write-behind buffer          */
  int wrote;                     /* this rank wrote since the last flush     */
  /* The one-client rule (docs/cache.md, "One writing client"): owners are
   * the candidates on the flusher's node (owners[naggr], the geometry's
   * aggregator list); a rank of another node (ships) keeps its writes until
   * each collective flush and sends them to the flusher, which puts them in
   * the pages. shippers: those ranks, known on the flusher. */
  int one_client, flusher, ships;
  int *owners;
  int *shippers;
  int nshippers;
  ostio__cache_wrec *ship_rec;   /* one chunk of shipped pieces (shippers and  */
  unsigned char *ship_data;      /* the flusher only)                          */
};

/* One chunk of pieces shipped to the flusher (cache_ship.c). */
#define OSTIO__CACHE_SHIP_BYTES ((int64_t)1 << 20)
#define OSTIO__CACHE_SHIP_RECS 4096

/* The slots of set s in this rank's own window (owners only). */
static inline ostio__cache_slot *ostio__cache_local_slots(ostio__cache *c, int64_t s)
{
  return (ostio__cache_slot *)(c->base + ostio__cache_set_disp(&c->wl, s) +
                               (int64_t)sizeof(ostio__cache_set_head));
}

/* The transport (cache_xport.c): a window of bytes on every rank (0 on
 * ranks owning no pages); reads, writes and atomic adds at an owner, each
 * complete when it returns. what names the step in an error. Create is
 * collective and agreed; free is local (after a barrier, or collective on
 * the one-sided transport: MPI_Win_free); xsync orders this rank's loads
 * and stores against the others' around a barrier. */
int ostio__cache_xwin_create(ostio__cache *c, int64_t bytes);
void ostio__cache_xwin_free(ostio__cache *c);
void ostio__cache_xsync(ostio__cache *c);
int ostio__cache_xget(ostio__cache *c, int owner, int64_t disp, void *buf, int64_t n,
                      const char *what);
int ostio__cache_xput(ostio__cache *c, int owner, int64_t disp, const void *buf, int64_t n,
                      const char *what);
int ostio__cache_xfao(ostio__cache *c, int owner, int64_t disp, int64_t add, int64_t *old,
                      const char *what);
/* A write that completes only at the next ostio__cache_xflush to the same
 * owner (one round trip for many pieces on the one-sided transport). */
int ostio__cache_xput_later(ostio__cache *c, int owner, int64_t disp, const void *buf,
                            int64_t n, const char *what);
int ostio__cache_xflush(ostio__cache *c, int owner, const char *what);

/* One contiguous range of a call. */
typedef struct ostio__cache_seg {
  int64_t off, len;
  unsigned char *buf;
  int is_write;
} ostio__cache_seg;
/* The ranges of one call (one for an independent call): each by itself, or
 * in atomic mode all under their locks at once. */
int ostio__cache_access(ostio__cache *c, const ostio__cache_seg *sg, size_t n);

/* Moves the write-behind buffer's pieces into the owners' pages (or to the
 * file when a page has no room); what could not be moved stays buffered
 * and the first error is returned. */
int ostio__cache_drain(ostio__cache *c);
/* The same for n records whose bytes are in arena (ordered here; each
 * record that landed gets len 0): this rank's buffer or pieces shipped to
 * it. */
int ostio__cache_drain_recs(ostio__cache *c, ostio__cache_wrec *rec, size_t n,
                            const unsigned char *arena);
/* Collective at a flush under the one-client rule (cache_ship.c): every
 * shipping rank sends its buffered pieces to the flusher, which drains them
 * into the pages; other ranks return at once. The shippers keep their
 * buffers (the caller empties them once the flush is agreed). */
int ostio__cache_ship(ostio__cache *c);

int ostio__cache_lock(ostio__cache *c, int owner, int64_t set);
int ostio__cache_unlock(ostio__cache *c, int owner, int64_t set);
/* Shared memory only: 1 when the set's lock was free and is now held (0
 * at once otherwise, and always on the one-sided transport). */
int ostio__cache_trylock(ostio__cache *c, int owner, int64_t set);
/* Writes the slot's dirty bytes (data: the page) to the file and marks it
 * clean; the slot unchanged on error. */
int ostio__cache_write_back(ostio__cache *c, ostio__cache_slot *s, const unsigned char *data);

#endif
