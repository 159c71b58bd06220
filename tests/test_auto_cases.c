/* `auto` against this machine's measured winners (issue 29): every case of
 * tests/auto_cases.txt (the pattern as ostio-bench's flags, the layout, and
 * the measured MiB/s of each strategy `auto` can pick) is turned into the
 * inputs the engine gathers for each call (coll.c: bytes, extents, whether
 * two ranks' [lo, hi) ranges intersect), fed to ostio__auto_choose, and the
 * choice must be the measured winner or within the winner's range: its
 * median at least the winner's slowest iteration. No MPI, no timing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hints/hints.h"
#include "patterns.h"
#include "plan/aggr.h"
#include "testutil.h"

#ifndef OSTIO_AUTO_CASES
#error "OSTIO_AUTO_CASES (the path of tests/auto_cases.txt) is set by tests/CMakeLists.txt"
#endif

enum { NSTRAT = 3 };
static const char *const strat[NSTRAT] = {"ost", "aligned", "independent"};

typedef struct {
  char name[96], pattern[16], extra[16], phase[8];
  int64_t block, transfer, segments, stripe_size;
  int nprocs, nnodes, stripe_count;
  double bw[NSTRAT][3]; /* min, median, max MiB/s; median < 0: not measured */
} acase;

static int64_t size_of(const char *s)
{
  char *end;
  long long v = strtoll(s, &end, 10);
  switch (*end) {
  case 'k': return v << 10;
  case 'm': return v << 20;
  case 'g': return v << 30;
  default: return v;
  }
}

/* "min/median/max" or "-" */
static void bw_of(const char *s, double *out)
{
  out[0] = out[1] = out[2] = -1;
  if (strcmp(s, "-") != 0 && sscanf(s, "%lf/%lf/%lf", &out[0], &out[1], &out[2]) != 3)
    out[1] = -2;
}

static int parse(const char *line, acase *c)
{
  char b[24], t[24], s[24], ss[24], bw[NSTRAT][64];
  memset(c, 0, sizeof *c);
  int n = sscanf(line, "%95s %15s %23s %23s %23s %15s %d %d %d %23s %7s %63s %63s %63s",
                 c->name, c->pattern, b, t, s, c->extra, &c->nprocs, &c->nnodes,
                 &c->stripe_count, ss, c->phase, bw[0], bw[1], bw[2]);
  if (n != 14) return -1;
  c->block = size_of(b);
  c->transfer = size_of(t);
  c->segments = size_of(s);
  c->stripe_size = size_of(ss);
  for (int k = 0; k < NSTRAT; k++) bw_of(bw[k], c->bw[k]);
  return 0;
}

typedef struct { int64_t lo, hi, bytes, n; } span;

static int span_cmp(const void *a, const void *b)
{
  const span *x = a, *y = b;
  return (x->lo > y->lo) - (x->lo < y->lo);
}

/* One call's inputs as coll.c gathers them: adjacent extents of a rank count once. */
static void call_inputs(const ob_plan *plans, int P, int step, ostio__auto_in *in)
{
  span sp[64];
  int ns = 0;
  in->total_bytes = in->total_extents = 0;
  for (int r = 0; r < P; r++) {
    const ob_step *st = &plans[r].steps[step];
    span m = {0, 0, 0, 0};
    for (size_t i = 0; i < st->n; i++) {
      const ostio_extent *e = &st->ext[i];
      if (e->length <= 0) continue;
      if (m.n == 0) m.lo = e->offset;
      if (m.n == 0 || e->offset != m.hi) m.n++;
      m.hi = e->offset + e->length;
      m.bytes += e->length;
    }
    in->total_bytes += m.bytes;
    in->total_extents += m.n;
    if (m.n > 0) sp[ns++] = m;
  }
  qsort(sp, (size_t)ns, sizeof *sp, span_cmp);
  in->interleaved = 0;
  int64_t reach = ns ? sp[0].hi : 0;
  for (int i = 1; i < ns; i++) {
    if (sp[i].lo < reach) in->interleaved = 1;
    if (sp[i].hi > reach) reach = sp[i].hi;
  }
}

static int strat_index(const char *name)
{
  for (int k = 0; k < NSTRAT; k++)
    if (strcmp(strat[k], name) == 0) return k;
  return -1;
}

static void check_case(const acase *c, long lineno)
{
  ob_pattern_opts o;
  int kind = ob_pattern_kind_from_name(c->pattern);
  CHECKF(kind >= 0 && c->nprocs >= 1 && c->nprocs <= 64, "line %ld: pattern %s, %d ranks",
         lineno, c->pattern, c->nprocs);
  if (kind < 0 || c->nprocs < 1 || c->nprocs > 64) return;
  ob_pattern_defaults(kind, &o);
  o.block = c->block;
  o.transfer = c->transfer;
  o.segments = c->segments;
  if (strcmp(c->pattern, "flash") == 0) o.flash_blocks_base = atoi(c->extra);
  if (strcmp(c->pattern, "btio") == 0) o.btio_class = c->extra[0];
  if (strcmp(c->pattern, "random") == 0) o.random_bytes = c->block * c->segments;
  ob_plan plans[64];
  memset(plans, 0, sizeof plans);
  char err[256] = "";
  int ok = 1;
  for (int r = 0; r < c->nprocs && ok; r++)
    ok = ob_pattern_build(&o, r, c->nprocs, &plans[r], err, sizeof err) == 0;
  CHECKF(ok, "line %ld: %s", lineno, err);
  /* the winner: highest median; the acceptable: median >= the winner's min */
  int win = -1;
  for (int k = 0; k < NSTRAT; k++) {
    CHECKF(c->bw[k][1] != -2, "line %ld: bad bandwidth column %d", lineno, k);
    if (c->bw[k][1] >= 0 && (win < 0 || c->bw[k][1] > c->bw[win][1])) win = k;
  }
  CHECKF(win >= 0, "line %ld: no strategy measured", lineno);
  for (int s = 0; ok && win >= 0 && s < plans[0].nsteps; s++) {
    ostio__auto_in in = {.nprocs = c->nprocs, .nnodes = c->nnodes,
                         .is_write = strcmp(c->phase, "write") == 0,
                         .cb_hint = OSTIO__TRI_AUTO, .coll_threshold = 0,
                         .stripe_size = c->stripe_size, .stripe_count = c->stripe_count};
    call_inputs(plans, c->nprocs, s, &in);
    const char *why = NULL, *got = ostio__auto_choose(&in, &why);
    int k = strat_index(got);
    int good = k >= 0 && c->bw[k][1] >= 0 && c->bw[k][1] >= c->bw[win][0];
    if (s == 0 || !good)
      printf("%-34s %-5s auto %-11s %7.0f MiB/s  winner %-11s %7.0f [%.0f-%.0f]  %s\n", c->name,
             c->phase, got, k >= 0 ? c->bw[k][1] : -1, strat[win], c->bw[win][1], c->bw[win][0],
             c->bw[win][2], good ? "ok" : "WRONG");
    CHECKF(good, "%s %s (line %ld, call %d): auto chose %s (%s); measured winner %s", c->name,
           c->phase, lineno, s, got, why ? why : "", strat[win]);
    if (!good) break; /* one message per case */
  }
  for (int r = 0; r < c->nprocs; r++) ob_plan_free(&plans[r]);
}

int main(void)
{
  FILE *f = fopen(OSTIO_AUTO_CASES, "r");
  CHECKF(f != NULL, "cannot open %s", OSTIO_AUTO_CASES);
  if (!f) return TEST_DONE();
  char line[1024];
  long lineno = 0, ncases = 0; /* cases = lines: one phase of one run */
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (line[0] == '#' || line[0] == '\n') continue;
    acase c;
    CHECKF(parse(line, &c) == 0, "line %ld: 14 columns expected: %s", lineno, line);
    if (parse(line, &c) != 0) continue;
    check_case(&c, lineno);
    ncases++;
  }
  fclose(f);
  CHECKF(ncases >= 10, "only %ld recorded cases", ncases);
  return TEST_DONE();
}
