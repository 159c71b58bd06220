/* The simulator of `ostio model` (model/sim.c): hand-computed cases (one
 * client and one OST, lock conflicts on a shared object, an OSS link's
 * queue, the exchange, the metadata), properties over random traffic
 * (faster hardware never predicts less bandwidth, one-to-one traffic has no
 * conflicts, bytes are conserved, the split adds up), bad input, and a
 * scale run (timed and printed, nothing asserted on time). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/sim.h"
#include "ostio.h"
#include "testutil.h"

#define MiB ((int64_t)1 << 20)

/* No libm here: the tests link without it. */
static double dabs(double a) { return a < 0 ? -a : a; }
static double dmax(double a, double b) { return a > b ? a : b; }
static int near(double a, double b) { return dabs(a - b) <= 1e-9 * dmax(dabs(a), dabs(b)) + 1e-15; }

/* Splits a: the phases and the I/O parts add up to the time. */
static int split_ok(const ostio__sim_result *r)
{
  return r->t_io >= 0 && r->t_lock >= 0 && r->t_queue >= 0 &&
         near(r->t_io + r->t_lock + r->t_queue, r->t_io_phase) &&
         near(r->t_meta + r->t_exchange + r->t_io_phase, r->time);
}

static ostio__sys base_sys(void)
{
  return (ostio__sys){.name = "test", .nodes = 4, .ranks_per_node = 2, .nic_bw = 4e9,
                      .client_bw = 2e9, .net_latency = 1e-6, .net_bw = 0, .noss = 2,
                      .osts_per_oss = 2, .oss_bw = 3e9, .ost_bw = 5e8, .ost_req = 1e-3,
                      .rpc_bytes = MiB, .lock_grant = 1e-4, .lock_conflict = 1e-2,
                      .lock_expand = 1, .mds_rate = 1000};
}

static ostio__traffic flows_of(ostio__flow *f, size_t n, int64_t nranks)
{
  return (ostio__traffic){.nranks = nranks, .flow = f, .nflow = n};
}

/* One client, one OST: grant + bytes over the slowest link + requests. */
static void one_client_one_ost(void)
{
  ostio__sys s = base_sys();
  ostio__flow f = {.client = 0, .ost = 3, .object = 7, .bytes = 100 * MiB, .requests = 10};
  ostio__traffic t = flows_of(&f, 1, 1);
  ostio__sim_result r;
  CHECK(ostio__sim_run(&s, &t, &r) == 0);
  double want = 100.0 * MiB / 5e8 + 100 * 1e-3 + 1e-4;   /* 10 requests of 10 MiB: 100 RPCs */
  CHECKF(near(r.time, want), "time %.9g, want %.9g", r.time, want);
  CHECK(near(r.bandwidth, 100.0 * MiB / want));
  CHECK(r.rpcs == 100 && r.requests == 10 && r.grants == 1 && r.conflicts == 0);
  CHECK(r.bytes == 100 * MiB && r.ost[3].bytes == 100 * MiB && r.ost[3].clients == 1);
  CHECK(r.max_osts_per_client == 1 && r.max_clients_per_ost == 1 && r.objects == 1);
  CHECKF(r.bottleneck_kind == OSTIO__SIM_OST && !strcmp(r.bottleneck, "ost 3"), "%s",
         r.bottleneck);
  CHECK(near(r.t_lock, 1e-4) && near(r.t_queue, 0) && split_ok(&r));
  ostio__sim_result_free(&r);

  /* The client is the slowest link: its lone path still pays requests and grant. */
  s.client_bw = 1e8;
  CHECK(ostio__sim_run(&s, &t, &r) == 0);
  want = 100.0 * MiB / 1e8 + 100 * 1e-3 + 1e-4;
  CHECKF(near(r.time, want), "time %.9g, want %.9g", r.time, want);
  CHECKF(r.bottleneck_kind == OSTIO__SIM_PATH && !strcmp(r.bottleneck, "lone path of rank 0"),
         "%s", r.bottleneck);
  ostio__sim_result_free(&r);

  /* No lock expansion: a grant per request. */
  s = base_sys();
  s.lock_expand = 0;
  CHECK(ostio__sim_run(&s, &t, &r) == 0);
  CHECK(r.grants == 10 && near(r.time, 100.0 * MiB / 5e8 + 0.1 + 10 * 1e-4));
  ostio__sim_result_free(&r);
}

/* RPC counts: requests as equal as integers allow, cut at rpc_bytes. */
static void rpc_cuts(void)
{
  ostio__sys s = base_sys();
  s.rpc_bytes = 3;
  struct { int64_t b, q, want; } c[] = {{10, 3, 4}, {9, 3, 3}, {3, 1, 1}, {4, 1, 2}, {10, 10, 10},
                                        {7, 2, 3}, {INT64_MAX, 1, INT64_MAX / 3 + 1}};
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    ostio__flow f = {.bytes = c[i].b, .requests = c[i].q};
    ostio__traffic t = flows_of(&f, 1, 1);
    ostio__sim_result r;
    CHECK(ostio__sim_run(&s, &t, &r) == 0);
    CHECKF(r.rpcs == c[i].want, "%lld bytes in %lld requests: %lld RPCs, want %lld",
           (long long)c[i].b, (long long)c[i].q, (long long)r.rpcs, (long long)c[i].want);
    ostio__sim_result_free(&r);
  }
}

/* Two clients on one object conflict; on two objects they do not. */
static void lock_conflicts(void)
{
  ostio__sys s = base_sys();
  ostio__flow shared[2] = {{.client = 0, .ost = 0, .object = 5, .bytes = 10 * MiB, .requests = 10},
                           {.client = 2, .ost = 0, .object = 5, .bytes = 10 * MiB, .requests = 10}};
  ostio__flow apart[2] = {{.client = 0, .ost = 0, .object = 5, .bytes = 10 * MiB, .requests = 10},
                          {.client = 2, .ost = 0, .object = 6, .bytes = 10 * MiB, .requests = 10}};
  ostio__traffic ts = flows_of(shared, 2, 4), ta = flows_of(apart, 2, 4);
  ostio__sim_result rs, ra;
  CHECK(ostio__sim_run(&s, &ts, &rs) == 0 && ostio__sim_run(&s, &ta, &ra) == 0);
  /* 20 requests, 10 each: 20 - (100 + 100) / 20 = 10 expected conflicts. */
  CHECKF(near(rs.conflicts, 10) && rs.grants == 1 && rs.shared_objects == 1, "conflicts %g",
         rs.conflicts);
  CHECK(ra.conflicts == 0 && ra.grants == 2 && ra.shared_objects == 0 && ra.objects == 2);
  double xfer = 20.0 * MiB / 5e8 + 20 * 1e-3;
  CHECK(near(rs.ost[0].lock, 1e-4 + 10 * 1e-2) && near(rs.time, xfer + 1e-4 + 0.1));
  CHECK(near(ra.time, xfer + 2e-4) && rs.time > ra.time);
  CHECK(rs.max_clients_per_ost == 2 && rs.ost[0].clients == 2 && rs.ost[0].objects == 1);
  CHECK(near(rs.t_lock, 1e-4 + 0.1) && split_ok(&rs) && split_ok(&ra));
  ostio__sim_result_free(&rs);
  ostio__sim_result_free(&ra);

  /* Unequal shares: 1 + 9 requests: 10 - 82/10 = 1.8. */
  shared[0].requests = 1;
  shared[1].requests = 9;
  CHECK(ostio__sim_run(&s, &ts, &rs) == 0 && near(rs.conflicts, 1.8));
  ostio__sim_result_free(&rs);
  /* Without expansion, disjoint extents do not conflict: a grant per request. */
  s.lock_expand = 0;
  CHECK(ostio__sim_run(&s, &ts, &rs) == 0 && rs.conflicts == 0 && rs.grants == 10);
  ostio__sim_result_free(&rs);
}

/* Two OSTs behind one OSS whose link is slower than the two together. */
static void oss_queue(void)
{
  ostio__sys s = base_sys();
  s.noss = 1;
  s.osts_per_oss = 2;
  s.oss_bw = 1.5e9;
  s.ost_bw = 1e9;
  s.nic_bw = s.client_bw = 1e10;
  s.ost_req = s.lock_grant = 0;
  ostio__flow f[2] = {{.client = 0, .ost = 0, .object = 0, .bytes = 300 * MiB, .requests = 1},
                      {.client = 2, .ost = 1, .object = 1, .bytes = 300 * MiB, .requests = 1}};
  ostio__traffic t = flows_of(f, 2, 4);
  ostio__sim_result r;
  CHECK(ostio__sim_run(&s, &t, &r) == 0);
  double want = 600.0 * MiB / 1.5e9;
  CHECKF(near(r.time, want), "time %.9g, want %.9g", r.time, want);
  CHECKF(r.bottleneck_kind == OSTIO__SIM_OSS && !strcmp(r.bottleneck, "oss link 0"), "%s",
         r.bottleneck);
  CHECK(near(r.t_io, 300.0 * MiB / 1e9) && near(r.t_queue, want - 300.0 * MiB / 1e9));
  CHECK(r.t_lock == 0 && split_ok(&r));
  ostio__sim_result_free(&r);
  /* Two OSSs: each link carries one OST; the OSTs set the time. */
  s.noss = 2;
  s.osts_per_oss = 1;
  CHECK(ostio__sim_run(&s, &t, &r) == 0 && near(r.time, 300.0 * MiB / 1e9));
  ostio__sim_result_free(&r);
}

/* Exchange only: per node, the larger of its sends and receives over the
 * NIC plus its busiest rank's messages; the network caps from below. */
static void exchange_only(void)
{
  ostio__sys s = base_sys();             /* 2 ranks per node, nic 4e9, latency 1e-6 */
  int64_t snd[4] = {4000, 2000, 0, 1000}, rcv[4] = {1000, 1000, 5000, 1000};
  int64_t msg[4] = {3, 1, 0, 100};
  ostio__traffic t = {.nranks = 4, .send_bytes = snd, .recv_bytes = rcv, .send_msgs = msg};
  ostio__sim_result r;
  CHECK(ostio__sim_run(&s, &t, &r) == 0);
  double n0 = 6000 / 4e9 + 3e-6, n1 = 6000 / 4e9 + 100e-6;
  CHECKF(near(r.t_exchange, dmax(n0, n1)) && near(r.time, r.t_exchange), "exchange %.9g",
         r.t_exchange);
  CHECKF(r.bottleneck_kind == OSTIO__SIM_EXCH_LATENCY && r.bottleneck_index == 3, "%s",
         r.bottleneck);
  CHECK(r.bytes == 0 && r.bandwidth == 0 && r.exchange_bytes == 8000 && r.t_io_phase == 0);
  ostio__sim_result_free(&r);
  s.net_bw = 1e6;                        /* 8000 bytes over 1e6 B/s: 8 ms */
  CHECK(ostio__sim_run(&s, &t, &r) == 0 && near(r.t_exchange, 8e-3));
  CHECK(r.bottleneck_kind == OSTIO__SIM_EXCH_NETWORK && !strcmp(r.bottleneck, "exchange: network"));
  ostio__sim_result_free(&r);
  /* Metadata alone: 500 opens at 1000/s. */
  ostio__traffic m = {.nranks = 1, .opens = 500};
  CHECK(ostio__sim_run(&s, &m, &r) == 0 && near(r.time, 0.5) && near(r.t_meta, 0.5));
  CHECK(r.bottleneck_kind == OSTIO__SIM_MDS);
  ostio__sim_result_free(&r);
  ostio__traffic none = {.nranks = 1};
  CHECK(ostio__sim_run(&s, &none, &r) == 0 && r.time == 0 && r.bottleneck_kind == OSTIO__SIM_NONE);
  ostio__sim_result_free(&r);
}

/* ---- properties over random traffic ------------------------------------ */

static double urange(tu_rng *g, double lo, double hi)
{
  return lo + (hi - lo) * ((double)(tu_rng_next(g) >> 11) / 9007199254740992.0);
}

typedef struct rcase {
  ostio__sys s;
  ostio__traffic t;
  ostio__flow f[200];
  int64_t snd[128], rcv[128], msg[128];
} rcase;

static void random_sys(tu_rng *g, ostio__sys *s)
{
  *s = base_sys();
  s->nodes = tu_rng_range(g, 1, 16);
  s->ranks_per_node = (int)tu_rng_range(g, 1, 8);
  s->nic_bw = urange(g, 1e8, 1e10);
  s->client_bw = urange(g, 1e8, 1e10);
  s->net_latency = urange(g, 0, 1e-5);
  s->net_bw = tu_rng_range(g, 0, 1) ? urange(g, 1e9, 1e11) : 0;
  s->noss = (int)tu_rng_range(g, 1, 8);
  s->osts_per_oss = (int)tu_rng_range(g, 1, 4);
  s->oss_bw = urange(g, 1e8, 1e10);
  s->ost_bw = urange(g, 1e7, 1e9);
  s->ost_req = urange(g, 0, 1e-3);
  s->rpc_bytes = tu_rng_range(g, 1, 4 * MiB);
  s->lock_grant = urange(g, 0, 1e-3);
  s->lock_conflict = urange(g, 0, 1e-1);
  s->lock_expand = (int)tu_rng_range(g, 0, 1);
  s->mds_rate = urange(g, 100, 1e5);
}

/* one_to_one: every object written by one client (object = client, OST). */
static void random_case(tu_rng *g, rcase *c, int one_to_one)
{
  random_sys(g, &c->s);
  int64_t nost = ostio__sys_nost(&c->s);
  c->t = (ostio__traffic){.nranks = tu_rng_range(g, 1, c->s.nodes * c->s.ranks_per_node),
                          .flow = c->f, .nflow = (size_t)tu_rng_range(g, 0, 200),
                          .opens = tu_rng_range(g, 0, 3)};
  for (size_t i = 0; i < c->t.nflow; i++) {
    ostio__flow *f = &c->f[i];
    f->client = tu_rng_range(g, 0, c->t.nranks - 1);
    f->ost = tu_rng_range(g, 0, nost - 1);
    f->object = one_to_one ? f->client * nost + f->ost : f->ost + nost * tu_rng_range(g, 0, 2);
    f->bytes = tu_rng_range(g, 1, tu_rng_range(g, 0, 1) ? 4096 : 1000000000);
    f->requests = tu_rng_range(g, 1, f->bytes < 1000 ? f->bytes : 1000);
  }
  int ex = c->t.nranks <= 128 && tu_rng_range(g, 0, 1);
  for (int64_t i = 0; ex && i < c->t.nranks; i++) {
    c->snd[i] = tu_rng_range(g, 0, 100 * MiB);
    c->rcv[i] = tu_rng_range(g, 0, 100 * MiB);
    c->msg[i] = tu_rng_range(g, 0, 1000);
  }
  c->t.send_bytes = ex ? c->snd : NULL;
  c->t.recv_bytes = ex ? c->rcv : NULL;
  c->t.send_msgs = ex ? c->msg : NULL;
}

/* Doubling each bandwidth in turn never predicts less bandwidth. */
static void check_monotone(const rcase *c, const ostio__sim_result *r, uint64_t n)
{
  for (int k = 0; k < 5; k++) {
    ostio__sys s = c->s;
    double *bw[5] = {&s.ost_bw, &s.oss_bw, &s.nic_bw, &s.client_bw, &s.net_bw};
    static const char *name[5] = {"ost_bw", "oss_bw", "nic_bw", "client_bw", "net_bw"};
    *bw[k] *= 2;
    ostio__sim_result r2;
    CHECK(ostio__sim_run(&s, &c->t, &r2) == 0);
    CHECKF(r2.bandwidth >= r->bandwidth && r2.time <= r->time,
           "case %llu: doubling %s: %.17g -> %.17g B/s", (unsigned long long)n, name[k],
           r->bandwidth, r2.bandwidth);
    ostio__sim_result_free(&r2);
  }
}

static void check_case(const rcase *c, int one_to_one, uint64_t n)
{
  ostio__sim_result r;
  int rc = ostio__sim_run(&c->s, &c->t, &r);
  CHECKF(rc == 0, "case %llu: %s", (unsigned long long)n, ostio_last_error());
  if (rc) return;
  int64_t want = 0, got = 0, rpcs = 0;
  double conf = 0;
  for (size_t i = 0; i < c->t.nflow; i++) want += c->f[i].bytes;
  for (int64_t o = 0; o < r.nost; o++)
    got += r.ost[o].bytes, rpcs += r.ost[o].rpcs, conf += r.ost[o].conflicts;
  CHECKF(got == want && r.bytes == want, "case %llu: %lld bytes through OSTs, %lld in flows",
         (unsigned long long)n, (long long)got, (long long)want);
  CHECK(rpcs == r.rpcs && r.rpcs >= r.requests && near(conf, r.conflicts) && r.conflicts >= 0);
  CHECKF(split_ok(&r), "case %llu: split %g + %g + %g + %g + %g vs %g", (unsigned long long)n,
         r.t_meta, r.t_exchange, r.t_io, r.t_lock, r.t_queue, r.time);
  if (one_to_one)
    CHECKF(r.conflicts == 0 && r.shared_objects == 0, "case %llu: one-to-one, %g conflicts",
           (unsigned long long)n, r.conflicts);
  if (c->t.nflow > 0) CHECK(r.max_osts_per_client >= 1 && r.max_clients_per_ost >= 1);
  check_monotone(c, &r, n);
  ostio__sim_result_free(&r);
}

static void properties(void)
{
  tu_rng g;
  tu_rng_seed(&g, tu_seed(0x51d0c0ffeeull));
  rcase *c = malloc(sizeof *c);
  if (!c) {
    CHECK(!"no memory");
    return;
  }
  for (uint64_t n = 0; n < 400; n++) {
    int one = (int)(n % 2);
    random_case(&g, c, one);
    check_case(c, one, n);
  }
  free(c);
}

/* ---- bad input --------------------------------------------------------- */

static void expect_einval(const ostio__sys *s, const ostio__traffic *t, const char *word)
{
  ostio__sim_result r;
  int rc = ostio__sim_run(s, t, &r);
  CHECKF(rc == OSTIO_EINVAL && strstr(ostio_last_error(), word), "rc %d, detail \"%s\", want %s",
         rc, ostio_last_error(), word);
  CHECK(r.ost == NULL);
  ostio__sim_result_free(&r);
}

static void bad_input(void)
{
  ostio__sys s = base_sys();
  ostio__flow f[2] = {{.client = 0, .ost = 0, .object = 1, .bytes = 10, .requests = 1},
                      {.client = 1, .ost = 1, .object = 2, .bytes = 10, .requests = 1}};
  ostio__traffic t = flows_of(f, 2, 2);
  ostio__sim_result r;
  CHECK(ostio__sim_run(NULL, &t, &r) == OSTIO_EINVAL && ostio__sim_run(&s, NULL, &r) == OSTIO_EINVAL);
  CHECK(ostio__sim_run(&s, &t, NULL) == OSTIO_EINVAL && strstr(ostio_last_error(), "NULL"));
  f[1].client = 2;
  expect_einval(&s, &t, "client 2");
  f[1].client = -1;
  expect_einval(&s, &t, "client -1");
  f[1].client = 1, f[1].ost = 4;
  expect_einval(&s, &t, "OST 4");
  f[1].ost = 1, f[1].bytes = -5;
  expect_einval(&s, &t, "-5 bytes");
  f[1].bytes = 10, f[1].requests = 0;
  expect_einval(&s, &t, "0 requests");
  f[1].requests = 11;
  expect_einval(&s, &t, "11 requests");
  f[1].requests = 1, f[1].object = 1;
  expect_einval(&s, &t, "one OST");
  f[1].object = 2, f[0].bytes = f[1].bytes = INT64_MAX / 2 + 1;
  expect_einval(&s, &t, "2^63-1");
  f[0].bytes = f[1].bytes = 10;
  t.flow = NULL;
  expect_einval(&s, &t, "no flow array");
  t.flow = f, t.nranks = 9;
  expect_einval(&s, &t, "holds 8");
  t.nranks = 0;
  expect_einval(&s, &t, "0 ranks");
  t.nranks = 2, t.opens = -1;
  expect_einval(&s, &t, "opens");
  t.opens = 0;
  int64_t snd[2] = {1, -3};
  t.send_bytes = snd;
  expect_einval(&s, &t, "send_bytes of rank 1");
  t.send_bytes = NULL;
  s.ost_bw = 0;
  expect_einval(&s, &t, "ost_bw");
  s = base_sys(), s.nic_bw = NAN;
  expect_einval(&s, &t, "nic_bw");
  s = base_sys(), s.lock_expand = 2;
  expect_einval(&s, &t, "lock_expand");
  s = base_sys(), s.rpc_bytes = 0;
  expect_einval(&s, &t, "rpc_bytes");
  s = base_sys(), s.noss = 0;
  expect_einval(&s, &t, "noss");
  s = base_sys();
  CHECK(ostio__sim_run(&s, &t, &r) == 0);   /* repaired: it runs */
  ostio__sim_result_free(&r);
}

/* ---- scale ------------------------------------------------------------- */

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* nranks ranks, each writing 4 MiB to every ost_per_rank-th... : either one
 * flow per rank (OST rank mod nost, one shared object per OST) or every rank
 * to every OST (all-to-all). Prints the time taken; asserts only results. */
static void scale_run(int64_t nranks, int nost, int all_to_all)
{
  ostio__sys s = base_sys();
  s.ranks_per_node = 16;
  s.nodes = (nranks + 15) / 16;
  s.noss = nost / 4;
  s.osts_per_oss = 4;
  size_t n = all_to_all ? (size_t)nranks * (size_t)nost : (size_t)nranks;
  ostio__flow *f = malloc(n * sizeof *f);
  if (!f) {
    CHECK(!"no memory");
    return;
  }
  for (size_t i = 0; i < n; i++) {
    int64_t c = all_to_all ? (int64_t)(i / (size_t)nost) : (int64_t)i;
    int64_t o = all_to_all ? (int64_t)(i % (size_t)nost) : c % nost;
    f[i] = (ostio__flow){.client = c, .ost = o, .object = o, .bytes = 4 * MiB, .requests = 4};
  }
  ostio__traffic t = flows_of(f, n, nranks);
  ostio__sim_result r;
  double t0 = now();
  int rc = ostio__sim_run(&s, &t, &r);
  double dt = now() - t0;
  CHECKF(rc == 0, "%s", ostio_last_error());
  CHECK(r.bytes == (int64_t)n * 4 * MiB && r.conflicts > 0);
  CHECK(r.max_clients_per_ost == (all_to_all ? nranks : nranks / nost));
  CHECK(r.max_osts_per_client == (all_to_all ? nost : 1));
  printf("scale: %lld ranks x %d OSTs, %zu flows (%s): simulated in %.3f s: %.3g s, %.3g GB/s, "
         "bottleneck %s\n", (long long)nranks, nost, n, all_to_all ? "all-to-all" : "one each",
         dt, r.time, r.bandwidth / 1e9, r.bottleneck);
  ostio__sim_result_free(&r);
  free(f);
}

static void scale(void)
{
  scale_run(100000, 160, 0);
  scale_run(1024, 128, 1);
}

/* The serial path: one client writing 4 objects on 4 OSTs, one request of
 * 1 MiB each. Its lone paths are each grant + 1 MiB / bw_min + ost_req; with
 * one request in flight the client waits for all four in turn, with four in
 * flight (or no limit) for the slowest alone. */
static void serial_path(void)
{
  ostio__sys s = base_sys();             /* bw_min = ost_bw = 5e8, 4 OSTs */
  ostio__flow f[4];
  for (int i = 0; i < 4; i++)
    f[i] = (ostio__flow){.client = 0, .ost = i, .object = i, .bytes = MiB, .requests = 1};
  ostio__traffic t = flows_of(f, 4, 1);
  double path = s.lock_grant + (double)MiB / s.ost_bw + s.ost_req;
  int rif[] = {0, 1, 2, 4};
  double want[] = {path, 4 * path, 2 * path, path};
  for (int i = 0; i < 4; i++) {
    s.rpcs_in_flight = rif[i];
    ostio__sim_result r;
    CHECK(ostio__sim_run(&s, &t, &r) == 0);
    CHECKF(fabs(r.t_io_phase - want[i]) < 1e-12, "rpcs_in_flight %d: I/O phase %.9f s, want %.9f",
           rif[i], r.t_io_phase, want[i]);
    if (rif[i] == 1 || rif[i] == 2)
      CHECKF(strstr(r.bottleneck, "requests of rank 0") != NULL, "bottleneck %s", r.bottleneck);
    /* the lock part of the serial path is its grants */
    if (rif[i] == 1) CHECK(fabs(r.t_lock - 4 * s.lock_grant) < 1e-12);
    ostio__sim_result_free(&r);
  }
  s.rpcs_in_flight = -1;
  ostio__sim_result r;
  CHECK(ostio__sim_run(&s, &t, &r) == OSTIO_EINVAL && strstr(ostio_last_error(), "rpcs_in_flight"));
  ostio__sim_result_free(&r);
}

/* Ranks outnumbering cores: each synchronisation costs (k - 1) time slices,
 * added to the exchange; nothing when the cores suffice or the key is 0. */
static void oversubscribed(void)
{
  ostio__sys s = base_sys();             /* 2 ranks per node */
  int64_t snd[4] = {4000, 0, 0, 0}, rcv[4] = {0, 0, 4000, 0}, msg[4] = {1, 0, 0, 0};
  ostio__traffic t = {.nranks = 4, .send_bytes = snd, .recv_bytes = rcv, .send_msgs = msg,
                      .syncs = 10};
  double base = 4000 / 4e9 + 1e-6;
  int rpn[] = {2, 4, 8, 4}, cores[] = {0, 2, 2, 4};
  double want[] = {base, base + 10 * 1 * 5e-3, base + 10 * 3 * 5e-3, base};
  s.sched_quantum = 5e-3;
  for (int i = 0; i < 4; i++) {
    s.ranks_per_node = rpn[i];
    s.cores_per_node = cores[i];
    ostio__sim_result r;
    CHECK(ostio__sim_run(&s, &t, &r) == 0);
    CHECKF(near(r.t_exchange, want[i]), "%d ranks on %d cores: exchange %.9g s, want %.9g",
           rpn[i], cores[i], r.t_exchange, want[i]);
    if (i == 1 || i == 2)
      CHECKF(r.bottleneck_kind == OSTIO__SIM_EXCH_SYNC && strstr(r.bottleneck, "outnumbering"),
             "bottleneck %s", r.bottleneck);
    ostio__sim_result_free(&r);
  }
  s.cores_per_node = -1;
  ostio__sim_result r;
  CHECK(ostio__sim_run(&s, &t, &r) == OSTIO_EINVAL && strstr(ostio_last_error(), "cores_per_node"));
  ostio__sim_result_free(&r);
}

int main(void)
{
  one_client_one_ost();
  serial_path();
  oversubscribed();
  rpc_cuts();
  lock_conflicts();
  oss_queue();
  exchange_only();
  properties();
  bad_input();
  scale();
  return TEST_DONE();
}
