/* The rounds of a two-phase call; see xfer.h and docs/collective.md. */
#include "engine/xfer.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "engine/bufcache.h"

#define TAG 0x0511
#define IO_CHUNK 64 /* requests per batch between MPI progress calls */
#define IO_CHUNK_BYTES ((int64_t)1 << 20) /* ... or bytes, whichever comes first */

typedef struct slot {
  char *buf;
  ostio__seg *segs;
  size_t nsegs;
  MPI_Request *req;
  MPI_Status *stat;        /* not MPI_STATUSES_IGNORE: gcc 12 misreads it */
  MPI_Datatype *types;
  int nreq, ntypes;
  ostio__seg *self;        /* my source segments to myself (user buffer)  */
  size_t nself;
  int direct;              /* every byte of the round is mine: the file I/O
                              uses the user buffer, no round-buffer copy   */
} slot;

struct run_state {
  const ostio__xfer *x;
  int nprocs;
  slot s[2];
  ostio__cursor acur;            /* aggregator cursor over ap          */
  ostio__cursor *scur;           /* source cursors, one per aggregator */
  ostio__seg *tmp;               /* source-side segments of one round  */
  size_t tmp_room, seg_room;
  int *blen;                     /* datatype scratch                   */
  MPI_Aint *disp;
  size_t *start, *fill;          /* P + 1: the round's blocks by source  */
  ostio__io_req *reqs;
  char *scratch;                 /* read-modify-write span (page-aligned) */
  char *block;                   /* the round buffers (bufcache.h)     */
  size_t block_size;
  int rc;                        /* first error of this rank           */
};
typedef struct run_state run_state;

static ostio__stats *stats(const run_state *st) { return st->x->ctx->stats; }

static int note(run_state *st, int rc)
{
  if (rc < 0 && st->rc == 0) st->rc = rc;
  return rc;
}

/* The MPI datatype of n blocks (length blen[i] at disp[i], in stream
 * order, already merged where they touch): the fewest-entry form MPI has,
 * so a view of one-byte blocks costs one vector, not one entry per byte.
 * *count and *base_off give the count of *t to send from base + *base_off;
 * *t is MPI_BYTE (nothing to free) for a single block. */
static int make_type(int n, const int *blen, const MPI_Aint *disp, MPI_Datatype *t,
                     int *count, MPI_Aint *base_off)
{
  *base_off = 0;
  *count = 1;
  if (n == 1) {
    *t = MPI_BYTE;
    *count = blen[0];
    *base_off = disp[0];
    return MPI_SUCCESS;
  }
  int same_len = 1, same_stride = 1;
  MPI_Aint stride = disp[1] - disp[0];
  for (int i = 1; i < n && (same_len || same_stride); i++) {
    same_len = same_len && blen[i] == blen[0];
    same_stride = same_stride && disp[i] - disp[i - 1] == stride;
  }
  int e;
  if (same_len && same_stride) {
    *base_off = disp[0];
    e = MPI_Type_create_hvector(n, blen[0], stride, MPI_BYTE, t);
  } else if (same_len) {
    e = MPI_Type_create_hindexed_block(n, blen[0], disp, MPI_BYTE, t);
  } else {
    e = MPI_Type_create_hindexed(n, blen, disp, MPI_BYTE, t);
  }
  if (e == MPI_SUCCESS) e = MPI_Type_commit(t);
  return e;
}

/* Adds one nonblocking transfer of the nb blocks (blen, disp; positions
 * relative to base) to or from peer. */
static int post_blocks(run_state *st, slot *sl, char *base, const int *blen,
                       const MPI_Aint *disp, int nb, int peer, int send)
{
  MPI_Datatype t;
  int count;
  MPI_Aint at;
  if (nb == 0) return 0;
  if (make_type(nb, blen, disp, &t, &count, &at) != MPI_SUCCESS)
    return note(st, ostio__fail(OSTIO_EMPI, "collective: building the datatype of %d blocks "
                                "failed", nb));
  if (t != MPI_BYTE) sl->types[sl->ntypes++] = t;
  MPI_Request *r = &sl->req[sl->nreq++];
  MPI_Comm comm = st->x->ctx->comm;
  int e = send ? MPI_Isend(base + at, count, t, peer, TAG, comm, r)
               : MPI_Irecv(base + at, count, t, peer, TAG, comm, r);
  if (e != MPI_SUCCESS) {
    sl->nreq--;
    return note(st, ostio__fail(OSTIO_EMPI, "collective: MPI_I%s to rank %d failed",
                                send ? "send" : "recv", peer));
  }
  return 0;
}

/* Appends a block of len bytes at pos to the blocks [lo, *k): merged into
 * the last one when it ends at pos. The byte stream of a transfer is its
 * blocks' bytes in order, so blocks that touch in memory are one,
 * whatever their file offsets. */
static void add_block(int *blen, MPI_Aint *disp, size_t lo, size_t *k, int64_t pos,
                      int64_t len)
{
  size_t j = *k;
  if (j > lo && disp[j - 1] + blen[j - 1] == (MPI_Aint)pos && blen[j - 1] <= INT32_MAX - len) {
    blen[j - 1] += (int)len;
    return;
  }
  blen[j] = (int)len;
  disp[j] = (MPI_Aint)pos;
  *k = j + 1;
}

/* Copies between the user buffer and the round buffer for the bytes this
 * rank sends to itself: the round buffer's blocks (blen, disp) and my
 * source segments are both in the aggregator's key order and cover the
 * same bytes, so a two-pointer walk pairs them. */
static void copy_self(run_state *st, const slot *sl, const int *blen, const MPI_Aint *disp,
                      size_t na)
{
  const ostio__seg *ss = sl->self;
  char *rbuf = sl->buf;
  size_t i = 0, j = 0;
  int64_t di = 0, dj = 0;
  while (i < na && j < sl->nself) {
    int64_t n = blen[i] - di < ss[j].len - dj ? blen[i] - di : ss[j].len - dj;
    char *r = rbuf + disp[i] + di, *u = st->x->ubuf + ss[j].pos + dj;
    if (n == 1) { /* a view of one-byte blocks: no call per byte */
      if (st->x->is_write) *r = *u;
      else *u = *r;
    } else if (st->x->is_write) {
      memcpy(r, u, (size_t)n);
    } else {
      memcpy(u, r, (size_t)n);
    }
    if ((di += n) == blen[i]) i++, di = 0;
    if ((dj += n) == ss[j].len) j++, dj = 0;
  }
}

/* The aggregator's segments of round r, into slot sl. */
static void prep_agg(run_state *st, slot *sl, int r)
{
  const ostio__xfer *x = st->x;
  sl->nsegs = sl->nself = 0;
  sl->direct = 0;
  if (x->myagg < 0 || r >= x->my_rounds) return;
  int64_t want = 0, got = 0;
  for (int s = 0; s < st->nprocs; s++) want += x->agg_sched[(size_t)r * st->nprocs + s];
  sl->nsegs = ostio__take(x->ap, x->nap, &st->acur, want, 0, 0, sl->segs, st->seg_room, &got);
  /* My own bytes for this round, taken here (not in post) so a read can
   * go straight into the user buffer before the round is posted. */
  int a = x->myagg;
  int64_t mine = x->src_sched[a] ? x->src_sched[a][r] : 0;
  if (mine > 0) {
    size_t lo = x->sp_start[a], hi = x->sp_start[a + 1];
    sl->nself = ostio__take(x->sp + lo, hi - lo, &st->scur[a], mine, 1, 0, sl->self,
                            st->tmp_room, &got);
  }
  sl->direct = !x->rmw && mine > 0 && mine == want && sl->nself <= st->seg_room;
}

/* Posts round r: the source side to every aggregator, and the aggregator
 * side from/to every source, using the segments prepared in sl. */
static void post(run_state *st, slot *sl, int r)
{
  const ostio__xfer *x = st->x;
  double t0 = ostio__now();
  sl->nreq = sl->ntypes = 0;
  for (int a = 0; a < x->naggr; a++) {
    if (r >= x->agg_rounds[a] || a == x->myagg) continue; /* mine: prep_agg */
    int64_t bytes = x->src_sched[a] ? x->src_sched[a][r] : 0, got = 0;
    if (bytes == 0) continue;
    size_t lo = x->sp_start[a], hi = x->sp_start[a + 1], nb = 0;
    size_t n = ostio__take(x->sp + lo, hi - lo, &st->scur[a], bytes, 1, 0, st->tmp,
                           st->tmp_room, &got);
    for (size_t i = 0; i < n; i++) add_block(st->blen, st->disp, 0, &nb, st->tmp[i].pos,
                                             st->tmp[i].len);
    post_blocks(st, sl, x->ubuf, st->blen, st->disp, (int)nb, x->ranks[a], x->is_write);
  }
  if (x->myagg >= 0 && sl->nsegs > 0) {
    /* The round's segments as blocks grouped by source, in their order:
     * source s's blocks at [start[s], fill[s]). */
    size_t *start = st->start, *fill = st->fill;
    memset(start, 0, (size_t)(st->nprocs + 1) * sizeof *start);
    for (size_t i = 0; i < sl->nsegs; i++) start[sl->segs[i].peer + 1]++;
    for (int s = 0; s < st->nprocs; s++) start[s + 1] += start[s];
    memcpy(fill, start, (size_t)st->nprocs * sizeof *fill);
    for (size_t i = 0; i < sl->nsegs; i++) {
      const ostio__seg *g = &sl->segs[i];
      add_block(st->blen, st->disp, start[g->peer], &fill[g->peer], g->pos, g->len);
    }
    for (int s = 0; s < st->nprocs; s++) {
      size_t lo = start[s], nb = fill[s] - lo;
      if (nb == 0) continue;
      if (s == x->ctx->rank) {
        if (!sl->direct) copy_self(st, sl, st->blen + lo, st->disp + lo, nb);
      } else {
        post_blocks(st, sl, sl->buf, st->blen + lo, st->disp + lo, (int)nb, s, !x->is_write);
      }
    }
  }
  stats((run_state *)st)->t[OSTIO__T_time_exchange] += ostio__now() - t0;
}

static void wait_slot(run_state *st, slot *sl)
{
  double t0 = ostio__now();
  if (sl->nreq && MPI_Waitall(sl->nreq, sl->req, sl->stat) != MPI_SUCCESS)
    note(st, ostio__fail(OSTIO_EMPI, "collective: MPI_Waitall failed"));
  for (int i = 0; i < sl->ntypes; i++) MPI_Type_free(&sl->types[i]);
  sl->nreq = sl->ntypes = 0;
  stats(st)->t[OSTIO__T_time_wait] += ostio__now() - t0;
}

/* 1 when the bytes [from, to) all belong to this aggregator. */
static int gap_is_mine(const run_state *st, int64_t from, int64_t to)
{
  int64_t run_end;
  int a = ostio__domain_owner(st->x->d, from, &run_end);
  return a == st->x->myagg && run_end >= to;
}

/* Issues nr requests in chunks, driving MPI progress on `other` between
 * chunks so the next round's exchange moves while we write. */
static int issue(run_state *st, size_t nr, int write, slot *other)
{
  int rc = 0;
  for (size_t k = 0, m; k < nr && rc == 0; k += m) {
    int64_t bytes = st->reqs[k].len;
    for (m = 1; k + m < nr && m < IO_CHUNK && bytes < IO_CHUNK_BYTES; m++)
      bytes += st->reqs[k + m].len;
    rc = write ? ostio__io_write_batch(st->x->ctx->io, st->reqs + k, m)
               : ostio__io_read_batch(st->x->ctx->io, st->reqs + k, m);
    if (other && other->nreq) {
      int flag;
      MPI_Testall(other->nreq, other->req, &flag, other->stat);
      if (flag) other->nreq = 0;
    }
  }
  return rc;
}

/* Read-modify-write of one span [s0, s1) covering segs[i0, i1). */
static int rmw_span(run_state *st, const slot *sl, size_t i0, size_t i1, int64_t s0, int64_t s1)
{
  ostio__io *io = st->x->ctx->io;
  int rc = ostio__io_pread(io, st->scratch, (size_t)(s1 - s0), s0);
  if (rc < 0) return rc;
  for (size_t i = i0; i < i1; i++)
    memcpy(st->scratch + (sl->segs[i].off - s0), sl->buf + sl->segs[i].pos,
           (size_t)sl->segs[i].len);
  ostio__stat_add(stats(st), OSTIO__STAT_rmw, 1);
  return ostio__io_pwrite(io, st->scratch, (size_t)(s1 - s0), s0);
}

/* The aggregator's file I/O for the round in sl. */
static void do_io(run_state *st, slot *sl, slot *other)
{
  const ostio__xfer *x = st->x;
  if (x->myagg < 0 || sl->nsegs == 0 || st->rc < 0) return;
  size_t nr = 0, i = 0;
  int rc = 0;
  if (sl->direct) { /* the batch merges what is adjacent in file and memory */
    for (size_t k = 0; k < sl->nself; k++)
      st->reqs[k] = (ostio__io_req){sl->self[k].off, sl->self[k].len, x->ubuf + sl->self[k].pos};
    note(st, issue(st, sl->nself, x->is_write, other));
    return;
  }
  while (i < sl->nsegs && rc == 0) {
    const ostio__seg *a = &sl->segs[i];
    int64_t end = a->off + a->len, span_end = end;
    size_t j = i + 1;
    int holes = 0;
    /* Extend while the next segment follows in the file, directly or (with
     * read-modify-write) across a hole that only this aggregator owns. */
    while (j < sl->nsegs) {
      const ostio__seg *b = &sl->segs[j];
      if (b->off == span_end) {
        span_end += b->len;
      } else if (b->off > span_end && gap_is_mine(st, span_end, b->off)) {
        ostio__stat_add(stats(st), OSTIO__STAT_gaps, 1);
        if (!x->rmw || b->off + b->len - a->off > x->cap) break;
        holes = 1;
        span_end = b->off + b->len;
      } else {
        break;
      }
      j++;
    }
    if (holes) {
      if (nr) rc = issue(st, nr, 1, other);
      nr = 0;
      if (rc == 0) rc = rmw_span(st, sl, i, j, a->off, span_end);
    } else {
      st->reqs[nr++] = (ostio__io_req){a->off, span_end - a->off, sl->buf + a->pos};
    }
    i = j;
  }
  if (rc == 0 && nr) rc = issue(st, nr, x->is_write, other);
  note(st, rc); /* time_io: counted once, by the io layer (src/io/io.c) */
}

static int setup(run_state *st, const ostio__xfer *x)
{
  memset(st, 0, sizeof *st);
  st->x = x;
  st->nprocs = x->ctx->nprocs;
  ostio__xfer_scratch *m = x->mem;
  size_t nsp = x->sp_start[x->naggr];
  st->seg_room = x->nap < (size_t)x->cap ? x->nap + 1 : (size_t)x->cap + 1;
  st->tmp_room = (nsp > st->seg_room ? nsp : st->seg_room) + 1;
  size_t nreq = (size_t)x->naggr + (size_t)st->nprocs;
  st->scur = ostio__scratch_get(&m->scur, (size_t)x->naggr, sizeof *st->scur);
  if (st->scur) memset(st->scur, 0, (size_t)x->naggr * sizeof *st->scur);
  st->tmp = ostio__scratch_get(&m->tmp, st->tmp_room, sizeof *st->tmp);
  st->blen = ostio__scratch_get(&m->blen, st->tmp_room, sizeof *st->blen);
  st->disp = ostio__scratch_get(&m->disp, st->tmp_room, sizeof *st->disp);
  st->start = ostio__scratch_get(&m->start, (size_t)st->nprocs + 1, sizeof *st->start);
  st->fill = ostio__scratch_get(&m->fill, (size_t)st->nprocs + 1, sizeof *st->fill);
  int ok = st->scur && st->tmp && st->blen && st->disp && st->start && st->fill;
  int nslots = x->pipeline ? 2 : 1;
  if (x->myagg >= 0 && x->my_rounds > 0) {
    int64_t total = 0; /* my bytes as an aggregator: the schedule's sum */
    for (size_t i = 0; i < (size_t)x->my_rounds * (size_t)st->nprocs; i++)
      total += x->agg_sched[i];
    size_t bsize = (size_t)(total < x->cap ? total : x->cap);
    st->reqs = ostio__scratch_get(&m->reqs, st->seg_room, sizeof *st->reqs);
    ok = ok && st->reqs;
    if (x->rmw) ok = ok && (st->scratch = ostio__scratch_get(&m->rmw, (size_t)x->cap, 1));
    if (bsize == 0) bsize = 1;
    st->block = ostio__bufcache_get((size_t)nslots * bsize, &st->block_size);
    ok = ok && st->block;
    for (int k = 0; k < nslots; k++) {
      st->s[k].buf = st->block ? st->block + (size_t)k * bsize : NULL;
      ok = ok &&
           (st->s[k].segs = ostio__scratch_get(&m->segs[k], st->seg_room, sizeof(ostio__seg))) &&
           (st->s[k].self = ostio__scratch_get(&m->self[k], st->tmp_room, sizeof(ostio__seg)));
    }
  }
  for (int k = 0; k < 2; k++)
    ok = ok && (st->s[k].req = ostio__scratch_get(&m->req[k], nreq, sizeof(MPI_Request))) &&
         (st->s[k].stat = ostio__scratch_get(&m->stat[k], nreq, sizeof(MPI_Status))) &&
         (st->s[k].types = ostio__scratch_get(&m->types[k], nreq, sizeof(MPI_Datatype)));
  return ok ? 0 : ostio__fail(OSTIO_ENOMEM, "collective: no memory for the round buffers "
                              "(cb_buffer_size %lld)", (long long)x->ctx->hints->cb_buffer_size);
}

/* The arrays stay in x->mem for the next call; the round buffers go back
 * to the cache. */
static void teardown(run_state *st)
{
  ostio__bufcache_put(st->block, st->block_size);
}

void ostio__xfer_scratch_free(ostio__xfer_scratch *s)
{
  ostio__scratch *one[] = {&s->scur, &s->tmp, &s->blen, &s->disp, &s->start, &s->fill,
                           &s->reqs, &s->rmw};
  for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) ostio__scratch_free(one[i]);
  for (int k = 0; k < 2; k++) {
    ostio__scratch_free(&s->segs[k]);
    ostio__scratch_free(&s->self[k]);
    ostio__scratch_free(&s->req[k]);
    ostio__scratch_free(&s->stat[k]);
    ostio__scratch_free(&s->types[k]);
  }
}

int ostio__xfer_begin(const ostio__xfer *x, ostio__xfer_state **out)
{
  run_state *st = malloc(sizeof *st);
  *out = st;
  if (!st) return ostio__fail(OSTIO_ENOMEM, "collective: out of memory");
  return setup(st, x);
}

void ostio__xfer_end(ostio__xfer_state *st)
{
  if (!st) return;
  teardown(st);
  free(st);
}

int ostio__xfer_run(ostio__xfer_state *st)
{
  const ostio__xfer *x = st->x;
  int R = x->nrounds;
  if (!x->pipeline) {
    slot *sl = &st->s[0];
    for (int r = 0; r < R; r++) {
      prep_agg(st, sl, r);
      if (x->is_write) {
        post(st, sl, r);
        wait_slot(st, sl);
        do_io(st, sl, NULL);
      } else {
        do_io(st, sl, NULL);
        post(st, sl, r);
        wait_slot(st, sl);
      }
    }
  } else if (x->is_write) {
    if (R > 0) {
      prep_agg(st, &st->s[0], 0);
      post(st, &st->s[0], 0);
    }
    for (int r = 0; r < R; r++) {
      slot *cur = &st->s[r & 1], *next = &st->s[(r + 1) & 1];
      wait_slot(st, cur);
      if (r + 1 < R) {
        prep_agg(st, next, r + 1);
        post(st, next, r + 1);
      }
      do_io(st, cur, r + 1 < R ? next : NULL);
    }
  } else {
    if (R > 0) {
      prep_agg(st, &st->s[0], 0);
      do_io(st, &st->s[0], NULL);
      post(st, &st->s[0], 0);
    }
    for (int r = 0; r < R; r++) {
      slot *cur = &st->s[r & 1], *next = &st->s[(r + 1) & 1];
      if (r + 1 < R) {
        prep_agg(st, next, r + 1);
        do_io(st, next, cur);
        post(st, next, r + 1);
      }
      wait_slot(st, cur);
    }
  }
  return st->rc;
}
