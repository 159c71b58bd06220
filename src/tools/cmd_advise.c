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
#include <time.h>
#include <unistd.h>

#include "model/advise.h"
#include "patterns.h"
#include "tools/cli.h"
#include "tools/model_args.h"

#define CMD "advise"

static const char *help =
  "Usage: ostio advise --system FILE [OPTIONS]\n\n"
  "Recommends, for an ostio-bench pattern or a real run's statistics on the\n"
  "cluster FILE describes (JSON: docs/model.md; shipped ones: --system), the\n"
  "container kind (shared file, striped container, log container or file per\n"
  "process), the client cache (ostio_cache), the strategy (ost, even, aligned,\n"
  "independent), the stripe count and size and the aggregator count, one line\n"
  "per knob: current -> recommended, the predicted bandwidth and gain and the\n"
  "reason, from the same model as `ostio model` (at most 320 simulations). With\n"
  "--stats, the run's own warnings decide between candidates the model cannot\n"
  "tell apart. A model, not a measurement: docs/model.md says what it leaves\n"
  "out.\n\n"
  "Options:\n"
  "  --system FILE        the cluster (required); shipped ones in\n"
  "                       PREFIX/share/ostio/systems/ (source tree: systems/)\n"
  "  --ranks N            MPI ranks  [--stats: the run's; else nodes x ranks per\n"
  "                       node of FILE, at most 1024]\n"
  "  --ranks-per-node K   [the description's]\n"
  "The current choice (with --stats: the run's; these flags override it):\n"
  "  --strategy NAME      ost, even, aligned, independent or fpp  [ost]\n"
  "  --stripe-count K     1 to 2000  [4]\n"
  "  --stripe-size S      a multiple of 64k, below 4g, as Lustre takes it  [1m]\n"
  "  --cb-nodes N         aggregators, 0 = the strategy's rule  [0]\n"
  "  --fpp                a file per process (the same as --strategy fpp)\n"
  "  --container KIND     shared (a plain file), striped or log  [shared]\n"
  "  --cache on|off       ostio_cache=enable  [off]\n"
  "The pattern, as ostio-bench's (ior, strided, btio, flash, random):\n"
  "  -p NAME -b SIZE -t SIZE -s N --btio-class C   [ior -b 1m -t 1m -s 1]\n"
  "or from a run:\n"
  "  --stats FILE         an OSTIO_STATS=json:PATH document (format ostio-stats,\n"
  "                       version 2): ranks, calls, bytes, layout and strategy of\n"
  "                       one of its files, approximated as IOR's segmented\n"
  "                       pattern, or as its strided one when the recorded\n"
  "                       application pieces are uniform and strided\n"
  "                       (docs/model.md says what is lost); -p strided|ior\n"
  "                       and -t SIZE give the pieces of the run's calls\n"
  "                       instead\n"
  "  --stats-file I       which file of the document (0-based index in \"files\")\n"
  "                       [the one with the most bytes written]\n"
  "  --json               print the advice as one JSON object\n"
  "  --progress           one line per simulation on stderr (\"simulation N of\n"
  "                       at most M\"); shown anyway when stderr is a terminal\n"
  "  -h, --help           this text\n"
  "SIZE takes k, m, g (powers of 1024). Exit status 0, 1 on a model or\n"
  "statistics-file error, 2 on a usage error.\n";

enum { OPT_SYSTEM = OPT_MAX_PIECES + 1, OPT_RANKS, OPT_RPN, OPT_SC, OPT_SS, OPT_STRAT, OPT_CB,
       OPT_FPP, OPT_STATS, OPT_STATS_FILE, OPT_PROGRESS, OPT_CONTAINER, OPT_CACHE };

typedef struct aargs {
  const char *system, *stats;
  int64_t ranks, rpn, stats_file;
  int64_t sc, ss, cb;          /* -1: not given                             */
  int strategy;                /* -1: not given                             */
  int container, cache;        /* -1: not given                             */
  int json, progress;
  model_pattern flags;         /* -p, -b, -t, -s, --btio-class as given     */
  ob_pattern_opts pat;
} aargs;

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
  case OPT_PROGRESS: a->progress = 1; break;
  case OPT_FPP: a->strategy = OSTIO__MS_FPP; break;
  case OPT_CONTAINER:
    a->container = !strcmp(optarg, "shared") ? OSTIO__MC_FILE
                   : ostio__mcontainer_from_name(optarg) > 0 ? ostio__mcontainer_from_name(optarg)
                                                              : -1;
    if (a->container >= 0) return 0;
    return cli_usage_error(CMD, "--container %s: expected shared, striped or log (a file per "
                           "process: --fpp)", optarg);
  case OPT_CACHE:
    a->cache = !strcmp(optarg, "on") ? 1 : !strcmp(optarg, "off") ? 0 : -1;
    return a->cache >= 0 ? 0 : cli_usage_error(CMD, "--cache %s: expected on or off", optarg);
  case OPT_RANKS: a->ranks = int_arg(optarg, 1, INT32_MAX, &ok);
    return ok ? 0 : cli_usage_error(CMD, "--ranks %s: expected a count from 1 to %d", optarg, INT32_MAX);
  case OPT_RPN: a->rpn = int_arg(optarg, 1, 65536, &ok);
    return ok ? 0 : cli_usage_error(CMD, "--ranks-per-node %s: expected 1 to 65536", optarg);
  case OPT_STATS_FILE: a->stats_file = int_arg(optarg, 0, INT32_MAX, &ok);
    return ok ? 0 : cli_usage_error(CMD, "--stats-file %s: expected an index >= 0", optarg);
  case OPT_SC: a->sc = int_arg(optarg, 1, OSTIO_MAX_STRIPE_COUNT, &ok);
    return ok ? 0 : cli_usage_error(CMD, "--stripe-count %s: expected 1 to %d", optarg, OSTIO_MAX_STRIPE_COUNT);
  case OPT_SS: return model_stripe_size_arg(CMD, optarg, &a->ss);
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
    {"container", required_argument, NULL, OPT_CONTAINER},
    {"cache", required_argument, NULL, OPT_CACHE},
    {"stats", required_argument, NULL, OPT_STATS},
    {"stats-file", required_argument, NULL, OPT_STATS_FILE},
    {"json", no_argument, NULL, OPT_JSON}, {"progress", no_argument, NULL, OPT_PROGRESS},
    {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
  *a = (aargs){.sc = -1, .ss = -1, .cb = -1, .strategy = -1, .stats_file = -1, .container = -1,
               .cache = -1};
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
  if (!a->system) {
    char dir[PATH_MAX];
    return cli_usage_error(CMD, "--system FILE is required (shipped ones in %s)",
                           model_systems_dir(dir, sizeof dir));
  }
  if (a->stats && (a->flags.block > 0 || a->flags.segments > 0 || a->flags.btio_class ||
                   (a->flags.kind != OB_PAT_IOR && a->flags.kind != OB_PAT_STRIDED)))
    return cli_usage_error(CMD, "--stats gives the bytes and calls: -b, -s, --btio-class and "
                           "patterns other than ior and strided cannot be combined with it "
                           "(-p strided -t SIZE give the pieces of the run's calls)");
  if (a->stats_file >= 0 && !a->stats) return cli_usage_error(CMD, "--stats-file needs --stats FILE");
  model_pattern_opts(&a->flags, &a->pat);
  return 0;
}

/* ---- output ------------------------------------------------------------------------------- */

/* The run's warnings and whether the advice follows each. */
static void print_warnings(const ostio__advise_result *r, unsigned prefer, int json)
{
  int first = 1;
  for (int p = 0; p < OSTIO__ADV_NPREFER; p++) {
    if (!(prefer >> p & 1u)) continue;
    int follows = ostio__advise_follows(&r->best.c, p);
    if (json) {
      printf("%s{\"kind\": \"%s\", \"advice\": \"%s\", \"followed\": %s, \"gain\": %.6g}",
             first ? "" : ", ", ostio__advise_prefer_kind(p), ostio__advise_prefer_advice(p),
             follows ? "true" : "false", r->prefer_gain[p]);
    } else if (follows) {
      printf("# the run's statistics warned: %s (try %s): followed\n",
             ostio__advise_prefer_kind(p), ostio__advise_prefer_advice(p));
    } else {
      printf("# the run's statistics warned: %s (try %s): not followed, the model predicts "
             "x%.2f for the best candidate that does\n", ostio__advise_prefer_kind(p),
             ostio__advise_prefer_advice(p), r->prefer_gain[p]);
    }
    first = 0;
  }
}

static void json_choice(const ostio__advise_eval *e)
{
  const ostio__advise_choice *c = &e->c;
  int log = c->container == OSTIO__MC_LOG && c->strategy != OSTIO__MS_FPP;
  printf("{\"container\": \"%s\", \"cache\": %s, \"strategy\": \"%s\", \"stripe_count\": %lld, "
         "\"stripe_size\": %lld, \"cb_nodes\": %lld, \"aggregators\": %lld, "
         "\"bandwidth_MBps\": %.6g, \"time_s\": %.6g, \"conflicts\": %.6g, \"bottleneck\": ",
         c->strategy == OSTIO__MS_FPP ? "fpp" : log ? "log"
         : c->container == OSTIO__MC_STRIPED ? "striped" : "shared", c->cache ? "true" : "false",
         log ? "-" : ostio__mstrategy_name(c->strategy),
         (long long)c->stripe_count, (long long)c->stripe_size, (long long)c->cb_nodes,
         (long long)e->naggr, e->bandwidth / 1e6, e->time, e->conflicts);
  json_string(stdout, e->bottleneck);
  printf("}");
}

static void print_json(const ostio__sys *sys, const ostio__advise_result *r, int64_t P,
                       const ob_pattern_opts *o, int ncalls, const char *stats, const model_run *s)
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
    printf(", \"warnings\": [");
    print_warnings(r, s->prefer, 1);
    printf("]");
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
                       const ob_pattern_opts *o, int ncalls, const char *stats, const model_run *s)
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
  if (stats) print_warnings(r, s->prefer, 0);
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

/* ---- progress ----------------------------------------------------------------------------- */

typedef struct progress {
  int tty;                     /* stderr is a terminal: one line, rewritten */
  double t0;
} progress;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_progress(void *arg, int done, int most)
{
  const progress *p = arg;
  fprintf(stderr, "%sostio advise: simulation %d of at most %d (%.1f s)%s", p->tty ? "\r" : "",
          done, most, now() - p->t0, p->tty ? "\033[K" : "\n");
  fflush(stderr);
}

/* ---- the command -------------------------------------------------------------------------- */

/* The current choice and the pattern from the flags, or from the run (with
 * -t: the pieces of its calls). CLI_OK or a usage error's status. */
static int current_choice(const aargs *a, const model_run *s, ostio__advise_choice *c,
                          ob_pattern_opts *o)
{
  *c = (ostio__advise_choice){.strategy = OSTIO__MS_OST, .stripe_count = 4,
                              .stripe_size = (int64_t)1 << 20};
  if (s) {
    *c = (ostio__advise_choice){.strategy = s->fpp ? OSTIO__MS_FPP : s->strategy,
                                .stripe_count = s->stripe_count, .stripe_size = s->stripe_size,
                                .container = s->container, .cache = s->cache};
    model_stats_pattern(s, o);
    int64_t t = a->flags.transfer, b = o->block;
    if (t > 0 && (b % t != 0))
      return cli_usage_error(CMD, "-t %lld: the run wrote %lld bytes per rank per call; the "
                             "pieces must divide it", (long long)t, (long long)b);
    if (t > 0 && t < b) {
      int64_t calls = o->segments;
      *o = (ob_pattern_opts){.kind = OB_PAT_STRIDED, .block = b, .transfer = t,
                             .segments = calls, .seed = o->seed};
    }
  }
  if (a->strategy >= 0) c->strategy = a->strategy;
  if (a->sc > 0) c->stripe_count = a->sc;
  if (a->ss > 0) c->stripe_size = a->ss;
  if (a->cb >= 0) c->cb_nodes = a->cb;
  if (a->container >= 0) c->container = a->container;
  if (a->cache >= 0) c->cache = a->cache;
  *c = ostio__advise_normal(*c);
  return CLI_OK;
}

int cmd_advise(int argc, char **argv)
{
  aargs a;
  int rc = parse(argc, argv, &a);
  if (rc != 0) return rc == 1 ? CLI_OK : rc;
  ostio__sys sys;
  model_run run = {0};
  if ((rc = ostio__sys_load(a.system, &sys)) < 0) return cli_lib_error(CMD, rc);
  if (a.stats && (rc = model_stats_read(CMD, a.stats, a.stats_file, &run)) != CLI_OK) return rc;
  ostio__advise_input in = {.sys = &sys, .ranks_per_node = (int)a.rpn, .call = model_plans_call,
                            .prefer = a.stats ? run.prefer : 0};
  if ((rc = current_choice(&a, a.stats ? &run : NULL, &in.current, &a.pat)) != CLI_OK) return rc;
  int64_t cap = sys.nodes * (a.rpn ? a.rpn : sys.ranks_per_node);
  in.nranks = a.ranks ? a.ranks : a.stats ? model_stats_ranks(&run)
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
  progress pr = {.tty = isatty(STDERR_FILENO), .t0 = now()};
  if (a.progress || pr.tty) {
    in.progress = on_progress;
    in.progress_arg = &pr;
  }
  if (status == CLI_OK) {
    rc = ostio__advise(&in, &r);
    if (in.progress && pr.tty) fputs("\n", stderr); /* the error, if any, on a line of its own */
    if (rc < 0) status = cli_lib_error(CMD, rc);
  }
  if (status == CLI_OK && a.json)
    print_json(&sys, &r, in.nranks, &a.pat, in.ncalls, a.stats, &run);
  else if (status == CLI_OK)
    print_text(&sys, &r, in.nranks, &a.pat, in.ncalls, a.stats, &run);
  model_plans_free(&p);
  return status;
}
