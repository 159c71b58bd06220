/* See model_args.h. */
#include "tools/model_args.h"

#include <stdlib.h>
#include <string.h>

#include "hints/hints.h"
#include "tools/cli.h"

/* ---- the pattern flags -------------------------------------------------------------------- */

void model_pattern_init(model_pattern *p)
{
  *p = (model_pattern){.kind = OB_PAT_IOR, .block = -1, .transfer = -1, .segments = -1};
}

int model_pattern_is_opt(int c)
{
  return c == 'p' || c == 'b' || c == 't' || c == 's' || c == MODEL_OPT_BTIO;
}

int64_t model_size_arg(const char *s)
{
  int64_t v = -1;
  return ostio__parse_size(s, &v) == 0 ? v : -1;
}

int model_pattern_opt(const char *cmd, model_pattern *p, int c, const char *arg)
{
  p->given = 1;
  switch (c) {
  case 'p':
    if ((p->kind = ob_pattern_kind_from_name(arg)) >= 0) return 0;
    return cli_usage_error(cmd, "-p %s: expected ior, strided, btio, flash or random", arg);
  case 'b': case 't': case 's': {
    int64_t *v = c == 'b' ? &p->block : c == 't' ? &p->transfer : &p->segments;
    if ((*v = model_size_arg(arg)) >= 1) return 0;
    return cli_usage_error(cmd, "-%c %s: expected a %s >= 1", c, arg, c == 's' ? "count" : "size");
  }
  case MODEL_OPT_BTIO:
    if (strlen(arg) == 1 && ob_btio_grid(arg[0]) > 0) {
      p->btio_class = arg[0];
      return 0;
    }
    return cli_usage_error(cmd, "--btio-class %s: expected S, W, A, B or C", arg);
  default:
    return cli_usage_error(cmd, "option %d is not a pattern flag", c);
  }
}

void model_pattern_opts(const model_pattern *p, ob_pattern_opts *o)
{
  ob_pattern_defaults(p->kind, o);
  if (p->block > 0) o->block = p->block;
  if (p->transfer > 0) o->transfer = p->transfer;
  if (p->segments > 0) o->segments = p->segments;
  if (p->btio_class) o->btio_class = p->btio_class;
}

/* ---- every rank's plan -------------------------------------------------------------------- */

int model_plans_build(const char *cmd, const ob_pattern_opts *o, int64_t P, model_plans *p)
{
  char err[256] = "";
  *p = (model_plans){.nranks = P};
  p->plans = calloc((size_t)P, sizeof *p->plans);
  if (!p->plans) return cli_runtime_error(cmd, "out of memory for %lld ranks", (long long)P);
  for (int64_t r = 0; r < P; r++) {
    if (ob_pattern_build(o, (int)r, (int)P, &p->plans[r], err, sizeof err) < 0)
      return cli_usage_error(cmd, "pattern at %lld ranks: %s", (long long)P, err);
    if (p->plans[r].nsteps > p->ncalls) p->ncalls = p->plans[r].nsteps;
  }
  return CLI_OK;
}

int model_plans_call(void *plans, int k, const ostio_extent **ext, size_t *n)
{
  const model_plans *p = plans;
  for (int64_t r = 0; r < p->nranks; r++) {
    int in = k < p->plans[r].nsteps;
    ext[r] = in ? p->plans[r].steps[k].ext : NULL;
    n[r] = in ? p->plans[r].steps[k].n : 0;
  }
  return 0;
}

void model_plans_free(model_plans *p)
{
  for (int64_t r = 0; p->plans && r < p->nranks; r++) ob_plan_free(&p->plans[r]);
  free(p->plans);
  *p = (model_plans){0};
}
