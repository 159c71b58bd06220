/* ostio_write_all / ostio_read_all: the collective engine's entry
 * (engine.h), steps 1-3 of docs/collective.md.
 *   1. Each rank checks and sorts its extents; one Allgather shares every
 *      rank's outcome, span, bytes and extent count (so errors are agreed
 *      before anything moves, and `auto` sees the whole call).
 *   2. The strategy picks the aggregators and byte ownership (domains).
 *   3. An exchanging strategy runs the two-phase steps (twophase.c: pieces
 *      to aggregators, the agreed plan, the rounds of xfer.c, the agreed
 *      outcome); `independent` does each rank's own I/O here. */
#include <stdlib.h>
#include <string.h>

#include "core/access.h"
#include "core/agree.h"
#include "core/error.h"
#include "engine/engine_impl.h"
#include "plan/objcount.h"

static int span_cmp(const void *a, const void *b)
{
  const ostio__span *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

int ostio__engine_init(int nprocs, ostio__engine_scratch **out)
{
  size_t P = (size_t)nprocs;
  ostio__engine_scratch *x = calloc(1, sizeof *x);
  *out = x;
  if (!x) return ostio__fail(OSTIO_ENOMEM, "open: out of memory");
  x->gather = malloc(P * OSTIO__SUM_N * sizeof *x->gather);
  x->spans = malloc(P * sizeof *x->spans);
  int **ints[] = {&x->ranks, &x->scount, &x->sdisp, &x->rcount, &x->rdisp, &x->agg_rounds,
                  &x->rounds_by_index};
  int ok = x->gather && x->spans;
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) ok = ok && (*ints[i] = malloc(P * sizeof(int)));
  ok = ok && (x->gather2 = malloc(2 * P * sizeof(int))) &&
       (x->sp_start = malloc((P + 1) * sizeof(size_t))) &&
       (x->src_sched = malloc(P * sizeof(int64_t *)));
  return ok ? 0 : ostio__fail(OSTIO_ENOMEM, "open: no memory for %zu ranks' call state", P);
}

void ostio__engine_fini(ostio__engine_scratch *x)
{
  if (!x) return;
  free(x->gather); free(x->spans); free(x->ranks); free(x->scount); free(x->sdisp);
  free(x->rcount); free(x->rdisp); free(x->agg_rounds); free(x->rounds_by_index);
  free(x->gather2); free(x->sp_start); free(x->src_sched);
  ostio__scratch *calls[] = {&x->ext, &x->sp, &x->local, &x->sbuf, &x->rbuf, &x->ap, &x->col, &x->src_sched_buf};
  for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) ostio__scratch_free(calls[i]);
  ostio__xfer_scratch_free(&x->xfer);
  free(x);
}

/* Fills c from the gathered summaries; returns the worst code and its rank. */
static int summarize(const int64_t *all, int nprocs, ostio__span *sp, ostio__call *c,
                     int *worst_rank)
{
  int worst = 0;
  int ns = 0;
  c->lo = INT64_MAX;
  c->hi = 0;
  for (int i = 0; i < nprocs; i++) {
    const int64_t *s = all + (size_t)i * OSTIO__SUM_N;
    if (s[OSTIO__SUM_RC] < worst) {
      worst = (int)s[OSTIO__SUM_RC];
      *worst_rank = i;
    }
    c->bytes += s[OSTIO__SUM_BYTES];
    c->nextents += s[OSTIO__SUM_NEXT];
    if (s[OSTIO__SUM_NEXT] > 0) {
      if (s[OSTIO__SUM_LO] < c->lo) c->lo = s[OSTIO__SUM_LO];
      if (s[OSTIO__SUM_HI] > c->hi) c->hi = s[OSTIO__SUM_HI];
      sp[ns++] = (ostio__span){s[OSTIO__SUM_LO], s[OSTIO__SUM_HI]};
    }
  }
  if (c->lo > c->hi) c->lo = c->hi = 0;
  c->interleaved = 0;
  if (ns > 1) qsort(sp, (size_t)ns, sizeof *sp, span_cmp);
  int64_t reach = ns ? sp[0].hi : 0;
  for (int i = 1; i < ns && !c->interleaved; i++) {
    if (sp[i].lo < reach) c->interleaved = 1;
    if (sp[i].hi > reach) reach = sp[i].hi;
  }
  return worst;
}

/* The stride and piece length of n sorted extents when they are regular
 * (n >= 2, every length and every step between starts the same), else 0. */
static void regular(const ostio__ext *e, size_t n, int64_t *stride, int64_t *plen)
{
  *stride = *plen = 0;
  if (n < 2) return;
  int64_t s = e[1].off - e[0].off, l = e[0].len;
  for (size_t i = 1; i < n; i++)
    if (e[i].len != l || e[i].off - e[i - 1].off != s) return;
  *stride = s;
  *plen = l;
}

/* 1 when the interleaved ranks' extents provably share no byte from the
 * summaries alone: every rank with extents is regular with the same stride
 * S and piece length L, and its first offset modulo S (its residue) is at
 * least L away from every other rank's, around the circle of S. Pieces
 * a0 + iS and b0 + jS then never meet, whatever i and j. Any other case
 * (0) is checked by exchanging the offsets (two_phase, check_only). res:
 * P entries of scratch. */
static int disjoint_by_stride(const int64_t *all, int nprocs, ostio__span *res)
{
  int64_t S = 0, L = 0;
  int m = 0;
  for (int i = 0; i < nprocs; i++) {
    const int64_t *s = all + (size_t)i * OSTIO__SUM_N;
    if (s[OSTIO__SUM_NEXT] == 0) continue;
    if (s[OSTIO__SUM_STRIDE] <= 0 || (m && (s[OSTIO__SUM_STRIDE] != S || s[OSTIO__SUM_PLEN] != L)))
      return 0;
    S = s[OSTIO__SUM_STRIDE];
    L = s[OSTIO__SUM_PLEN];
    res[m++] = (ostio__span){s[OSTIO__SUM_LO] % S, 0};
  }
  if (m < 2 || L > S) return 0;
  qsort(res, (size_t)m, sizeof *res, span_cmp);
  for (int i = 1; i < m; i++)
    if (res[i].lo - res[i - 1].lo < L) return 0;
  return S - res[m - 1].lo + res[0].lo >= L;
}

void ostio__engine_count_objects(const ostio__engine_ctx *x, const void *r, size_t n,
                                 size_t stride)
{
  int64_t obj = 0, osts = 0;
  if (n == 0 || ostio__count_objects(x->layout, r, n, stride, &obj, &osts) < 0) return;
  ostio__stats *s = x->stats;
  ostio__stat_add(s, OSTIO__STAT_aggr_calls, 1);
  ostio__stat_add(s, OSTIO__STAT_objects_touched, obj);
  ostio__stat_max(s, OSTIO__STAT_objects_max, obj);
  ostio__stat_add(s, OSTIO__STAT_osts_touched, osts);
  ostio__stat_max(s, OSTIO__STAT_osts_max, osts);
}

/* Each rank's own extents straight to the file system. */
static int local_io(const ostio__engine_ctx *x, int is_write, const ostio__ext *e, size_t ne,
                    char *buf)
{
  if (ne == 0) return 0;
  ostio__io_req *r = ostio__scratch_get(&x->scratch->local, ne, sizeof *r);
  if (!r) return ostio__fail(OSTIO_ENOMEM, "independent: no memory for %zu requests", ne);
  for (size_t i = 0; i < ne; i++) r[i] = (ostio__io_req){e[i].off, e[i].len, buf + e[i].pos};
  /* time_io: counted by the io layer (src/io/io.c), once. */
  /* Reads are sieved only with romio_ds_read=enable (docs/collective.md,
   * "Sieved reads"): where measured, sieving did not beat one pread per
   * piece, so automatic reads piece by piece. */
  ostio__io_sieve sv = {x->hints->romio_ds_read == OSTIO__TRI_ENABLE ? OSTIO__TRI_ENABLE
                                                                     : OSTIO__TRI_DISABLE,
                        x->hints->ind_rd_buffer_size};
  int rc = is_write ? ostio__io_write_batch(x->io, r, ne)
                    : ostio__io_read_batch_sieved(x->io, r, ne, &sv);
  ostio__engine_count_objects(x, e, ne, sizeof *e);
  return rc;
}

/* A call of a settled handle: no agreement. The strategy is picked again
 * from the last agreed summary (the statistics count it as before). A
 * failure is this rank's: one of its arguments (rc from the local checks)
 * is returned and forgotten; one of the I/O is returned and also kept for
 * the next agreement (docs/errors.md). */
static int settled(const ostio__engine_ctx *x, ostio__settle *t, int is_write, int rc,
                   const ostio__ext *e, size_t ne, char *buf, double t0)
{
  t->skipped++;
  ostio__stats *st = x->stats;
  const ostio__strategy *s = NULL;
  if (rc < 0) return rc; /* the caller's arguments: this rank moved nothing */
  if ((rc = ostio__strategy_pick(&t->call[is_write], st, &s)) == 0 && s->exchange)
    rc = ostio__fail(OSTIO_EHINT, "collective: a settled handle picked %s", s->name);
  if (rc == 0) {
    ostio__stat_add(st, is_write ? OSTIO__STAT_coll_writes : OSTIO__STAT_coll_reads, 1);
    *x->last_strategy = s->name;
    rc = local_io(x, is_write, e, ne, buf);
  }
  st->t[OSTIO__T_time_total] += ostio__now() - t0;
  return ostio__settle_failed(t, rc);
}

int ostio__engine_mpi_fail(const char *what)
{
  return ostio__fail(OSTIO_EMPI, "collective: %s failed", what);
}

int ostio__engine_coll(const ostio__engine_ctx *x, int is_write, const ostio_extent *ext,
                       size_t n, void *buf)
{
  return ostio__engine_coll_checked(x, 0, is_write, ext, n, buf);
}

int ostio__engine_coll_checked(const ostio__engine_ctx *x, int local_rc, int is_write,
                               const ostio_extent *ext, size_t n, void *buf)
{
  if (!x) return ostio__fail(OSTIO_EINVAL, "NULL file handle");
  double t0 = ostio__now();
  const int P = x->nprocs;
  ostio__ext *e = NULL;
  size_t ne = 0;
  int64_t bytes = 0, lo = 0, hi = 0;
  int rc = local_rc < 0 ? local_rc : 0;
  if (rc == 0) rc = ostio__check_access(x->path, x->can_read, x->can_write, is_write, NULL);
  if (rc == 0) rc = ostio__plan_local_in(&x->scratch->ext, ext, n, &e, &ne, &bytes, &lo, &hi);
  if (rc == 0 && bytes > 0 && !buf)
    rc = ostio__fail(OSTIO_EINVAL, "NULL buffer for %lld bytes", (long long)bytes);

  ostio__settle *t = &x->scratch->settle;
  if (ostio__settle_skip(t, x->hints, is_write)) return settled(x, t, is_write, rc, e, ne, buf, t0);
  if (rc == 0) rc = ostio__settle_take(t);

  int64_t stride = 0, plen = 0;
  if (rc == 0) regular(e, ne, &stride, &plen);
  int64_t mine[OSTIO__SUM_N] = {rc, lo, hi, bytes, (int64_t)ne, stride, plen};
  int64_t *all = x->scratch->gather;
  if (MPI_Allgather(mine, OSTIO__SUM_N, MPI_INT64_T, all, OSTIO__SUM_N, MPI_INT64_T,
                    x->comm) != MPI_SUCCESS) {
    return ostio__agree(x->comm, ostio__engine_mpi_fail("MPI_Allgather"));
  }
  ostio__call c = {.l = x->layout, .h = x->hints, .nprocs = P, .nnodes = x->nnodes,
                   .is_write = is_write};
  int wr = 0;
  int worst = summarize(all, P, x->scratch->spans, &c, &wr);
  if (worst < 0) {
    ostio__settle_agreed(t, x->hints, is_write, worst, &c, NULL);
    return ostio__agree_known(x->comm, rc, worst, wr);
  }
  ostio__stats *st = x->stats;
  ostio__stat_add(st, is_write ? OSTIO__STAT_coll_writes : OSTIO__STAT_coll_reads, 1);

  const ostio__strategy *s = NULL;
  if ((rc = ostio__strategy_pick(&c, st, &s)) < 0) {
    return ostio__agree(x->comm, rc);
  }
  *x->last_strategy = s->name;
  ostio__settle_agreed(t, x->hints, is_write, 0, &c, s);

  if (c.bytes == 0) {
    rc = 0;
  } else if (!s->exchange) {
    rc = 0;
    if (c.interleaved && P > 1 && !disjoint_by_stride(all, P, x->scratch->spans))
      rc = ostio__two_phase(x, is_write, s, &c, e, ne, buf, 1);
    if (rc == 0) rc = ostio__agree(x->comm, local_io(x, is_write, e, ne, buf));
  } else {
    rc = ostio__two_phase(x, is_write, s, &c, e, ne, buf, 0);
  }
  st->t[OSTIO__T_time_total] += ostio__now() - t0;
  return rc;
}
