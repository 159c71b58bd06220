/* ostio advise: which strategy, stripe count and size, aggregator count and
 * container kind to use for a pattern on a described cluster, each with its
 * predicted gain and a one-line reason (issue 18). The pattern comes from
 * ostio-bench's flags (bench/patterns.c) or from the statistics JSON of a
 * real run (OSTIO_STATS=json:PATH); the search is model/advise.h's.
 * docs/model.md, "ostio advise". */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "model/advise.h"
#include "model/json.h"
#include "patterns.h"
#include "tools/cli.h"
#include "tools/model_args.h"

#define CMD "advise"

static const char *help =
  "Usage: ostio advise --system FILE [OPTIONS]\n\n"
  "Recommends, for an ostio-bench pattern or a real run's statistics on the\n"
  "cluster FILE describes (JSON: docs/model.md; shipped ones in systems/), the\n"
  "container kind (shared file or file per process), the strategy (ost, even,\n"
  "aligned, independent), the stripe count and size and the aggregator count,\n"
  "one line per knob: current -> recommended, the predicted bandwidth and gain\n"
  "and the reason, from the same model as `ostio model` (at most 256\n"
  "simulations). A model, not a measurement: docs/model.md says what it leaves\n"
  "out.\n\n"
  "Options:\n"
  "  --system FILE        the cluster (required)\n"
  "  --ranks N            MPI ranks  [--stats: the run's; else nodes x ranks per\n"
  "                       node of FILE, at most 1024]\n"
  "  --ranks-per-node K   [the description's]\n"
  "The current choice (with --stats: the run's; these flags override it):\n"
  "  --strategy NAME      ost, even, aligned, independent or fpp  [ost]\n"
  "  --stripe-count K     1 to 2000  [4]\n"
  "  --stripe-size S      [1m]\n"
  "  --cb-nodes N         aggregators, 0 = the strategy's rule  [0]\n"
  "  --fpp                a file per process (the same as --strategy fpp)\n"
  "The pattern, as ostio-bench's (ior, strided, btio, flash, random):\n"
  "  -p NAME -b SIZE -t SIZE -s N --btio-class C   [ior -b 1m -t 1m -s 1]\n"
  "or from a run:\n"
  "  --stats FILE         an OSTIO_STATS=json:PATH document (format ostio-stats,\n"
  "                       version 2): ranks, calls, bytes, layout and strategy of\n"
  "                       one of its files, approximated as IOR's segmented\n"
  "                       pattern (docs/model.md says what is lost)\n"
  "  --stats-file I       which file of the document (0-based index in \"files\")\n"
  "                       [the one with the most bytes written]\n"
  "  --json               print the advice as one JSON object\n"
  "  -h, --help           this text\n"
  "SIZE takes k, m, g (powers of 1024). Exit status 0, 1 on a model or\n"
  "statistics-file error, 2 on a usage error.\n";

enum { OPT_SYSTEM = OPT_MAX_PIECES + 1, OPT_RANKS, OPT_RPN, OPT_SC, OPT_SS, OPT_STRAT, OPT_CB,
       OPT_FPP, OPT_STATS, OPT_STATS_FILE };

typedef struct aargs {
  const char *system, *stats;
  int64_t ranks, rpn, stats_file;
  int64_t sc, ss, cb;          /* -1: not given                             */
  int strategy;                /* -1: not given                             */
  int json;
  model_pattern flags;         /* -p, -b, -t, -s, --btio-class as given     */
  ob_pattern_opts pat;
} aargs;

/* What a statistics document says about one file. */
typedef struct srun {
  char file[256];
  int64_t nprocs, world_size, calls, bytes, aggr_max, index;
  int64_t stripe_count, stripe_size, ncomponents;
  int strategy, fpp;
} srun;

/* ---- options ------------------------------------------------------------------------------ */

/* A whole decimal integer in [lo, hi], or -1 with *ok = 0. */
static int64_t int_arg(const char *s, int64_t lo, int64_t hi, int *ok)
{
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  *ok = end != s && !*end && errno == 0 && v >= lo && v <= hi;
  return *ok ? v : -1;
}

static int parse_opt(int c, aargs *a, char **argv)
{
  int ok = 1;
  if (model_pattern_is_opt(c)) return model_pattern_opt(CMD, &a->flags, c, optarg);
  switch (c) {
  case OPT_SYSTEM: a->system = optarg; break;
  case OPT_STATS: a->stats = optarg; break;
  case OPT_JSON: a->json = 1; break;
  case OPT_FPP: a->strategy = OSTIO__MS_FPP; break;
  case OPT_RANKS: a->ranks = int_arg(optarg, 1, INT32_MAX, &ok);
    return ok ? 0 : cli_usage_error(CMD, "--ranks %s: expected a count from 1 to %d", optarg, INT32_MAX);
  case OPT_RPN: a->rpn = int_arg(optarg, 1, 65536, &ok);
    return ok ? 0 : cli_usage_error(CMD, "--ranks-per-node %s: expected 1 to 65536", optarg);
  case OPT_STATS_FILE: a->stats_file = int_arg(optarg, 0, INT32_MAX, &ok);
    return ok ? 0 : cli_usage_error(CMD, "--stats-file %s: expected an index >= 0", optarg);
  case OPT_SC: a->sc = int_arg(optarg, 1, OSTIO_MAX_STRIPE_COUNT, &ok);
    return ok ? 0 : cli_usage_error(CMD, "--stripe-count %s: expected 1 to %d", optarg, OSTIO_MAX_STRIPE_COUNT);
  case OPT_SS: a->ss = model_size_arg(optarg);
    if (a->ss >= 1 && a->ss <= 0xFFFFFFFFll) return 0;
    return cli_usage_error(CMD, "--stripe-size %s: expected a size from 1 to 4294967295 bytes "
                           "(k, m, g suffixes)", optarg);
  case OPT_CB: a->cb = int_arg(optarg, 0, INT32_MAX, &ok);
    return ok ? 0 : cli_usage_error(CMD, "--cb-nodes %s: expected a count >= 0 (0: the rule)", optarg);
  case OPT_STRAT: a->strategy = ostio__mstrategy_from_name(optarg);
    if (a->strategy >= 0) return 0;
    return cli_usage_error(CMD, "--strategy %s: expected ost, even, aligned, independent or fpp", optarg);
  default: return cli_bad_option(CMD, argv);
  }
  return 0;
}

static int parse(int argc, char **argv, aargs *a)
{
  static const struct option opts[] = {
    {"system", required_argument, NULL, OPT_SYSTEM}, {"ranks", required_argument, NULL, OPT_RANKS},
    {"ranks-per-node", required_argument, NULL, OPT_RPN},
    {"stripe-count", required_argument, NULL, OPT_SC},
    {"stripe-size", required_argument, NULL, OPT_SS},
    {"strategy", required_argument, NULL, OPT_STRAT}, {"cb-nodes", required_argument, NULL, OPT_CB},
    {"fpp", no_argument, NULL, OPT_FPP}, {"btio-class", required_argument, NULL, MODEL_OPT_BTIO},
    {"stats", required_argument, NULL, OPT_STATS},
    {"stats-file", required_argument, NULL, OPT_STATS_FILE},
    {"json", no_argument, NULL, OPT_JSON}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
  *a = (aargs){.sc = -1, .ss = -1, .cb = -1, .strategy = -1, .stats_file = -1};
  model_pattern_init(&a->flags);
  int c, rc;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, MODEL_SHORT_OPTS, opts, NULL)) != -1) {
    if (c == 'h') {
      fputs(help, stdout);
      return 1;
    }
    if ((rc = parse_opt(c, a, argv)) != 0) return rc;
  }
  if (optind < argc) return cli_usage_error(CMD, "unexpected argument %s (see --help)", argv[optind]);
  if (!a->system) return cli_usage_error(CMD, "--system FILE is required (see systems/)");
  if (a->stats && a->flags.given)
    return cli_usage_error(CMD, "--stats gives the pattern: -p, -b, -t, -s and --btio-class "
                           "cannot be combined with it");
  if (a->stats_file >= 0 && !a->stats) return cli_usage_error(CMD, "--stats-file needs --stats FILE");
  model_pattern_opts(&a->flags, &a->pat);
  return 0;
}

/* ---- a statistics document ---------------------------------------------------------------- */

static int read_all(const char *path, char **text, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f) return cli_runtime_error(CMD, "--stats %s: %s", path, strerror(errno));
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
    return cli_runtime_error(CMD, "--stats %s: %s", path, bad ? "read error" : "out of memory");
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

static int pick_file(const ostio__json *files, int64_t want, const char *path, int64_t *index)
{
  if (!files || files->type != OSTIO__JSON_ARRAY || files->u.arr.n == 0)
    return cli_runtime_error(CMD, "--stats %s: no \"files\" listed (expected the array of the "
                             "files the run closed)", path);
  if (want >= (int64_t)files->u.arr.n)
    return cli_runtime_error(CMD, "--stats-file %lld: %s lists %zu files (0 to %zu)", (long long)want,
                             path, files->u.arr.n, files->u.arr.n - 1);
  *index = want;
  for (size_t i = 0; want < 0 && i < files->u.arr.n; i++)
    if (*index < 0 || counter(&files->u.arr.item[i], "bytes_written", "sum") >
                          counter(&files->u.arr.item[*index], "bytes_written", "sum"))
      *index = (int64_t)i;
  return CLI_OK;
}

static int read_file_rec(const ostio__json *root, const ostio__json *f, const char *path, srun *s)
{
  const ostio__json_member *lay = ostio__json_find(f, "layout"), *job = ostio__json_find(root, "job");
  const ostio__json_member *name = ostio__json_find(f, "file");
  if (name && name->value.type == OSTIO__JSON_STRING)
    snprintf(s->file, sizeof s->file, "%s", name->value.u.str.s);
  if (get_int(f, "nprocs", &s->nprocs) < 0 || s->nprocs < 1 || !lay ||
      get_int(&lay->value, "stripe_count", &s->stripe_count) < 0 ||
      get_int(&lay->value, "stripe_size", &s->stripe_size) < 0 ||
      get_int(&lay->value, "ncomponents", &s->ncomponents) < 0)
    return cli_runtime_error(CMD, "--stats %s: files[%lld] lacks \"nprocs\" (>= 1) or \"layout\" "
                             "with integer stripe_count, stripe_size, ncomponents",
                             path, (long long)s->index);
  if (s->ncomponents < 1 || s->stripe_count < 1 || s->stripe_count > OSTIO_MAX_STRIPE_COUNT ||
      s->stripe_size < 1 || s->stripe_size > 0xFFFFFFFFll)
    return cli_runtime_error(CMD, "--stats %s: files[%lld] has no stripe layout (stripe count "
                             "%lld, size %lld: a log container?); advise models striped files",
                             path, (long long)s->index, (long long)s->stripe_count,
                             (long long)s->stripe_size);
  s->world_size = 1;
  if (job) get_int(&job->value, "world_size", &s->world_size);
  int64_t coll = counter(f, "coll_writes", "max"), indep = counter(f, "indep_writes", "max");
  s->calls = coll > 0 ? coll : indep;
  s->bytes = counter(f, "bytes_written", "sum");
  s->aggr_max = counter(f, "aggr_max", "max");
  s->strategy = run_strategy(f);
  s->fpp = s->nprocs == 1 && s->world_size > 1;
  if (s->nprocs > INT32_MAX || s->world_size < 1 || s->world_size > INT32_MAX)
    return cli_runtime_error(CMD, "--stats %s: nprocs %lld, world_size %lld; accepted: 1 to %d",
                             path, (long long)s->nprocs, (long long)s->world_size, INT32_MAX);
  if (s->calls < 1 || s->calls > INT32_MAX || s->bytes < s->nprocs * s->calls)
    return cli_runtime_error(CMD, "--stats %s: files[%lld] (%s) wrote %lld bytes in %lld calls "
                             "per rank; advise needs a file that was written", path,
                             (long long)s->index, s->file, (long long)s->bytes, (long long)s->calls);
  return CLI_OK;
}

static int read_stats(const char *path, int64_t want, srun *s)
{
  char *text = NULL;
  size_t len = 0;
  ostio__json *root = NULL;
  int status = read_all(path, &text, &len);
  if (status != CLI_OK) return status;
  memset(s, 0, sizeof *s);
  int rc = ostio__json_parse(text, len, &root);
  free(text);
  if (rc < 0) {
    status = cli_runtime_error(CMD, "--stats %s: %s", path, ostio_last_error());
    goto done;
  }
  const ostio__json_member *fmt = ostio__json_find(root, "format");
  int64_t version = 0;
  if (!fmt || fmt->value.type != OSTIO__JSON_STRING || strcmp(fmt->value.u.str.s, "ostio-stats") ||
      get_int(root, "version", &version) < 0 || version != 2) {
    status = cli_runtime_error(CMD, "--stats %s: not an ostio statistics document (expected "
                               "\"format\": \"ostio-stats\", \"version\": 2, as OSTIO_STATS=json:PATH "
                               "writes)", path);
    goto done;
  }
  const ostio__json_member *files = ostio__json_find(root, "files");
  status = pick_file(files ? &files->value : NULL, want, path, &s->index);
  if (status == CLI_OK)
    status = read_file_rec(root, &files->value.u.arr.item[s->index], path, s);
done:
  ostio__json_free(root);
  return status;
}

/* ---- output ------------------------------------------------------------------------------- */

static void json_choice(const ostio__advise_eval *e)
{
  const ostio__advise_choice *c = &e->c;
  printf("{\"container\": \"%s\", \"strategy\": \"%s\", \"stripe_count\": %lld, "
         "\"stripe_size\": %lld, \"cb_nodes\": %lld, \"aggregators\": %lld, "
         "\"bandwidth_MBps\": %.6g, \"time_s\": %.6g, \"conflicts\": %.6g, \"bottleneck\": ",
         c->strategy == OSTIO__MS_FPP ? "fpp" : "shared", ostio__mstrategy_name(c->strategy),
         (long long)c->stripe_count, (long long)c->stripe_size, (long long)c->cb_nodes,
         (long long)e->naggr, e->bandwidth / 1e6, e->time, e->conflicts);
  json_string(stdout, e->bottleneck);
  printf("}");
}

static void print_json(const ostio__sys *sys, const ostio__advise_result *r, int64_t P,
                       const ob_pattern_opts *o, int ncalls, const char *stats, const srun *s)
{
  printf("{\"system\": ");
  json_string(stdout, sys->name);
  printf(", \"ranks\": %lld, \"ranks_per_node\": %d, \"nodes\": %lld, \"pattern\": {\"kind\": \"%s\", "
         "\"block\": %lld, \"transfer\": %lld, \"segments\": %lld, \"calls\": %d, \"source\": ",
         (long long)P, r->ranks_per_node, (long long)r->nodes, ob_pattern_name(o->kind),
         (long long)o->block, (long long)o->transfer, (long long)o->segments, ncalls);
  json_string(stdout, stats ? "stats" : "flags");
  if (stats) {
    printf("}, \"stats\": {\"path\": ");
    json_string(stdout, stats);
    printf(", \"index\": %lld, \"file\": ", (long long)s->index);
    json_string(stdout, s->file);
    printf(", \"nprocs\": %lld, \"world_size\": %lld, \"calls_per_rank\": %lld, \"bytes_written\": %lld, "
           "\"aggregators_max\": %lld, \"file_per_process\": %s", (long long)s->nprocs,
           (long long)s->world_size, (long long)s->calls, (long long)s->bytes,
           (long long)s->aggr_max, s->fpp ? "true" : "false");
  }
  printf("}, \"simulations\": %d, \"stripe_counts_tried\": %d, \"stripe_sizes_tried\": %d, "
         "\"current\": ", r->nsims, r->nstripe_counts, r->nstripe_sizes);
  json_choice(&r->current);
  printf(", \"recommended\": ");
  json_choice(&r->best);
  printf(", \"gain\": %.6g, \"knobs\": [", r->gain);
  for (int k = 0; k < OSTIO__ADV_NKNOBS; k++) {
    const ostio__advise_knob *kn = &r->knob[k];
    printf("%s{\"knob\": \"%s\", \"current\": ", k ? ", " : "", kn->name);
    json_string(stdout, kn->current);
    printf(", \"recommended\": ");
    json_string(stdout, kn->recommended);
    printf(", \"change\": %s, \"bandwidth_MBps\": %.6g, \"gain\": %.6g, \"reason\": ",
           kn->change ? "true" : "false", kn->bandwidth / 1e6, kn->gain);
    json_string(stdout, kn->reason);
    printf("}");
  }
  printf("]}\n");
}

static void print_text(const ostio__sys *sys, const ostio__advise_result *r, int64_t P,
                       const ob_pattern_opts *o, int ncalls, const char *stats, const srun *s)
{
  printf("# %s: %lld OSTs behind %d OSS; %lld ranks, %d per node (%lld nodes)\n", sys->name,
         (long long)ostio__sys_nost(sys), sys->noss, (long long)P, r->ranks_per_node,
         (long long)r->nodes);
  if (stats)
    printf("# from %s, files[%lld] %s: %lld ranks%s, %lld calls per rank, %lld bytes, at most "
           "%lld aggregators active\n", stats, (long long)s->index, s->file, (long long)s->nprocs,
           s->fpp ? " (one file of a file-per-process set)" : "", (long long)s->calls,
           (long long)s->bytes, (long long)s->aggr_max);
  char b[32], t[32];
  ostio__advise_size_str(b, sizeof b, o->block);
  ostio__advise_size_str(t, sizeof t, o->transfer);
  printf("# pattern %s -b %s -t %s -s %lld (%d call%s); %d simulations; a model, not a "
         "measurement (docs/model.md)\n", ob_pattern_name(o->kind), b, t, (long long)o->segments,
         ncalls, ncalls == 1 ? "" : "s", r->nsims);
  printf("%-13s %-34s %10s %7s  %s\n", "knob", "current -> recommended", "MB/s", "gain", "reason");
  char mv[96];
  for (int k = 0; k < OSTIO__ADV_NKNOBS; k++) {
    const ostio__advise_knob *kn = &r->knob[k];
    if (kn->change) snprintf(mv, sizeof mv, "%s -> %s", kn->current, kn->recommended);
    else snprintf(mv, sizeof mv, "%s (keep)", kn->current);
    printf("%-13s %-34s %10.1f  x%-5.2f  %s\n", kn->name, mv, kn->bandwidth / 1e6, kn->gain,
           kn->reason);
  }
  printf("%-13s %-34s %10.1f  x%-5.2f  from %.1f MB/s (%s) to %.1f MB/s (%s)\n", "total", "",
         r->best.bandwidth / 1e6, r->gain, r->current.bandwidth / 1e6, r->current.bottleneck,
         r->best.bandwidth / 1e6, r->best.bottleneck);
}

/* ---- the command -------------------------------------------------------------------------- */

/* The current choice and the pattern from the flags, or from the run. */
static void current_choice(const aargs *a, const srun *s, ostio__advise_choice *c,
                           ob_pattern_opts *o)
{
  *c = (ostio__advise_choice){.strategy = OSTIO__MS_OST, .stripe_count = 4,
                              .stripe_size = (int64_t)1 << 20};
  if (s) {
    *c = (ostio__advise_choice){.strategy = s->fpp ? OSTIO__MS_FPP : s->strategy,
                                .stripe_count = s->stripe_count, .stripe_size = s->stripe_size};
    ob_pattern_defaults(OB_PAT_IOR, o);
    o->block = o->transfer = s->bytes / (s->nprocs * s->calls);
    o->segments = s->calls;
  }
  if (a->strategy >= 0) c->strategy = a->strategy;
  if (a->sc > 0) c->stripe_count = a->sc;
  if (a->ss > 0) c->stripe_size = a->ss;
  if (a->cb >= 0) c->cb_nodes = a->cb;
}

int cmd_advise(int argc, char **argv)
{
  aargs a;
  int rc = parse(argc, argv, &a);
  if (rc != 0) return rc == 1 ? CLI_OK : rc;
  ostio__sys sys;
  srun run = {0};
  if ((rc = ostio__sys_load(a.system, &sys)) < 0) return cli_lib_error(CMD, rc);
  if (a.stats && (rc = read_stats(a.stats, a.stats_file, &run)) != CLI_OK) return rc;
  ostio__advise_input in = {.sys = &sys, .ranks_per_node = (int)a.rpn, .call = model_plans_call};
  current_choice(&a, a.stats ? &run : NULL, &in.current, &a.pat);
  int64_t cap = sys.nodes * (a.rpn ? a.rpn : sys.ranks_per_node);
  in.nranks = a.ranks ? a.ranks : a.stats ? (run.fpp ? run.world_size : run.nprocs)
                                          : (cap < 1024 ? cap : 1024);
  int64_t rpn = a.rpn ? a.rpn : sys.ranks_per_node;
  if ((in.nranks + rpn - 1) / rpn > sys.nodes)
    return cli_usage_error(CMD, "%lld ranks at %lld per node need %lld nodes; %s has %lld (give "
                           "--ranks or --ranks-per-node)", (long long)in.nranks, (long long)rpn,
                           (long long)((in.nranks + rpn - 1) / rpn), sys.name, (long long)sys.nodes);
  if (in.current.cb_nodes > in.nranks)
    return cli_usage_error(CMD, "--cb-nodes %lld: expected 0 to %lld (the ranks)",
                           (long long)in.current.cb_nodes, (long long)in.nranks);
  model_plans p;
  ostio__advise_result r;
  int status = model_plans_build(CMD, &a.pat, in.nranks, &p);
  in.ncalls = p.ncalls;
  in.ctx = &p;
  if (status == CLI_OK && (rc = ostio__advise(&in, &r)) < 0) status = cli_lib_error(CMD, rc);
  if (status == CLI_OK && a.json)
    print_json(&sys, &r, in.nranks, &a.pat, in.ncalls, a.stats, &run);
  else if (status == CLI_OK)
    print_text(&sys, &r, in.nranks, &a.pat, in.ncalls, a.stats, &run);
  model_plans_free(&p);
  return status;
}
