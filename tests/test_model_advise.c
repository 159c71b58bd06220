/* `ostio advise`'s pure part (model/advise.h), on hand-made systems where
 * the right answer is known: many clients on few OSTs with costly lock
 * conflicts (ost or a file per process beats even, and the reason names the
 * conflicts), a system bound by the clients' NICs (a larger stripe count is
 * not claimed to help), a current choice that is already the best (gain 1,
 * every knob kept), the bound on the number of simulations, a pattern where
 * a log container is the best answer, the run's warnings deciding ties, and
 * bad input refused with OSTIO_EINVAL and a detail. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/advise.h"
#include "model/model_plan.h"
#include "testutil.h"

#define MiB ((int64_t)1 << 20)

/* IOR's segmented pattern: in call k rank r writes `block` bytes at
 * (k * P + r) * block. */
typedef struct seg {
  int64_t nranks, block;
  ostio_extent *e;
  int fail_at;             /* call that fails (-1: none) */
} seg;

static int seg_call(void *ctx, int k, const ostio_extent **ext, size_t *n)
{
  seg *s = ctx;
  if (k == s->fail_at) return OSTIO_EINVAL;
  for (int64_t r = 0; r < s->nranks; r++) {
    s->e[r] = (ostio_extent){.offset = (k * s->nranks + r) * s->block, .length = s->block};
    ext[r] = &s->e[r];
    n[r] = 1;
  }
  return 0;
}

static ostio__sys base_sys(void)
{
  ostio__sys s = {.name = "hand", .nodes = 4, .ranks_per_node = 4, .nic_bw = 10e9,
                  .client_bw = 10e9, .net_latency = 1e-6, .noss = 2, .osts_per_oss = 2,
                  .oss_bw = 10e9, .ost_bw = 1e9, .ost_req = 0, .rpc_bytes = 1 << 20,
                  .lock_grant = 50e-6, .lock_conflict = 10e-3, .lock_expand = 1,
                  .mds_rate = 1e6};
  return s;
}

static int run(const ostio__sys *sys, seg *pat, int ncalls, ostio__advise_choice cur,
               ostio__advise_result *r)
{
  pat->e = calloc((size_t)pat->nranks, sizeof *pat->e);
  ostio__advise_input in = {.sys = sys, .nranks = pat->nranks, .ncalls = ncalls,
                            .call = seg_call, .ctx = pat, .current = cur};
  int rc = ostio__advise(&in, r);
  free(pat->e);
  pat->e = NULL;
  return rc;
}

static void show(const char *what, const ostio__advise_result *r)
{
  printf("# %s: %d simulations, %.1f -> %.1f MB/s (x%.2f)\n", what, r->nsims,
         r->current.bandwidth / 1e6, r->best.bandwidth / 1e6, r->gain);
  for (int k = 0; k < OSTIO__ADV_NKNOBS; k++)
    printf("#   %-12s %-16s -> %-16s x%.2f  %s\n", r->knob[k].name, r->knob[k].current,
           r->knob[k].recommended, r->knob[k].gain, r->knob[k].reason);
}

/* 16 clients on 4 OSTs, even's domains share every object, a conflict costs
 * 10 ms: ost (one object per aggregator) or a file per process must win. */
static void test_conflicts(ostio__advise_result *out)
{
  ostio__sys sys = base_sys();
  seg pat = {.nranks = 16, .block = 4 * MiB, .fail_at = -1};
  ostio__advise_choice cur = {.strategy = OSTIO__MS_EVEN, .stripe_count = 4,
                              .stripe_size = MiB};
  ostio__advise_result r;
  int rc = run(&sys, &pat, 1, cur, &r);
  CHECKF(rc == 0, "%s", ostio_last_error());
  show("conflicts", &r);
  CHECK(r.best.c.strategy == OSTIO__MS_OST || r.best.c.strategy == OSTIO__MS_FPP);
  CHECK(r.gain > 1.5);
  CHECK(r.current.conflicts > 1 && r.best.conflicts < 0.5);
  CHECK(r.knob[OSTIO__ADV_STRATEGY].change == 1);
  CHECK(!strcmp(r.knob[OSTIO__ADV_STRATEGY].current, "even"));
  /* The line that made the move says why: the conflicts. */
  int k = r.best.c.strategy == OSTIO__MS_FPP ? OSTIO__ADV_CONTAINER : OSTIO__ADV_STRATEGY;
  CHECKF(strstr(r.knob[k].reason, "lock conflicts instead of") != NULL, "%s", r.knob[k].reason);
  CHECK(r.knob[k].gain > 1);
  /* The lines' gains multiply to the total. */
  double prod = 1;
  for (int i = 0; i < OSTIO__ADV_NKNOBS; i++) prod *= r.knob[i].gain;
  CHECKF(fabs(prod - r.gain) < 1e-9 * r.gain, "%g vs %g", prod, r.gain);
  CHECK(fabs(r.knob[OSTIO__ADV_CB_NODES].bandwidth - r.best.bandwidth) < 1e-6);
  /* 3 stripe counts (1, 2, 4) x 2 sizes (1m, 4m) x 5 strategies in stage A,
   * at most 12 in stage B, 2 x 6 + 4 in stage C, the cache switched, at most
   * 5 on the path. */
  CHECK(r.nstripe_counts == 3 && r.nstripe_sizes == 2);
  CHECKF(r.nsims >= 30 + 12 && r.nsims <= 30 + 12 + 16 + 1 + 5, "%d", r.nsims);
  *out = r;
}

/* Started from the recommendation, nothing is left to gain. */
static void test_already_best(const ostio__advise_result *prev)
{
  ostio__sys sys = base_sys();
  seg pat = {.nranks = 16, .block = 4 * MiB, .fail_at = -1};
  ostio__advise_result r;
  int rc = run(&sys, &pat, 1, prev->best.c, &r);
  CHECKF(rc == 0, "%s", ostio_last_error());
  show("already best", &r);
  CHECK(r.gain == 1.0);
  CHECK(!memcmp(&r.best.c, &prev->best.c, sizeof r.best.c));
  for (int k = 0; k < OSTIO__ADV_NKNOBS; k++) {
    CHECK(r.knob[k].change == 0 && r.knob[k].gain == 1.0);
    CHECK(!strcmp(r.knob[k].current, r.knob[k].recommended));
    CHECKF(!strncmp(r.knob[k].reason, "keep", 4) || !strncmp(r.knob[k].reason, "not used", 8),
           "%s: %s", r.knob[k].name, r.knob[k].reason);
  }
}

/* 4 nodes of one rank, each node's NIC at 100 MB/s, 8 fast OSTs; every rank
 * writes its own 4 MiB through its NIC whatever the striping: no stripe
 * count may be claimed to help. */
static void test_nic_bound(void)
{
  ostio__sys sys = base_sys();
  sys.ranks_per_node = 1;
  sys.nic_bw = sys.client_bw = 100e6;
  sys.osts_per_oss = 4;
  sys.lock_grant = sys.lock_conflict = 0;
  seg pat = {.nranks = 4, .block = 4 * MiB, .fail_at = -1};
  ostio__advise_choice cur = {.strategy = OSTIO__MS_INDEPENDENT, .stripe_count = 1,
                              .stripe_size = MiB};
  ostio__advise_result r;
  int rc = run(&sys, &pat, 2, cur, &r);
  CHECKF(rc == 0, "%s", ostio_last_error());
  show("nic bound", &r);
  CHECK(strstr(r.current.bottleneck, "nic") != NULL);
  const ostio__advise_knob *k = &r.knob[OSTIO__ADV_STRIPE_COUNT];
  CHECK(k->change == 0 && k->gain == 1.0 && !strcmp(k->recommended, "1"));
  CHECKF(!strncmp(k->reason, "keep", 4) && strstr(k->reason, "nic"), "%s", k->reason);
  CHECK(r.best.c.stripe_count == 1 && r.gain < OSTIO__ADVISE_MIN_GAIN);
  /* counts 1, 2, 4, 8: 4 values */
  CHECK(r.nstripe_counts == 4);
}

/* A system with 3,000 targets and a current choice off every list: the
 * candidate lists are the longest they get, and the bound holds. */
static void test_bound(void)
{
  ostio__sys sys = base_sys();
  sys.noss = 300;
  sys.osts_per_oss = 10;
  seg pat = {.nranks = 8, .block = MiB, .fail_at = -1};
  ostio__advise_choice cur = {.strategy = OSTIO__MS_ALIGNED, .stripe_count = 3,
                              .stripe_size = 2 * MiB, .cb_nodes = 3};
  ostio__advise_result r;
  int rc = run(&sys, &pat, 1, cur, &r);
  CHECKF(rc == 0, "%s", ostio_last_error());
  printf("# bound: %d simulations, %d stripe counts, %d sizes\n", r.nsims, r.nstripe_counts,
         r.nstripe_sizes);
  CHECK(r.nstripe_counts == 13 && r.nstripe_sizes == 3);
  CHECK(r.nsims >= 5 * 13 * 3 && r.nsims <= OSTIO__ADVISE_MAX_SIMS);
}

/* Interleaved small pieces (IOR -p strided): in call k rank r writes `pieces`
 * pieces of `block` bytes, piece i at ((k * pieces + i) * P + r) * block. */
static int strided_call(void *ctx, int k, const ostio_extent **ext, size_t *n)
{
  seg *s = ctx;
  int64_t m = 64;
  for (int64_t r = 0; r < s->nranks; r++) {
    for (int64_t i = 0; i < m; i++)
      s->e[r * m + i] = (ostio_extent){.offset = ((k * m + i) * s->nranks + r) * s->block,
                                       .length = s->block};
    ext[r] = &s->e[r * m];
    n[r] = (size_t)m;
  }
  return 0;
}

/* Where a log container is the model's best answer (docs/model.md,
 * "Containers and the cache"): 16 ranks on 4 nodes write 64 interleaved
 * 4 KiB pieces per call; every request costs an OST 2 ms and the nodes'
 * links are slow. A shared file pays a request per piece (independent, fpp,
 * and a lock conflict each on shared objects) or an exchange over the slow
 * links before its large writes (the collective strategies and the cache);
 * a log appends each rank's call in one request, through its node's link
 * once, plus one 64-byte index record per call. */
static void test_log_best(void)
{
  ostio__sys sys = base_sys();
  sys.nic_bw = sys.client_bw = 50e6;
  sys.ost_req = 2e-3;
  seg pat = {.nranks = 16, .block = 4096, .fail_at = -1};
  pat.e = calloc(16 * 64, sizeof *pat.e);
  ostio__advise_input in = {.sys = &sys, .nranks = 16, .ncalls = 4, .call = strided_call,
                            .ctx = &pat,
                            .current = {.strategy = OSTIO__MS_INDEPENDENT, .stripe_count = 4,
                                        .stripe_size = MiB}};
  ostio__advise_result r;
  int rc = ostio__advise(&in, &r);
  CHECKF(rc == 0, "%s", ostio_last_error());
  show("log best", &r);
  CHECK(r.best.c.container == OSTIO__MC_LOG);
  const ostio__advise_knob *k = &r.knob[OSTIO__ADV_CONTAINER];
  CHECKF(k->change && !strcmp(k->current, "shared") && !strcmp(k->recommended, "log"),
         "%s -> %s", k->current, k->recommended);
  CHECK(r.gain > 1.5);
  CHECK(!strcmp(r.knob[OSTIO__ADV_STRATEGY].recommended, "-"));
  CHECK(!strcmp(r.knob[OSTIO__ADV_CACHE].recommended, "-"));
  CHECK(!strcmp(r.knob[OSTIO__ADV_CB_NODES].recommended, "-"));
  /* The log's requests: one data append and one index record per rank and
   * call (pieces of one length and stride make one record). */
  CHECKF(r.best.rpcs >= 16 * 4 * 2 && r.best.rpcs <= 16 * 4 * 3, "%lld", (long long)r.best.rpcs);
  /* Started from the log, everything is kept. */
  in.current = r.best.c;
  ostio__advise_result again;
  CHECK(ostio__advise(&in, &again) == 0 && again.gain == 1.0);
  CHECK(again.best.c.container == OSTIO__MC_LOG);
  /* The run's statistics warned of small writes: within the model's 5 %
   * a candidate that follows the warning would win; the log is far ahead,
   * so advise keeps it and says by how much the followers fall short. */
  in.current = (ostio__advise_choice){.strategy = OSTIO__MS_INDEPENDENT, .stripe_count = 4,
                                      .stripe_size = MiB};
  in.prefer = 1u << OSTIO__ADV_PREFER_SMALL;
  CHECK(ostio__advise(&in, &again) == 0 && again.best.c.container == OSTIO__MC_LOG);
  CHECK(again.prefer_gain[OSTIO__ADV_PREFER_SMALL] > 0 &&
        again.prefer_gain[OSTIO__ADV_PREFER_SMALL] < 1 / OSTIO__ADVISE_MIN_GAIN);
  free(pat.e);
}

/* Where the model cannot tell the run's warning from the current choice
 * apart (one OST: every strategy x1.00), the warning decides: even -> ost
 * for objects_per_aggregator; without the warning even is kept. */
static void test_prefer_ties(void)
{
  ostio__sys sys = base_sys();
  sys.noss = sys.osts_per_oss = 1;
  sys.lock_grant = sys.lock_conflict = 0;
  seg pat = {.nranks = 2, .block = 4 * MiB, .fail_at = -1};
  ostio__advise_choice cur = {.strategy = OSTIO__MS_EVEN, .stripe_count = 1, .stripe_size = MiB};
  ostio__advise_result r;
  CHECK(run(&sys, &pat, 1, cur, &r) == 0);
  CHECK(r.best.c.strategy == OSTIO__MS_EVEN && r.gain == 1.0);
  pat.e = calloc(2, sizeof *pat.e);
  ostio__advise_input in = {.sys = &sys, .nranks = 2, .ncalls = 1, .call = seg_call, .ctx = &pat,
                            .current = cur, .prefer = 1u << OSTIO__ADV_PREFER_ONE_OBJECT};
  CHECK(ostio__advise(&in, &r) == 0);
  show("prefer ost", &r);
  CHECK(ostio__advise_follows(&r.best.c, OSTIO__ADV_PREFER_ONE_OBJECT));
  CHECK(r.prefer_gain[OSTIO__ADV_PREFER_ONE_OBJECT] == 1.0);
  free(pat.e);
}

static void expect_einval(const char *what, const ostio__advise_input *in, const char *needle)
{
  ostio__advise_result r;
  int rc = ostio__advise(in, &r);
  const char *d = ostio_last_error();
  CHECKF(rc == OSTIO_EINVAL && strstr(d, needle), "%s: rc %d, detail \"%s\"", what, rc, d);
  CHECK(r.nsims == 0);
}

static void test_bad_input(void)
{
  ostio__sys sys = base_sys();
  seg pat = {.nranks = 16, .block = MiB, .fail_at = -1};
  pat.e = calloc(16, sizeof *pat.e);
  ostio__advise_input ok = {.sys = &sys, .nranks = 16, .ncalls = 1, .call = seg_call,
                            .ctx = &pat,
                            .current = {.strategy = OSTIO__MS_OST, .stripe_count = 4,
                                        .stripe_size = MiB}};
  ostio__advise_result r;
  CHECK(ostio__advise(NULL, &r) == OSTIO_EINVAL && r.nsims == 0);
  CHECK(ostio__advise(&ok, NULL) == OSTIO_EINVAL);
  ostio__advise_input in = ok;
  in.sys = NULL;
  expect_einval("no system", &in, "system");
  in = ok;
  in.call = NULL;
  expect_einval("no callback", &in, "callback");
  in = ok;
  in.nranks = 17;
  expect_einval("too many ranks", &in, "need 5 nodes");
  in = ok;
  in.nranks = 0;
  expect_einval("no ranks", &in, "0 ranks");
  in = ok;
  in.ranks_per_node = -1;
  expect_einval("ranks per node", &in, "ranks per node");
  in = ok;
  in.ncalls = 0;
  expect_einval("no calls", &in, "0 calls");
  in = ok;
  in.current.strategy = OSTIO__MS_COUNT;
  expect_einval("strategy", &in, "fpp");
  in = ok;
  in.current.stripe_count = 0;
  expect_einval("stripe count", &in, "stripe count 0");
  in = ok;
  in.current.stripe_count = 2001;
  expect_einval("stripe count", &in, "1 to 2000");
  in = ok;
  in.current.stripe_size = 0;
  expect_einval("stripe size", &in, "stripe size 0");
  in = ok;
  in.current.cb_nodes = 17;
  expect_einval("cb_nodes", &in, "cb_nodes 17");
  in = ok;
  in.current.container = OSTIO__MC_COUNT;
  expect_einval("container", &in, "striped, log");
  in = ok;
  in.current.cache = 2;
  expect_einval("cache", &in, "cache 2");
  in = ok;
  in.prefer = 1u << OSTIO__ADV_NPREFER;
  expect_einval("prefer", &in, "preference bits");
  in = ok;
  ostio__sys bad = sys;
  bad.ost_bw = 0;
  in.sys = &bad;
  expect_einval("system", &in, "ost_bw");
  /* A pattern that writes nothing, and a callback that fails: passed on. */
  in = ok;
  pat.block = 0;
  expect_einval("no bytes", &in, "no byte");
  pat.block = MiB;
  pat.fail_at = 0;
  in = ok;
  CHECK(ostio__advise(&in, &r) == OSTIO_EINVAL);
  free(pat.e);
}

int main(void)
{
  ostio__advise_result first;
  memset(&first, 0, sizeof first);
  test_conflicts(&first);
  test_already_best(&first);
  test_nic_bound();
  test_bound();
  test_bad_input();
  test_log_best();
  test_prefer_ties();
  char buf[16];
  ostio__advise_size_str(buf, sizeof buf, 4 * MiB);
  CHECK(!strcmp(buf, "4m"));
  ostio__advise_size_str(buf, sizeof buf, 65536 + 1);
  CHECK(!strcmp(buf, "65537"));
  return TEST_DONE();
}
