/* The flow-level simulator of `ostio model`: formulas in sim.h, reasons and
 * limits in docs/model-sim.md. Steps: check the input, sum each flow into
 * its OST and client, group the flows by object (a hash to dense ids, then
 * a counting sort) for the lock costs and the lone paths, group them by OST
 * for the fan-in and fan-out counts, then the loads, the exchange and the
 * split. All scratch lives in one struct freed at the end. */
#include "model/sim.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* The flows of one client to one object. */
typedef struct group {
  int64_t client, bytes, rpcs, reqs;
} group;

/* The critical element of a phase so far. */
typedef struct crit {
  double t;
  ostio__sim_res kind;
  int64_t idx;
  double lock;             /* its lock part (s)                                */
} crit;

typedef struct sim {
  const ostio__sys *s;
  const ostio__traffic *t;
  ostio__sim_result *r;
  int64_t nost;
  double bw_min;           /* the slowest link of a lone path                  */
  int64_t *fl_rpcs;        /* per flow                                         */
  int64_t *obj;            /* per flow: dense object id                        */
  size_t nobj;
  size_t *order;           /* per flow: flow indices sorted by a key           */
  size_t *count;           /* max(nobj, nost) + 1                              */
  int64_t *stamp, *slot;   /* per rank: last key seen, its group               */
  int64_t *rank_bytes;     /* per rank                                         */
  double *serial, *serial_lock; /* per rank: sum of its paths, their lock part  */
  group *grp;              /* min(nflow, nranks)                               */
  crit io;                 /* the I/O phase                                    */
  double lone;             /* max over groups of transfer without locks        */
} sim;

static double dmin(double a, double b) { return a < b ? a : b; }

static int add64(int64_t *acc, int64_t v, const char *what)
{
  if (__builtin_add_overflow(*acc, v, acc))
    return ostio__fail(OSTIO_EINVAL, "sim: the %s add up to more than 2^63-1", what);
  return 0;
}

static void consider(crit *c, double t, ostio__sim_res kind, int64_t idx, double lock)
{
  if (t > c->t) *c = (crit){.t = t, .kind = kind, .idx = idx, .lock = lock};
}

/* ---- checks ------------------------------------------------------------ */

static int bad_rate(double v) { return !(v > 0) || !isfinite(v); }
static int bad_time(double v) { return !(v >= 0) || !isfinite(v); }

static int check_sys(const ostio__sys *s)
{
  const char *f = NULL;
  if (s->nodes < 1) f = "nodes (>= 1)";
  else if (s->ranks_per_node < 1) f = "ranks_per_node (>= 1)";
  else if (bad_rate(s->nic_bw)) f = "nic_bw (> 0, finite)";
  else if (bad_rate(s->client_bw)) f = "client_bw (> 0, finite)";
  else if (bad_time(s->net_latency)) f = "net_latency (>= 0, finite)";
  else if (bad_time(s->net_bw)) f = "net_bw (>= 0, finite; 0: no cap)";
  else if (s->noss < 1) f = "noss (>= 1)";
  else if (s->osts_per_oss < 1) f = "osts_per_oss (>= 1)";
  else if (bad_rate(s->oss_bw)) f = "oss_bw (> 0, finite)";
  else if (bad_rate(s->ost_bw)) f = "ost_bw (> 0, finite)";
  else if (bad_time(s->ost_req)) f = "ost_req (>= 0, finite)";
  else if (s->rpc_bytes < 1) f = "rpc_bytes (>= 1)";
  else if (bad_time(s->lock_grant)) f = "lock_grant (>= 0, finite)";
  else if (bad_time(s->lock_conflict)) f = "lock_conflict (>= 0, finite)";
  else if (s->lock_expand != 0 && s->lock_expand != 1) f = "lock_expand (0 or 1)";
  else if (bad_rate(s->mds_rate)) f = "mds_rate (> 0, finite)";
  else if (s->rpcs_in_flight < 0) f = "rpcs_in_flight (>= 0; 0: not limited)";
  else if (s->cores_per_node < 0) f = "cores_per_node (>= 0; 0: one per rank)";
  else if (bad_time(s->sched_quantum)) f = "sched_quantum (>= 0, finite)";
  if (f) return ostio__fail(OSTIO_EINVAL, "sim: system \"%.63s\": bad %s", s->name, f);
  return 0;
}

static int check_flow(const ostio__traffic *t, size_t i, int64_t nost)
{
  const ostio__flow *f = &t->flow[i];
  if (f->client < 0 || f->client >= t->nranks)
    return ostio__fail(OSTIO_EINVAL, "sim: flow %zu: client %lld is not a rank in [0, %lld)", i,
                       (long long)f->client, (long long)t->nranks);
  if (f->ost < 0 || f->ost >= nost)
    return ostio__fail(OSTIO_EINVAL, "sim: flow %zu: OST %lld is not in [0, %lld)", i,
                       (long long)f->ost, (long long)nost);
  if (f->bytes < 1)
    return ostio__fail(OSTIO_EINVAL, "sim: flow %zu: %lld bytes (must be >= 1)", i,
                       (long long)f->bytes);
  if (f->requests < 1 || f->requests > f->bytes)
    return ostio__fail(OSTIO_EINVAL, "sim: flow %zu: %lld requests for %lld bytes (must be in "
                       "[1, bytes])", i, (long long)f->requests, (long long)f->bytes);
  return 0;
}

static int check_exchange(const ostio__traffic *t)
{
  const int64_t *a[3] = {t->send_bytes, t->recv_bytes, t->send_msgs};
  static const char *name[3] = {"send_bytes", "recv_bytes", "send_msgs"};
  for (int k = 0; k < 3; k++)
    for (int64_t i = 0; a[k] && i < t->nranks; i++)
      if (a[k][i] < 0)
        return ostio__fail(OSTIO_EINVAL, "sim: %s of rank %lld is %lld (must be >= 0)", name[k],
                           (long long)i, (long long)a[k][i]);
  return 0;
}

static int check_traffic(const ostio__sys *s, const ostio__traffic *t, int64_t nost)
{
  int64_t cap;
  if (t->nranks < 1)
    return ostio__fail(OSTIO_EINVAL, "sim: %lld ranks (must be >= 1)", (long long)t->nranks);
  if (!__builtin_mul_overflow(s->nodes, (int64_t)s->ranks_per_node, &cap) && t->nranks > cap)
    return ostio__fail(OSTIO_EINVAL, "sim: %lld ranks, but system \"%.63s\" holds %lld (%lld nodes "
                       "x %d)", (long long)t->nranks, s->name, (long long)cap,
                       (long long)s->nodes, s->ranks_per_node);
  if (t->nflow > 0 && !t->flow)
    return ostio__fail(OSTIO_EINVAL, "sim: %zu flows but no flow array", t->nflow);
  if (t->opens < 0)
    return ostio__fail(OSTIO_EINVAL, "sim: %lld opens (must be >= 0)", (long long)t->opens);
  for (size_t i = 0; i < t->nflow; i++) {
    int rc = check_flow(t, i, nost);
    if (rc) return rc;
  }
  return check_exchange(t);
}

/* ---- per flow ---------------------------------------------------------- */

/* RPCs of B bytes in q requests as equal as integers allow, cut at rpc. */
static int64_t flow_rpcs(int64_t b, int64_t q, int64_t rpc)
{
  int64_t sz = b / q, m = b % q;      /* m requests of sz + 1 bytes, q - m of sz */
  int64_t small = sz / rpc + (sz % rpc != 0), big = 0;
  if (m > 0) big = (sz + 1) / rpc + ((sz + 1) % rpc != 0);   /* m > 0: sz < b */
  return m * big + (q - m) * small;    /* <= b: every RPC holds a byte or more */
}

static int sum_flows(sim *m)
{
  const ostio__traffic *t = m->t;
  ostio__sim_result *r = m->r;
  for (size_t i = 0; i < t->nflow; i++) {
    const ostio__flow *f = &t->flow[i];
    ostio__sim_ost *o = &r->ost[f->ost];
    int64_t rp = flow_rpcs(f->bytes, f->requests, m->s->rpc_bytes);
    int rc;
    m->fl_rpcs[i] = rp;
    if ((rc = add64(&r->bytes, f->bytes, "bytes of the flows")) ||
        (rc = add64(&r->requests, f->requests, "requests of the flows")) ||
        (rc = add64(&r->rpcs, rp, "RPCs of the flows")))
      return rc;
    o->bytes += f->bytes;              /* each below the checked totals */
    o->rpcs += rp;
    m->rank_bytes[f->client] += f->bytes;
  }
  return 0;
}

/* ---- objects: hash to dense ids ---------------------------------------- */

static uint64_t mix(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static int dense_objects(sim *m)
{
  size_t n = m->t->nflow, cap = 16;
  while (cap < 2 * n && cap <= SIZE_MAX / 32) cap *= 2;
  int64_t *key = NULL, *val = NULL;
  if (cap >= 2 * n) key = malloc(cap * sizeof *key), val = malloc(cap * sizeof *val);
  if (!key || !val) {
    free(key);
    free(val);
    return ostio__fail(OSTIO_ENOMEM, "sim: no memory for the objects of %zu flows", n);
  }
  for (size_t h = 0; h < cap; h++) val[h] = -1;
  m->nobj = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t id = m->t->flow[i].object;
    size_t h = (size_t)mix((uint64_t)id) & (cap - 1);
    while (val[h] >= 0 && key[h] != id) h = (h + 1) & (cap - 1);
    if (val[h] < 0) {
      key[h] = id;
      val[h] = (int64_t)m->nobj++;
    }
    m->obj[i] = val[h];
  }
  free(key);
  free(val);
  return 0;
}

/* order = the flows sorted by key(i) in [0, nkeys) (counting sort). */
typedef int64_t (*flow_key)(const sim *m, size_t i);
static int64_t key_object(const sim *m, size_t i) { return m->obj[i]; }
static int64_t key_ost(const sim *m, size_t i) { return m->t->flow[i].ost; }

static void sort_flows(sim *m, flow_key key, size_t nkeys)
{
  memset(m->count, 0, (nkeys + 1) * sizeof *m->count);
  for (size_t i = 0; i < m->t->nflow; i++) m->count[key(m, i) + 1]++;
  for (size_t k = 0; k < nkeys; k++) m->count[k + 1] += m->count[k];
  for (size_t i = 0; i < m->t->nflow; i++) m->order[m->count[key(m, i)]++] = i;
}

/* ---- locks and lone paths, one object at a time ------------------------ */

/* Groups the run order[a, b) (one object) by client into m->grp; returns
 * the group count, or an error when the object spans two OSTs. */
static int64_t group_run(sim *m, size_t a, size_t b)
{
  const ostio__flow *fl = m->t->flow;
  int64_t j = m->obj[m->order[a]], ost = fl[m->order[a]].ost, ng = 0;
  for (size_t x = a; x < b; x++) {
    size_t i = m->order[x];
    int64_t c = fl[i].client;
    if (fl[i].ost != ost)
      return ostio__fail(OSTIO_EINVAL, "sim: object %lld is on OST %lld (flow %zu) and on OST %lld "
                         "(flow %zu); an object lives on one OST", (long long)fl[i].object,
                         (long long)ost, m->order[a], (long long)fl[i].ost, i);
    if (m->stamp[c] != j) {
      m->stamp[c] = j;
      m->slot[c] = ng;
      m->grp[ng++] = (group){.client = c};
    }
    group *g = &m->grp[m->slot[c]];
    g->bytes += fl[i].bytes;             /* below the checked totals */
    g->rpcs += m->fl_rpcs[i];
    g->reqs += fl[i].requests;
  }
  return ng;
}

/* Lock costs of one object (ng groups in m->grp) on OST o; lone paths. */
static void object_costs(sim *m, int64_t ng, ostio__sim_ost *o)
{
  const ostio__sys *s = m->s;
  int64_t reqs = 0;
  double sq = 0;
  for (int64_t g = 0; g < ng; g++) {
    reqs += m->grp[g].reqs;
    sq += (double)m->grp[g].reqs * (double)m->grp[g].reqs;
  }
  int64_t grants = s->lock_expand ? 1 : reqs;
  double conflicts = (s->lock_expand && ng > 1) ? (double)reqs - sq / (double)reqs : 0;
  o->grants += grants;
  o->conflicts += conflicts;
  o->lock += (double)grants * s->lock_grant + conflicts * s->lock_conflict;
  o->objects++;
  m->r->grants += grants;
  m->r->conflicts += conflicts;
  m->r->shared_objects += ng > 1;
  for (int64_t g = 0; g < ng; g++) {
    const group *p = &m->grp[g];
    double share = ng > 1 ? (double)p->reqs * (1.0 - (double)p->reqs / (double)reqs) : 0;
    double wait = s->lock_expand ? s->lock_grant + share * s->lock_conflict
                                 : (double)p->reqs * s->lock_grant;
    double xfer = (double)p->bytes / m->bw_min + (double)p->rpcs * s->ost_req;
    if (xfer > m->lone) m->lone = xfer;
    consider(&m->io, wait + xfer, OSTIO__SIM_PATH, p->client, wait);
    m->serial[p->client] += wait + xfer;
    m->serial_lock[p->client] += wait;
  }
}

static int locks_and_paths(sim *m)
{
  size_t n = m->t->nflow;
  sort_flows(m, key_object, m->nobj);
  for (int64_t c = 0; c < m->t->nranks; c++) m->stamp[c] = -1;
  for (size_t a = 0, b; a < n; a = b) {
    for (b = a + 1; b < n && m->obj[m->order[b]] == m->obj[m->order[a]]; b++) {}
    int64_t ng = group_run(m, a, b);
    if (ng < 0) return (int)ng;
    object_costs(m, ng, &m->r->ost[m->t->flow[m->order[a]].ost]);
  }
  m->r->objects = (int64_t)m->nobj;
  return 0;
}

/* Distinct clients per OST and OSTs per client (slot counts the latter). */
static void fan_counts(sim *m)
{
  ostio__sim_result *r = m->r;
  sort_flows(m, key_ost, (size_t)m->nost);
  for (int64_t c = 0; c < m->t->nranks; c++) m->stamp[c] = -1, m->slot[c] = 0;
  for (size_t x = 0; x < m->t->nflow; x++) {
    const ostio__flow *f = &m->t->flow[m->order[x]];
    if (m->stamp[f->client] == f->ost) continue;
    m->stamp[f->client] = f->ost;
    if (++r->ost[f->ost].clients > r->max_clients_per_ost)
      r->max_clients_per_ost = r->ost[f->ost].clients;
    if (++m->slot[f->client] > r->max_osts_per_client) r->max_osts_per_client = m->slot[f->client];
  }
}

/* ---- phases ------------------------------------------------------------ */

/* Resource loads, in the tie order OST, OSS, NIC, client, network (paths
 * were considered in object_costs; a later strictly larger load wins). */
static void io_loads(sim *m)
{
  const ostio__sys *s = m->s;
  ostio__sim_result *r = m->r;
  crit c = {0};
  for (int64_t o = 0; o < m->nost; o++) {
    ostio__sim_ost *p = &r->ost[o];
    p->busy = (double)p->bytes / s->ost_bw + (double)p->rpcs * s->ost_req + p->lock;
    consider(&c, p->busy, OSTIO__SIM_OST, o, p->lock);
  }
  for (int64_t v = 0; v < s->noss; v++) {
    int64_t b = 0;
    for (int64_t o = v * s->osts_per_oss; o < (v + 1) * s->osts_per_oss; o++) b += r->ost[o].bytes;
    consider(&c, (double)b / s->oss_bw, OSTIO__SIM_OSS, v, 0);
  }
  for (int64_t a = 0; a < m->t->nranks; a += s->ranks_per_node) {
    int64_t b = 0;
    for (int64_t i = a; i < m->t->nranks && i < a + s->ranks_per_node; i++) b += m->rank_bytes[i];
    consider(&c, (double)b / s->nic_bw, OSTIO__SIM_NIC, a / s->ranks_per_node, 0);
  }
  for (int64_t i = 0; i < m->t->nranks; i++)
    consider(&c, (double)m->rank_bytes[i] / s->client_bw, OSTIO__SIM_CLIENT, i, 0);
  if (s->net_bw > 0) consider(&c, (double)r->bytes / s->net_bw, OSTIO__SIM_NETWORK, -1, 0);
  if (!(m->io.t > c.t)) m->io = c;     /* a resource wins a tie with a path */
  for (int64_t i = 0; s->rpcs_in_flight > 0 && i < m->t->nranks; i++)
    consider(&m->io, m->serial[i] / s->rpcs_in_flight, OSTIO__SIM_SERIAL, i,
             m->serial_lock[i] / s->rpcs_in_flight);
}

static int64_t at(const int64_t *a, int64_t i) { return a ? a[i] : 0; }

static int exchange(sim *m, crit *c)
{
  const ostio__sys *s = m->s;
  const ostio__traffic *t = m->t;
  int64_t sent = 0, recv = 0;
  for (int64_t a = 0; a < t->nranks; a += s->ranks_per_node) {
    int64_t sn = 0, rn = 0, who = a;
    double lat = 0;
    int rc;
    for (int64_t i = a; i < t->nranks && i < a + s->ranks_per_node; i++) {
      if ((rc = add64(&sent, at(t->send_bytes, i), "bytes sent in the exchange")) ||
          (rc = add64(&recv, at(t->recv_bytes, i), "bytes received in the exchange")))
        return rc;
      sn += at(t->send_bytes, i);
      rn += at(t->recv_bytes, i);
      double l = (double)at(t->send_msgs, i) * s->net_latency;
      if (l > lat) lat = l, who = i;
    }
    double bw = (double)(sn > rn ? sn : rn) / s->nic_bw;
    if (bw >= lat) consider(c, bw + lat, OSTIO__SIM_EXCH_NIC, a / s->ranks_per_node, 0);
    else consider(c, bw + lat, OSTIO__SIM_EXCH_LATENCY, who, 0);
  }
  m->r->exchange_bytes = sent > recv ? sent : recv;
  if (s->net_bw > 0)
    consider(c, (double)m->r->exchange_bytes / s->net_bw, OSTIO__SIM_EXCH_NETWORK, -1, 0);
  /* Ranks outnumbering cores: each synchronisation waits for descheduled
   * ranks, a time slice per extra rank per core (docs/model.md). */
  double k = s->cores_per_node > 0 ? (double)s->ranks_per_node / s->cores_per_node : 1;
  double sync = k > 1 ? (double)t->syncs * (k - 1) * s->sched_quantum : 0;
  if (sync > 0) {
    if (sync > c->t) c->kind = OSTIO__SIM_EXCH_SYNC, c->idx = -1;
    c->t += sync;
  }
  return 0;
}

static void name_bottleneck(ostio__sim_result *r, const crit *c)
{
  static const char *what[] = {
    [OSTIO__SIM_NONE] = "nothing", [OSTIO__SIM_OST] = "ost", [OSTIO__SIM_OSS] = "oss link",
    [OSTIO__SIM_NIC] = "nic of node", [OSTIO__SIM_CLIENT] = "client of rank",
    [OSTIO__SIM_NETWORK] = "network", [OSTIO__SIM_PATH] = "lone path of rank",
    [OSTIO__SIM_SERIAL] = "requests of rank",
    [OSTIO__SIM_EXCH_NIC] = "exchange: nic of node",
    [OSTIO__SIM_EXCH_LATENCY] = "exchange: messages of rank",
    [OSTIO__SIM_EXCH_NETWORK] = "exchange: network", [OSTIO__SIM_MDS] = "metadata server",
    [OSTIO__SIM_EXCH_SYNC] = "exchange: synchronisation of ranks outnumbering cores"};
  r->bottleneck_kind = c->kind;
  r->bottleneck_index = c->idx;
  if (c->idx >= 0)
    snprintf(r->bottleneck, sizeof r->bottleneck, "%s %lld", what[c->kind], (long long)c->idx);
  else
    snprintf(r->bottleneck, sizeof r->bottleneck, "%s", what[c->kind]);
}

/* Phases, the split of the I/O phase, the bottleneck. */
static void combine(sim *m, const crit *ex)
{
  ostio__sim_result *r = m->r;
  crit meta = {.kind = OSTIO__SIM_NONE, .idx = -1};
  consider(&meta, (double)m->t->opens / m->s->mds_rate, OSTIO__SIM_MDS, -1, 0);
  r->t_meta = meta.t;
  r->t_exchange = ex->t;
  r->t_io_phase = m->io.t;
  r->t_io = m->lone < m->io.t ? m->lone : m->io.t;
  r->t_lock = dmin(m->io.lock, m->io.t - r->t_io);
  r->t_queue = m->io.t - r->t_io - r->t_lock;
  r->time = r->t_meta + r->t_exchange + r->t_io_phase;
  r->bandwidth = r->time > 0 ? (double)r->bytes / r->time : 0;
  const crit *big = &m->io;
  if (ex->t > big->t) big = ex;
  if (meta.t > big->t) big = &meta;
  name_bottleneck(r, big);
}

/* ---- driver ------------------------------------------------------------ */

static int alloc_scratch(sim *m)
{
  size_t n = m->t->nflow, nr = (size_t)m->t->nranks;
  size_t ng = n < nr ? n : nr, nk = m->nobj > (size_t)m->nost ? m->nobj : (size_t)m->nost;
  m->order = malloc((n ? n : 1) * sizeof *m->order);
  m->count = malloc((nk + 1) * sizeof *m->count);
  m->stamp = malloc(nr * sizeof *m->stamp);
  m->slot = malloc(nr * sizeof *m->slot);
  m->grp = malloc((ng ? ng : 1) * sizeof *m->grp);
  if (!m->order || !m->count || !m->stamp || !m->slot || !m->grp)
    return ostio__fail(OSTIO_ENOMEM, "sim: no memory for %zu flows and %zu ranks", n, nr);
  return 0;
}

static int simulate(sim *m)
{
  size_t n = m->t->nflow, nr = (size_t)m->t->nranks;
  int rc;
  m->r->ost = calloc((size_t)m->nost, sizeof *m->r->ost);
  m->rank_bytes = calloc(nr, sizeof *m->rank_bytes);
  m->serial = calloc(nr ? nr : 1, sizeof *m->serial);
  m->serial_lock = calloc(nr ? nr : 1, sizeof *m->serial_lock);
  m->fl_rpcs = malloc((n ? n : 1) * sizeof *m->fl_rpcs);
  m->obj = malloc((n ? n : 1) * sizeof *m->obj);
  if (!m->r->ost || !m->rank_bytes || !m->fl_rpcs || !m->obj || !m->serial || !m->serial_lock)
    return ostio__fail(OSTIO_ENOMEM, "sim: no memory for %zu flows, %zu ranks, %lld OSTs", n, nr,
                       (long long)m->nost);
  m->r->nost = m->nost;
  if ((rc = sum_flows(m)) || (rc = dense_objects(m)) || (rc = alloc_scratch(m)) ||
      (rc = locks_and_paths(m)))
    return rc;
  fan_counts(m);
  if (n > 0) io_loads(m);
  crit ex = {.kind = OSTIO__SIM_NONE, .idx = -1};
  if ((rc = exchange(m, &ex))) return rc;
  combine(m, &ex);
  return 0;
}

int ostio__sim_run(const ostio__sys *s, const ostio__traffic *t, ostio__sim_result *r)
{
  if (r) memset(r, 0, sizeof *r);
  if (!s || !t || !r) return ostio__fail(OSTIO_EINVAL, "sim: NULL argument");
  int64_t nost = ostio__sys_nost(s);
  int rc = check_sys(s);
  if (!rc) rc = check_traffic(s, t, nost);
  if (rc) return rc;
  sim m = {.s = s, .t = t, .r = r, .nost = nost, .io = {.kind = OSTIO__SIM_NONE, .idx = -1}};
  m.bw_min = dmin(dmin(s->client_bw, s->nic_bw), dmin(s->oss_bw, s->ost_bw));
  if (s->net_bw > 0) m.bw_min = dmin(m.bw_min, s->net_bw);
  rc = simulate(&m);
  free(m.fl_rpcs);
  free(m.obj);
  free(m.order);
  free(m.count);
  free(m.stamp);
  free(m.slot);
  free(m.rank_bytes);
  free(m.serial);
  free(m.serial_lock);
  free(m.grp);
  if (rc) ostio__sim_result_free(r);
  return rc;
}

void ostio__sim_result_free(ostio__sim_result *r)
{
  if (!r) return;
  free(r->ost);
  r->ost = NULL;
  r->nost = 0;
}
