/* The model's traffic from the engine's plan functions (model/model_plan.h),
 * without MPI: who writes which object under each strategy for hand-checked
 * cases (ost one-to-one, even/independent all-to-all, file per process),
 * the exchange, byte conservation over random disjoint patterns, and the
 * refusals. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout.h"
#include "model/model_plan.h"
#include "testutil.h"

#define MiB ((int64_t)1 << 20)

typedef struct stats {
  int64_t bytes, max_objs_per_client, max_clients_per_object, nobjects, exch, requests, syncs;
} stats;

/* Distinct objects per client and clients per object (flows are merged by
 * (client, object), so each flow is one pair). */
static stats measure(const ostio__traffic *t)
{
  stats s = {.syncs = t->syncs};
  int64_t *per_client = calloc((size_t)t->nranks, sizeof *per_client);
  int64_t maxobj = 0;
  for (size_t i = 0; i < t->nflow; i++) {
    s.bytes += t->flow[i].bytes;
    s.requests += t->flow[i].requests;
    per_client[t->flow[i].client]++;
    if (t->flow[i].object > maxobj) maxobj = t->flow[i].object;
  }
  int64_t *per_obj = calloc((size_t)maxobj + 1, sizeof *per_obj);
  for (size_t i = 0; i < t->nflow; i++) per_obj[t->flow[i].object]++;
  for (int64_t r = 0; r < t->nranks; r++)
    if (per_client[r] > s.max_objs_per_client) s.max_objs_per_client = per_client[r];
  for (int64_t o = 0; o <= maxobj; o++) {
    if (per_obj[o] > s.max_clients_per_object) s.max_clients_per_object = per_obj[o];
    s.nobjects += per_obj[o] > 0;
  }
  for (int64_t r = 0; t->send_bytes && r < t->nranks; r++) s.exch += t->send_bytes[r];
  free(per_client);
  free(per_obj);
  return s;
}

static stats run(const ostio__model_job *j, int strategy, const ostio_extent *const *ext,
                 const size_t *n, int64_t *opens)
{
  ostio__model_acc a;
  ostio__traffic t;
  CHECK(ostio__model_acc_init(&a, j->nranks) == 0);
  int rc = ostio__model_add_call(&a, j, strategy, ext, n);
  CHECKF(rc == 0, "%s: %s", ostio__mstrategy_name(strategy), ostio_last_error());
  CHECK(ostio__model_traffic(&a, &t) == 0);
  for (size_t i = 0; i < t.nflow; i++)
    CHECK(t.flow[i].ost >= 0 && t.flow[i].ost < j->nost && t.flow[i].bytes > 0 &&
          t.flow[i].requests >= 1 && t.flow[i].client >= 0 && t.flow[i].client < j->nranks);
  stats s = measure(&t);
  if (opens) *opens = t.opens;
  ostio__model_acc_free(&a);
  return s;
}

int main(void)
{
  /* Names. */
  for (int s = 0; s < OSTIO__MS_COUNT; s++)
    CHECK(ostio__mstrategy_from_name(ostio__mstrategy_name(s)) == s);
  CHECK(ostio__mstrategy_from_name("romio") == -1 && ostio__mstrategy_from_name(NULL) == -1);

  /* 4 ranks, one per node, 4 objects of 1 MiB stripes; rank r writes its
   * 4 MiB block [4r, 4r+4) MiB: IOR's segmented pattern, -b 4m -s 1. */
  ostio_layout *l = NULL;
  CHECK(ostio__layout_simple(MiB, 4, -1, &l) == 0);
  ostio_extent e[4];
  const ostio_extent *ext[4];
  size_t n[4];
  for (int r = 0; r < 4; r++) {
    e[r] = (ostio_extent){.offset = 4 * r * MiB, .length = 4 * MiB};
    ext[r] = &e[r];
    n[r] = 1;
  }
  ostio__model_job j = {.l = l, .nranks = 4, .ranks_per_node = 1, .nost = 8, .co_ratio = 1};
  int64_t opens = 0;

  /* ost: one object per aggregator and one aggregator per object (Y-lib);
   * each rank keeps the quarter of its block in its own object and sends
   * the other 3 MiB. */
  stats s = run(&j, OSTIO__MS_OST, ext, n, &opens);
  CHECK_EQ_I64(s.bytes, 16 * MiB);
  CHECK_EQ_I64(s.max_objs_per_client, 1);
  CHECK_EQ_I64(s.max_clients_per_object, 1);
  CHECK_EQ_I64(s.nobjects, 4);
  CHECK_EQ_I64(s.exch, 12 * MiB);
  CHECK_EQ_I64(opens, 4);

  /* even: domains of 4 MiB are the ranks' own blocks (no exchange), each
   * spanning all 4 objects: every aggregator writes every object. */
  s = run(&j, OSTIO__MS_EVEN, ext, n, NULL);
  CHECK_EQ_I64(s.bytes, 16 * MiB);
  CHECK_EQ_I64(s.exch, 0);
  CHECK_EQ_I64(s.max_objs_per_client, 4);
  CHECK_EQ_I64(s.max_clients_per_object, 4);

  /* aligned: the same here (4 MiB is a multiple of the stripe). */
  s = run(&j, OSTIO__MS_ALIGNED, ext, n, NULL);
  CHECK_EQ_I64(s.max_clients_per_object, 4);
  CHECK_EQ_I64(s.bytes, 16 * MiB);

  /* independent: each rank its own block, all four objects, no exchange. */
  s = run(&j, OSTIO__MS_INDEPENDENT, ext, n, NULL);
  CHECK_EQ_I64(s.exch, 0);
  CHECK_EQ_I64(s.max_objs_per_client, 4);
  CHECK_EQ_I64(s.max_clients_per_object, 4);

  /* file per process: 4 files of 4 objects, each object one client. */
  s = run(&j, OSTIO__MS_FPP, ext, n, &opens);
  CHECK_EQ_I64(s.nobjects, 16);
  CHECK_EQ_I64(s.max_clients_per_object, 1);
  CHECK_EQ_I64(s.max_objs_per_client, 4);
  CHECK_EQ_I64(s.bytes, 16 * MiB);

  /* Rounds: an aggregator's bytes in rounds of round_bytes, a request per
   * object per round. Default (8 MiB): each of the 16 (aggregator, object)
   * pairs of even is one request, and each ost aggregator's 4 MiB object is
   * one. 512 KiB rounds split every 1 MiB stripe of even's domains in two;
   * 1 MiB rounds cut each ost aggregator's object into 4 requests. */
  s = run(&j, OSTIO__MS_EVEN, ext, n, NULL);
  CHECK_EQ_I64(s.requests, 16);
  CHECK_EQ_I64(s.syncs, 3); /* agreements on entry and exit, one round */
  s = run(&j, OSTIO__MS_OST, ext, n, NULL);
  CHECK_EQ_I64(s.requests, 4);
  j.round_bytes = 512 * 1024;
  s = run(&j, OSTIO__MS_EVEN, ext, n, NULL);
  CHECK_EQ_I64(s.requests, 32);
  CHECK_EQ_I64(s.bytes, 16 * MiB);
  j.round_bytes = MiB;
  s = run(&j, OSTIO__MS_OST, ext, n, NULL);
  CHECK_EQ_I64(s.requests, 16);
  CHECK_EQ_I64(s.syncs, 2 + 4); /* each aggregator's 4 MiB in 1 MiB rounds */
  s = run(&j, OSTIO__MS_INDEPENDENT, ext, n, NULL); /* no rounds: one per extent and object */
  CHECK_EQ_I64(s.requests, 16);
  CHECK_EQ_I64(s.syncs, 0);
  j.round_bytes = 0;

  /* cb_nodes 2 under ost: 2 aggregators, 2 objects each. */
  j.cb_nodes = 2;
  s = run(&j, OSTIO__MS_OST, ext, n, NULL);
  CHECK_EQ_I64(s.max_objs_per_client, 2);
  CHECK_EQ_I64(s.max_clients_per_object, 1);
  j.cb_nodes = 0;

  /* 4 ranks on one node: every rank may aggregate (no cb_config_list), as
   * in the engine: still one object each. */
  j.ranks_per_node = 4;
  s = run(&j, OSTIO__MS_OST, ext, n, NULL);
  CHECK_EQ_I64(s.max_objs_per_client, 1);
  CHECK_EQ_I64(s.exch, 0); /* nothing leaves the node */
  j.ranks_per_node = 1;

  /* Random disjoint patterns: every strategy moves exactly the pattern's
   * bytes, and ost never puts two aggregators on one object (naggr <=
   * objects, co_ratio 1). */
  tu_rng g;
  tu_rng_seed(&g, tu_seed(17));
  for (int round = 0; round < 200; round++) {
    int P = (int)tu_rng_range(&g, 1, 12), K = (int)tu_rng_range(&g, 1, 8);
    int64_t ss = tu_rng_range(&g, 1, 64) * 4096;
    ostio_layout *lr = NULL;
    CHECK(ostio__layout_simple(ss, K, -1, &lr) == 0);
    /* Cut [0, span) into pieces handed to random ranks, some left empty. */
    int64_t pos = 0, total = 0;
    ostio_extent *pe = malloc(64 * sizeof *pe);
    int *owner = malloc(64 * sizeof *owner);
    size_t np = 0;
    while (np < 64) {
      int64_t len = tu_rng_range(&g, 1, 3 * ss);
      if (tu_rng_range(&g, 0, 3) > 0) {
        pe[np] = (ostio_extent){.offset = pos, .length = len};
        owner[np++] = (int)tu_rng_range(&g, 0, P - 1);
        total += len;
      }
      pos += len;
    }
    ostio_extent **re = calloc((size_t)P, sizeof *re);
    size_t *rn = calloc((size_t)P, sizeof *rn);
    for (int r = 0; r < P; r++) re[r] = malloc(64 * sizeof **re);
    for (size_t i = 0; i < np; i++) re[owner[i]][rn[owner[i]]++] = pe[i]; /* by offset */
    ostio__model_job jr = {.l = lr, .nranks = P, .ranks_per_node = (int)tu_rng_range(&g, 1, 4),
                           .nost = tu_rng_range(&g, 1, 16), .co_ratio = 1};
    for (int st = 0; st < OSTIO__MS_COUNT; st++) {
      stats x = run(&jr, st, (const ostio_extent *const *)re, rn, NULL);
      CHECKF(x.bytes == total, "round %d %s: %lld bytes in flows, %lld in the pattern", round,
             ostio__mstrategy_name(st), (long long)x.bytes, (long long)total);
      if (st == OSTIO__MS_OST) CHECK(x.max_clients_per_object <= 1);
    }
    for (int r = 0; r < P; r++) free(re[r]);
    free(re);
    free(rn);
    free(pe);
    free(owner);
    ostio__layout_destroy(lr);
  }

  /* Refusals. */
  ostio__model_acc a;
  CHECK(ostio__model_acc_init(&a, 0) == OSTIO_EINVAL);
  CHECK(ostio__model_acc_init(&a, 3) == 0);
  CHECK(ostio__model_add_call(&a, &j, OSTIO__MS_OST, ext, n) == OSTIO_EINVAL); /* 4 != 3 */
  CHECK(strstr(ostio_last_error(), "ranks") != NULL);
  ostio__model_acc_free(&a);
  CHECK(ostio__model_acc_init(&a, 4) == 0);
  CHECK(ostio__model_add_call(&a, &j, 99, ext, n) == OSTIO_EINVAL);
  e[2].length = -1;
  CHECK(ostio__model_add_call(&a, &j, OSTIO__MS_OST, ext, n) == OSTIO_EINVAL);
  CHECK(strstr(ostio_last_error(), "rank 2") != NULL);
  ostio__model_acc_free(&a);
  ostio__layout_destroy(l);
  return TEST_DONE();
}
