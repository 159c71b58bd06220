/* The model's plan is the engine's (issue 18): for small jobs (np 2-4) and
 * each strategy, the objects every rank touches as an aggregator in one
 * write_all -- the engine's statistic objects_touched -- equal the objects
 * the model's traffic gives that rank (model/model_plan.h), for an
 * interleaved and a segmented pattern on 4 objects. */
#include <stdlib.h>
#include <string.h>

#include "collcase.h"
#include "layout/layout.h"
#include "model/model_plan.h"

#define STRIPE 65536

/* The pattern of rank r among P: interleaved 48 KiB pieces (kind 0) or one
 * block of 300 KiB (kind 1). */
static size_t pattern(int kind, int r, int P, ostio_extent *e)
{
  if (kind == 1) {
    e[0] = (ostio_extent){.offset = (int64_t)r * 300 * 1024, .length = 300 * 1024};
    return 1;
  }
  for (int i = 0; i < 8; i++)
    e[i] = (ostio_extent){.offset = ((int64_t)i * P + r) * 48 * 1024, .length = 48 * 1024};
  return 8;
}

/* Distinct objects of rank r's flows in the model. */
static int64_t model_objects(const char *strategy, int kind, int P, int r)
{
  ostio_layout *l = NULL;
  CHECK(ostio__layout_simple(STRIPE, 4, -1, &l) == 0);
  ostio_extent *e = malloc((size_t)P * 8 * sizeof *e);
  const ostio_extent **ext = malloc((size_t)P * sizeof *ext);
  size_t *n = malloc((size_t)P * sizeof *n);
  for (int q = 0; q < P; q++) {
    n[q] = pattern(kind, q, P, e + (size_t)q * 8);
    ext[q] = e + (size_t)q * 8;
  }
  /* One node: every rank may aggregate, as here. */
  ostio__model_job j = {.l = l, .nranks = P, .ranks_per_node = P, .nost = 4, .co_ratio = 1};
  ostio__model_acc a;
  ostio__traffic t;
  int64_t objs = -1;
  if (ostio__model_acc_init(&a, P) == 0 &&
      ostio__model_add_call(&a, &j, ostio__mstrategy_from_name(strategy), ext, n) == 0 &&
      ostio__model_traffic(&a, &t) == 0) {
    objs = 0;
    for (size_t i = 0; i < t.nflow; i++) objs += t.flow[i].client == r;
  }
  CHECKF(objs >= 0, "model %s: %s", strategy, ostio_last_error());
  ostio__model_acc_free(&a);
  ostio__layout_destroy(l);
  free(e);
  free(ext);
  free(n);
  return objs;
}

static int rank, nprocs;

static void compare(void)
{
  static const char *const strategies[] = {"ost", "even", "aligned", "independent"};
  for (int kind = 0; kind < 2; kind++) {
    for (size_t s = 0; s < sizeof strategies / sizeof *strategies; s++) {
      char hints[160], what[96];
      snprintf(hints, sizeof hints, "striping_factor=4;striping_unit=%d;ostio_strategy=%s",
               STRIPE, strategies[s]);
      snprintf(what, sizeof what, "%s, pattern %d, np %d", strategies[s], kind, nprocs);
      char name[32];
      snprintf(name, sizeof name, "f%d%zu", kind, s);
      ostio_file *fh = NULL;
      if (!cc_xopen(name, MPI_MODE_CREATE | MPI_MODE_WRONLY, hints, &fh, 0, what)) continue;
      ostio_extent e[8];
      size_t n = pattern(kind, rank, nprocs, e);
      int64_t bytes = 0;
      for (size_t i = 0; i < n; i++) bytes += e[i].length;
      char *buf = calloc((size_t)bytes, 1);
      int rc = ostio_write_all(fh, e, n, buf);
      cc_expect_rc(rc, 0, what, "ostio_write_all");
      CHECKF(!strcmp(ostio_file_strategy(fh), strategies[s]), "%s: the engine ran %s", what,
             ostio_file_strategy(fh));
      double engine = cc_stat(fh, "objects_touched");
      int64_t model = model_objects(strategies[s], kind, nprocs, rank);
      CHECKF((int64_t)engine == model, "%s, rank %d: the engine touched %.0f objects as an "
             "aggregator, the model says %lld", what, rank, engine, (long long)model);
      free(buf);
      ostio_close(&fh);
    }
  }
}

int main(int argc, char **argv)
{
  if (cc_init(&argc, &argv, "test_model_engine", 8, &rank, &nprocs)) return 1; /* at most 8 */
  static const cc_section sec[] = {{"compare", compare, 8}};
  return cc_run_sections(sec, 1, __FILE__);
}
