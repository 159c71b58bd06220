/* See model_plan.h. */
#include "model/model_plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "plan/aggr.h"
#include "plan/domain.h"

#define DEFAULT_ROUND ((int64_t)8 << 20) /* 16 MiB cb_buffer_size, two buffers */

static const char *const names[OSTIO__MS_COUNT] = {"ost", "even", "aligned", "independent",
                                                   "fpp"};

const char *ostio__mstrategy_name(int s)
{
  return s >= 0 && s < OSTIO__MS_COUNT ? names[s] : "?";
}

int ostio__mstrategy_from_name(const char *name)
{
  for (int s = 0; name && s < OSTIO__MS_COUNT; s++)
    if (!strcmp(name, names[s])) return s;
  return -1;
}

static const char *const cnames[OSTIO__MC_COUNT] = {"file", "striped", "log"};

const char *ostio__mcontainer_name(int c)
{
  return c >= 0 && c < OSTIO__MC_COUNT ? cnames[c] : "?";
}

int ostio__mcontainer_from_name(const char *name)
{
  for (int c = 0; name && c < OSTIO__MC_COUNT; c++)
    if (!strcmp(name, cnames[c])) return c;
  return -1;
}

int ostio__model_acc_init(ostio__model_acc *a, int64_t nranks)
{
  memset(a, 0, sizeof *a);
  if (nranks < 1 || nranks > INT32_MAX)
    return ostio__fail(OSTIO_EINVAL, "model: %lld ranks; accepted: 1 to %d", (long long)nranks,
                       INT32_MAX);
  a->nranks = nranks;
  a->send_bytes = calloc((size_t)nranks, sizeof *a->send_bytes);
  a->recv_bytes = calloc((size_t)nranks, sizeof *a->recv_bytes);
  a->send_msgs = calloc((size_t)nranks, sizeof *a->send_msgs);
  a->log_end = calloc((size_t)nranks, sizeof *a->log_end);
  a->log_iend = calloc((size_t)nranks, sizeof *a->log_iend);
  if (!a->send_bytes || !a->recv_bytes || !a->send_msgs || !a->log_end || !a->log_iend) {
    ostio__model_acc_free(a);
    return ostio__fail(OSTIO_ENOMEM, "model: out of memory for %lld ranks", (long long)nranks);
  }
  return 0;
}

void ostio__model_acc_free(ostio__model_acc *a)
{
  free(a->flow);
  free(a->send_bytes);
  free(a->recv_bytes);
  free(a->send_msgs);
  free(a->aggr_order);
  free(a->hidx);
  free(a->log_end);
  free(a->log_iend);
  memset(a, 0, sizeof *a);
}

/* Every field back to 0 as ostio__model_acc_init leaves it (present or
 * added later), keeping the allocations and the aggregator placement (the
 * same ranks for every configuration). */
void ostio__model_acc_reset(ostio__model_acc *a)
{
  ostio__model_acc keep = *a;
  size_t P = (size_t)keep.nranks;
  memset(a, 0, sizeof *a);
  a->nranks = keep.nranks;
  a->flow = keep.flow;
  a->cap = keep.cap;
  a->send_bytes = keep.send_bytes;
  a->recv_bytes = keep.recv_bytes;
  a->send_msgs = keep.send_msgs;
  a->log_end = keep.log_end;
  a->log_iend = keep.log_iend;
  a->aggr_order = keep.aggr_order;
  a->aggr_eligible = keep.aggr_eligible;
  a->aggr_rpn = keep.aggr_rpn;
  a->hidx = keep.hidx;     /* hsync 0: rebuilt (emptied) at the first flow */
  a->hcap = keep.hcap;
  memset(a->send_bytes, 0, P * sizeof *a->send_bytes);
  memset(a->recv_bytes, 0, P * sizeof *a->recv_bytes);
  memset(a->send_msgs, 0, P * sizeof *a->send_msgs);
  memset(a->log_end, 0, P * sizeof *a->log_end);
  memset(a->log_iend, 0, P * sizeof *a->log_iend);
}

/* ---- flows -------------------------------------------------------------------------------- */

/* The objects of one file: component c's object o is base[c] + o. */
typedef struct objmap {
  const ostio__model_job *j;
  int64_t base[OSTIO_MAX_COMPONENTS + 1]; /* base[ncomp]: objects per file */
  ostio__objspan *spans;                  /* room for base[ncomp]          */
} objmap;

static int objmap_init(objmap *m, const ostio__model_job *j)
{
  m->j = j;
  m->base[0] = 0;
  for (int c = 0; c < j->l->ncomp; c++) m->base[c + 1] = m->base[c] + j->l->comp[c].stripe_count;
  m->spans = malloc((size_t)m->base[j->l->ncomp] * sizeof *m->spans);
  return m->spans ? 0 : ostio__fail(OSTIO_ENOMEM, "model: out of memory for the objects");
}

static int push(ostio__model_acc *a, ostio__flow f)
{
  if (a->nflow == a->cap) {
    size_t cap = a->cap ? 2 * a->cap : 1024;
    ostio__flow *p = cap > SIZE_MAX / sizeof *p ? NULL : realloc(a->flow, cap * sizeof *p);
    if (!p) return ostio__fail(OSTIO_ENOMEM, "model: out of memory for %zu flows", cap);
    a->flow = p;
    a->cap = cap;
  }
  a->flow[a->nflow++] = f;
  return 0;
}

/* ---- the flow index: (client, object) -> flow ---------------------------------------------- */

static size_t slot_of(const ostio__model_acc *a, int64_t client, int64_t object)
{
  uint64_t x = (uint64_t)client * 0x9E3779B97F4A7C15ull ^ (uint64_t)object;
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  size_t i = (size_t)x & (a->hcap - 1);
  for (;; i = (i + 1) & (a->hcap - 1)) {
    size_t v = a->hidx[i];
    if (!v || (a->flow[v - 1].client == client && a->flow[v - 1].object == object)) return i;
  }
}

/* The index ready for one more flow: grown to twice the flows at least,
 * rebuilt when stale (the later of two flows of one client and object
 * wins, as the merge keeps the latest). */
static int index_ready(ostio__model_acc *a)
{
  if (a->hsync == a->nflow + 1 && 2 * (a->nflow + 1) <= a->hcap) return 0;
  size_t cap = a->hcap ? a->hcap : 1024;
  while (2 * (a->nflow + 1) > cap) {
    if (cap > SIZE_MAX / 4 / sizeof *a->hidx)
      return ostio__fail(OSTIO_ENOMEM, "model: out of memory indexing %zu flows", a->nflow);
    cap *= 2;
  }
  if (cap != a->hcap) {
    size_t *h = realloc(a->hidx, cap * sizeof *h);
    if (!h) return ostio__fail(OSTIO_ENOMEM, "model: out of memory indexing %zu flows", a->nflow);
    a->hidx = h;
    a->hcap = cap;
  }
  memset(a->hidx, 0, a->hcap * sizeof *a->hidx);
  for (size_t i = 0; i < a->nflow; i++)
    a->hidx[slot_of(a, a->flow[i].client, a->flow[i].object)] = i + 1;
  a->hsync = a->nflow + 1;
  return 0;
}

/* Adds f to its client and object's flow, or as a new one: the merge
 * ostio__model_traffic makes, made as the flows come. Tags only grow, so
 * "a request per new tag" counts the same; a call of a million small
 * extents stays a flow per client and object instead of a million flows to
 * sort. */
static int push_merged(ostio__model_acc *a, ostio__flow f)
{
  int rc = index_ready(a);
  if (rc < 0) return rc;
  size_t i = slot_of(a, f.client, f.object), v = a->hidx[i];
  if (v) {
    ostio__flow *g = &a->flow[v - 1];
    if (g->bytes <= INT64_MAX - f.bytes) {
      g->bytes += f.bytes;
      if (g->tag != f.tag) g->requests += f.requests;
      g->tag = f.tag;
      return 0;
    }
  }
  if ((rc = push(a, f)) < 0) return rc;
  a->hidx[i] = a->nflow;
  a->hsync = a->nflow + 1;
  return 0;
}

/* The bytes of [off, off+len) that client writes into file (-1: the shared
 * file; r >= 0: rank r's own file): one flow per object touched, one
 * request each; flows of one client and object with the same tag (one
 * round of an aggregator) become one request when merged. A
 * file per process places its objects from OST r * (objects per file) on,
 * as Lustre's round-robin allocator spreads new files. */
static int add_run(ostio__model_acc *a, const objmap *m, int64_t client, int64_t file,
                   int64_t off, int64_t len, int64_t tag)
{
  const ostio__model_job *j = m->j;
  int64_t per = m->base[j->l->ncomp], npieces = 0;
  size_t nspans = 0;
  int rc = ostio__layout_summary(j->l, off, len, &npieces, m->spans, (size_t)per, &nspans);
  for (size_t i = 0; rc == 0 && i < nspans; i++) {
    const ostio__objspan *s = &m->spans[i];
    int64_t obj = m->base[s->component] + s->object, first = j->l->comp[s->component].first_ost;
    int64_t ost = s->ost >= 0 ? s->ost
                              : (first > 0 ? first : 0) + (file >= 0 ? file * per : 0) + obj;
    rc = push_merged(a, (ostio__flow){.client = client, .ost = ost % j->nost,
                                              .object = (file + 1) * per + obj,
                                              .bytes = s->bytes, .requests = 1, .tag = tag});
  }
  return rc;
}

/* ---- collective calls: pieces by aggregator ----------------------------------------------- */

typedef struct piece {
  int64_t agg, off, len;
} piece;

static int before(const piece *p, const piece *q)
{
  return p->agg != q->agg ? p->agg < q->agg : p->off < q->off;
}

/* One past the run of pieces in order that starts at i. */
static size_t run_end(const piece *p, size_t i, size_t n)
{
  for (i++; i < n && !before(&p[i], &p[i - 1]); i++) {}
  return i;
}

/* Sorts p[0..n) by (aggregator, offset), stably: a natural merge sort, as
 * the pieces come in runs (each rank's in offset order), with the order
 * inline (a call of a million extents spent most of its time in qsort's
 * comparator calls). tmp has room for n; returns the array that holds the
 * result (p or tmp). */
static piece *sort_pieces(piece *p, piece *tmp, size_t n)
{
  piece *src = p, *dst = tmp;
  for (;;) {
    size_t nruns = 0;
    for (size_t i = 0; i < n; nruns++) {
      size_t m = run_end(src, i, n), b = m < n ? run_end(src, m, n) : n, k = i;
      if (nruns == 0 && m == n) return src; /* one run: sorted */
      size_t x = i, y = m;
      while (x < m && y < b) dst[k++] = before(&src[y], &src[x]) ? src[y++] : src[x++];
      while (x < m) dst[k++] = src[x++];
      while (y < b) dst[k++] = src[y++];
      i = b;
    }
    piece *t = src;
    src = dst;
    dst = t;
  }
}

/* The aggregators in the order the engine places them without a
 * cb_config_list hint (every rank may aggregate; the first rank of every
 * node first, then the second, ...: src/file/file.c), into a->aggr_order:
 * once per accumulator (O(ranks)), not per call. */
static int placement(ostio__model_acc *a, const ostio__model_job *j)
{
  if (a->aggr_order && a->aggr_rpn == j->ranks_per_node) return 0;
  int P = (int)j->nranks;
  int *node = malloc((size_t)P * sizeof *node);
  int *order = a->aggr_order ? a->aggr_order : malloc((size_t)P * sizeof *order);
  a->aggr_order = order;
  if (!node || !order) {
    free(node);
    return ostio__fail(OSTIO_ENOMEM, "model: out of memory for %d ranks", P);
  }
  for (int r = 0; r < P; r++) node[r] = r / j->ranks_per_node;
  int ne = 0;
  int rc = ostio__aggr_eligible(P, node, NULL, "", order, &ne);
  free(node);
  if (rc < 0) {
    free(a->aggr_order);
    a->aggr_order = NULL;
    return rc;
  }
  a->aggr_eligible = ne;
  a->aggr_rpn = j->ranks_per_node;
  return 0;
}

/* How many of the placed aggregators the strategy uses. */
static int64_t aggregators(const ostio__model_acc *a, const ostio__model_job *j, int strategy)
{
  int P = (int)j->nranks, nnodes = (int)((j->nranks + j->ranks_per_node - 1) / j->ranks_per_node);
  int64_t want = j->cb_nodes > 0 ? j->cb_nodes
                 : strategy == OSTIO__MS_OST ? ostio__aggr_default_count(j->l, j->co_ratio, P)
                                             : ostio__aggr_contig_count(j->l, j->co_ratio, P, nnodes);
  return want < a->aggr_eligible ? want : a->aggr_eligible;
}

static int collective(ostio__model_acc *a, const ostio__model_job *j, int strategy,
                      const objmap *m, const ostio_extent *const *ext, const size_t *n,
                      int64_t lo, int64_t hi, size_t npieces_hint)
{
  int P = (int)j->nranks;
  int64_t *seen = calloc((size_t)P, sizeof *seen);
  piece *pc = NULL;
  size_t np = 0, cap = npieces_hint + 16;
  int64_t naggr = 0;
  int rc = seen ? placement(a, j) : ostio__fail(OSTIO_ENOMEM, "model: out of memory");
  const int *order = a->aggr_order;
  if (rc == 0) naggr = aggregators(a, j, strategy);
  ostio__domains d;
  const ostio__domain_rule *rule = strategy == OSTIO__MS_OST  ? &ostio__domain_ost
                                   : strategy == OSTIO__MS_EVEN ? &ostio__domain_even
                                                                : &ostio__domain_aligned;
  if (rc == 0) rc = ostio__domains_init(&d, rule, j->l, lo, hi, (int)naggr, (int)j->co_ratio);
  if (rc == 0 && !(pc = malloc(cap * sizeof *pc)))
    rc = ostio__fail(OSTIO_ENOMEM, "model: out of memory for %zu pieces", cap);
  for (int r = 0; rc == 0 && r < P; r++) {
    for (size_t i = 0; rc == 0 && i < n[r]; i++) {
      int64_t pos = ext[r][i].offset, end = pos + ext[r][i].length;
      while (rc == 0 && pos < end) {
        int64_t run_end = end;
        int ag = ostio__domain_owner(&d, pos, &run_end);
        if (ag < 0) {
          rc = ag;
          break;
        }
        int64_t e = run_end < end ? run_end : end, to = order[ag];
        if (np == cap) {
          piece *q = cap > SIZE_MAX / 2 / sizeof *q ? NULL : realloc(pc, 2 * cap * sizeof *q);
          if (!q) {
            rc = ostio__fail(OSTIO_ENOMEM, "model: out of memory for %zu pieces", 2 * cap);
            break;
          }
          pc = q;
          cap *= 2;
        }
        pc[np++] = (piece){ag, pos, e - pos};
        /* Only bytes that leave the node load the network (within a node
         * the exchange is a memory copy, not modelled). */
        if (to / j->ranks_per_node != r / j->ranks_per_node) {
          a->send_bytes[r] += e - pos;
          a->recv_bytes[to] += e - pos;
          if (seen[ag] != r + 1) a->send_msgs[r]++;
        }
        seen[ag] = r + 1;
        pos = e;
      }
    }
  }
  piece *tmp = NULL, *sorted = pc;
  if (rc == 0 && np > 1 && !(tmp = malloc(np * sizeof *tmp)))
    rc = ostio__fail(OSTIO_ENOMEM, "model: out of memory sorting %zu pieces", np);
  if (rc == 0 && np > 1) sorted = sort_pieces(pc, tmp, np);
  if (sorted != pc) {
    free(pc);
    pc = sorted;
    tmp = NULL;
  }
  free(tmp);
  int64_t round = j->round_bytes > 0 ? j->round_bytes : DEFAULT_ROUND, used = 0;
  int64_t tag = a->tag++, agbytes = 0, rounds = 0;
  for (size_t i = 0, k; rc == 0 && i < np; i = k) {
    if (i > 0 && pc[i].agg != pc[i - 1].agg) { /* a new aggregator's rounds */
      if ((agbytes + round - 1) / round > rounds) rounds = (agbytes + round - 1) / round;
      used = agbytes = 0;
      tag = a->tag++;
    }
    int64_t off = pc[i].off, end = off + pc[i].len;
    for (k = i + 1; k < np && pc[k].agg == pc[i].agg && pc[k].off <= end; k++)
      if (pc[k].off + pc[k].len > end) end = pc[k].off + pc[k].len;
    /* The run, cut where the aggregator's rounds end: a request per
     * object per round. */
    while (rc == 0 && off < end) {
      int64_t take = end - off < round - used ? end - off : round - used;
      agbytes += take;
      rc = add_run(a, m, order[pc[i].agg], -1, off, take, tag);
      off += take;
      used += take;
      if (used == round) {
        used = 0;
        tag = a->tag++;
      }
    }
  }
  if ((agbytes + round - 1) / round > rounds) rounds = (agbytes + round - 1) / round;
  /* The call's synchronisations: its agreements and the exchange rounds of
   * its busiest aggregator (every rank takes part in each round). */
  if (rc == 0) a->naggr = naggr, a->syncs += 2 + rounds;
  free(pc);
  free(seen);
  return rc;
}

/* ---- one call ----------------------------------------------------------------------------- */

static int check_job(const ostio__model_acc *a, const ostio__model_job *j, int strategy)
{
  if (!j || !j->l || j->l->ncomp < 1)
    return ostio__fail(OSTIO_EINVAL, "model: no layout");
  if (j->nranks != a->nranks)
    return ostio__fail(OSTIO_EINVAL, "model: a call for %lld ranks added to traffic of %lld",
                       (long long)j->nranks, (long long)a->nranks);
  if (j->ranks_per_node < 1 || j->nost < 1 || j->co_ratio < 1 || j->cb_nodes < 0 ||
      j->round_bytes < 0)
    return ostio__fail(OSTIO_EINVAL, "model: ranks per node %d, targets %lld, co_ratio %lld, "
                       "cb_nodes %lld, round bytes %lld; accepted: >= 1, >= 1, >= 1, >= 0, "
                       ">= 0", j->ranks_per_node, (long long)j->nost, (long long)j->co_ratio,
                       (long long)j->cb_nodes, (long long)j->round_bytes);
  if (strategy < 0 || strategy >= OSTIO__MS_COUNT)
    return ostio__fail(OSTIO_EINVAL, "model: strategy %d; accepted: 0 to %d", strategy,
                       OSTIO__MS_COUNT - 1);
  if (j->container < 0 || j->container >= OSTIO__MC_COUNT || j->cache < 0 || j->cache > 1)
    return ostio__fail(OSTIO_EINVAL, "model: container %d, cache %d; accepted: 0 to %d (file, "
                       "striped, log), 0 or 1", j->container, j->cache, OSTIO__MC_COUNT - 1);
  return 0;
}

/* ---- containers and the cache ------------------------------------------------------------- */

/* Files opened or created by the job: each rank its file (or its own file),
 * a striped container's manifest and K object files on every rank, a log
 * container's data and index log per writing rank plus its manifest and
 * size record. */
static int64_t job_opens(const ostio__model_job *j)
{
  int64_t per = 0;
  for (int c = 0; c < j->l->ncomp; c++) per += j->l->comp[c].stripe_count;
  if (j->container == OSTIO__MC_LOG) return 2 * j->nranks + 2;
  if (j->container == OSTIO__MC_STRIPED) return j->nranks * (per + 1);
  return j->nranks;
}

/* Index records a log writer makes for one call's extents (sorted, as the
 * writer sorts them): a record grows while the pieces have its length and
 * its stride (set by its second piece, at least the length); each call has
 * its own seq, so records never span calls. */
static int64_t log_records(const ostio_extent *e, size_t n)
{
  int64_t recs = 0, len = 0, last = 0, stride = 0, count = 0;
  for (size_t i = 0; i < n; i++) {
    if (e[i].length == 0) continue;
    int64_t d = e[i].offset - last;
    if (count > 0 && e[i].length == len && (count == 1 ? d >= len : d == stride)) {
      if (count == 1) stride = d;
      count++;
      last = e[i].offset;
      continue;
    }
    recs++;
    len = e[i].length;
    last = e[i].offset;
    count = 1;
  }
  return recs;
}

#define LOG_RECORD 64 /* bytes of one index record (container-format.md) */

/* One collective call into a log container (writers=rank): each rank's
 * bytes appended to its data log (file r) in one request, then its records
 * to its index log (file nranks + r), one request each; two agreements. */
static int log_call(ostio__model_acc *a, const objmap *m, const ostio_extent *const *ext,
                    const size_t *n)
{
  const ostio__model_job *j = m->j;
  int rc = 0;
  for (int64_t r = 0; rc == 0 && r < j->nranks; r++) {
    int64_t bytes = 0;
    for (size_t i = 0; i < n[r]; i++) bytes += ext[r][i].length; /* below the call's checked sum */
    if (bytes == 0) continue;
    rc = add_run(a, m, r, r, a->log_end[r], bytes, a->tag++);
    a->log_end[r] += bytes;
    for (int64_t k = log_records(ext[r], n[r]); rc == 0 && k > 0; k--) {
      if (a->log_iend[r] > INT64_MAX - LOG_RECORD)
        return ostio__fail(OSTIO_ERANGE, "model: rank %lld's index log passes 2^63 bytes",
                           (long long)r);
      rc = add_run(a, m, r, j->nranks + r, a->log_iend[r], LOG_RECORD, a->tag++);
      a->log_iend[r] += LOG_RECORD;
    }
  }
  if (rc == 0) a->syncs += 2;
  return rc;
}

/* Whether every extent of the call is shorter than a cache page. */
static int sub_page(const ostio__model_job *j, const ostio_extent *const *ext, const size_t *n)
{
  int64_t page = j->l->comp[0].stripe_size;
  for (int64_t r = 0; r < j->nranks; r++)
    for (size_t i = 0; i < n[r]; i++)
      if (ext[r][i].length >= page) return 0;
  return 1;
}

int ostio__model_add_call(ostio__model_acc *a, const ostio__model_job *j, int strategy,
                          const ostio_extent *const *ext, const size_t *n)
{
  int rc = check_job(a, j, strategy);
  if (rc < 0) return rc;
  int64_t lo = INT64_MAX, hi = 0, bytes = 0;
  size_t count = 0;
  for (int64_t r = 0; r < j->nranks; r++)
    for (size_t i = 0; i < n[r]; i++) {
      int64_t off = ext[r][i].offset, len = ext[r][i].length;
      if (off < 0 || len < 0 || len > INT64_MAX - off || bytes > INT64_MAX - len)
        return ostio__fail(OSTIO_EINVAL, "model: rank %lld extent %zu (offset %lld, length "
                           "%lld): expected offset, length >= 0 and their sum below 2^63",
                           (long long)r, i, (long long)off, (long long)len);
      if (len == 0) continue;
      bytes += len;
      count++;
      if (off < lo) lo = off;
      if (off + len > hi) hi = off + len;
    }
  if (a->opens == 0) a->opens = job_opens(j); /* every rank opens (or creates) once */
  if (bytes == 0) return 0;
  if (a->bytes > INT64_MAX - bytes) return ostio__fail(OSTIO_ERANGE, "model: over 2^63 bytes");
  objmap m;
  if ((rc = objmap_init(&m, j)) < 0) return rc;
  if (j->container == OSTIO__MC_LOG) {
    rc = log_call(a, &m, ext, n);
  } else if (j->cache && strategy != OSTIO__MS_FPP && sub_page(j, ext, n)) {
    /* The owners' pages, written back a request per page (a round of one
     * page): the `ost` rule's traffic, synchronisations included (the
     * drains, lock hand-offs and flushes are not modelled as cheaper:
     * measured, the cache runs at ROMIO's collective speed, docs/cache.md). */
    ostio__model_job jc = *j;
    jc.round_bytes = j->l->comp[0].stripe_size;
    rc = collective(a, &jc, OSTIO__MS_OST, &m, ext, n, lo, hi, count);
  } else if (strategy == OSTIO__MS_INDEPENDENT || strategy == OSTIO__MS_FPP) {
    for (int64_t r = 0; rc == 0 && r < j->nranks; r++)
      for (size_t i = 0; rc == 0 && i < n[r]; i++)
        if (ext[r][i].length > 0)
          rc = add_run(a, &m, r, strategy == OSTIO__MS_FPP ? r : -1, ext[r][i].offset,
                       ext[r][i].length, a->tag++);
  } else {
    rc = collective(a, j, strategy, &m, ext, n, lo, hi, count);
  }
  free(m.spans);
  if (rc == 0) a->bytes += bytes;
  return rc;
}

/* ---- merging ------------------------------------------------------------------------------ */

static int by_client_object(const void *x, const void *y)
{
  const ostio__flow *p = x, *q = y;
  if (p->client != q->client) return p->client < q->client ? -1 : 1;
  if (p->object != q->object) return p->object < q->object ? -1 : 1;
  return p->tag < q->tag ? -1 : p->tag > q->tag;
}

int ostio__model_traffic(ostio__model_acc *a, ostio__traffic *t)
{
  if (a->nflow > 1) qsort(a->flow, a->nflow, sizeof *a->flow, by_client_object);
  size_t k = 0;
  int64_t last_tag = -1;
  for (size_t i = 0; i < a->nflow; i++) {
    if (k > 0 && a->flow[k - 1].client == a->flow[i].client &&
        a->flow[k - 1].object == a->flow[i].object) {
      if (a->flow[k - 1].bytes > INT64_MAX - a->flow[i].bytes)
        return ostio__fail(OSTIO_ERANGE, "model: over 2^63 bytes in one flow");
      a->flow[k - 1].bytes += a->flow[i].bytes;
      /* One request per round: the same tag adds bytes, not requests. */
      if (a->flow[i].tag != last_tag) a->flow[k - 1].requests += a->flow[i].requests;
      last_tag = a->flow[i].tag;
    } else {
      last_tag = a->flow[i].tag;
      a->flow[k++] = a->flow[i];
    }
  }
  a->nflow = k;
  a->hsync = 0; /* reordered: the flow index is rebuilt if flows come again */
  int exch = 0;
  for (int64_t r = 0; r < a->nranks && !exch; r++) exch = a->send_bytes[r] > 0;
  *t = (ostio__traffic){.nranks = a->nranks, .flow = a->flow, .nflow = a->nflow,
                        .send_bytes = exch ? a->send_bytes : NULL,
                        .recv_bytes = exch ? a->recv_bytes : NULL,
                        .send_msgs = exch ? a->send_msgs : NULL, .opens = a->opens,
                        .syncs = a->syncs};
  return 0;
}
