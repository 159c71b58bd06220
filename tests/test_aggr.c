/* Aggregator choice (plan/aggr.c) and the auto rule (plan/auto.c): exact
 * orders for small jobs, cb_config_list syntax and its details (the same
 * grammar as the hint check), properties over random jobs and lists against
 * a simple oracle, and every branch of the auto rule with its reason. */
#include <stdlib.h>
#include <string.h>

#include "hints/hints.h"
#include "ostio.h"
#include "plan/aggr.h"
#include "testutil.h"

#define MAXP 256

static const int node8[] = {0, 0, 0, 0, 1, 1, 1, 1};
static const char *const names8[] = {"hosta", "hosta", "hosta", "hosta",
                                     "hostb", "hostb", "hostb", "hostb"};

static void fmt_order(const int *v, int n, char *buf, size_t cap)
{
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && len < cap; i++) {
    int w = snprintf(buf + len, cap - len, "%s%d", i ? "," : "", v[i]);
    if (w < 0) break;
    len += (size_t)w;
  }
}

/* want is "0,4,1,5" (the exact order). */
static void order_is(int nprocs, const int *node, const char *const *names, const char *list,
                     const char *want, int line)
{
  int order[MAXP], n = -1;
  char got[1024];
  int rc = ostio__aggr_eligible(nprocs, node, names, list, order, &n);
  if (!tu_checkf(rc == 0, "rc == 0", __FILE__, line, "list \"%s\": rc %d (%s)", list, rc,
                 ostio_last_error()))
    return;
  fmt_order(order, n, got, sizeof got);
  tu_checkf(strcmp(got, want) == 0, "order", __FILE__, line, "list \"%s\": got [%s], want [%s]",
            list, got, want);
}
#define ORDER_IS(np, node, names, list, want) order_is(np, node, names, list, want, __LINE__)

static void known_orders(void)
{
  ORDER_IS(8, node8, names8, "*:1", "0,4");
  ORDER_IS(8, node8, names8, "*", "0,4");
  ORDER_IS(8, node8, names8, "*:2", "0,4,1,5");
  ORDER_IS(8, node8, names8, "", "0,4,1,5,2,6,3,7");
  ORDER_IS(8, node8, names8, NULL, "0,4,1,5,2,6,3,7");
  ORDER_IS(8, node8, names8, "*:*", "0,4,1,5,2,6,3,7");
  ORDER_IS(8, node8, names8, "*:100", "0,4,1,5,2,6,3,7");
  ORDER_IS(8, node8, names8, "hostb:2,*:1", "0,4,5");
  ORDER_IS(8, node8, names8, "hostb:2", "4,5");                /* hosta excluded */
  ORDER_IS(8, node8, names8, "hostb:*", "4,5,6,7");
  ORDER_IS(8, node8, names8, "hosta:0,*:*", "4,5,6,7");        /* 0 excludes */
  ORDER_IS(8, node8, names8, "hosta", "0");                    /* NAME means NAME:1 */
  ORDER_IS(8, node8, names8, "hosta,hostb", "0,4");
  ORDER_IS(8, node8, names8, "hostb:1,hostb:3,*:2", "0,4,1");  /* first match decides */
  ORDER_IS(8, node8, names8, "*:1,hostb:3", "0,4");            /* '*' matches hostb first */
  ORDER_IS(8, node8, names8, "HostB:3", "4,5,6");              /* host names ignore case */
  ORDER_IS(8, node8, names8, "hostc:4,hosta:3", "0,1,2");
  ORDER_IS(8, node8, names8, "hosta:3,hostb:1", "0,4,1,2");    /* uneven caps */
  ORDER_IS(8, node8, NULL, "*:2", "0,4,1,5");                  /* names unused by '*' */

  /* Node ids need not be dense or sorted; nodes go in order of lowest rank. */
  static const int nodes_mixed[] = {5, 2, 5, 2, 7};
  static const char *const names_mixed[] = {"x", "y", "x", "y", "z"};
  ORDER_IS(5, nodes_mixed, names_mixed, "", "0,1,4,2,3");
  ORDER_IS(5, nodes_mixed, names_mixed, "y:*,*:1", "0,1,4,3");
  ORDER_IS(5, nodes_mixed, names_mixed, "z:1", "4");
  static const int nodes_uneven[] = {0, 1, 1, 1, 2, 2};
  static const char *const names_uneven[] = {"a", "b", "b", "b", "c", "c"};
  ORDER_IS(6, nodes_uneven, names_uneven, "", "0,1,4,2,5,3");
  ORDER_IS(6, nodes_uneven, names_uneven, "*:2", "0,1,4,2,5");
  static const int one[] = {0};
  static const char *const one_name[] = {"solo"};
  ORDER_IS(1, one, one_name, "*:1", "0");
  ORDER_IS(1, one, one_name, "", "0");
  /* Every rank on its own node: rank order. */
  static const int own[] = {0, 1, 2, 3};
  ORDER_IS(4, own, NULL, "*:1", "0,1,2,3");
}

static int detail_is(const char *want, int line)
{
  return tu_checkf(strcmp(ostio_last_error(), want) == 0, "detail", __FILE__, line,
                   "got \"%s\"", ostio_last_error());
}
#define DETAIL_IS(want) detail_is(want, __LINE__)

#define FORM "; expected a comma-separated list of host[:maxprocs] (host a name or *, " \
             "maxprocs digits or *), e.g. *:1 or n01:2,n02:2"

static void errors(void)
{
  int order[MAXP], n = 7;
  /* A list that leaves every node without an aggregator. */
  CHECK(ostio__aggr_eligible(8, node8, names8, "hostc:1", order, &n) == OSTIO_EHINT && n == 0);
  DETAIL_IS("cb_config_list=\"hostc:1\" gives no aggregator to any node of this job (rank 0 "
            "runs on \"hosta\"); name one of its hosts with a count of 1 or more, or use *, "
            "e.g. *:1");
  CHECK(ostio__aggr_eligible(8, node8, names8, "*:0", order, &n) == OSTIO_EHINT && n == 0);
  CHECK(ostio__aggr_eligible(8, node8, names8, "hosta:0,hostb:0,*:4", order, &n) ==
        OSTIO_EHINT);
  /* Bad syntax is reported by eligible with the same detail as the check. */
  CHECK(ostio__aggr_eligible(8, node8, names8, "*:x", order, &n) == OSTIO_EHINT && n == 0);
  DETAIL_IS("cb_config_list=\"*:x\": bad maxprocs (digits or *) in entry 1" FORM);
  /* Arguments. */
  CHECK(ostio__aggr_eligible(0, node8, names8, "*:1", order, &n) == OSTIO_EINVAL);
  DETAIL_IS("aggr: no ranks");
  CHECK(ostio__aggr_eligible(8, NULL, names8, "*:1", order, &n) == OSTIO_EINVAL);
  CHECK(ostio__aggr_eligible(8, node8, names8, "*:1", NULL, &n) == OSTIO_EINVAL);
  CHECK(ostio__aggr_eligible(8, node8, names8, "*:1", order, NULL) == OSTIO_EINVAL);
  DETAIL_IS("aggr: NULL argument");
  CHECK(ostio__aggr_eligible(8, node8, NULL, "hosta:1,*:1", order, &n) == OSTIO_EINVAL);
  DETAIL_IS("aggr: cb_config_list=\"hosta:1,*:1\" names hosts, but no processor names were "
            "given");
}

/* ---- syntax ---------------------------------------------------------------- */

static void syntax(void)
{
  static const char *const good[] = {
    "", "*", "*:1", "*:*", "*:0", "n01", "n01:2,n02:2", "n01,n11", "node-1.example_x:4,*:0",
    "a:2147483647", "A:007,*:*", "x,y,z,*",
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
    CHECKF(ostio__aggr_config_check(good[i]) == 0, "\"%s\": %s", good[i], ostio_last_error());
  CHECK(ostio__aggr_config_check(NULL) == 0);

  static const struct { const char *list, *detail; } bad[] = {
    {"n01,,n02", "cb_config_list=\"n01,,n02\": empty host name in entry 2" FORM},
    {":2", "cb_config_list=\":2\": empty host name in entry 1" FORM},
    {"n01,", "cb_config_list=\"n01,\": empty host name in entry 2" FORM},
    {",", "cb_config_list=\",\": empty host name in entry 1" FORM},
    {"*:", "cb_config_list=\"*:\": bad maxprocs (digits or *) in entry 1" FORM},
    {"n01:x", "cb_config_list=\"n01:x\": bad maxprocs (digits or *) in entry 1" FORM},
    {"a:1,n01:2:3", "cb_config_list=\"a:1,n01:2:3\": bad maxprocs (digits or *) in entry 2" FORM},
    {"n01:-1", "cb_config_list=\"n01:-1\": bad maxprocs (digits or *) in entry 1" FORM},
    {"n01:+1", "cb_config_list=\"n01:+1\": bad maxprocs (digits or *) in entry 1" FORM},
    {"n01:2147483648", "cb_config_list=\"n01:2147483648\": bad maxprocs (digits or *) in entry 1"
                       FORM},
    {"*:**", "cb_config_list=\"*:**\": bad maxprocs (digits or *) in entry 1" FORM},
    {"a b", "cb_config_list=\"a b\": bad character in host name in entry 1" FORM},
    {"*:1,n*:1", "cb_config_list=\"*:1,n*:1\": bad character in host name in entry 2" FORM},
    {"**", "cb_config_list=\"**\": bad character in host name in entry 1" FORM},
    {" *:1", "cb_config_list=\" *:1\": bad character in host name in entry 1" FORM},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECKF(ostio__aggr_config_check(bad[i].list) == OSTIO_EHINT, "\"%s\" accepted", bad[i].list);
    DETAIL_IS(bad[i].detail);
  }
  /* Long values are quoted up to 96 characters. */
  char longv[200];
  memset(longv, 'a', 150);
  strcpy(longv + 150, ":x");
  CHECK(ostio__aggr_config_check(longv) == OSTIO_EHINT);
  char want[512];
  snprintf(want, sizeof want, "cb_config_list=\"%.96s...\": bad maxprocs (digits or *) in "
           "entry 1" FORM, longv);
  DETAIL_IS(want);
}

/* The hint accepts exactly what the planner accepts (except "", which the
 * hint refuses: *:* means "no cap"), with the same detail after "hint ". */
static void hint_agrees(const char *s)
{
  ostio__hints h;
  ostio__hints_init(&h);
  int ra = ostio__aggr_config_check(s);
  char da[600];
  snprintf(da, sizeof da, "hint %s", ostio_last_error());
  int rh = ostio__hints_set(&h, "cb_config_list", s);
  if (!s[0]) {
    CHECK(ra == 0 && rh == OSTIO_EHINT);
    return;
  }
  if (!CHECKF(ra == rh, "\"%s\": planner %d, hint %d", s, ra, rh)) return;
  if (ra != 0)
    CHECKF(strcmp(da, ostio_last_error()) == 0, "\"%s\": \"%s\" vs \"%s\"", s, da,
           ostio_last_error());
  else
    CHECK(strcmp(h.cb_config_list, s) == 0);
}

static void hint_consistency(tu_rng *r)
{
  static const char *const fixed[] = {
    "", "*:1", "*:*", "*", "n01:2,n02:2", "n01,,n02", "*:", ":2", "n01:-1", "a b", "n*:1",
    "n01:99999999999", "n01:2:3", "n01,", "node-1.example_x:4,*:0",
  };
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) hint_agrees(fixed[i]);
  static const char alphabet[] = "ab1*:,0-9 .";
  for (int i = 0; i < 3000; i++) {
    char s[16];
    int len = (int)tu_rng_range(r, 0, 12);
    for (int k = 0; k < len; k++) s[k] = alphabet[tu_rng_range(r, 0, sizeof alphabet - 2)];
    s[len] = '\0';
    hint_agrees(s);
  }
}

/* ---- random jobs against an oracle ---------------------------------------- */

typedef struct spec {
  int wild;       /* '*' */
  int id;         /* host "h<id>" (maybe a host not in the job) */
  int upper;      /* written "H<id>" */
  int count;      /* -1 '*', -2 none written (means 1), else 0.. */
} spec;

/* Count for a host with node id `id` under specs (first match; none: 0). */
static int oracle_cap(const spec *sp, int ns, int id)
{
  if (ns == 0) return -1;
  for (int i = 0; i < ns; i++)
    if (sp[i].wild || sp[i].id == id) return sp[i].count == -2 ? 1 : sp[i].count;
  return 0;
}

static void random_job(tu_rng *r)
{
  int nprocs = (int)tu_rng_range(r, 1, 200);
  int nn = (int)tu_rng_range(r, 1, nprocs < 16 ? nprocs : 16);
  int ids[16], node[MAXP], order[MAXP], n = -1;
  char namebuf[16][16];
  const char *names[MAXP];
  for (int k = 0; k < nn; k++) {
    ids[k] = k * 7 - 20 + (int)tu_rng_range(r, 0, 6); /* distinct, some negative */
    snprintf(namebuf[k], sizeof namebuf[k], "h%d", ids[k]);
  }
  int clustered = tu_rng_range(r, 0, 1) == 0;
  for (int i = 0; i < nprocs; i++) {
    int k = clustered ? (int)((int64_t)i * nn / nprocs) : (int)tu_rng_range(r, 0, nn - 1);
    node[i] = ids[k];
    names[i] = namebuf[k];
  }
  spec sp[5];
  int ns = tu_rng_range(r, 0, 5) == 0 ? 0 : (int)tu_rng_range(r, 1, 5);
  char list[128];
  size_t len = 0;
  list[0] = '\0';
  for (int i = 0; i < ns; i++) {
    sp[i].wild = tu_rng_range(r, 0, 3) == 0;
    int pick = (int)tu_rng_range(r, 0, nn);
    sp[i].id = pick == nn ? 999 : ids[pick];
    sp[i].upper = tu_rng_range(r, 0, 3) == 0;
    int c = (int)tu_rng_range(r, 0, 7);
    sp[i].count = c == 6 ? -1 : c == 5 ? -2 : c;
    char host[16], cnt[16] = "";
    if (sp[i].wild)
      snprintf(host, sizeof host, "*");
    else
      snprintf(host, sizeof host, "%s%d", sp[i].upper ? "H" : "h", sp[i].id);
    if (sp[i].count == -1) snprintf(cnt, sizeof cnt, ":*");
    else if (sp[i].count >= 0) snprintf(cnt, sizeof cnt, ":%d", sp[i].count);
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s%s", i ? "," : "", host, cnt);
  }

  /* Oracle: nodes in order of lowest rank, round k takes each node's k-th
   * lowest rank while k < min(size, cap). */
  int size_of[16], take_of[16], nodes_in_order[16], nseen = 0, total = 0;
  for (int k = 0; k < nn; k++) size_of[k] = 0;
  for (int i = 0; i < nprocs; i++) {
    int k = 0;
    while (ids[k] != node[i]) k++;
    if (size_of[k]++ == 0) nodes_in_order[nseen++] = k;
  }
  for (int k = 0; k < nn; k++) {
    int cap = oracle_cap(sp, ns, ids[k]);
    take_of[k] = cap < 0 || cap > size_of[k] ? size_of[k] : cap;
    total += take_of[k];
  }
  int want[MAXP], nw = 0;
  for (int round = 0; nw < total; round++) {
    for (int j = 0; j < nseen; j++) {
      int k = nodes_in_order[j];
      if (round >= take_of[k]) continue;
      int seen = -1;
      for (int i = 0; i < nprocs; i++)
        if (node[i] == ids[k] && ++seen == round) want[nw++] = i;
    }
  }

  int rc = ostio__aggr_eligible(nprocs, node, names, list, order, &n);
  if (total == 0) {
    CHECKF(rc == OSTIO_EHINT && n == 0, "list \"%s\": rc %d n %d, want OSTIO_EHINT", list, rc,
           n);
    return;
  }
  if (!CHECKF(rc == 0 && n == total, "list \"%s\" nprocs %d: rc %d n %d, want %d (%s)", list,
              nprocs, rc, n, total, ostio_last_error()))
    return;
  char got[1024], exp[1024];
  fmt_order(order, n, got, sizeof got);
  fmt_order(want, nw, exp, sizeof exp);
  CHECKF(strcmp(got, exp) == 0, "list \"%s\": got [%s] want [%s]", list, got, exp);

  /* Properties, checked on the output alone; one verdict each per job. */
  int used[MAXP] = {0}, cnt[16] = {0}, distinct = 1, capped = 1, lowest = 1, balanced = 1;
  for (int i = 0; i < n && distinct; i++) {
    int a = order[i];
    distinct = a >= 0 && a < nprocs && !used[a];
    if (!distinct) break;
    used[a] = 1;
    int k = 0;
    while (ids[k] != node[a]) k++;
    int cap = oracle_cap(sp, ns, ids[k]);
    cnt[k]++;
    capped = capped && (cap < 0 || cnt[k] <= cap);
    /* eligible: a is the next lowest rank of its node */
    int below = 0;
    for (int j = 0; j < a; j++) below += node[j] == node[a];
    lowest = lowest && below == cnt[k] - 1;
    /* prefix balance: a node that still has eligible ranks is at most one
     * behind any other node */
    for (int x = 0; x < nn; x++)
      for (int y = 0; y < nn; y++)
        if (cnt[x] < take_of[x] && cnt[y] > cnt[x] + 1) balanced = 0;
  }
  CHECKF(distinct, "list \"%s\": a rank twice or out of range", list);
  CHECKF(capped, "list \"%s\": a node over its cap", list);
  CHECKF(lowest, "list \"%s\": a node's ranks not taken lowest first", list);
  CHECKF(balanced, "list \"%s\": a prefix is not balanced over nodes", list);
}

/* A large job: 4096 ranks on 512 nodes, no cap; round-robin exactly. */
static void large_job(void)
{
  enum { NP = 4096, PPN = 8 };
  int *node = malloc(NP * sizeof *node), *order = malloc(NP * sizeof *order), n = 0;
  if (!CHECK(node && order)) goto out;
  for (int i = 0; i < NP; i++) node[i] = i / PPN;
  CHECK(ostio__aggr_eligible(NP, node, NULL, "", order, &n) == 0 && n == NP);
  int ok = 1;
  for (int i = 0; i < NP && ok; i++) ok = order[i] == (i % (NP / PPN)) * PPN + i / (NP / PPN);
  CHECK(ok);
  CHECK(ostio__aggr_eligible(NP, node, NULL, "*:1", order, &n) == 0 && n == NP / PPN &&
        order[0] == 0 && order[1] == PPN && order[n - 1] == NP - PPN);
out:
  free(node);
  free(order);
}

/* ---- auto ------------------------------------------------------------------ */

static void auto_is(const ostio__auto_in *in, const char *name, const char *reason, int line)
{
  const char *why = NULL;
  const char *got = ostio__auto_choose(in, &why);
  tu_checkf(got && strcmp(got, name) == 0, "name", __FILE__, line, "got %s, want %s",
            got ? got : "NULL", name);
  tu_checkf(why && strcmp(why, reason) == 0, "reason", __FILE__, line, "got \"%s\"",
            why ? why : "NULL");
  CHECK(ostio__auto_choose(in, NULL) == got); /* why is optional */
}
#define AUTO_IS(in, name, reason) auto_is(in, name, reason, __LINE__)

#define R_DIS_W "romio_cb_write=disable: collective buffering is off for writes"
#define R_DIS_R "romio_cb_read=disable: collective buffering is off for reads"
#define R_ONE "one process: there is nothing to exchange"
#define R_THR "romio_lustre_coll_threshold: requests are this large on average, so they go " \
              "straight to the file system"
#define R_NOINT "ranks' ranges do not interleave: each rank accesses the file directly " \
                "(ROMIO's automatic rule)"
#define R_ALIGNED "one stripe object: ost would leave a single aggregator; stripe-aligned " \
                  "domains spread the work over all aggregators"
#define R_OST "one-to-one OST pattern: every aggregator talks to one stripe object"
#define R_ONEOPEN "a file system that stops client caching when a second client opens the " \
                  "file (CephFS), ranks on several nodes: one aggregator, so one client " \
                  "opens and caches"
#define R_NODE "all ranks on one node: no other client's locks to avoid, and the exchange " \
               "costs more than the system calls it saves"

static void auto_rule(void)
{
  const ostio__auto_in base = {.nprocs = 16, .is_write = 1, .cb_hint = OSTIO__TRI_AUTO,
                               .coll_threshold = 0, .interleaved = 1,
                               .total_bytes = 16 << 20, .total_extents = 1024,
                               .stripe_size = 1 << 20, .stripe_count = 4};
  ostio__auto_in in = base;
  AUTO_IS(&in, "ost", R_OST);

  /* a. disable wins over everything, for writes and reads */
  in.cb_hint = OSTIO__TRI_DISABLE;
  AUTO_IS(&in, "independent", R_DIS_W);
  in.is_write = 0;
  AUTO_IS(&in, "independent", R_DIS_R);
  in.nprocs = 1;
  AUTO_IS(&in, "independent", R_DIS_R);

  /* b. one process, even with enable */
  in = base;
  in.nprocs = 1;
  AUTO_IS(&in, "independent", R_ONE);
  in.cb_hint = OSTIO__TRI_ENABLE;
  AUTO_IS(&in, "independent", R_ONE);

  /* c. threshold: average 16 KiB per extent */
  in = base;
  in.coll_threshold = 16384;
  AUTO_IS(&in, "independent", R_THR);      /* equal: at least the threshold */
  in.coll_threshold = 16385;
  AUTO_IS(&in, "ost", R_OST);              /* below it: collective */
  in.coll_threshold = 4096;
  in.cb_hint = OSTIO__TRI_ENABLE;
  AUTO_IS(&in, "ost", R_OST);              /* enable overrides the threshold */
  in.cb_hint = OSTIO__TRI_AUTO;
  in.total_extents = 0;
  in.total_bytes = 0;
  AUTO_IS(&in, "ost", R_OST);              /* nothing to average */
  in = base;
  in.coll_threshold = 16384;
  in.interleaved = 0;
  AUTO_IS(&in, "independent", R_THR);      /* c before d */

  /* d. no interleaving: independent unless enabled */
  in = base;
  in.interleaved = 0;
  AUTO_IS(&in, "independent", R_NOINT);
  in.is_write = 0;
  AUTO_IS(&in, "independent", R_NOINT);
  in.cb_hint = OSTIO__TRI_ENABLE;
  AUTO_IS(&in, "ost", R_OST);

  /* one stripe object: aligned, for writes and reads, enabled or not */
  in = base;
  in.stripe_count = 1;
  AUTO_IS(&in, "aligned", R_ALIGNED);
  in.is_write = 0;
  in.cb_hint = OSTIO__TRI_ENABLE;
  in.interleaved = 0;
  AUTO_IS(&in, "aligned", R_ALIGNED);
  in.cb_hint = OSTIO__TRI_AUTO;
  AUTO_IS(&in, "independent", R_NOINT);

  /* e. ost for more than one object, reads as writes */
  in = base;
  in.is_write = 0;
  in.stripe_count = 2;
  AUTO_IS(&in, "ost", R_OST);
  in.stripe_count = 2000;
  in.nprocs = 2;
  AUTO_IS(&in, "ost", R_OST);

  /* d'. one node (issue 29): independent unless enabled; 0 nodes = not known */
  in = base;
  in.nnodes = 1;
  AUTO_IS(&in, "independent", R_NODE);
  in.is_write = 0;
  in.stripe_count = 1;
  AUTO_IS(&in, "independent", R_NODE);     /* before e' */
  in.cb_hint = OSTIO__TRI_ENABLE;
  AUTO_IS(&in, "aligned", R_ALIGNED);
  in = base;
  in.nnodes = 1;
  in.interleaved = 0;
  AUTO_IS(&in, "independent", R_NOINT);    /* d before d' */
  in = base;
  in.nnodes = 2;
  AUTO_IS(&in, "ost", R_OST);
  in.nnodes = 0;
  AUTO_IS(&in, "ost", R_OST);

  /* c″. a file system whose caching stops at a second client's open (CephFS;
   * issue 30): writes from ranks on several nodes go through one aggregator,
   * interleaved or not, one stripe object or many, enabled or automatic */
  in = base;
  in.open_drops_cache = 1;
  in.nnodes = 2;
  AUTO_IS(&in, "single", R_ONEOPEN);
  in.interleaved = 0;
  AUTO_IS(&in, "single", R_ONEOPEN);       /* before d: ior-like calls too */
  in.stripe_count = 1;
  AUTO_IS(&in, "single", R_ONEOPEN);       /* before e' */
  in.cb_hint = OSTIO__TRI_ENABLE;
  AUTO_IS(&in, "single", R_ONEOPEN);
  /* more than 2 nodes: only calls that interleave */
  in = base;
  in.open_drops_cache = 1;
  in.nnodes = 3;
  AUTO_IS(&in, "single", R_ONEOPEN);
  in.nnodes = 64;
  AUTO_IS(&in, "single", R_ONEOPEN);
  in.interleaved = 0;
  AUTO_IS(&in, "independent", R_NOINT);    /* ior-like: every client its own range */
  in.nnodes = 3;
  AUTO_IS(&in, "independent", R_NOINT);
  in.cb_hint = OSTIO__TRI_ENABLE;
  AUTO_IS(&in, "ost", R_OST);
  in.nnodes = 2;
  AUTO_IS(&in, "single", R_ONEOPEN);
  in.cb_hint = OSTIO__TRI_DISABLE;
  AUTO_IS(&in, "independent", R_DIS_W);    /* the user's disable wins */
  in = base;
  in.open_drops_cache = 1;
  in.nnodes = 2;
  in.coll_threshold = 16384;
  AUTO_IS(&in, "independent", R_THR);      /* so does the user's threshold */
  in = base;
  in.open_drops_cache = 1;
  in.nnodes = 1;
  AUTO_IS(&in, "independent", R_NODE);     /* one node: one client, nothing to lose */
  in.nnodes = 0;
  AUTO_IS(&in, "ost", R_OST);              /* nodes not known: not applied */
  in.nnodes = 2;
  in.nprocs = 1;
  AUTO_IS(&in, "independent", R_ONE);
  in = base;
  in.open_drops_cache = 1;
  in.nnodes = 2;
  in.is_write = 0;
  AUTO_IS(&in, "ost", R_OST);              /* reads: several readers may cache */
  in.interleaved = 0;
  AUTO_IS(&in, "independent", R_NOINT);
  in = base;
  in.nnodes = 2;
  in.interleaved = 0;
  AUTO_IS(&in, "independent", R_NOINT);    /* other file systems: unchanged */

  AUTO_IS(NULL, "independent", "no input: independent I/O needs no plan");
}

int main(void)
{
  tu_rng r;
  tu_rng_seed(&r, tu_seed(3));
  known_orders();
  errors();
  syntax();
  hint_consistency(&r);
  for (int i = 0; i < 2000; i++) random_job(&r);
  large_job();
  auto_rule();
  return TEST_DONE();
}
