/* A rank's write-behind buffer (issue 17): in non-atomic mode a small
 * independent write is copied here and returns; the buffer is drained into
 * the owners' pages in page order -- one set lock per page touched instead
 * of one per write -- when it is full, before a read or a larger write that
 * overlaps what it holds, and at every collective flush (sync, close,
 * set_size, a collective call that goes to the engine). MPI's non-atomic
 * rules allow it: another rank may see a write only after the writer's sync
 * (sync-barrier-sync); the writer itself sees it at once (reads overlapping
 * the buffer drain it first). Pure: no MPI, no I/O, so it is tested alone
 * (tests/test_cache_wbuf.c). docs/cache.md, "Write-behind at the writer". */
#ifndef OSTIO_CACHE_CACHE_WBUF_H
#define OSTIO_CACHE_CACHE_WBUF_H

#include <stddef.h>
#include <stdint.h>

#include "cache/cache_plan.h"

/* One buffered page piece. */
typedef struct ostio__cache_wrec {
  int64_t page, in_page, len; /* the piece (len 0: already drained)          */
  int64_t at;                 /* its bytes in the arena                      */
  int64_t set;                /* its set at the owner                        */
  int64_t seq;                /* append order: later pieces win overlaps     */
  int owner;
} ostio__cache_wrec;

typedef struct ostio__cache_wbuf {
  unsigned char *arena;
  int64_t cap, used;          /* arena bytes                                 */
  ostio__cache_wrec *rec;
  size_t nrec, caprec;
  int64_t lo, hi;             /* hull of the buffered bytes; lo >= hi: none  */
  int64_t seq;
} ostio__cache_wbuf;

/* The buffer's size for a cache of size bytes per rank: a sixteenth of it,
 * at most 4 MiB (so a rank's memory stays within ostio_cache_size + 10 %),
 * 0 when that is below one 4 KiB write (no buffer). Records: one per 1 KiB
 * of arena, at least 16. */
int64_t ostio__cache_wbuf_bytes(int64_t cache_size);
/* The buffer of a rank that holds no pages and may not touch the file (the
 * one-client rule, docs/cache.md "One writing client"): it keeps every
 * write until the next collective flush, which ships it to the flusher, so
 * it gets the bytes an owner would hold, ostio_cache_size, at most 1 GiB
 * (0 below 4 KiB). Records as above. */
int64_t ostio__cache_wbuf_bytes_shipping(int64_t cache_size);
/* Allocates bytes of arena (0: an empty, disabled buffer). OSTIO_ENOMEM with
 * a detail. */
int ostio__cache_wbuf_init(ostio__cache_wbuf *w, int64_t bytes);
void ostio__cache_wbuf_free(ostio__cache_wbuf *w);
/* Memory the buffer holds. */
int64_t ostio__cache_wbuf_memory(const ostio__cache_wbuf *w);

/* 1 when a write of len bytes in npieces page pieces is small enough to be
 * buffered at all (at most a quarter of the arena). */
int ostio__cache_wbuf_takes(const ostio__cache_wbuf *w, int64_t len, size_t npieces);
/* 1 when it fits now (else drain first). */
int ostio__cache_wbuf_fits(const ostio__cache_wbuf *w, int64_t len, size_t npieces);
/* Appends one piece (which must fit: ostio__cache_wbuf_fits) whose bytes
 * are at src and start at file offset off. */
void ostio__cache_wbuf_add(ostio__cache_wbuf *w, const ostio__cache_piece *p, int64_t set,
                           int64_t off, const void *src);
/* 1 when [off, off+len) meets the hull of the buffered bytes. */
int ostio__cache_wbuf_overlaps(const ostio__cache_wbuf *w, int64_t off, int64_t len);
/* Sorts the records by (owner, set, page, seq): each page's pieces
 * together, in the order they were written, the pages in lock order. */
void ostio__cache_wbuf_order(ostio__cache_wbuf *w);
/* The same order on n records of any array (pieces shipped by another rank). */
void ostio__cache_wrec_order(ostio__cache_wrec *rec, size_t n);
/* After a drain: records with len 0 are gone; the rest keep their order
 * and bytes, the hull is recomputed (the arena is reset once nothing is
 * left). */
void ostio__cache_wbuf_compact(ostio__cache_wbuf *w, int64_t page_bytes);

#endif
