/* ostio_write_all / ostio_read_all: the collective engine.
 *   1. Each rank checks and sorts its extents; one Allgather shares every
 *      rank's outcome, span, bytes and extent count (so errors are agreed
 *      before anything moves, and `auto` sees the whole call).
 *   2. The strategy picks the aggregators and byte ownership (domains).
 *   3. Pieces' offsets and lengths go to their aggregators (Alltoall +
 *      Alltoallv); each aggregator sorts them, checks overlaps and cuts its
 *      bytes into rounds of at most cb_buffer_size / buffers; an Allgather
 *      agrees on the outcome and the round counts; an Alltoallv tells every
 *      source its bytes per round.
 *   4. The rounds run (xfer.c); a last agreement makes the outcome
 *      collective.
 * See docs/collective.md. */
#include <stdlib.h>
#include <string.h>

#include "core/access.h"
#include "core/agree.h"
#include "core/error.h"
#include "plan/plan.h"
#include "engine/strategy.h"
#include "plan/objcount.h"
#include "engine/xfer.h"
#include "file/file.h"

enum { S_RC, S_LO, S_HI, S_BYTES, S_NEXT, S_N };

typedef struct span {
  int64_t lo, hi;
} span;

static int span_cmp(const void *a, const void *b)
{
  const span *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

/* Per-handle arrays of a call, sized by the number of ranks. They are
 * allocated once at open, where a failure is agreed, so that no rank of a
 * collective call can fail an allocation that its peers did not and then
 * call a different collective. */
struct ostio__coll_scratch {
  int64_t *gather;            /* P * S_N: the call summaries                 */
  span *spans;                /* P                                           */
  int *ranks, *scount, *sdisp, *rcount, *rdisp, *agg_rounds, *rounds_by_index; /* P each */
  int *gather2;               /* 2 * P: {code, rounds} per rank              */
  size_t *sp_start;           /* P + 1                                       */
  int64_t **src_sched;        /* P                                           */
};

int ostio__coll_init(ostio_file *fh)
{
  size_t P = (size_t)fh->nprocs;
  ostio__coll_scratch *x = calloc(1, sizeof *x);
  fh->scratch = x;
  if (!x) return ostio__fail(OSTIO_ENOMEM, "open: out of memory");
  x->gather = malloc(P * S_N * sizeof *x->gather);
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

void ostio__coll_fini(ostio_file *fh)
{
  ostio__coll_scratch *x = fh->scratch;
  if (!x) return;
  free(x->gather); free(x->spans); free(x->ranks); free(x->scount); free(x->sdisp);
  free(x->rcount); free(x->rdisp); free(x->agg_rounds); free(x->rounds_by_index);
  free(x->gather2); free(x->sp_start); free(x->src_sched);
  free(x);
  fh->scratch = NULL;
}

/* Fills c from the gathered summaries; returns the worst code and its rank. */
static int summarize(const int64_t *all, int nprocs, span *sp, ostio__call *c, int *worst_rank)
{
  int worst = 0;
  int ns = 0;
  c->lo = INT64_MAX;
  c->hi = 0;
  for (int i = 0; i < nprocs; i++) {
    const int64_t *s = all + (size_t)i * S_N;
    if (s[S_RC] < worst) {
      worst = (int)s[S_RC];
      *worst_rank = i;
    }
    c->bytes += s[S_BYTES];
    c->nextents += s[S_NEXT];
    if (s[S_NEXT] > 0) {
      if (s[S_LO] < c->lo) c->lo = s[S_LO];
      if (s[S_HI] > c->hi) c->hi = s[S_HI];
      sp[ns++] = (span){s[S_LO], s[S_HI]};
    }
  }
  if (c->lo > c->hi) c->lo = c->hi = 0;
  c->interleaved = 0;
  qsort(sp, (size_t)ns, sizeof *sp, span_cmp);
  int64_t reach = ns ? sp[0].hi : 0;
  for (int i = 1; i < ns && !c->interleaved; i++) {
    if (sp[i].lo < reach) c->interleaved = 1;
    if (sp[i].hi > reach) reach = sp[i].hi;
  }
  return worst;
}

static void count_objects(ostio_file *fh, const void *r, size_t n, size_t stride)
{
  int64_t obj = 0, osts = 0;
  if (n == 0 || ostio__count_objects(fh->layout, r, n, stride, &obj, &osts) < 0) return;
  ostio__stats *s = &fh->stats;
  ostio__stat_add(s, OSTIO__STAT_aggr_calls, 1);
  ostio__stat_add(s, OSTIO__STAT_objects_touched, obj);
  ostio__stat_max(s, OSTIO__STAT_objects_max, obj);
  ostio__stat_add(s, OSTIO__STAT_osts_touched, osts);
  ostio__stat_max(s, OSTIO__STAT_osts_max, osts);
}

/* Each rank's own extents straight to the file system. */
static int local_io(ostio_file *fh, int is_write, const ostio__ext *e, size_t ne, char *buf)
{
  if (ne == 0) return 0;
  ostio__io_req *r = malloc(ne * sizeof *r);
  if (!r) return ostio__fail(OSTIO_ENOMEM, "independent: no memory for %zu requests", ne);
  for (size_t i = 0; i < ne; i++) r[i] = (ostio__io_req){e[i].off, e[i].len, buf + e[i].pos};
  /* time_io: counted by the io layer (src/io/io.c), once. */
  int rc = is_write ? ostio__io_write_batch(&fh->io, r, ne) : ostio__io_read_batch(&fh->io, r, ne);
  free(r);
  count_objects(fh, e, ne, sizeof *e);
  return rc;
}

/* The plan of one call: arrays from the handle's scratch (see
 * ostio__coll_scratch) plus the ones whose size depends on the call. */
typedef struct meta {
  int *scount, *sdisp, *rcount, *rdisp;
  int64_t *sbuf, *rbuf;
  ostio__xpiece *sp, *ap;
  size_t nsp, nap, *sp_start;
  int64_t *sched, *src_sched_buf, **src_sched;
  int *agg_rounds, *ranks;
} meta;

static void meta_init(meta *m, const ostio__coll_scratch *x, int P)
{
  memset(m, 0, sizeof *m);
  m->ranks = x->ranks;
  m->scount = x->scount;
  m->sdisp = x->sdisp;
  m->rcount = x->rcount;
  m->rdisp = x->rdisp;
  m->agg_rounds = x->agg_rounds;
  m->sp_start = x->sp_start;
  m->src_sched = x->src_sched;
  int *zero[] = {m->scount, m->sdisp, m->rcount, m->rdisp, m->agg_rounds};
  for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++) memset(zero[i], 0, (size_t)P * sizeof(int));
  memset(m->sp_start, 0, ((size_t)P + 1) * sizeof *m->sp_start);
  memset(m->src_sched, 0, (size_t)P * sizeof *m->src_sched);
}

static void meta_free(meta *m)
{
  free(m->sbuf); free(m->rbuf); free(m->sp); free(m->ap);
  free(m->sched); free(m->src_sched_buf);
}

static int mpi_fail(const char *what) { return ostio__fail(OSTIO_EMPI, "collective: %s failed", what); }

/* Steps 3 and 4 for an exchanging strategy; with check_only, only the
 * overlap check (the independent strategy on interleaved spans). */
static int two_phase(ostio_file *fh, int is_write, const ostio__strategy *s,
                     const ostio__call *c, const ostio__ext *e, size_t ne, char *buf,
                     int check_only)
{
  const int P = fh->nprocs;
  meta m;
  meta_init(&m, fh->scratch, P);
  int naggr, rc = 0;
  if (check_only) {
    naggr = P;
  } else {
    naggr = s->want(c);
    if (ostio__hints_given(&fh->hints, "cb_nodes")) naggr = (int)fh->hints.cb_nodes;
    if (naggr > fh->neligible) naggr = fh->neligible;
    if (naggr < 1) naggr = 1;
  }
  ostio__domains d;
  /* Deterministic from agreed inputs: every rank gets the same result. */
  if ((rc = s->domains(c, naggr, &d)) < 0) return rc;

  int myagg = -1;
  for (int a = 0; a < naggr; a++) {
    m.ranks[a] = check_only ? a : fh->eligible[a];
    if (m.ranks[a] == fh->rank) myagg = a;
  }
  double t0 = ostio__now();
  rc = ostio__plan_split(e, ne, &d, &m.sp, &m.nsp);
  if (rc == 0) {
    for (size_t i = 0; i < m.nsp; i++) m.sp_start[m.sp[i].peer + 1]++;
    for (int a = 0; a < naggr; a++) m.sp_start[a + 1] += m.sp_start[a];
    for (int a = 0; a < naggr; a++) {
      size_t k = m.sp_start[a + 1] - m.sp_start[a];
      if (k > (size_t)INT32_MAX / 2) rc = ostio__fail(OSTIO_ERANGE, "collective: %zu pieces for "
                                                     "one aggregator; raise cb_nodes", k);
      m.scount[m.ranks[a]] = (int)(2 * k);
      m.sdisp[m.ranks[a]] = (int)(2 * m.sp_start[a]);
    }
    if (m.nsp > (size_t)INT32_MAX / 2)
      rc = ostio__fail(OSTIO_ERANGE, "collective: %zu pieces on one rank", m.nsp);
    if (rc == 0 && m.nsp && !(m.sbuf = malloc(2 * m.nsp * sizeof(int64_t))))
      rc = ostio__fail(OSTIO_ENOMEM, "collective: no memory for %zu pieces", m.nsp);
    for (size_t i = 0; rc == 0 && i < m.nsp; i++) {
      m.sbuf[2 * i] = m.sp[i].off;
      m.sbuf[2 * i + 1] = m.sp[i].len;
    }
  }
  if (rc < 0) memset(m.scount, 0, (size_t)P * sizeof(int)); /* still take part */
  if (MPI_Alltoall(m.scount, 1, MPI_INT, m.rcount, 1, MPI_INT, fh->comm) != MPI_SUCCESS)
    rc = mpi_fail("MPI_Alltoall");
  int64_t nrecv = 0;
  for (int i = 0; i < P; i++) {
    m.rdisp[i] = (int)nrecv;
    nrecv += m.rcount[i];
  }
  if (nrecv > INT32_MAX) {
    if (rc == 0) rc = ostio__fail(OSTIO_ERANGE, "collective: %lld pieces at one aggregator; "
                                  "raise cb_nodes", (long long)(nrecv / 2));
    memset(m.rcount, 0, (size_t)P * sizeof(int));
    nrecv = 0;
  }
  if (nrecv && !(m.rbuf = malloc((size_t)nrecv * sizeof(int64_t)))) {
    if (rc == 0) rc = ostio__fail(OSTIO_ENOMEM, "collective: no memory for %lld pieces",
                                  (long long)(nrecv / 2));
    memset(m.rcount, 0, (size_t)P * sizeof(int));
  }
  /* A rank that could not allocate receives nothing; senders still send:
   * mismatched counts would break MPI, so agree first in that case. */
  int worst = 0;
  {
    int mine = rc < 0 ? rc : 0, any;
    if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MIN, fh->comm) != MPI_SUCCESS)
      any = mpi_fail("MPI_Allreduce");
    worst = any;
  }
  if (worst < 0) {
    rc = ostio__agree(fh->comm, rc);
    meta_free(&m);
    return rc;
  }
  if (MPI_Alltoallv(m.sbuf, m.scount, m.sdisp, MPI_INT64_T, m.rbuf, m.rcount, m.rdisp,
                    MPI_INT64_T, fh->comm) != MPI_SUCCESS)
    rc = mpi_fail("MPI_Alltoallv of piece offsets");

  /* The aggregator: sort, check overlaps, cut rounds. */
  int nbuf = (fh->hints.ostio_pipeline ? 2 : 1) + (is_write && fh->hints.romio_ds_write == OSTIO__TRI_ENABLE);
  int64_t cap = fh->hints.cb_buffer_size / nbuf;
  if (cap < 1) cap = 1;
  int my_rounds = 0;
  m.nap = (size_t)(nrecv / 2);
  if (rc == 0 && m.nap && !(m.ap = malloc(m.nap * sizeof *m.ap)))
    rc = ostio__fail(OSTIO_ENOMEM, "collective: no memory for %zu pieces", m.nap);
  if (rc == 0 && m.nap) {
    size_t k = 0;
    for (int src = 0; src < P; src++)
      for (int j = 0; j < m.rcount[src] / 2; j++, k++) {
        ostio__xpiece *x = &m.ap[k];
        *x = (ostio__xpiece){.off = m.rbuf[2 * k], .len = m.rbuf[2 * k + 1], .peer = src};
        if (rc == 0) rc = ostio__plan_key(&d, x->off, &x->major, &x->minor);
      }
    if (rc == 0) rc = ostio__plan_sort(m.ap, m.nap);
    if (rc == 0 && !check_only) rc = ostio__plan_rounds(m.ap, m.nap, cap, P, &m.sched, &my_rounds);
  }
  fh->stats.t[OSTIO__T_time_plan] += ostio__now() - t0;
  int mine[2] = {rc < 0 ? rc : 0, my_rounds}, *all = fh->scratch->gather2;
  if (MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, fh->comm) != MPI_SUCCESS) {
    meta_free(&m);
    return ostio__agree(fh->comm, mpi_fail("MPI_Allgather"));
  }
  int wr = 0, R = 0;
  worst = 0;
  for (int i = 0; i < P; i++) {
    if (all[2 * i] < worst) {
      worst = all[2 * i];
      wr = i;
    }
    m.agg_rounds[i] = all[2 * i + 1];
    if (all[2 * i + 1] > R) R = all[2 * i + 1];
  }
  if (worst < 0 || check_only) {
    rc = ostio__agree_known(fh->comm, rc, worst, wr);
    meta_free(&m);
    return rc;
  }

  /* Bytes per round for every (aggregator, source) pair. */
  memset(m.scount, 0, (size_t)P * sizeof(int));
  int64_t nsend = 0;
  int64_t *col = NULL;
  if (myagg >= 0 && my_rounds > 0) {
    col = malloc((size_t)P * (size_t)my_rounds * sizeof *col);
    for (int src = 0; col && src < P; src++) {
      if (m.rcount[src] == 0) continue;
      m.scount[src] = my_rounds;
      m.sdisp[src] = (int)nsend;
      for (int r = 0; r < my_rounds; r++) col[nsend++] = m.sched[(size_t)r * P + src];
    }
  }
  int64_t nin = 0;
  memset(m.rcount, 0, (size_t)P * sizeof(int));
  memset(m.rdisp, 0, (size_t)P * sizeof(int));
  for (int a = 0; a < naggr; a++) {
    int ar = m.ranks[a];
    m.rcount[ar] = m.sp_start[a + 1] > m.sp_start[a] ? m.agg_rounds[ar] : 0;
    m.rdisp[ar] = (int)nin;
    nin += m.rcount[ar];
  }
  m.src_sched_buf = malloc((size_t)(nin ? nin : 1) * sizeof(int64_t));
  rc = (myagg >= 0 && my_rounds > 0 && !col) || !m.src_sched_buf
           ? ostio__fail(OSTIO_ENOMEM, "collective: no memory for the round schedule") : 0;
  if ((rc = ostio__agree(fh->comm, rc)) < 0) {
    free(col);
    meta_free(&m);
    return rc;
  }
  if (MPI_Alltoallv(col, m.scount, m.sdisp, MPI_INT64_T, m.src_sched_buf, m.rcount, m.rdisp,
                    MPI_INT64_T, fh->comm) != MPI_SUCCESS)
    rc = mpi_fail("MPI_Alltoallv of the round schedule");
  free(col);
  for (int a = 0; a < naggr; a++)
    m.src_sched[a] = m.rcount[m.ranks[a]] ? m.src_sched_buf + m.rdisp[m.ranks[a]] : NULL;

  int *agg_rounds_by_index = fh->scratch->rounds_by_index;
  int active = 0;
  for (int a = 0; a < naggr; a++) {
    agg_rounds_by_index[a] = m.agg_rounds[m.ranks[a]];
    active += agg_rounds_by_index[a] > 0;
  }
  ostio__xfer x = {
    .fh = fh, .is_write = is_write, .pipeline = fh->hints.ostio_pipeline,
    .rmw = is_write && fh->hints.romio_ds_write == OSTIO__TRI_ENABLE, .d = &d,
    .naggr = naggr, .myagg = myagg, .ranks = m.ranks, .nrounds = R, .ubuf = buf,
    .sp = m.sp, .sp_start = m.sp_start, .src_sched = (const int64_t *const *)m.src_sched,
    .agg_rounds = agg_rounds_by_index, .ap = m.ap, .nap = m.nap, .agg_sched = m.sched,
    .my_rounds = my_rounds, .cap = cap,
  };
  /* The round buffers are allocated before the agreement, so a rank that
   * cannot have them stops everyone before the rounds, not during them. */
  ostio__xfer_state *xs = NULL;
  if (rc == 0) rc = ostio__xfer_begin(&x, &xs);
  if ((rc = ostio__agree(fh->comm, rc)) < 0) {
    ostio__xfer_end(xs);
    meta_free(&m);
    return rc;
  }
  ostio__stats *st = &fh->stats;
  ostio__stat_max(st, OSTIO__STAT_rounds, R);
  ostio__stat_add(st, OSTIO__STAT_rounds_total, R);
  ostio__stat_max(st, OSTIO__STAT_aggr_max, active);
  if (myagg >= 0) count_objects(fh, m.ap, m.nap, sizeof *m.ap);

  rc = ostio__xfer_run(xs);
  ostio__xfer_end(xs);
  meta_free(&m);
  return ostio__agree(fh->comm, rc);
}

int ostio__coll(ostio_file *fh, int is_write, const ostio_extent *ext, size_t n, void *buf)
{
  if (!fh) return ostio__fail(OSTIO_EINVAL, "NULL file handle");
  double t0 = ostio__now();
  const int P = fh->nprocs;
  ostio__ext *e = NULL;
  size_t ne = 0;
  int64_t bytes = 0, lo = 0, hi = 0;
  int rc = 0;
  rc = ostio__check_access(fh->path, fh->can_read, fh->can_write, is_write, NULL);
  if (rc == 0) rc = ostio__plan_local(ext, n, &e, &ne, &bytes, &lo, &hi);
  if (rc == 0 && bytes > 0 && !buf)
    rc = ostio__fail(OSTIO_EINVAL, "NULL buffer for %lld bytes", (long long)bytes);

  int64_t mine[S_N] = {rc, lo, hi, bytes, (int64_t)ne};
  int64_t *all = fh->scratch->gather;
  if (MPI_Allgather(mine, S_N, MPI_INT64_T, all, S_N, MPI_INT64_T, fh->comm) != MPI_SUCCESS) {
    free(e);
    return ostio__agree(fh->comm, mpi_fail("MPI_Allgather"));
  }
  ostio__call c = {.l = fh->layout, .h = &fh->hints, .nprocs = P, .nnodes = fh->nnodes,
                   .is_write = is_write};
  int wr = 0;
  int worst = summarize(all, P, fh->scratch->spans, &c, &wr);
  if (worst < 0) {
    free(e);
    return ostio__agree_known(fh->comm, rc, worst, wr);
  }
  ostio__stats *st = &fh->stats;
  ostio__stat_add(st, is_write ? OSTIO__STAT_coll_writes : OSTIO__STAT_coll_reads, 1);

  const ostio__strategy *s = NULL;
  if ((rc = ostio__strategy_pick(&c, st, &s)) < 0) {
    free(e);
    return ostio__agree(fh->comm, rc);
  }
  fh->last_strategy = s->name;

  if (c.bytes == 0) {
    rc = 0;
  } else if (!s->exchange) {
    rc = 0;
    if (c.interleaved && P > 1) rc = two_phase(fh, is_write, s, &c, e, ne, buf, 1);
    if (rc == 0) rc = ostio__agree(fh->comm, local_io(fh, is_write, e, ne, buf));
  } else {
    rc = two_phase(fh, is_write, s, &c, e, ne, buf, 0);
  }
  free(e);
  st->t[OSTIO__T_time_total] += ostio__now() - t0;
  return rc;
}

/* The engine's entry points; the public ostio_write_all / ostio_read_all
 * (src/file/file.c) send log containers elsewhere and the rest here. */
int ostio__engine_write_all(ostio_file *fh, const ostio_extent *ext, size_t n, const void *buf)
{
  return ostio__coll(fh, 1, ext, n, (void *)buf);
}

int ostio__engine_read_all(ostio_file *fh, const ostio_extent *ext, size_t n, void *buf)
{
  return ostio__coll(fh, 0, ext, n, buf);
}
