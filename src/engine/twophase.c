/* The two-phase path of a collective call, steps 3 to 8 of
 * docs/collective.md, as named steps run in this order by ostio__two_phase:
 *   choose_domains     aggregators and byte ownership (no collective)
 *   split_pieces       this rank's extents cut by owner (local)
 *   exchange_pieces    Alltoall of counts, Allreduce (can every rank take
 *                      part?), Alltoallv of the pieces' offsets
 *   plan_rounds        each aggregator sorts, checks overlaps, cuts rounds;
 *                      Allgather of {code, rounds} agrees the plan
 *   exchange_schedule  agreement on the schedule's memory, Alltoallv of
 *                      every source's bytes per round
 *   run_rounds         agreement on the round buffers, the rounds (xfer.c),
 *                      the agreed outcome
 * Every rank enters every step up to the one whose agreement stops the call,
 * whatever failed on it before: a failing rank still takes part in each
 * collective (with empty counts) and carries its error to the next
 * agreement, so no rank waits for one that left. */
#include <stdlib.h>
#include <string.h>

#include "core/agree.h"
#include "core/error.h"
#include "engine/engine_impl.h"
#include "engine/xfer.h"

/* One call's state: arrays from the handle's scratch (engine_impl.h: the
 * ones sized by the ranks, and the ones sized by the call, which it keeps
 * between calls, sp and the merge buffer among them) plus the plan's own
 * (sched: plan.h, freed here). */
typedef struct tp {
  const ostio__engine_ctx *x;
  int is_write, check_only;
  const ostio__call *c;
  const ostio__ext *e;
  size_t ne;
  char *buf;
  int done;                    /* the outcome is agreed: stop on every rank  */
  /* choose_domains */
  ostio__domains d;
  int naggr, myagg;            /* myagg: this rank's aggregator index or -1  */
  int *ranks;                  /* rank of aggregator a                       */
  /* exchanges (scratch, P each) */
  int *scount, *sdisp, *rcount, *rdisp;
  /* split_pieces and exchange_pieces (sbuf, rbuf, ap, src_sched_buf and
   * exchange_schedule's col are the handle's, kept between calls) */
  double t0;                   /* start of planning (time_plan)              */
  int64_t *sbuf, *rbuf;        /* (offset, length) pairs sent and received   */
  ostio__xpiece *sp;           /* my pieces, by aggregator                   */
  size_t nsp, *sp_start;       /* pieces of aggregator a: [sp_start[a], sp_start[a+1]) */
  int64_t nrecv;               /* int64 received (2 per piece)               */
  /* plan_rounds */
  ostio__xpiece *ap;           /* everyone's pieces for me, in key order     */
  size_t nap;
  int64_t cap;                 /* bytes per round buffer                     */
  int64_t *sched;              /* [r * P + src]: bytes of src in my round r  */
  int my_rounds, R;
  int *agg_rounds;             /* rounds of every rank as an aggregator      */
  /* exchange_schedule */
  int64_t *src_sched_buf, **src_sched; /* src_sched[a][r]: my bytes to a in round r */
} tp;

static void tp_init(tp *m, const ostio__engine_ctx *x)
{
  const ostio__engine_scratch *s = x->scratch;
  const size_t P = (size_t)x->nprocs;
  m->ranks = s->ranks;
  m->scount = s->scount;
  m->sdisp = s->sdisp;
  m->rcount = s->rcount;
  m->rdisp = s->rdisp;
  m->agg_rounds = s->agg_rounds;
  m->sp_start = s->sp_start;
  m->src_sched = s->src_sched;
  int *zero[] = {m->scount, m->sdisp, m->rcount, m->rdisp, m->agg_rounds};
  for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++) memset(zero[i], 0, P * sizeof(int));
  memset(m->sp_start, 0, (P + 1) * sizeof *m->sp_start);
  memset(m->src_sched, 0, P * sizeof *m->src_sched);
}

static void tp_free(tp *m)
{
  free(m->sched);
}

/* Ends the call with the outcome agreed here; the later steps are skipped. */
static int finish(tp *m, int rc)
{
  m->done = 1;
  return rc;
}

/* Aggregators and byte ownership. Deterministic from agreed inputs (the
 * call summary, the hints, the candidates), so every rank gets the same
 * naggr, domains and aggregator ranks, and a failure here is the same on
 * every rank: it needs no agreement. With check_only every rank checks. */
static int choose_domains(tp *m, const ostio__strategy *s)
{
  const ostio__engine_ctx *x = m->x;
  if (m->check_only) {
    m->naggr = x->nprocs;
  } else {
    int naggr = s->want(m->c);
    if (ostio__hints_given(x->hints, "cb_nodes")) naggr = (int)x->hints->cb_nodes;
    if (naggr > x->neligible) naggr = x->neligible;
    if (naggr < 1) naggr = 1;
    m->naggr = naggr;
  }
  int rc = s->domains(m->c, m->naggr, &m->d);
  if (rc < 0) return rc;
  m->myagg = -1;
  for (int a = 0; a < m->naggr; a++) {
    m->ranks[a] = m->check_only ? a : x->eligible[a];
    if (m->ranks[a] == x->rank) m->myagg = a;
  }
  return 0;
}

/* Local: this rank's extents cut at owner changes, counted per aggregator
 * rank (scount, sdisp) and packed as (offset, length) pairs in sbuf. On
 * failure the counts are zero, so the rank still takes part in the
 * exchange without sending anything. */
static int split_pieces(tp *m)
{
  const int P = m->x->nprocs;
  m->t0 = ostio__now();
  int rc = ostio__plan_split_in(&m->x->scratch->sp, m->e, m->ne, &m->d, &m->sp, &m->nsp);
  if (rc == 0) {
    for (size_t i = 0; i < m->nsp; i++) m->sp_start[m->sp[i].peer + 1]++;
    for (int a = 0; a < m->naggr; a++) m->sp_start[a + 1] += m->sp_start[a];
    for (int a = 0; a < m->naggr; a++) {
      size_t k = m->sp_start[a + 1] - m->sp_start[a];
      if (k > (size_t)INT32_MAX / 2) rc = ostio__fail(OSTIO_ERANGE, "collective: %zu pieces for "
                                                     "one aggregator; raise cb_nodes", k);
      m->scount[m->ranks[a]] = (int)(2 * k);
      m->sdisp[m->ranks[a]] = (int)(2 * m->sp_start[a]);
    }
    if (m->nsp > (size_t)INT32_MAX / 2)
      rc = ostio__fail(OSTIO_ERANGE, "collective: %zu pieces on one rank", m->nsp);
    if (rc == 0 && m->nsp &&
        !(m->sbuf = ostio__scratch_get(&m->x->scratch->sbuf, m->nsp, 2 * sizeof(int64_t))))
      rc = ostio__fail(OSTIO_ENOMEM, "collective: no memory for %zu pieces", m->nsp);
    for (size_t i = 0; rc == 0 && i < m->nsp; i++) {
      m->sbuf[2 * i] = m->sp[i].off;
      m->sbuf[2 * i + 1] = m->sp[i].len;
    }
  }
  if (rc < 0) memset(m->scount, 0, (size_t)P * sizeof(int)); /* still take part */
  return rc;
}

/* Every aggregator receives the (offset, length) of every piece it owns.
 * The counts go first (Alltoall); a rank that cannot receive its share
 * receives nothing, but its senders would still send, and mismatched counts
 * break MPI: so an Allreduce agrees before the Alltoallv, and on any failure
 * so far every rank ends the call there with the agreed error. After it, rc
 * is 0 on every rank; only the Alltoallv itself can fail (carried on). */
static int exchange_pieces(tp *m, int rc)
{
  const ostio__engine_ctx *x = m->x;
  const int P = x->nprocs;
  if (MPI_Alltoall(m->scount, 1, MPI_INT, m->rcount, 1, MPI_INT, x->comm) != MPI_SUCCESS)
    rc = ostio__engine_mpi_fail("MPI_Alltoall");
  int64_t nrecv = 0;
  for (int i = 0; i < P; i++) {
    m->rdisp[i] = (int)nrecv;
    nrecv += m->rcount[i];
  }
  if (nrecv > INT32_MAX) {
    if (rc == 0) rc = ostio__fail(OSTIO_ERANGE, "collective: %lld pieces at one aggregator; "
                                  "raise cb_nodes", (long long)(nrecv / 2));
    memset(m->rcount, 0, (size_t)P * sizeof(int));
    nrecv = 0;
  }
  if (nrecv &&
      !(m->rbuf = ostio__scratch_get(&x->scratch->rbuf, (size_t)nrecv, sizeof(int64_t)))) {
    if (rc == 0) rc = ostio__fail(OSTIO_ENOMEM, "collective: no memory for %lld pieces",
                                  (long long)(nrecv / 2));
    memset(m->rcount, 0, (size_t)P * sizeof(int));
  }
  m->nrecv = nrecv;
  int mine = rc < 0 ? rc : 0, any;
  if (MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MIN, x->comm) != MPI_SUCCESS)
    any = ostio__engine_mpi_fail("MPI_Allreduce");
  if (any < 0) return finish(m, ostio__agree(x->comm, rc));
  if (MPI_Alltoallv(m->sbuf, m->scount, m->sdisp, MPI_INT64_T, m->rbuf, m->rcount, m->rdisp,
                    MPI_INT64_T, x->comm) != MPI_SUCCESS)
    rc = ostio__engine_mpi_fail("MPI_Alltoallv of piece offsets");
  return rc;
}

/* The aggregator's plan: its pieces keyed, sorted, checked for overlaps
 * between ranks and cut into rounds of at most cap bytes. The Allgather of
 * {code, rounds} then agrees the plan: on any failure, or after a
 * check_only call, every rank ends the call with the same outcome; else
 * every rank knows every aggregator's round count (agg_rounds) and R. */
static int plan_rounds(tp *m, int rc)
{
  const ostio__engine_ctx *x = m->x;
  const int P = x->nprocs;
  int nbuf = (x->hints->ostio_pipeline ? 2 : 1) +
             (m->is_write && x->hints->romio_ds_write == OSTIO__TRI_ENABLE);
  m->cap = x->hints->cb_buffer_size / nbuf;
  if (m->cap < 1) m->cap = 1;
  m->nap = (size_t)(m->nrecv / 2);
  int64_t total = 0;
  if (rc == 0 && m->nap && !(m->ap = ostio__scratch_get(&x->scratch->ap, m->nap, sizeof *m->ap)))
    rc = ostio__fail(OSTIO_ENOMEM, "collective: no memory for %zu pieces", m->nap);
  if (rc == 0 && m->nap) {
    /* every source's run, keyed and merged straight into ap */
    rc = ostio__plan_merge_pairs(m->rbuf, m->rcount, P, &m->d, m->ap, &total);
    if (rc == 0 && !m->check_only)
      rc = ostio__plan_rounds_total(m->ap, m->nap, total, m->cap, P, &m->sched, &m->my_rounds);
  }
  x->stats->t[OSTIO__T_time_plan] += ostio__now() - m->t0;
  int mine[2] = {rc < 0 ? rc : 0, m->my_rounds}, *all = x->scratch->gather2;
  if (MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, x->comm) != MPI_SUCCESS)
    return finish(m, ostio__agree(x->comm, ostio__engine_mpi_fail("MPI_Allgather")));
  int wr = 0, worst = 0;
  m->R = 0;
  for (int i = 0; i < P; i++) {
    if (all[2 * i] < worst) {
      worst = all[2 * i];
      wr = i;
    }
    m->agg_rounds[i] = all[2 * i + 1];
    if (all[2 * i + 1] > m->R) m->R = all[2 * i + 1];
  }
  if (worst < 0 || m->check_only) return finish(m, ostio__agree_known(x->comm, rc, worst, wr));
  return rc;
}

/* Every source learns its bytes per round for each aggregator it sends to
 * (an aggregator's column of sched). Both buffers are allocated before an
 * agreement, so a rank without memory stops everyone before the Alltoallv;
 * the Alltoallv's own failure is carried to the next agreement. */
static int exchange_schedule(tp *m)
{
  const ostio__engine_ctx *x = m->x;
  const int P = x->nprocs;
  memset(m->scount, 0, (size_t)P * sizeof(int));
  int64_t nsend = 0;
  int64_t *col = NULL;
  if (m->myagg >= 0 && m->my_rounds > 0) {
    col = ostio__scratch_get(&x->scratch->col, (size_t)P * (size_t)m->my_rounds, sizeof *col);
    for (int src = 0; col && src < P; src++) {
      if (m->rcount[src] == 0) continue;
      m->scount[src] = m->my_rounds;
      m->sdisp[src] = (int)nsend;
      for (int r = 0; r < m->my_rounds; r++) col[nsend++] = m->sched[(size_t)r * P + src];
    }
  }
  int64_t nin = 0;
  memset(m->rcount, 0, (size_t)P * sizeof(int));
  memset(m->rdisp, 0, (size_t)P * sizeof(int));
  for (int a = 0; a < m->naggr; a++) {
    int ar = m->ranks[a];
    m->rcount[ar] = m->sp_start[a + 1] > m->sp_start[a] ? m->agg_rounds[ar] : 0;
    m->rdisp[ar] = (int)nin;
    nin += m->rcount[ar];
  }
  m->src_sched_buf = ostio__scratch_get(&x->scratch->src_sched_buf, (size_t)nin, sizeof(int64_t));
  int rc = (m->myagg >= 0 && m->my_rounds > 0 && !col) || !m->src_sched_buf
               ? ostio__fail(OSTIO_ENOMEM, "collective: no memory for the round schedule") : 0;
  if ((rc = ostio__agree(x->comm, rc)) < 0) return finish(m, rc);
  if (MPI_Alltoallv(col, m->scount, m->sdisp, MPI_INT64_T, m->src_sched_buf, m->rcount,
                    m->rdisp, MPI_INT64_T, x->comm) != MPI_SUCCESS)
    rc = ostio__engine_mpi_fail("MPI_Alltoallv of the round schedule");
  for (int a = 0; a < m->naggr; a++)
    m->src_sched[a] = m->rcount[m->ranks[a]] ? m->src_sched_buf + m->rdisp[m->ranks[a]] : NULL;
  return rc;
}

/* The data phase. The round buffers are allocated before an agreement, so
 * a rank that cannot have them (or whose schedule exchange failed) stops
 * everyone before the rounds, not during them. In the rounds every rank
 * runs every round even after its own I/O error (xfer.h); the last
 * agreement gives every rank the outcome. */
static int run_rounds(tp *m, int rc)
{
  const ostio__engine_ctx *x = m->x;
  int *agg_rounds_by_index = x->scratch->rounds_by_index;
  int active = 0;
  for (int a = 0; a < m->naggr; a++) {
    agg_rounds_by_index[a] = m->agg_rounds[m->ranks[a]];
    active += agg_rounds_by_index[a] > 0;
  }
  ostio__xfer xf = {
    .ctx = x, .mem = &x->scratch->xfer, .is_write = m->is_write,
    .pipeline = x->hints->ostio_pipeline,
    .rmw = m->is_write && x->hints->romio_ds_write == OSTIO__TRI_ENABLE, .d = &m->d,
    .naggr = m->naggr, .myagg = m->myagg, .ranks = m->ranks, .nrounds = m->R,
    .ubuf = m->buf, .sp = m->sp, .sp_start = m->sp_start,
    .src_sched = (const int64_t *const *)m->src_sched, .agg_rounds = agg_rounds_by_index,
    .ap = m->ap, .nap = m->nap, .agg_sched = m->sched, .my_rounds = m->my_rounds,
    .cap = m->cap,
  };
  ostio__xfer_state *xs = NULL;
  if (rc == 0) rc = ostio__xfer_begin(&xf, &xs);
  if ((rc = ostio__agree(x->comm, rc)) < 0) {
    ostio__xfer_end(xs);
    return finish(m, rc);
  }
  ostio__stats *st = x->stats;
  ostio__stat_max(st, OSTIO__STAT_rounds, m->R);
  ostio__stat_add(st, OSTIO__STAT_rounds_total, m->R);
  ostio__stat_max(st, OSTIO__STAT_aggr_max, active);
  if (m->myagg >= 0) ostio__engine_count_objects(x, m->ap, m->nap, sizeof *m->ap);
  rc = ostio__xfer_run(xs);
  ostio__xfer_end(xs);
  return finish(m, ostio__agree(x->comm, rc));
}

int ostio__two_phase(const ostio__engine_ctx *x, int is_write, const ostio__strategy *s,
                     const ostio__call *c, const ostio__ext *e, size_t ne, char *buf,
                     int check_only)
{
  tp m = {.x = x, .is_write = is_write, .check_only = check_only, .c = c, .e = e, .ne = ne,
          .buf = buf};
  tp_init(&m, x);
  int rc = choose_domains(&m, s);
  if (rc < 0) return rc; /* the same on every rank (see choose_domains) */
  rc = exchange_pieces(&m, split_pieces(&m));
  if (!m.done) rc = plan_rounds(&m, rc);
  if (!m.done) rc = exchange_schedule(&m);
  if (!m.done) rc = run_rounds(&m, rc);
  tp_free(&m);
  return rc;
}
