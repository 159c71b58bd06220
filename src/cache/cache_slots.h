/* One rank's share of the cooperative cache (issue 17) as it lies in its
 * MPI window: a set-associative table of page slots, each set with its own
 * ticket lock, then the page bytes. Pure: the byte layout and the slot rules
 * (find, victim, dirty range), so they are tested without MPI
 * (tests/test_cache_slots.c). Why sets and no pointers: docs/cache.md,
 * "The window". */
#ifndef OSTIO_CACHE_CACHE_SLOTS_H
#define OSTIO_CACHE_CACHE_SLOTS_H

#include <stdint.h>

#define OSTIO__CACHE_WAYS 8 /* slots per set (fewer when the pool is smaller) */

/* One slot: which page it holds and which of its bytes are newer than the
 * file. A cached page is always whole: every byte holds the file's data (as
 * read when the page came in, zeros past the end of file) or newer, so one
 * hull [dlo, dhi) of the written bytes is enough -- writing back the clean
 * bytes between two writes is harmless. */
typedef struct ostio__cache_slot {
  int64_t page;       /* page index, -1 = empty                            */
  int64_t dlo, dhi;   /* dirty bytes [dlo, dhi) of the page; dlo >= dhi: clean */
  int64_t stamp;      /* the set's clock at the last use (LRU within a set) */
} ostio__cache_slot;

/* The head of a set: a ticket lock (take: fetch-and-add `next`, wait until
 * `serving` equals the ticket; release: add 1 to `serving`), a sequence
 * count for lock-free reads on shared memory (odd while a holder changes
 * the set: docs/cache.md, "Reads without the lock") and the set's use
 * clock. Lock words and seq are only touched atomically, the clock under
 * the lock. */
typedef struct ostio__cache_set_head {
  int64_t next, serving;
  int64_t seq;
  int64_t clock;
} ostio__cache_set_head;

/* The window's byte layout: nsets x {head, ways slots}, then nsets x ways
 * pages of data (page-aligned start when the page is). */
typedef struct ostio__cache_win_layout {
  int64_t page;       /* bytes per page                                    */
  int64_t ways;       /* slots per set                                     */
  int64_t nsets;
  int64_t nslots;     /* nsets * ways <= the pool's pages                  */
  int64_t set_bytes;  /* one set's head and slots                          */
  int64_t data_off;   /* the first page's byte in the window               */
  int64_t bytes;      /* the whole window                                  */
} ostio__cache_win_layout;

/* Lays out a window for at most pool_pages pages of page bytes: ways =
 * min(OSTIO__CACHE_WAYS, pool_pages), nsets = pool_pages / ways made odd
 * (one set fewer when even: up to ways - 1 + ways pages of the pool unused).
 * OSTIO_EINVAL for pool_pages < 1 or page < 1, OSTIO_ERANGE when the window
 * would not fit in 2^62 bytes. */
int ostio__cache_win_layout_init(ostio__cache_win_layout *w, int64_t pool_pages, int64_t page);

/* The set a page index belongs to at its owner: page mod nsets. The pages
 * one owner holds under the `ost` rule are every naggr-th stripe or so
 * (powers of two), and an odd nsets is coprime with those strides: a run of
 * an owner's pages fills every set in turn, evenly. */
int64_t ostio__cache_set_of(const ostio__cache_win_layout *w, int64_t page);
/* Byte displacements in the window. */
int64_t ostio__cache_set_disp(const ostio__cache_win_layout *w, int64_t set);
int64_t ostio__cache_data_disp(const ostio__cache_win_layout *w, int64_t set, int64_t way);

/* The way holding page in the set's slots, or -1. */
int ostio__cache_set_find(const ostio__cache_slot *s, int ways, int64_t page);
/* The slot to reuse: an empty one, else the least recently used; -1 when
 * every slot is excluded by skip (a bit mask of ways; used when a dirty
 * victim could not be written back). */
int ostio__cache_set_victim(const ostio__cache_slot *s, int ways, unsigned skip);
/* Adds [lo, hi) (0 <= lo < hi <= page) to the slot's dirty hull. */
void ostio__cache_slot_dirty(ostio__cache_slot *s, int64_t lo, int64_t hi);
/* 1 when the slot holds a page with dirty bytes. */
int ostio__cache_slot_is_dirty(const ostio__cache_slot *s);

#endif
