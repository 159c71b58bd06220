/* See model_args.h. */
#include "tools/model_args.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "hints/hints.h"
#include "layout/source.h"
#include "model/advise.h"
#include "model/json.h"
#include "model/model_plan.h"
#include "tools/cli.h"

/* ---- the shipped cluster descriptions ------------------------------------------------------ */

#ifndef OSTIO_BIN_TO_SYSTEMS
#define OSTIO_BIN_TO_SYSTEMS "../share/ostio/systems"
#endif

const char *model_systems_dir(char *buf, size_t cap)
{
  static const char *const source = "systems/ of the source tree";
  char exe[4096], dir[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return source;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash) return source;
  *slash = '\0';
  if (cap < PATH_MAX ||
      (size_t)snprintf(dir, sizeof dir, "%s/%s", exe, OSTIO_BIN_TO_SYSTEMS) >= sizeof dir ||
      !realpath(dir, buf))
    return source;
  return buf;
}

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

/* The rule a Lustre layout applies (src/layout/source_lustre.c), with its
 * sentence: a stripe size the model would take minutes and gigabytes over
 * (a 1-byte stripe cuts every extent into bytes) is one no file can have. */
static int lustre_stripe_size(int64_t size, const char *what, char *msg, size_t cap)
{
  if (ostio__check_lustre_stripe_size(size, what) == 0) return 0;
  snprintf(msg, cap, "%s", ostio_last_error());
  ostio__clear_error();
  return -1;
}

int model_stripe_size_arg(const char *cmd, const char *arg, int64_t *size)
{
  char msg[512];
  int64_t v = model_size_arg(arg);
  if (v < 1)
    return cli_usage_error(cmd, "--stripe-size %s: expected a size, a multiple of 64k (k, m, g "
                           "suffixes)", arg);
  if (lustre_stripe_size(v, "--stripe-size", msg, sizeof msg) < 0)
    return cli_usage_error(cmd, "%s", msg);
  *size = v;
  return 0;
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

/* Rank by rank (each plan freed once copied), into the call-by-call layout. */
static int transpose(const char *cmd, model_plans *p, const ob_plan *plans)
{
  int64_t P = p->nranks;
  size_t total = 0, ncell = (size_t)p->ncalls * (size_t)P;
  for (int64_t r = 0; r < P; r++)
    for (int k = 0; k < plans[r].nsteps; k++) total += plans[r].steps[k].n;
  p->ext = malloc((total ? total : 1) * sizeof *p->ext);
  p->first = malloc((ncell + 1) * sizeof *p->first);
  if (!p->ext || !p->first)
    return cli_runtime_error(cmd, "out of memory for %zu extents of %lld ranks", total,
                             (long long)P);
  size_t at = 0;
  for (int k = 0; k < p->ncalls; k++)
    for (int64_t r = 0; r < P; r++) {
      p->first[(size_t)k * (size_t)P + (size_t)r] = at;
      if (k >= plans[r].nsteps) continue;
      memcpy(p->ext + at, plans[r].steps[k].ext, plans[r].steps[k].n * sizeof *p->ext);
      at += plans[r].steps[k].n;
    }
  p->first[ncell] = at;
  return CLI_OK;
}

int model_plans_build(const char *cmd, const ob_pattern_opts *o, int64_t P, model_plans *p)
{
  char err[256] = "";
  *p = (model_plans){.nranks = P};
  ob_plan *plans = calloc((size_t)P, sizeof *plans);
  int status = plans ? CLI_OK : cli_runtime_error(cmd, "out of memory for %lld ranks", (long long)P);
  for (int64_t r = 0; status == CLI_OK && r < P; r++) {
    if (ob_pattern_build(o, (int)r, (int)P, &plans[r], err, sizeof err) < 0)
      status = cli_usage_error(cmd, "pattern at %lld ranks: %s", (long long)P, err);
    else if (plans[r].nsteps > p->ncalls) p->ncalls = plans[r].nsteps;
  }
  if (status == CLI_OK) status = transpose(cmd, p, plans);
  for (int64_t r = 0; plans && r < P; r++) ob_plan_free(&plans[r]);
  free(plans);
  return status;
}

int model_plans_call(void *plans, int k, const ostio_extent **ext, size_t *n)
{
  const model_plans *p = plans;
  const size_t *f = p->first + (size_t)k * (size_t)p->nranks;
  for (int64_t r = 0; r < p->nranks; r++) {
    ext[r] = p->ext + f[r];
    n[r] = f[r + 1] - f[r];
  }
  return 0;
}

void model_plans_free(model_plans *p)
{
  free(p->ext);
  free(p->first);
  *p = (model_plans){0};
}

/* ---- a run's statistics document ---------------------------------------------------------------- */

static int read_all(const char *cmd, const char *path, char **text, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) return cli_runtime_error(cmd, "--stats %s: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n, f);
    if (n < cap || cap > OSTIO__JSON_MAX_BYTES) break;
    char *b = realloc(buf, cap * 2);
    if (!b) free(buf);
    buf = b;
    cap *= 2;
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf || bad) {
    free(buf);
    return cli_runtime_error(cmd, "--stats %s: %s", path, bad ? "read error" : "out of memory");
  }
  *text = buf;
  *len = n;
  return CLI_OK;
}

/* obj.key as an integer (a double with an integral value is accepted too). */
static int get_int(const ostio__json *obj, const char *key, int64_t *v)
{
  const ostio__json_member *m = ostio__json_find(obj, key);
  if (!m || m->value.type != OSTIO__JSON_INT) return -1;
  *v = m->value.u.i;
  return 0;
}

/* files[i].counters.NAME.FIELD; 0 when the counter is missing. */
static int64_t counter(const ostio__json *file, const char *name, const char *field)
{
  const ostio__json_member *c = ostio__json_find(file, "counters");
  const ostio__json_member *m = c ? ostio__json_find(&c->value, name) : NULL;
  int64_t v = 0;
  return m && get_int(&m->value, field, &v) == 0 ? v : 0;
}

/* The strategy the run's collective calls used most (strategy_* counters),
 * else the file's strategy hint; independent calls only: independent. */
static int run_strategy(const ostio__json *file)
{
  static const char *const names[] = {"ost", "even", "aligned", "independent"};
  int best = -1;
  int64_t most = 0;
  char key[64];
  for (int s = 0; s < 4; s++) {
    snprintf(key, sizeof key, "strategy_%s", names[s]);
    int64_t v = counter(file, key, "sum");
    if (v > most) {
      most = v;
      best = ostio__mstrategy_from_name(names[s]);
    }
  }
  if (best >= 0) return best;
  if (counter(file, "coll_writes", "sum") == 0) return OSTIO__MS_INDEPENDENT;
  const ostio__json_member *m = ostio__json_find(file, "strategy");
  int s = m && m->value.type == OSTIO__JSON_STRING ? ostio__mstrategy_from_name(m->value.u.str.s) : -1;
  return s >= 0 ? s : OSTIO__MS_OST;
}

static int pick_file(const char *cmd, const ostio__json *files, int64_t want, const char *path, int64_t *index)
{
  if (!files || files->type != OSTIO__JSON_ARRAY || files->u.arr.n == 0)
    return cli_runtime_error(cmd, "--stats %s: no \"files\" listed (expected the array of the "
                             "files the run closed)", path);
  if (want >= (int64_t)files->u.arr.n)
    return cli_runtime_error(cmd, "--stats-file %lld: %s lists %zu files (0 to %zu)", (long long)want,
                             path, files->u.arr.n, files->u.arr.n - 1);
  *index = want;
  for (size_t i = 0; want < 0 && i < files->u.arr.n; i++)
    if (*index < 0 || counter(&files->u.arr.item[i], "bytes_written", "sum") >
                          counter(&files->u.arr.item[*index], "bytes_written", "sum"))
      *index = (int64_t)i;
  return CLI_OK;
}

static int read_file_rec(const char *cmd, const ostio__json *root, const ostio__json *f,
                         const char *path, model_run *s)
{
  const ostio__json_member *lay = ostio__json_find(f, "layout"), *job = ostio__json_find(root, "job");
  const ostio__json_member *name = ostio__json_find(f, "file");
  if (name && name->value.type == OSTIO__JSON_STRING)
    snprintf(s->file, sizeof s->file, "%s", name->value.u.str.s);
  if (get_int(f, "nprocs", &s->nprocs) < 0 || s->nprocs < 1 || !lay ||
      get_int(&lay->value, "stripe_count", &s->stripe_count) < 0 ||
      get_int(&lay->value, "stripe_size", &s->stripe_size) < 0 ||
      get_int(&lay->value, "ncomponents", &s->ncomponents) < 0)
    return cli_runtime_error(cmd, "--stats %s: files[%lld] lacks \"nprocs\" (>= 1) or \"layout\" "
                             "with integer stripe_count, stripe_size, ncomponents",
                             path, (long long)s->index);
  const ostio__json_member *src = ostio__json_find(&lay->value, "source");
  const char *source = src && src->value.type == OSTIO__JSON_STRING ? src->value.u.str.s : "";
  /* "log" (the model's container name for it) or "container" (a striped one). */
  s->container = ostio__mcontainer_from_name(source) == OSTIO__MC_LOG ? OSTIO__MC_LOG
                 : !strcmp(source, "container")                      ? OSTIO__MC_STRIPED
                                                                     : OSTIO__MC_FILE;
  if (s->container == OSTIO__MC_LOG && s->stripe_count == 0 && s->stripe_size == 0) {
    s->stripe_count = 1;      /* the logs' own layout is not in the document */
    s->stripe_size = (int64_t)1 << 20;
    s->ncomponents = 1;
  }
  if (s->ncomponents < 1 || s->stripe_count < 1 || s->stripe_count > OSTIO_MAX_STRIPE_COUNT ||
      s->stripe_size < 1 || s->stripe_size > 0xFFFFFFFFll)
    return cli_runtime_error(cmd, "--stats %s: files[%lld] has no stripe layout (stripe count "
                             "%lld, size %lld: a log container?); the model needs a striped file",
                             path, (long long)s->index, (long long)s->stripe_count,
                             (long long)s->stripe_size);
  char what[512], msg[768];
  snprintf(what, sizeof what, "--stats %s: files[%lld]: stripe size", path, (long long)s->index);
  if (lustre_stripe_size(s->stripe_size, what, msg, sizeof msg) < 0)
    return cli_runtime_error(cmd, "%s (the model takes Lustre's layouts)", msg);
  s->world_size = 1;
  if (job) get_int(&job->value, "world_size", &s->world_size);
  int64_t coll = counter(f, "coll_writes", "max"), indep = counter(f, "indep_writes", "max");
  s->calls = coll > 0 ? coll : indep;
  s->bytes = counter(f, "bytes_written", "sum");
  s->aggr_max = counter(f, "aggr_max", "max");
  s->strategy = run_strategy(f);
  s->fpp = s->nprocs == 1 && s->world_size > 1;
  s->cache = counter(f, "cache_hits", "sum") + counter(f, "cache_misses", "sum") > 0;
  s->sys_writes = counter(f, "sys_writes", "sum");
  s->indep = coll > 0 ? 0 : indep;
  /* The application's pieces (issue 31; documents from before have none). */
  s->pieces = counter(f, "app_write_pieces", "sum");
  s->pieces_min = counter(f, "app_write_pieces", "min");
  s->piece_bytes = counter(f, "app_write_bytes", "sum");
  s->piece_max = counter(f, "app_write_piece_max", "max");
  s->strided = counter(f, "app_write_strided", "sum");
  s->stride_min = counter(f, "app_write_stride", "min");
  s->stride_max = counter(f, "app_write_stride", "max");
  const ostio__json_member *warn = ostio__json_find(f, "warnings");
  for (size_t i = 0; warn && warn->value.type == OSTIO__JSON_ARRAY && i < warn->value.u.arr.n; i++) {
    const ostio__json_member *k = ostio__json_find(&warn->value.u.arr.item[i], "kind");
    int p = k && k->value.type == OSTIO__JSON_STRING ? ostio__advise_prefer_from_kind(k->value.u.str.s)
                                                     : -1;
    if (p >= 0) s->prefer |= 1u << p;
  }
  if (s->nprocs > INT32_MAX || s->world_size < 1 || s->world_size > INT32_MAX)
    return cli_runtime_error(cmd, "--stats %s: nprocs %lld, world_size %lld; accepted: 1 to %d",
                             path, (long long)s->nprocs, (long long)s->world_size, INT32_MAX);
  if (s->calls < 1 || s->calls > INT32_MAX || s->bytes < s->nprocs * s->calls)
    return cli_runtime_error(cmd, "--stats %s: files[%lld] (%s) wrote %lld bytes in %lld calls "
                             "per rank; the model needs a file that was written", path,
                             (long long)s->index, s->file, (long long)s->bytes, (long long)s->calls);
  return CLI_OK;
}

int model_stats_read(const char *cmd, const char *path, int64_t want, model_run *s)
{
  char *text = NULL;
  size_t len = 0;
  ostio__json *root = NULL;
  int status = read_all(cmd, path, &text, &len);
  if (status != CLI_OK) return status;
  memset(s, 0, sizeof *s);
  int rc = ostio__json_parse(text, len, &root);
  free(text);
  if (rc < 0) {
    status = cli_runtime_error(cmd, "--stats %s: %s", path, ostio_last_error());
    goto done;
  }
  const ostio__json_member *fmt = ostio__json_find(root, "format");
  int64_t version = 0;
  if (!fmt || fmt->value.type != OSTIO__JSON_STRING || strcmp(fmt->value.u.str.s, "ostio-stats") ||
      get_int(root, "version", &version) < 0 || version != 2) {
    status = cli_runtime_error(cmd, "--stats %s: not an ostio statistics document (expected "
                               "\"format\": \"ostio-stats\", \"version\": 2, as OSTIO_STATS=json:PATH "
                               "writes)", path);
    goto done;
  }
  const ostio__json_member *files = ostio__json_find(root, "files");
  status = pick_file(cmd, files ? &files->value : NULL, want, path, &s->index);
  if (status == CLI_OK)
    status = read_file_rec(cmd, root, &files->value.u.arr.item[s->index], path, s);
done:
  ostio__json_free(root);
  return status;
}

void model_stats_pattern(const model_run *s, ob_pattern_opts *o)
{
  ob_pattern_defaults(OB_PAT_IOR, o);
  o->block = o->transfer = s->bytes / (s->nprocs * s->calls);
  o->segments = s->calls;
  /* Independent calls of k system writes each, k dividing the call: k
   * interleaved pieces per call. */
  int64_t calls = s->indep * s->nprocs, k = calls > 0 ? s->sys_writes / calls : 0;
  if (k > 1 && s->sys_writes % calls == 0 && o->block % k == 0) {
    ob_pattern_defaults(OB_PAT_STRIDED, o);
    o->block = s->bytes / (s->nprocs * s->calls);
    o->transfer = o->block / k;
    o->segments = s->calls;
  }
  /* The application's pieces (issue 31): every rank's calls carried k > 1
   * pieces of t bytes each, each piece after a rank's first one the same
   * stride (larger than t) after the last: IOR's strided pattern, k pieces
   * per call. */
  int64_t P = s->nprocs, n = s->pieces, per = P * s->calls, t = n > 0 ? s->piece_bytes / n : 0;
  if (n > 0 && s->pieces_min > 0 && n % per == 0 && n / per > 1 && t > 0 &&
      t * n == s->piece_bytes && s->piece_max == t && s->strided == n - P &&
      s->stride_min == s->stride_max && s->stride_min > t) {
    ob_pattern_defaults(OB_PAT_STRIDED, o);
    o->block = n / per * t;
    o->transfer = t;
    o->segments = s->calls;
  }
}

int64_t model_stats_ranks(const model_run *s)
{
  return s->fpp ? s->world_size : s->nprocs;
}
