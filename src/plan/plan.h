/* The data plan of one collective call, as pure functions over arrays (no
 * MPI, no I/O), so the engine, the statistics and the tests share them:
 *   1. plan_local   a rank's extents: checked, zero-length dropped, sorted.
 *   2. plan_split   sorted extents cut into pieces at domain-owner changes,
 *                   each tagged with its aggregator and its order key.
 *   3. plan_sort    at an aggregator: everyone's pieces in key order, with
 *                   the overlap check.
 *   4. plan_rounds  the aggregator's bytes cut into rounds of at most `cap`
 *                   bytes; bytes per (round, source).
 *   5. take         a cursor walks pieces round by round and yields the
 *                   segments (file range + buffer position) of one round.
 * See docs/collective.md. */
#ifndef OSTIO_ENGINE_PLAN_H
#define OSTIO_ENGINE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "core/scratch.h"
#include "ostio.h"
#include "plan/domain.h"

/* A rank's extent after plan_local: pos is where its bytes start in the
 * caller's buffer. */
typedef struct ostio__ext {
  int64_t off, len, pos;
} ostio__ext;

/* A piece: part of an extent owned by one aggregator.
 * At a source: peer = aggregator index, pos = position in the user buffer.
 * At an aggregator: peer = source rank, pos unused.
 * (major, minor) orders an aggregator's pieces: (0, file offset) for
 * contiguous domains, (component << 32 | object, object offset) for ost, so
 * an aggregator works through one object at a time. */
typedef struct ostio__xpiece {
  int64_t off, len, pos;
  int64_t major, minor;
  int32_t peer;
  int32_t pad_;
} ostio__xpiece;

/* Checks and sorts n extents (ext may be NULL when n == 0). Negative offset
 * or length, or off + len past INT64_MAX: OSTIO_EINVAL naming the index.
 * Two extents sharing a byte: OSTIO_EOVERLAP naming both. *out (malloc'ed,
 * may be NULL when *nout == 0) holds the non-empty extents by offset;
 * *bytes their total, [*lo, *hi) their span (0, 0 when empty). */
int ostio__plan_local(const ostio_extent *ext, size_t n, ostio__ext **out, size_t *nout,
                      int64_t *bytes, int64_t *lo, int64_t *hi);

/* The _in forms put their arrays in mem (a handle's scratch, reused from
 * call to call, core/scratch.h) instead of malloc: the caller does not
 * free *out, which stays valid until mem's next use. */
int ostio__plan_local_in(ostio__scratch *mem, const ostio_extent *ext, size_t n,
                         ostio__ext **out, size_t *nout, int64_t *bytes, int64_t *lo,
                         int64_t *hi);

/* Order key of the byte at off under d (see ostio__xpiece). */
int ostio__plan_key(const ostio__domains *d, int64_t off, int64_t *major, int64_t *minor);

/* Cuts sorted extents into pieces by owner; pieces sorted by (peer, key).
 * *out is malloc'ed (NULL when *np == 0). */
int ostio__plan_split(const ostio__ext *e, size_t n, const ostio__domains *d,
                      ostio__xpiece **out, size_t *np);
int ostio__plan_split_in(ostio__scratch *mem, const ostio__ext *e, size_t n,
                         const ostio__domains *d, ostio__xpiece **out, size_t *np);

/* At an aggregator: sorts by (major, minor) and fails with OSTIO_EOVERLAP
 * (detail names both byte ranges and both ranks) when two pieces share a
 * byte. */
int ostio__plan_sort(ostio__xpiece *p, size_t n);
/* mem: the merge buffer (n pieces when the input has several runs). */
int ostio__plan_sort_in(ostio__scratch *mem, ostio__xpiece *p, size_t n);
/* The same result, sorted from src into dst (n pieces each, not
 * overlapping; src is clobbered): the merge levels alternate between the
 * two arrays, so no level copies back. */
int ostio__plan_sort_into(ostio__xpiece *src, size_t n, ostio__xpiece *dst);

/* At an aggregator, straight from what the exchange delivered: pairs holds
 * (offset, length) int64 pairs, source after source, nval[s] values (two
 * per piece) from source s of nsrc. Each source's pieces come in key order
 * (plan_split sorts them), so they are merged source by source into dst (n
 * pieces: the sum of nval / 2) with a heap of the sources' next pieces,
 * keys computed on the way: the same result as keying every piece into an
 * array and plan_sort_into, without that array (48 bytes per piece written
 * and read again). *total receives the byte total. A source whose pieces
 * are not in key order is sorted all the same (a qsort of dst). Errors:
 * OSTIO_ERANGE for a negative length or lengths past 2^63 - 1 (naming the
 * source), ostio__plan_key's, OSTIO_EOVERLAP as plan_sort, OSTIO_ENOMEM. */
int ostio__plan_merge_pairs(const int64_t *pairs, const int *nval, int nsrc,
                            const ostio__domains *d, ostio__xpiece *dst, int64_t *total);

/* Cuts the sorted pieces' bytes into rounds of at most cap bytes. *nrounds
 * receives the count (0 when there are no bytes); *sched (malloc'ed,
 * nrounds * nsrc entries) the bytes of source s in round r at
 * [r * nsrc + s]. */
int ostio__plan_rounds(const ostio__xpiece *p, size_t n, int64_t cap, int nsrc,
                       int64_t **sched, int *nrounds);
/* The same when the caller knows the pieces' byte total (no pass to sum
 * them); OSTIO_EINVAL when the pieces hold more. */
int ostio__plan_rounds_total(const ostio__xpiece *p, size_t n, int64_t total, int64_t cap,
                             int nsrc, int64_t **sched, int *nrounds);

/* A contiguous part of one piece moved in one round. pos: at a source, the
 * position in the user buffer; at an aggregator, in the round buffer. */
typedef struct ostio__seg {
  int64_t off, len, pos;
  int32_t peer;
  int32_t pad_;
} ostio__seg;

typedef struct ostio__cursor {
  size_t i;        /* current piece */
  int64_t done;    /* bytes of it already taken */
} ostio__cursor;

/* Takes the next `bytes` bytes (or fewer, when the pieces end) of pieces
 * p[0, n) from cursor c into segs (room for `room` entries; a call never
 * needs more than the number of pieces it touches). With pos_from_piece
 * each segment's pos is the piece's pos plus the offset into the piece;
 * otherwise segments are laid out back to back from pos0. Returns the
 * number of segments; *taken the bytes. */
size_t ostio__take(const ostio__xpiece *p, size_t n, ostio__cursor *c, int64_t bytes,
                   int pos_from_piece, int64_t pos0, ostio__seg *segs, size_t room,
                   int64_t *taken);

#endif
